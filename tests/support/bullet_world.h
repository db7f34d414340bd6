// Real Bullet worlds for the plugin's physics tests and benchmarks: an existing-style
// btDiscreteDynamicsWorld (or the *Mt one under Bullet's sequential scheduler) with Shatter registered,
// grounds of every kind, fracturable and ordinary bodies, and the measurements the acceptance tests
// use (contacts per pair, lowest surface point, speed). Assets come from assets/meshes through the
// content-keyed cache in the build tree (test::cachedMeshAsset), so each build directory builds them once.
#pragma once

#include "asset_build.h"
#include "asset_data.h"
#include "comparison_variants.h"
#include "fracturable_shape.h"
#include "object_state.h"
#include "shatter/collision.h"
#include "shatter/fracturable_body.h"
#include "shatter/fracture_system.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorldMt.h>
#include <btBulletDynamicsCommon.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shatter::test
{

/// assets/meshes/<file> as an Asset, cached on disk under the build tree and in memory per process.
std::shared_ptr<const Asset> bulletAsset(const std::string& file);

/// A fresh ObjectState (fragment 0 = the whole object) of assets/meshes/<file>.
std::shared_ptr<ObjectState> freshState(const std::string& file);

/// A rotation about the y axis by `degrees`, then a translation.
Eigen::Isometry3d placement(const Vec3& translation,
                            const Eigen::Matrix3d& rotation = Eigen::Matrix3d::Identity());

/// A Bullet vector as a Vec3.
Vec3 toVec(const btVector3& v);

/// FNV-1a of every body's transform and velocities, in the given order: equal states, equal hashes.
std::uint64_t hashBodies(const std::vector<btRigidBody*>& bodies);

/// After a run whose every event failed (`failed` in all, `logged` the log's messages): nothing broke,
/// `object` kept its one body, every failure was logged, the last naming Young's modulus.
void expectFailuresReportedNotApplied(const fracture::FractureSystem& system, fracture::ObjectId object,
                                      int failed, const std::vector<std::string>& logged,
                                      const std::string& expectedInMessage);

struct WorldSettings
{
    bool multithreaded =
        false; ///< btCollisionDispatcherMt + btDiscreteDynamicsWorldMt (sequential scheduler)
    /// > 0: a ParallelCollisionDispatcher with this many threads instead of btCollisionDispatcher.
    int collisionThreads = 0;
    CollisionSettings collision;
    ComparisonVariants variants; ///< contacts and order: the papers' baselines (comparison_variants.h)
    int solverIterations = 10;
    /// SOLVER_USE_2_FRICTION_DIRECTIONS. Bullet's default solves friction along one direction per
    /// contact (the sliding direction, or an arbitrary one at rest), so bodies resting on each other
    /// creep sideways under any small tangential load; stacks want two (docs/user-guide.md). Off by
    /// default: Bullet's default is what a user's world has.
    bool twoFrictionDirections = false;
    bool register_ = true; ///< make a CollisionRegistration (false: plain Bullet, for baselines)
    /// StaticPriorityConstraintSolver (contact_solver.h) instead of Bullet's; not with `multithreaded`.
    bool staticPrioritySolver = false;
};

/// A Bullet world that owns its bodies and shapes; y up, g = 9.81.
class BulletWorld
{
public:
    explicit BulletWorld(const WorldSettings& options = {});
    ~BulletWorld();
    BulletWorld(const BulletWorld&) = delete;
    BulletWorld& operator=(const BulletWorld&) = delete;

    btDiscreteDynamicsWorld& world() { return *dynamicsWorld; }
    btCollisionDispatcher& dispatcher() { return *collisionDispatcher; }
    /// Shatter's registration with the dispatcher (asserts register_ was set).
    CollisionRegistration& collision();

    /// A static plane y = height.
    btRigidBody* addGroundPlane(Real height = 0);
    /// A static box whose top face is at y = 0.
    btRigidBody* addGroundBox(const Vec3& halfExtents = Vec3(1, 0.1, 1));
    /// A static btBvhTriangleMeshShape: a square grid of size × size at y = 0, n × n cells.
    btRigidBody* addGroundMesh(Real size = 2, int n = 16);
    /// A fracturable body of `fragment` with its material frame at `materialToWorld`.
    btRigidBody* addFracturable(std::shared_ptr<ObjectState> state, FragmentId fragment,
                                const Eigen::Isometry3d& materialToWorld, Real density = 1000,
                                bool dynamic = true);
    /// Any shape as a body (mass 0: static); the world takes the shape.
    btRigidBody* addBody(std::unique_ptr<btCollisionShape> shape, Real mass, const btTransform& transform);
    /// Removes and deletes a body added through this world.
    void removeBody(btRigidBody* body);

    /// One fixed step of dt (one substep).
    void step(Real dt = 1.0 / 120.0);
    /// Contacts in all manifolds between two bodies.
    int contacts(const btCollisionObject* a, const btCollisionObject* b) const;
    /// Number of manifolds between two bodies.
    int manifolds(const btCollisionObject* a, const btCollisionObject* b) const;

private:
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> collisionDispatcher;
    std::unique_ptr<btBroadphaseInterface> broadphase;
    std::unique_ptr<btConstraintSolverPoolMt> solverPool;
    std::unique_ptr<btConstraintSolver> solver;
    std::unique_ptr<btDiscreteDynamicsWorld> dynamicsWorld;
    std::unique_ptr<CollisionRegistration> registration;
    std::unique_ptr<btTriangleMesh> groundMesh;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
};

/// The lowest world y of a fracturable body's surface vertices.
Real lowestPoint(const btRigidBody& body);
/// World position of a material-frame point of a fracturable body.
Vec3 materialToWorld(const btRigidBody& body, const Vec3& p);
/// |v| of the body's centre of mass and |ω| · bounding radius (the fastest surface speed from spin).
Real surfaceSpeed(const btRigidBody& body);
/// The highest point where the vertical line through (x, z) crosses a fracturable body's surface
/// (brute force over its triangles, world frame); −infinity if it misses.
Real surfaceHeight(const btRigidBody& body, Real x, Real z);
/// The fracturable shape of a body (asserts the type).
const FracturableShape& fracturable(const btRigidBody& body);

} // namespace shatter::test
