#include "simulation.h"

#include "fracturable_shape.h"
#include "shatter/collision.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

#include <algorithm>
#include <cstdio>

namespace shatter::demo
{
namespace
{
btVector3 bt(const Eigen::Vector3d& v)
{
    return btVector3(btScalar(v.x()), btScalar(v.y()), btScalar(v.z()));
}

Eigen::Vector3d eigen(const btVector3& v)
{
    return Eigen::Vector3d(double(v.x()), double(v.y()), double(v.z()));
}

Eigen::Isometry3d eigen(const btTransform& t)
{
    Eigen::Isometry3d out = Eigen::Isometry3d::Identity();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out.linear()(i, j) = double(t.getBasis()[i][j]);
    out.translation() = eigen(t.getOrigin());
    return out;
}

Eigen::Isometry3d materialFrame(const btRigidBody& body)
{
    const Eigen::Isometry3d t = eigen(body.getWorldTransform());
    const btCollisionShape* shape = body.getCollisionShape();
    if (FracturableShape::is(*shape))
        return t * static_cast<const FracturableShape*>(shape)->materialToBody();
    return t; // baselines: the grab point is kept in the body frame instead
}
} // namespace

Simulation::Simulation(Log& l) : log(l)
{
    newObjectMaterial = fracture::glass();
}

Simulation::~Simulation()
{
    jobs.wait();
    grabbed.reset();
}

bool Simulation::load(scenes::Scene newScene, scenes::RunSettings newOptions)
{
    scene = newScene;
    options = newOptions;
    const std::string what = "scene " + newScene.name;
    if (!jobs.startScene(std::move(newScene), std::move(newOptions), what))
    {
        log.warning("still busy with " + jobs.what() + "; try again when it is done");
        return false;
    }
    log.info("loading " + what);
    return true;
}

bool Simulation::restart()
{
    return load(scene, options);
}

bool Simulation::addMesh(const std::filesystem::path& file)
{
    scenes::SceneObject object;
    object.name = file.stem().string();
    object.asset = std::filesystem::absolute(file).string();
    // Dropped from a little above everything in the scene (or the ground), tilted so it lands on a corner;
    // the material of the panel's "new objects".
    double top = scene.ground.height;
    if (current)
    {
        const btCollisionObjectArray& all = current->world().getCollisionObjectArray();
        for (int i = 0; i < all.size(); ++i)
        {
            const btCollisionShape* shape = all[i]->getCollisionShape();
            if (shape->getShapeType() == STATIC_PLANE_PROXYTYPE)
                continue;
            btVector3 lo, hi;
            shape->getAabb(all[i]->getWorldTransform(), lo, hi);
            if (hi.y() < btScalar(1e3))
                top = std::max(top, double(hi.y()));
        }
    }
    object.placement = Eigen::Isometry3d::Identity();
    object.placement.linear() =
        (Eigen::AngleAxisd(0.35, Eigen::Vector3d::UnitX()) * Eigen::AngleAxisd(0.5, Eigen::Vector3d::UnitZ()))
            .toRotationMatrix();
    object.material = newObjectMaterial;
    if (!jobs.startMesh(file, object, options, top + 0.4))
    {
        log.warning("still busy with " + jobs.what() + "; try again when it is done");
        return false;
    }
    log.info("loading mesh " + file.string());
    return true;
}

void Simulation::adopt(JobResult&& result)
{
    if (!result.error.empty())
    {
        errorText = result.what + ": " + result.error;
        log.error(errorText);
        return;
    }
    errorText.clear();
    if (result.world)
    {
        grabbed.reset();
        current = std::move(result.world);
        scenes::releaseFreedMemory(); // what the old world held
        ++worldGeneration;
        accumulator = 0;
        startFragments = currentFragments();
        if (toleranceFraction != 0.002f) // SceneWorld registered the default already
            applyCollisionSettings();
        char text[200];
        std::snprintf(text, sizeof text, "%s ready in %.2f s: %zu objects, %ld fragments",
                      result.what.c_str(), result.seconds, current->scene().objects.size(), startFragments);
        log.info(text);
    }
    else if (result.object && current)
    {
        // Place it above whatever is there now, and keep it for restarts.
        current->addObject(*result.object);
        scene.objects.push_back(*result.object);
        char text[200];
        std::snprintf(text, sizeof text, "%s added (%.2f s)", result.what.c_str(), result.seconds);
        log.info(text);
    }
}

void Simulation::applyCollisionSettings()
{
    if (!current)
        return;
    // The settings SceneWorld registered, with the demo's ε.
    CollisionSettings settings = current->collision().settings();
    settings.toleranceFraction = double(toleranceFraction);
    try
    {
        current->collision().setSettings(settings);
    }
    catch (const std::exception& e)
    {
        log.error(e.what());
    }
}

void Simulation::update()
{
    for (std::string& warning : jobs.takeWarnings())
        log.warning(std::move(warning));
    if (std::optional<JobResult> result = jobs.take())
        adopt(std::move(*result));
}

void Simulation::finishLoading()
{
    jobs.wait();
    update();
}

long Simulation::currentFragments()
{
    if (!current)
        return 0;
    long count = 0;
    fracture::FractureSystem& system = current->fracture();
    for (fracture::ObjectId id : system.objects())
        count += long(system.bodies(id).size());
    return count;
}

void Simulation::advance(double realSeconds)
{
    if (!current || paused)
        return;
    const double dt = current->scene().timeStep;
    accumulator += std::min(realSeconds, 0.1) * double(speed);
    int steps = 0;
    while (accumulator >= dt && steps < 4)
    {
        stepOnce();
        accumulator -= dt;
        ++steps;
    }
    if (steps == 4)
        accumulator = std::min(accumulator, dt); // too slow for real time: slow motion, not a spiral
}

void Simulation::stepOnce()
{
    if (!current)
        return;
    applyGrab();
    current->step();
}

void Simulation::dropBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity)
{
    if (!current)
        return;
    try
    {
        btRigidBody* ball =
            current->spawnBall(position, velocity, double(balls.radius), double(balls.density));
        ball->setCcdMotionThreshold(btScalar(balls.radius * 0.5f));
        ball->setCcdSweptSphereRadius(btScalar(balls.radius * 0.8f));
    }
    catch (const std::exception& e)
    {
        log.error(e.what());
    }
}

std::optional<Eigen::Vector3d> Simulation::grab(const Eigen::Vector3d& from, const Eigen::Vector3d& to)
{
    release();
    if (!current)
        return std::nullopt;
    btCollisionWorld::ClosestRayResultCallback hit(bt(from), bt(to));
    current->world().rayTest(bt(from), bt(to), hit);
    if (!hit.hasHit())
        return std::nullopt;
    const btRigidBody* body = btRigidBody::upcast(hit.m_collisionObject);
    if (!body || body->isStaticOrKinematicObject())
        return std::nullopt;
    const Eigen::Vector3d point = eigen(hit.m_hitPointWorld);
    Grab g;
    fracture::ObjectId object = 0;
    FragmentId fragment = 0;
    if (current->fracture().lookup(body, object, fragment))
    {
        g.object = object;
        g.id = fragment;
        g.local = materialFrame(*body).inverse() * point;
    }
    else
    {
        g.fragment = false;
        g.ball = body;
        g.local = eigen(body->getWorldTransform()).inverse() * point;
    }
    grabbed = g;
    grabTarget = point;
    return point;
}

void Simulation::release()
{
    grabbed.reset();
}

btRigidBody* Simulation::grabbedBody(Eigen::Isometry3d& frame)
{
    if (!grabbed || !current)
        return nullptr;
    if (grabbed->fragment)
    {
        fracture::FractureSystem& system = current->fracture();
        const auto objects = system.objects();
        if (std::find(objects.begin(), objects.end(), grabbed->object) == objects.end())
            return nullptr;
        for (btRigidBody* body : system.bodies(grabbed->object))
        {
            fracture::ObjectId object = 0;
            FragmentId fragment = 0;
            if (system.lookup(body, object, fragment) && fragment == grabbed->id)
            {
                frame = materialFrame(*body);
                return body;
            }
        }
        return nullptr; // it broke: let go
    }
    // Balls live until the world is replaced (which releases the grab).
    const btCollisionObjectArray& all = current->world().getCollisionObjectArray();
    for (int i = 0; i < all.size(); ++i)
        if (all[i] == grabbed->ball)
        {
            btRigidBody* body = btRigidBody::upcast(all[i]);
            frame = eigen(body->getWorldTransform());
            return body;
        }
    return nullptr;
}

std::optional<Eigen::Vector3d> Simulation::grabPoint()
{
    Eigen::Isometry3d frame;
    if (!grabbedBody(frame))
    {
        grabbed.reset();
        return std::nullopt;
    }
    return frame * grabbed->local;
}

void Simulation::applyGrab()
{
    Eigen::Isometry3d frame;
    btRigidBody* body = grabbedBody(frame);
    if (!body)
    {
        grabbed.reset();
        return;
    }
    // Velocity control: the grabbed point heads for the target with a time constant of a few steps,
    // like a stiff, critically damped spring, and the spin is damped so the piece hangs calmly.
    const double dt = current->scene().timeStep;
    const Eigen::Vector3d point = frame * grabbed->local;
    const Eigen::Vector3d com = eigen(body->getCenterOfMassPosition());
    Eigen::Vector3d desired = (grabTarget - point) / std::max(6 * dt, 0.05);
    const double maxSpeed = 6;
    if (desired.norm() > maxSpeed)
        desired *= maxSpeed / desired.norm();
    body->activate(true);
    body->setAngularVelocity(body->getAngularVelocity() * btScalar(0.9));
    const Eigen::Vector3d omega = eigen(body->getAngularVelocity());
    const Eigen::Vector3d pointVelocity = eigen(body->getLinearVelocity()) + omega.cross(point - com);
    // Cancel gravity for this step too.
    const Eigen::Vector3d gravity = current->scene().gravity * dt;
    body->setLinearVelocity(body->getLinearVelocity() + bt(desired - pointVelocity - gravity));
}

} // namespace shatter::demo
