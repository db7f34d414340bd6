// SceneWorld: a Scene running in a Bullet world.
//
// The world is Bullet's own btDiscreteDynamicsWorld set up as a user would: a collision configuration
// sized for Shatter's algorithm, a CollisionRegistration on the dispatcher (and GImpact's for the
// GImpact baseline), a DBVT broad phase, the sequential-impulse solver, y up. Objects go through a
// FractureSystem, whose comparison variant FragmentShapeKind picks Shatter's FracturableShape or one of the
// baselines, so that all three collision modes see the same scene and the same kind of fracture events.
//
// One step() is one internal Bullet step of the scene's time step. Scripted events due in the step are
// applied first; spawning (asset loading, the fracture pipeline's per-asset preparation) is scene
// scripting and not timed, a scripted impulse that breaks an object counts as fracture work. Timings
// (TVCG Table 3): total = the step; collision = TimedWorld's performDiscreteCollisionDetection (broad and
// narrow phase); fracture and update = FractureSystem's post-tick work; physics = the rest (solver,
// integration, Bullet's bookkeeping). Counts (Table 2) are read right after the narrow phase.
//
// The state hash covers the bit patterns of every body's transform and velocities in a fixed order
// (objects by id, fragments by id, then balls in spawn order), so two runs agree only if they are
// bitwise identical.
#include "scene_world_impl.h"

#include "scene_assets.h"

#include "object_state.h"

#include "bullet_convert.h"
#include "comparison_variants.h"
#include "shatter/collision.h"
#include "shatter/contact_solver.h"
#include "shatter/error.h"
#include "shatter/fracture_system.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cmath>
#include <cstdio>
#include <limits>

namespace shatter::scenes
{

namespace
{

// FNV-1a over raw bytes.
struct Hash
{
    std::uint64_t value = 0xcbf29ce484222325ull;
    void bytes(const void* data, std::size_t size)
    {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < size; ++i)
            value = (value ^ p[i]) * 0x100000001b3ull;
    }
    void scalar(btScalar x) { bytes(&x, sizeof x); }
    void vector(const btVector3& v)
    {
        for (int i = 0; i < 3; ++i)
            scalar(v[i]);
    }
    void body(const btRigidBody& b)
    {
        const btTransform& t = b.getWorldTransform();
        for (int r = 0; r < 3; ++r)
            vector(t.getBasis()[r]);
        vector(t.getOrigin());
        vector(b.getLinearVelocity());
        vector(b.getAngularVelocity());
    }
};

CollisionSettings collisionSettings(const RunSettings& options)
{
    CollisionSettings s;
    if (options.contacts == ContactMode::FixedBudget)
        s.initialBudget = 8;
    return s;
}

// The run's comparison variants (shatter_run flags, demo panel).
ComparisonVariants variants(const RunSettings& options)
{
    ComparisonVariants v;
    v.contacts = options.contacts;
    v.restructure = options.restructure;
    v.shapes = options.collision;
    return v;
}

} // namespace

SceneWorld::Impl::Impl(const Scene& sc, const RunSettings& op) : scene(sc), options(op)
{
    if (!(scene.timeStep > 0) || scene.substeps < 1 || scene.solverIterations < 1)
        throw Error(scene.file.empty() ? scene.name : scene.file.string(),
                    "time step must be > 0, substeps and solver iterations >= 1");
    if (options.historyLimit < 0)
        throw Error("SceneWorld",
                    "RunSettings::historyLimit must be >= 0, got " + std::to_string(options.historyLimit));

    try
    {
        build();
    }
    catch (...)
    {
        teardown();
        throw;
    }
}

void SceneWorld::Impl::build()
{
    // Assets first (building one takes seconds; a bad mesh fails before any Bullet object exists).
    const std::filesystem::path cacheDir = assetCacheDirectory(options.assetCacheDir);
    for (const SceneObject& o : scene.objects)
        sceneAsset(resolveMesh(o.asset, scene.file), cacheDir, options.assetProgress, options.assetWarning);
    for (const SceneEvent& e : scene.events)
        if (e.object)
            sceneAsset(resolveMesh(e.object->asset, scene.file), cacheDir, options.assetProgress,
                       options.assetWarning);

    // Bullet preallocates 4096 manifolds and 4096 collision algorithms (about 4 MB, every page written
    // when the pools are made); a scene sizes the pools by its objects instead, and a pile that
    // outgrows them takes the rest from the heap (Bullet's pools fall back to btAlignedAlloc).
    btDefaultCollisionConstructionInfo pools;
    pools.m_defaultMaxPersistentManifoldPoolSize =
        int(std::clamp<std::size_t>(128 * (scene.objects.size() + scene.events.size()), 256, 4096));
    pools.m_defaultMaxCollisionAlgorithmPoolSize = pools.m_defaultMaxPersistentManifoldPoolSize;
    configuration = makeCollisionConfiguration(pools);
    dispatcher = std::make_unique<ParallelCollisionDispatcher>(configuration.get(), options.collisionThreads);
    registration = std::make_unique<CollisionRegistration>(*dispatcher, collisionSettings(options));
    applyComparisonVariants(*registration, variants(options));
    broadphase = std::make_unique<btDbvtBroadphase>();
    // Contacts with the ground and the shelves solved last: a steel ball landing on light fragments
    // does not drive them into the ground (contact_solver.h).
    solver = std::make_unique<StaticPriorityConstraintSolver>();
    world =
        std::make_unique<TimedWorld>(dispatcher.get(), broadphase.get(), solver.get(), configuration.get());
    world->setGravity(bt(scene.gravity));
    world->getSolverInfo().m_numIterations = scene.solverIterations;

    fracture::FractureSystemSettings settings = scene.fracture;
    settings.seed = options.seed;
    settings.enabled = settings.enabled && options.fracture;
    if (options.workers >= 0)
        settings.workers = options.workers; // the command line overrides the scene
    if (options.latencySteps >= 0)
        settings.latencySteps = options.latencySteps;
    options.workers = settings.workers; // the summary reports what ran
    options.collisionThreads = dispatcher->threads();
    options.latencySteps = settings.latencySteps;
    settings.installCallback = false; // ours times it (tickCallback)
    system = std::make_unique<fracture::FractureSystem>(*world, *registration, settings);
    applyComparisonVariants(*system, variants(options)); // registers GImpact's algorithm for its baseline
    world->setInternalTickCallback(tickCallback, this, false);

    addGround();
    for (const SceneObject& o : scene.objects)
        addObject(o);
}

void SceneWorld::Impl::tickCallback(btDynamicsWorld* world, btScalar timeStep)
{
    Impl& s = *static_cast<Impl*>(world->getWorldUserInfo());
    const auto start = Clock::now();
    s.system->onInternalTick(timeStep);
    s.tickMs = msSince(start);
}

void SceneWorld::Impl::teardown()
{
    if (world)
        world->setInternalTickCallback(nullptr, nullptr, false);
    system.reset(); // removes its bodies
    for (Ball& b : balls)
        world->removeRigidBody(b.body.get());
    balls.clear();
    if (ground && world)
        world->removeRigidBody(ground.get());
    ground.reset();
    registration.reset();
    world.reset();
    solver.reset();
    broadphase.reset();
    dispatcher.reset();
    configuration.reset();
}

void SceneWorld::Impl::removeContents()
{
    system->clear();
    for (Ball& b : balls)
        removeBall(b);
    balls.clear();
    placed.clear();
}

int SceneWorld::Impl::removeNonFiniteBalls()
{
    const std::size_t before = balls.size();
    std::erase_if(balls,
                  [this](const Ball& b)
                  {
                      if (hasFiniteMotion(*b.body))
                          return false;
                      removeBall(b);
                      return true;
                  });
    return int(before - balls.size());
}

void SceneWorld::Impl::measureBodies(StepStats& stats) const
{
    double lowest = std::numeric_limits<double>::infinity();
    for (const Placed& p : placed)
        for (btRigidBody* b : system->bodies(p.id))
        {
            if (!b->isStaticOrKinematicObject())
                lowest = std::min(lowest, double(b->getCenterOfMassPosition().y()));
            if (!p.fracturable)
                continue;
            ++stats.fragments;
            fracture::ObjectId object = 0;
            FragmentId fragment = kNoFragment;
            if (system->lookup(b, object, fragment))
                if (const auto& mesh = system->state(object).fragmentMesh(fragment))
                    stats.triangles += long(mesh->surface.triangles.size());
        }
    for (const Ball& b : balls)
        lowest = std::min(lowest, double(b.body->getCenterOfMassPosition().y()));
    stats.lowestBodyY = std::isfinite(lowest) ? lowest : scene.ground.height;
}

SceneWorld::SceneWorld(const Scene& scene, const RunSettings& options)
    : impl(std::make_unique<Impl>(scene, options))
{
}

SceneWorld::~SceneWorld() = default;

const StepStats& SceneWorld::step()
{
    Impl& s = *impl;
    StepStats stats;
    stats.step = s.steps + 1;
    const double dt = s.scene.timeStep;
    stats.time = (s.steps + 1) * dt;

    s.registration->resetStatistics();
    s.applyDueEvents(stats.time - s.eventOrigin, stats);
    const double scriptedFractureMs = stats.fractureMs + stats.updateMs;
    s.tickMs = 0;
    const auto stepStart = Clock::now();
    s.world->stepSimulation(btScalar(dt), 1, btScalar(dt));
    stats.totalMs = msSince(stepStart) + scriptedFractureMs;

    const NarrowPhaseCounts& counts = s.world->lastCounts();
    const fracture::FractureStepStats& f = s.system->lastStepStats();
    stats.collisionMs = counts.collisionMs;
    stats.updateMs += f.updateMs;
    stats.fractureMs += std::max(0.0, s.tickMs - f.updateMs);
    stats.fractureEvaluations = f.evaluations;
    stats.boundRejections = f.boundRejections;
    stats.unreadyImpacts = f.unreadyImpacts;
    stats.fragmentLimitImpacts = f.fragmentLimitImpacts;
    stats.maxImpactEnergy = double(f.maxWholeEnergy);
    stats.fractureMainMs += f.mainThreadMs;
    stats.fractureJobMs += f.jobMs;
    stats.fractureWaitMs += f.waitMs;
    for (const fracture::FractureEvent& e : s.system->lastStepEvents())
        stats.fractureLatencySteps = std::max(stats.fractureLatencySteps, e.latencySteps);
    stats.physicsMs = std::max(0.0, stats.totalMs - stats.collisionMs - stats.fractureMs - stats.updateMs);
    stats.outputContacts = counts.contacts;
    stats.bodyPairs = counts.pairs;
    stats.maxPenetration = counts.maxPenetration;
    const CollisionStatistics collision = s.registration->statistics();
    stats.collidingPoints = collision.collidingPoints;
    stats.budgetLimitedPairs = collision.budgetLimitedPairs;
    stats.fractureEvents += f.events;
    stats.failedEvents = f.failedEvents;
    stats.bodylessFragments = f.bodylessFragments;
    stats.nonFiniteBodies = f.nonFiniteBodies + s.removeNonFiniteBalls();
    s.measureBodies(stats);

    ++s.steps;
    if (const std::size_t limit = std::size_t(s.options.historyLimit);
        limit > 0 && s.history.size() >= 2 * limit)
        s.history.erase(s.history.begin(), s.history.begin() + std::ptrdiff_t(limit)); // amortised O(1)
    s.history.push_back(stats);
    return s.history.back();
}

void SceneWorld::reset()
{
    const Scene scene = impl->scene;
    const RunSettings options = impl->options;
    impl.reset(); // the old world goes first: the dispatcher's registration must not outlive it
    impl = std::make_unique<Impl>(scene, options);
}

void SceneWorld::respawn()
{
    Impl& s = *impl;
    s.removeContents();
    for (const SceneObject& o : s.scene.objects)
        s.addObject(o);
    s.nextEvent = 0;
    s.eventOrigin = time();
}

const Scene& SceneWorld::scene() const
{
    return impl->scene;
}

const RunSettings& SceneWorld::options() const
{
    return impl->options;
}

double SceneWorld::time() const
{
    return impl->steps * impl->scene.timeStep;
}

int SceneWorld::stepCount() const
{
    return impl->steps;
}

const std::vector<StepStats>& SceneWorld::history() const
{
    return impl->history;
}

RunSummary SceneWorld::summary() const
{
    RunSummary r = summarize(impl->history);
    r.scene = impl->scene.name;
    r.options = impl->options;
    r.options.assetProgress = {};
    r.options.assetWarning = {};
    r.timeStep = impl->scene.timeStep;
    r.groundHeight = impl->scene.ground.height;
    r.groundPresent = impl->scene.ground.present;
    r.stateHash = stateHash();
    return r;
}

std::string SceneWorld::stateHash() const
{
    Hash h;
    for (const Impl::Placed& p : impl->placed)
    {
        const std::vector<btRigidBody*> bodies = impl->system->bodies(p.id);
        const std::uint64_t count = bodies.size();
        h.bytes(&count, sizeof count);
        for (const btRigidBody* b : bodies)
            h.body(*b);
    }
    for (const Impl::Ball& b : impl->balls)
        h.body(*b.body);
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h.value));
    return text;
}

btDiscreteDynamicsWorld& SceneWorld::world()
{
    return *impl->world;
}

CollisionRegistration& SceneWorld::collision()
{
    return *impl->registration;
}

fracture::FractureSystem& SceneWorld::fracture()
{
    return *impl->system;
}

btRigidBody* SceneWorld::spawnBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity,
                                   double radius, double density)
{
    return impl->spawnBall(position, velocity, radius, density);
}

fracture::ObjectId SceneWorld::addObject(const SceneObject& object)
{
    return impl->addObject(object);
}

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace shatter::scenes
