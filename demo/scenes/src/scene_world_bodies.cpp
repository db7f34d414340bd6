// The contents of a SceneWorld: the ground, objects through the FractureSystem, balls, and the scripted
// events that add them or push (and possibly break) an object during a run.
#include "scene_world_impl.h"

#include "scene_assets.h"

#include "shatter/error.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace shatter::scenes
{

void SceneWorld::Impl::addGround()
{
    const SceneGround& g = scene.ground;
    if (!g.present)
        return;
    btTransform t = btTransform::getIdentity();
    if (g.shape == "plane")
        groundShape = std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(g.height));
    else if (g.shape == "box")
    {
        groundShape = std::make_unique<btBoxShape>(btVector3(50, 1, 50));
        t.setOrigin(btVector3(0, btScalar(g.height - 1), 0));
    }
    else if (g.shape == "mesh")
    {
        // 40 m × 40 m in 2 m cells, normals up.
        groundMesh = std::make_unique<btTriangleMesh>();
        constexpr int kCells = 20;
        constexpr double kSize = 40;
        const double h = kSize / kCells;
        for (int i = 0; i < kCells; ++i)
            for (int j = 0; j < kCells; ++j)
            {
                const double x0 = -kSize / 2 + i * h, z0 = -kSize / 2 + j * h;
                const btVector3 a = bt({x0, g.height, z0}), b = bt({x0 + h, g.height, z0}),
                                c = bt({x0 + h, g.height, z0 + h}), d = bt({x0, g.height, z0 + h});
                groundMesh->addTriangle(a, d, c);
                groundMesh->addTriangle(a, c, b);
            }
        groundShape = std::make_unique<btBvhTriangleMeshShape>(groundMesh.get(), true);
    }
    else
        throw Error(scene.file.string(), "unknown ground shape \"" + g.shape + "\"");
    btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, groundShape.get());
    info.m_startWorldTransform = t;
    info.m_friction = btScalar(g.friction);
    ground = std::make_unique<btRigidBody>(info);
    world->addRigidBody(ground.get());
}

std::shared_ptr<const Asset> SceneWorld::Impl::objectAsset(const SceneObject& o) const
{
    const std::filesystem::path mesh = resolveMesh(o.asset, scene.file);
    return o.fracturable
               ? fracturableSceneAsset(mesh, assetCacheDirectory(options.assetCacheDir), o.material,
                                       system->settings(), options.assetProgress, options.assetWarning)
               : sceneAsset(mesh, assetCacheDirectory(options.assetCacheDir), options.assetProgress,
                            options.assetWarning);
}

fracture::ObjectId SceneWorld::Impl::addObject(const SceneObject& o)
{
    fracture::ObjectSettings oo;
    oo.dynamic = o.dynamic;
    oo.fracturable = o.fracturable;
    oo.linearVelocity = o.linearVelocity;
    oo.angularVelocity = o.angularVelocity;
    oo.friction = o.friction;
    oo.restitution = o.restitution;
    fracture::ObjectId id = 0;
    try
    {
        // The fracture precomputation checks the material too: its errors name the object as well.
        id = system->addObject(objectAsset(o), o.material, o.placement, oo);
    }
    catch (const Error& e)
    {
        throw Error(scene.file.empty() ? scene.name : scene.file.string(),
                    "object \"" + o.name + "\": " + e.what());
    }
    placed.push_back({o.name, id, o.fracturable});
    return id;
}

btRigidBody* SceneWorld::Impl::spawnBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity,
                                         double radius, double density)
{
    if (!(radius > 0) || !(density > 0) || !position.allFinite() || !velocity.allFinite())
        throw Error("SceneWorld::spawnBall", "radius and density must be > 0, position and velocity finite");
    Ball b;
    b.radius = radius;
    b.density = density;
    b.shape = std::make_unique<btSphereShape>(btScalar(radius));
    const double mass = density * 4.0 / 3.0 * 3.14159265358979323846 * radius * radius * radius;
    btVector3 inertia(0, 0, 0);
    b.shape->calculateLocalInertia(btScalar(mass), inertia);
    btRigidBody::btRigidBodyConstructionInfo info(btScalar(mass), nullptr, b.shape.get(), inertia);
    info.m_startWorldTransform.setIdentity();
    info.m_startWorldTransform.setOrigin(bt(position));
    info.m_friction = btScalar(0.5);
    b.body = std::make_unique<btRigidBody>(info);
    b.body->setLinearVelocity(bt(velocity));
    // A ball is small and fast: Bullet's convex CCD keeps it from passing through a thin plate (or the
    // ground) in one step. It sweeps against fracturable shapes through their surface triangles.
    b.body->setCcdMotionThreshold(btScalar(0.5 * radius));
    b.body->setCcdSweptSphereRadius(btScalar(0.9 * radius));
    world->addRigidBody(b.body.get());
    balls.push_back(std::move(b));
    return balls.back().body.get();
}

void SceneWorld::Impl::applyImpulse(const SceneEvent& e, StepStats& stats)
{
    const auto it =
        std::find_if(placed.begin(), placed.end(), [&](const Placed& p) { return p.name == e.target; });
    if (it == placed.end())
        return; // a target spawned by a later event: nothing to push yet
    auto nearest = [&]() -> btRigidBody*
    {
        btRigidBody* best = nullptr;
        btScalar bestDistance = std::numeric_limits<btScalar>::max();
        for (btRigidBody* b : system->bodies(it->id))
        {
            const btScalar d = (b->getCenterOfMassPosition() - bt(e.position)).length2();
            if (d < bestDistance)
            {
                best = b;
                bestDistance = d;
            }
        }
        return best;
    };
    btRigidBody* body = nearest();
    if (!body)
        return;
    fracture::ObjectId object = 0;
    FragmentId fragment = kNoFragment;
    if (it->fracturable && system->settings().enabled && system->lookup(body, object, fragment))
    {
        const Eigen::Vector3d point = e.position, impulse = e.impulse;
        // breakWithImpulses first completes a pending job of the object: count its event too.
        const std::size_t eventsBefore = system->totalEvents();
        const auto start = std::chrono::steady_clock::now();
        std::optional<fracture::FractureEvent> event =
            system->breakWithImpulses(object, fragment, {&point, 1}, {&impulse, 1}, scene.timeStep);
        stats.fractureMainMs +=
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        stats.fractureEvents += int(system->totalEvents() - eventsBefore);
        if (system->totalEvents() != eventsBefore)
            body = nearest();
        if (event)
        {
            stats.updateMs += event->updateMs;
            stats.fractureMs += event->fractureMs;
        }
    }
    if (body && !body->isStaticOrKinematicObject())
    {
        body->activate(true);
        body->applyImpulse(bt(e.impulse), bt(e.position) - body->getCenterOfMassPosition());
    }
}

void SceneWorld::Impl::applyDueEvents(double stepEnd, StepStats& stats)
{
    // An event is due in the first step whose end time reaches its time (1 ns slack for rounding).
    while (nextEvent < scene.events.size() && scene.events[nextEvent].time <= stepEnd + 1e-9)
    {
        const SceneEvent& e = scene.events[nextEvent++];
        switch (e.kind)
        {
        case SceneEvent::Kind::SpawnBall:
            spawnBall(e.position, e.velocity, e.radius, e.density);
            break;
        case SceneEvent::Kind::SpawnObject:
            addObject(*e.object);
            break;
        case SceneEvent::Kind::Impulse:
            applyImpulse(e, stats);
            break;
        }
    }
}

} // namespace shatter::scenes
