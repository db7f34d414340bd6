// SceneWorld::Impl, shared by scene_world.cpp (the world, the step and its statistics) and
// scene_world_bodies.cpp (the ground, objects, balls and scripted events).
#pragma once

#include "shatter/collision.h"
#include "shatter/scenes/scene_world.h"

#include "timed_world.h"

#include <btBulletDynamicsCommon.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace shatter::scenes
{

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline btVector3 bt(const Eigen::Vector3d& v)
{
    return {btScalar(v.x()), btScalar(v.y()), btScalar(v.z())};
}

struct SceneWorld::Impl
{
    struct Placed
    {
        std::string name;
        fracture::ObjectId id = 0;
        bool fracturable = true;
    };
    struct Ball
    {
        std::unique_ptr<btSphereShape> shape;
        std::unique_ptr<btRigidBody> body;
        double radius = 0;  // m
        double density = 0; // kg/m³
    };

    Impl(const Scene& sc, const RunSettings& op);
    ~Impl() { teardown(); }
    void build();
    // Takes the world apart in Bullet's order (bodies out before the world goes, the registration
    // before the dispatcher); safe on a partly built world.
    void teardown();

    void addGround();
    fracture::ObjectId addObject(const SceneObject& object);
    btRigidBody* spawnBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity, double radius,
                           double density);
    // Applies the events due in the coming step; returns the fracture work of scripted impulses.
    void applyDueEvents(double stepEnd, StepStats& stats);
    void applyImpulse(const SceneEvent& e, StepStats& stats);
    void measureBodies(StepStats& stats) const;
    /// Takes the ball's body out of the world and its shape out of the registration's field cache (the
    /// caller then drops the ball).
    void removeBall(const Ball& ball)
    {
        world->removeRigidBody(ball.body.get());
        registration->forgetShape(ball.shape.get());
    }
    /// The asset addObject gives `object` (built or read from the asset cache).
    std::shared_ptr<const Asset> objectAsset(const SceneObject& object) const;
    /// The scene object (placed at the start or by an event) of that name; null if there is none.
    const SceneObject* sceneObject(const std::string& name) const;
    /// A collision object's name in saves (scene_save.cpp); throws for one that is not the scene's.
    std::uint64_t bodyKey(const btCollisionObject& object) const;
    /// Takes every object and ball out (respawn, restore).
    void removeContents();
    /// Takes the balls whose transform or velocity is not finite out of the world; returns how many.
    int removeNonFiniteBalls();
    // The post-tick callback: FractureSystem's work, timed as a whole (impact evaluations that do not
    // break anything cost a deformation solve too, and belong in the fracture column).
    static void tickCallback(btDynamicsWorld* world, btScalar timeStep);

    Scene scene;
    RunSettings options;
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<ParallelCollisionDispatcher> dispatcher;
    std::unique_ptr<CollisionRegistration> registration; // before the dispatcher goes
    std::unique_ptr<btBroadphaseInterface> broadphase;
    std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
    std::unique_ptr<TimedWorld> world;
    std::unique_ptr<fracture::FractureSystem> system;
    std::unique_ptr<btTriangleMesh> groundMesh;
    std::unique_ptr<btCollisionShape> groundShape;
    std::unique_ptr<btRigidBody> ground;
    std::vector<Placed> placed; // in add order = id order
    std::vector<Ball> balls;    // in spawn order
    std::size_t nextEvent = 0;
    double eventOrigin = 0; // simulated s at which the scene's event times start (respawn moves it)
    double tickMs = 0;      // the last post-tick callback
    int steps = 0;
    std::vector<StepStats> history;
};

} // namespace shatter::scenes
