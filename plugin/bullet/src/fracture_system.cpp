// FractureSystem (shatter/fracture_system.h): the Bullet side of fracture.
//
// After each internal step (the post-tick callback, so Bullet has solved the step's contacts and
// written m_appliedImpulse back) it reads every manifold the dispatcher holds. Each contact point on a
// body the system owns contributes a force J·n/dt at its world point on that body (n = the normal
// pushing that body: m_normalWorldOnB for body A, its negative for body B), moved into the object's
// material frame through the body transform T and the fixed offset O (material → body). Every point of
// every manifold of every pair of the body counts (a body resting on the ground and hit by a ball gets
// both loads; the FEM's inertia relief balances them). The bodies with an impact
// are then processed strongest total impulse first, at most maxEventsPerStep per step, each through
// FracturePipeline::fracture with a seed derived from (settings.seed, object, run count of the object)
// — deterministic for a deterministic simulation.
//
// The pipeline runs as a job (fracture_jobs.h) on oneTBB workers. An impact of internal step s is
// submitted at s's post-tick; its result is taken at the post-tick of step s + latencySteps, before that
// step's impacts are collected (latencySteps = 0: right after this step's impacts are submitted, in
// impulse order, as one sequential loop would). A job not done by then is waited for, so nothing
// depends on timing: seeds come from (seed, object, run count), and results are taken in submission
// order. An object has at most one pending job: the job reads the object's ObjectState, which only
// ObjectState::apply changes, on this thread, when no job of the object is pending; while one is, the
// object's bodies simulate on as they are and their impacts are not evaluated (with latencySteps = 0 a
// second impact of the same object in one step is evaluated after the first is applied, as before).
//
// New fragments. After an event a preparation job builds the new fragments' modal bases
// (FracturePipeline::prepareFragments); a fragment's impacts are evaluated only once it is ready, so
// its first evaluation finds its basis built instead of paying for it inside its latency. Readiness is
// fragmentReadySteps internal steps after it appeared, or later: when the preparation thread would have
// built its basis at a paced loop's speed, as predicted from fragmentBasisMs × (nodes / 1000)^1.5 for it
// and every preparation queued before it (they run in submission order, an event's fragments smallest
// first). It counts steps and never asks the jobs, so it depends neither on timing nor on the number of
// workers.
//
// A fracture follows a sequence that is safe inside Bullet's post-tick callback: copy the parent's
// kinematics as they are now (the body moved during the latency), swap in the state the job updated
// (ObjectState::apply on a copy, TVCG §4.2, §6; the old one is freed by the preparation thread),
// remove the parent's constraints and body (and forget
// its shape in the registration's field cache), add one body per new fragment at the parent's placement with
// v + ω × (c_f − c_p) and ω, the parent's collision filter, damping, friction and restitution, and —
// inside a step — gravity applied by hand (stepSimulation applied it once before its substeps).
// Fragments are dynamic, even those of a static object (a broken wall falls apart), except a static
// object's pieces that hold an anchored tet node (ObjectSettings::anchorBoxes, anchorNodes): they stay.
//
// Errors. onInternalTick runs inside stepSimulation, and Bullet is not exception-safe, so nothing may
// leave it: a job catches what the pipeline throws and each event's completion runs under a catch-all
// (the pipeline does not touch the state, and ObjectState::apply changes nothing if it throws, so the
// body stays whole), and so does the step as a whole; failures are counted in FractureStepStats and
// passed to the log.
#include "shatter/fracture_system.h"

#include "asset_data.h"
#include "bullet_convert.h"
#include "continuous_collision.h"
#include "fracture_system_impl.h"
#include "internal_access.h"
#include "shatter/collision.h"
#include "shatter/error.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <new>
#include <unordered_map>

namespace shatter::fracture
{
namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::uint64_t splitMix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void tickCallback(btDynamicsWorld* world, btScalar timeStep)
{
    static_cast<FractureSystem*>(world->getWorldUserInfo())->onInternalTick(timeStep);
}

void checkSettings(const FractureSystemSettings& s)
{
    if (s.deformation != DeformationModel::Fem && s.deformation != DeformationModel::Modal)
        throw Error("FractureSystemSettings", "unknown deformation model");
    if (s.metric != FractureMetric::Auto && s.metric != FractureMetric::Euclidean &&
        s.metric != FractureMetric::Interior)
        throw Error("FractureSystemSettings", "unknown metric");
    if (!std::isfinite(s.minImpulse) || s.minImpulse < 0)
        throw Error("FractureSystemSettings", "minImpulse must be finite and >= 0");
    if (s.maxEventsPerStep < 1)
        throw Error("FractureSystemSettings", "maxEventsPerStep must be >= 1");
    if (s.maxWorldFragments < 1)
        throw Error("FractureSystemSettings", "maxWorldFragments must be >= 1");
    if (!std::isfinite(s.impulseGrowth) || s.impulseGrowth < 1)
        throw Error("FractureSystemSettings", "impulseGrowth must be finite and >= 1");
    if (!(s.heldImpulseDecay > 0 && s.heldImpulseDecay <= 1))
        throw Error("FractureSystemSettings", "heldImpulseDecay must be in (0, 1]");
    if (s.workers < 0)
        throw Error("FractureSystemSettings", "workers must be >= 0");
    if (s.latencySteps < 0)
        throw Error("FractureSystemSettings", "latencySteps must be >= 0");
    if (s.fragmentReadySteps < 0)
        throw Error("FractureSystemSettings", "fragmentReadySteps must be >= 0");
    if (!(std::isfinite(s.fragmentBasisMs) && s.fragmentBasisMs >= 0))
        throw Error("FractureSystemSettings", "fragmentBasisMs must be finite and >= 0");
    const DebrisSettings& d = s.debris;
    if (d.maxBodies < 0)
        throw Error("FractureSystemSettings", "debris.maxBodies must be >= 0");
    if (!(std::isfinite(d.removeBelowVolume) && d.removeBelowVolume >= 0))
        throw Error("FractureSystemSettings", "debris.removeBelowVolume must be finite and >= 0");
    if (!(std::isfinite(d.freezeBelowVolume) && d.freezeBelowVolume >= 0))
        throw Error("FractureSystemSettings", "debris.freezeBelowVolume must be finite and >= 0");
    if (!(d.removeAfterSleeping > 0)) // +∞ allowed
        throw Error("FractureSystemSettings", "debris.removeAfterSleeping must be > 0");
}

} // namespace

std::vector<char> detail::anchoredNodes(const Asset& asset, const ObjectSettings& options)
{
    if (options.anchorBoxes.empty() && options.anchorNodes.empty())
        return {};
    if (options.dynamic)
        throw Error("FractureSystem::addObject",
                    "anchors need a static object (ObjectSettings::dynamic = false)");
    const Index nodeCount = asset.tetMesh.nodeCount();
    std::vector<char> anchored(nodeCount, 0);
    for (std::size_t i = 0; i < options.anchorBoxes.size(); ++i)
    {
        const Eigen::AlignedBox3d& box = options.anchorBoxes[i];
        if (!box.min().allFinite() || !box.max().allFinite() || box.isEmpty())
            throw Error("FractureSystem::addObject",
                        "anchor box " + std::to_string(i) + " must be finite with min <= max");
        bool holds = false;
        for (Index n = 0; n < nodeCount; ++n)
            if (box.contains(asset.tetMesh.nodes[n]))
            {
                anchored[n] = 1;
                holds = true;
            }
        if (!holds)
            throw Error("FractureSystem::addObject",
                        "anchor box " + std::to_string(i) + " holds no tet node of '" + asset.name + "'");
    }
    for (std::uint32_t n : options.anchorNodes)
    {
        if (n >= nodeCount)
            throw Error("FractureSystem::addObject", "anchor node " + std::to_string(n) +
                                                         " is not below the node count " +
                                                         std::to_string(nodeCount));
        anchored[n] = 1;
    }
    return anchored;
}

using namespace detail;

std::shared_ptr<FractureJob> FractureSystem::Impl::makeJob(ObjectId id, FragmentId fragment,
                                                           std::span<const ImpactForce> forces, Real impulse)
{
    Object& o = object(id);
    if (!o.options.fracturable || !o.state->alive(fragment) || !o.bodies.contains(fragment))
        return nullptr;
    auto job = std::make_shared<FractureJob>();
    job->object = id;
    job->fragment = fragment;
    job->seed = splitMix(settings.seed ^ splitMix((std::uint64_t(id) << 32) ^ o.runs++));
    job->submitStep = stepIndex;
    job->dueStep = stepIndex + latency;
    job->impulse = impulse;
    job->state = o.state;
    job->material = &o.material;
    job->pipeline = pipeline.get();
    job->forces.assign(forces.begin(), forces.end());
    return job;
}

// The bound on the simulation thread: true when it cannot rule the break out, also when it fails (the job
// then meets the same error and reports it at its step, like any failed event).
bool FractureSystem::Impl::mightBreak(const Object& o, FragmentId fragment,
                                      std::span<const ImpactForce> forces) noexcept
{
    try
    {
        return pipeline->mightBreak(*o.state, fragment, o.material, forces, nullptr, false);
    }
    catch (...)
    {
        return true;
    }
}

// The one place where an impact of a step becomes a fracture job. First, for an unbroken object, the
// cheap bound on this thread (FracturePipeline::mightBreak, microseconds): an impact it rules out
// returns false like a fragment that cannot break and holds its impulse in the gate. Only unbroken
// objects: their bound data is built when the object is added and never evicted, so whether the bound
// runs here never depends on what a worker built or evicted first. A fragment's impact goes to a job,
// whose pipeline runs the full criterion (fragments have no bound data: PipelineSettings::fragmentBound).
bool FractureSystem::Impl::submit(BodyKey key, std::span<const ImpactForce> forces, Real impulse)
{
    Object& o = objects.at(key.object);
    SHATTER_ASSERT(!o.job);
    // The gate holds the evaluated impulse whatever the job finds: a fragment that breaks is never
    // evaluated again, one that holds waits for a larger load.
    o.heldImpulse[key.fragment] = impulse;
    if (o.options.fracturable && o.state->fragmentCount() == 1 && !mightBreak(o, key.fragment, forces))
    {
        ++stepStats.boundRejections;
        return false;
    }
    std::shared_ptr<FractureJob> job = makeJob(key.object, key.fragment, forces, impulse);
    if (!job)
        return false;
    o.job = job;
    pending.push_back(job);
    ++stepStats.jobsSubmitted;
    jobs.submit(job);
    return true;
}

void FractureSystem::Impl::takePending(const FractureJob& job)
{
    const auto it =
        std::find_if(pending.begin(), pending.end(), [&](const auto& p) { return p.get() == &job; });
    if (it != pending.end())
        pending.erase(it);
    const auto o = objects.find(job.object);
    if (o != objects.end() && o->second.job.get() == &job)
        o->second.job.reset();
}

// Takes a finished job's result: rethrows what its pipeline threw; applies a fracture to the ObjectState
// and replaces the parent's body with its fragments, at the parent's current pose and velocity.
std::optional<FractureEvent> FractureSystem::Impl::complete(FractureJob& job, bool insideStep)
{
    ++stepStats.jobsCompleted;
    stepStats.jobMs += job.jobMs;
    if (job.error)
        std::rethrow_exception(job.error);
    ++stepStats.evaluations;
    stepStats.maxWholeEnergy = std::max(stepStats.maxWholeEnergy, job.stats->plan.wholeEnergy);
    if (!job.result)
        return std::nullopt;
    const ObjectId id = job.object;
    const FragmentId fragment = job.fragment;
    Object& o = object(id);
    // Nothing else changes the object while its job is pending (one job per object; breakWithImpulses
    // completes it first, removeObject cancels it).
    SHATTER_ASSERT(o.state->alive(fragment) && o.bodies.contains(fragment));
    if (!o.state->alive(fragment) || !o.bodies.contains(fragment))
        return std::nullopt;
    const FractureResult& result = *job.result;
    FractureEvent event;
    event.object = id;
    event.parent = fragment;
    event.latencySteps = int(stepIndex - job.submitStep);
    std::shared_ptr<FractureEventStats> stats = job.stats;

    const auto start = Clock::now();
    // The parent's kinematics now, before it goes (it moved since the impact if latencySteps > 0).
    const FragmentBody& parent = o.bodies.at(fragment);
    const btRigidBody& pb = *parent.body;
    const Eigen::Isometry3d materialToWorld = toEigen(pb.getWorldTransform()) * parent.materialToBody;
    const Vec3 v = toEigen(pb.getLinearVelocity());
    const Vec3 w = toEigen(pb.getAngularVelocity());
    const Vec3 c = toEigen(pb.getCenterOfMassPosition());
    // The parent's collision filter, unless it was static: its fragments are dynamic bodies.
    const bool keepFilter = pb.getBroadphaseHandle() && !pb.isStaticOrKinematicObject();
    const int group =
        keepFilter ? pb.getBroadphaseHandle()->m_collisionFilterGroup : int(btBroadphaseProxy::DefaultFilter);
    const int mask =
        keepFilter ? pb.getBroadphaseHandle()->m_collisionFilterMask : int(btBroadphaseProxy::AllFilter);
    const btScalar linearDamping = pb.getLinearDamping(), angularDamping = pb.getAngularDamping();
    const bool keepAwake = pb.getActivationState() == DISABLE_DEACTIVATION;
    event.impulse = job.impulse;
    event.energy = stats->strainEnergy;
    event.impactStep = job.submitStep;
    event.step = stepIndex;
    Vec3 weighted = Vec3::Zero();
    Real weight = 0;
    for (const ImpactForce& f : job.forces)
    {
        weighted += f.force.norm() * f.point;
        weight += f.force.norm();
    }
    if (weight > 0)
        event.impactPoint = materialToWorld * Vec3(weighted / weight);

    // The job applied the result to a copy of the state: swap it in (the shapes of the object's bodies
    // hold this ObjectState, so they see the new contents).
    SHATTER_ASSERT(job.staged);
    o.history.push_back(job.result); // first: it may throw, the swap does not
    std::swap(*o.state, *job.staged);
    std::unique_ptr<ObjectState> retired = std::move(job.staged);
    brokenBody = detachBody(o, fragment); // pb stays valid: shown to onBreak (announce), then freed
    o.heldImpulse.erase(fragment);
    o.readyAt.erase(fragment);
    // Nodes per new fragment (new ids are consecutive, apply checked): its preparation's predicted cost.
    const FragmentId first = result.fragments.front();
    std::vector<Index> size(result.fragments.size(), 0);
    for (FragmentId label : result.nodeFragments)
        ++size[label - first];
    // A new fragment is anchored when one of its nodes is (apply() labels exactly these nodes).
    std::vector<char> anchoredFragment(result.fragments.size(), 0);
    if (!o.anchored.empty())
        for (std::size_t i = 0; i < result.nodes.size(); ++i)
            if (o.anchored[result.nodes[i]])
                anchoredFragment[result.nodeFragments[i] - first] = 1;
    for (FragmentId f : result.fragments)
    {
        const bool anchored = anchoredFragment[f - first] != 0;
        FragmentBody b;
        try
        {
            b = makeFragmentBody(shapes, o.state, f, materialToWorld, o.material.density, !anchored);
        }
        catch (const Error& e)
        {
            // A fragment whose surface encloses no volume cannot be a rigid body, nor, as a fracturable
            // shape, one without sphere-tree points (a piece inside one tet: it could not collide). It
            // stays in the ObjectState (its siblings' collision data are right) but has no body.
            ++stepStats.bodylessFragments;
            stepStats.lastError = e.what();
            log(e.what());
            continue;
        }
        btRigidBody& body = *b.body;
        if (!anchored)
        {
            const Vec3 cf = toEigen(body.getCenterOfMassPosition());
            body.setLinearVelocity(toBullet(Vec3(v + w.cross(cf - c))));
            body.setAngularVelocity(toBullet(w));
            body.setInterpolationLinearVelocity(body.getLinearVelocity());
            body.setInterpolationAngularVelocity(body.getAngularVelocity());
        }
        body.setFriction(btScalar(o.options.friction));
        body.setRestitution(btScalar(o.options.restitution));
        body.setDamping(linearDamping, angularDamping);
        body.setActivationState(keepAwake ? DISABLE_DEACTIVATION : ACTIVE_TAG);
        body.setUserPointer(pb.getUserPointer()); // the game's data follows its object's pieces
        body.setUserIndex(pb.getUserIndex());
        body.setUserIndex2(pb.getUserIndex2());
        body.setUserIndex3(pb.getUserIndex3());
        b.bornStep = stepIndex;
        if (anchored)
            addBody({id, f}, std::move(b), kStaticGroup, kStaticMask);
        else
            addBody({id, f}, std::move(b), group, mask);
        if (insideStep && !anchored)
            body.applyGravity(); // stepSimulation applied gravity before its substeps, without this body
        event.fragments.push_back(f);
        event.fragmentBodies.push_back(&body);
    }
    // The new fragments' modal bases, on the preparation thread before the fragments are ready rather than
    // at each one's first hit (with workers = 0 there is no thread to hide it on: the first hit pays, inside
    // its event). It reads only the result and the asset, so later events need not wait for it.
    std::erase_if(o.preparing, [](const auto& p) { return p->status.load() == FractureJob::Done; });
    // One job per fragment, smallest first: most fragments are ready early (the preparation thread runs
    // them in this order, fracture_jobs.cpp).
    std::vector<FragmentId> order = event.fragments;
    std::stable_sort(order.begin(), order.end(),
                     [&](FragmentId a, FragmentId b) { return size[a - first] < size[b - first]; });
    preparedUntil = std::max(preparedUntil, double(stepIndex));
    for (FragmentId f : order)
    {
        const double kiloNodes = double(size[f - first]) / 1000;
        preparedUntil += settings.fragmentBasisMs * kiloNodes * std::sqrt(kiloNodes) / (1000 * lastTimeStep);
        o.readyAt[f] = std::max(stepIndex + readySteps, std::uint64_t(std::ceil(preparedUntil)));
    }
    if (jobs.workers() > 0 && !order.empty())
    {
        const auto material = std::make_shared<const Material>(o.material);
        for (FragmentId f : order)
        {
            // A fragment below the minimum volume never breaks (FracturePipeline::fracture): it needs no
            // basis. It keeps its place in the schedule above, so readiness does not depend on this.
            if (o.bodies.at(f).massProperties.volume < o.material.minFragmentVolume)
                continue;
            auto prepare = std::make_shared<FractureJob>();
            prepare->object = id;
            prepare->pipeline = pipeline.get();
            prepare->prepareFrom = job.result;
            prepare->prepare = {f};
            prepare->asset = o.state->assetPointer();
            prepare->preparedMaterial = material;
            o.preparing.push_back(prepare);
            jobs.submit(prepare);
        }
    }
    jobs.retire(std::move(retired));
    stats->updateMs = msSince(start);
    event.fractureMs = stats->totalMs;
    stats->totalMs += stats->updateMs;
    event.updateMs = stats->updateMs;
    event.details = std::move(stats);
    return event;
}

// Waits for (or runs) `job`, takes it off the pending list and completes it inside a step: an error is a
// failed event (the body stays whole), never an exception through Bullet.
void FractureSystem::Impl::finishAndComplete(std::shared_ptr<FractureJob> job, bool insideStep) noexcept
{
    const auto waitStart = Clock::now();
    if (jobs.finish(*job) != JobWait::Ready)
    {
        ++stepStats.jobsWaited;
        stepStats.waitMs += msSince(waitStart);
    }
    takePending(*job);
    std::optional<FractureEvent> event;
    try
    {
        event = complete(*job, insideStep);
    }
    catch (const std::bad_alloc&)
    {
        failed("out of memory in the fracture pipeline (std::bad_alloc); the body stays whole");
    }
    catch (const std::exception& e)
    {
        failed(e.what());
    }
    catch (...)
    {
        failed("unknown exception in the fracture pipeline");
    }
    if (!event)
    {
        brokenBody = FragmentBody{};
        return;
    }
    stepStats.fractureMs += event->fractureMs;
    stepStats.updateMs += event->updateMs;
    ++stepStats.events;
    ++total;
    try
    {
        lastEvents.push_back(std::move(*event));
        event = std::nullopt;
    }
    catch (...)
    {
    }
    announce(event ? *event : lastEvents.back());
}

// DebrisSettings at the end of a step: small pieces, then sleeping ones, then the budget.
void FractureSystem::Impl::applyDebris(double timeStep) noexcept
{
    forgetLate(); // the removals of earlier steps whose preparations have finished since
    // Values edited since the constructor checked them that it would reject turn their rule off.
    const DebrisSettings& d = settings.debris;
    const bool sleepRemoval = d.removeAfterSleeping > 0 && std::isfinite(d.removeAfterSleeping);
    if (!(d.maxBodies > 0 || d.removeBelowVolume > 0 || d.freezeBelowVolume > 0 || sleepRemoval))
        return;
    try
    {
        std::vector<DebrisPiece>& pieces = debrisScratch.kept;
        std::vector<DebrisPiece>& doomed = debrisScratch.doomed;
        pieces.clear();
        doomed.clear();
        for (auto& [id, o] : objects)
            for (auto& [fragment, b] : o.bodies)
            {
                if (fragment == 0 || (o.job && o.job->fragment == fragment))
                    continue; // an unbroken object, or a piece about to break
                const Real volume = b.massProperties.volume;
                b.asleepFor = b.body->getActivationState() == ISLAND_SLEEPING ? b.asleepFor + timeStep : 0;
                if (volume < d.removeBelowVolume)
                    doomed.push_back({volume, b.bornStep, id, fragment, DebrisReason::Volume});
                else if (sleepRemoval && b.asleepFor >= d.removeAfterSleeping)
                    doomed.push_back({volume, b.bornStep, id, fragment, DebrisReason::Sleep});
                else
                {
                    if (b.asleepFor > 0 && !b.frozen && volume < d.freezeBelowVolume)
                        freeze(b);
                    pieces.push_back({volume, b.bornStep, id, fragment, DebrisReason::Budget});
                }
            }
        if (d.maxBodies > 0)
        {
            const std::size_t kept = liveBodies() - doomed.size();
            if (kept > std::size_t(d.maxBodies))
            {
                const std::size_t excess = std::min(kept - std::size_t(d.maxBodies), pieces.size());
                std::partial_sort(pieces.begin(), pieces.begin() + std::ptrdiff_t(excess), pieces.end());
                doomed.insert(doomed.end(), pieces.begin(), pieces.begin() + std::ptrdiff_t(excess));
            }
        }
        for (const DebrisPiece& p : doomed)
            removeDebris(objects.at(p.object), p.object, p.fragment, p.reason);
    }
    catch (const std::bad_alloc&)
    {
        log("out of memory while applying DebrisSettings; nothing more removed this step");
    }
}

void FractureSystem::Impl::removeDebris(Object& o, ObjectId id, FragmentId fragment, DebrisReason reason)
{
    btRigidBody* body = o.bodies.at(fragment).body.get();
    if (settings.debris.onRemove)
    {
        try
        {
            settings.debris.onRemove({id, fragment, body, reason});
        }
        catch (const std::exception& e)
        {
            log(std::string("DebrisSettings::onRemove threw: ") + e.what());
        }
        catch (...)
        {
            log("DebrisSettings::onRemove threw a non-standard exception");
        }
    }
    for (FractureEvent& event : lastEvents) // no dangling pointers in lastStepEvents()
        std::replace(event.fragmentBodies.begin(), event.fragmentBodies.end(), body,
                     static_cast<btRigidBody*>(nullptr));
    removeBody(o, fragment);
    o.heldImpulse.erase(fragment);
    o.readyAt.erase(fragment);
    std::erase_if(o.preparing,
                  [&](const std::shared_ptr<FractureJob>& p)
                  {
                      if (p->prepare.size() != 1 || p->prepare.front() != fragment)
                          return false;
                      stopPreparation(p);
                      return true;
                  });
    forget(o, fragment);
    ++stepStats.debrisRemoved;
}

// Static where it lies: out of the world, mass 0, back in with its collision filter.
void FractureSystem::Impl::freeze(FragmentBody& b)
{
    btRigidBody& body = *b.body;
    const int group = body.getBroadphaseHandle()->m_collisionFilterGroup;
    const int mask = body.getBroadphaseHandle()->m_collisionFilterMask;
    world.removeRigidBody(&body);
    body.setLinearVelocity(btVector3(0, 0, 0));
    body.setAngularVelocity(btVector3(0, 0, 0));
    body.setMassProps(0, btVector3(0, 0, 0));
    body.setCollisionFlags(body.getCollisionFlags() | btCollisionObject::CF_STATIC_OBJECT);
    body.updateInertiaTensor();
    world.addRigidBody(&body, group, mask);
    b.frozen = true;
    ++stepStats.debrisFrozen;
}

FractureSystem::FractureSystem(btDiscreteDynamicsWorld& world, CollisionRegistration& collision,
                               const FractureSystemSettings& settings)
{
    checkSettings(settings);
    if (world.getDispatcher() != &collision.dispatcher())
        throw Error("FractureSystem", "the collision registration is not the one of the world's dispatcher");
    impl = std::make_unique<Impl>(world, collision, settings);
    if (settings.installCallback)
    {
        world.setInternalTickCallback(tickCallback, this, false);
        impl->callbackInstalled = true;
    }
}

FractureSystem::~FractureSystem()
{
    clear();
    if (impl->callbackInstalled && impl->world.getWorldUserInfo() == this)
        impl->world.setInternalTickCallback(nullptr, nullptr, false);
}

ObjectId FractureSystem::addObject(std::shared_ptr<const Asset> asset, const Material& material,
                                   const Eigen::Isometry3d& placement, const ObjectSettings& options)
{
    // Everything is checked here, so that nothing about the object can fail inside a step.
    if (!asset)
        throw Error("FractureSystem::addObject", "null asset");
    checkMaterial(material, asset->tetMesh.tetCount(), "FractureSystem::addObject material");
    // Sane ranges (ObjectSettings): beyond them single-precision Bullet turns the body non-finite.
    constexpr Real kMaxCoordinate = 1e6, kMaxSpeed = 1e4, kRotationSlack = 1e-4;
    if (!placement.matrix().allFinite() || !(placement.translation().cwiseAbs().maxCoeff() <= kMaxCoordinate))
        throw Error("FractureSystem::addObject", "placement must be finite, its translation within ±1e6 m");
    const Mat3 r = placement.linear();
    if (!((r.transpose() * r - Mat3::Identity()).cwiseAbs().maxCoeff() <= kRotationSlack &&
          r.determinant() > 0))
        throw Error(
            "FractureSystem::addObject",
            "placement must be a rigid transform (a rotation, no scaling or mirroring: build the asset "
            "from a scaled mesh instead)");
    if (!(options.linearVelocity.cwiseAbs().maxCoeff() <= kMaxSpeed) ||
        !(options.angularVelocity.cwiseAbs().maxCoeff() <= kMaxSpeed))
        throw Error("FractureSystem::addObject",
                    "velocities must be finite, each component within ±1e4 (m/s, rad/s)");
    if (!(options.friction >= 0) || !(options.restitution >= 0))
        throw Error("FractureSystem::addObject", "friction and restitution must be >= 0");

    Impl::Object o;
    o.anchored = anchoredNodes(*asset, options);
    o.state = std::make_shared<ObjectState>(std::move(asset), impl->objectState);
    o.material = material;
    o.options = options;
    if (options.fracturable)
        impl->pipeline->prepare(*o.state, material); // factorisation / basis / embedding now, not at impact

    FragmentBody b = makeFragmentBody(impl->shapes, o.state, 0, placement, material.density, options.dynamic);
    btRigidBody& body = *b.body;
    body.setLinearVelocity(toBullet(options.linearVelocity));
    body.setAngularVelocity(toBullet(options.angularVelocity));
    body.setFriction(btScalar(options.friction));
    body.setRestitution(btScalar(options.restitution));

    const ObjectId id = impl->nextId++;
    impl->objects.emplace(id, std::move(o));
    impl->ids.push_back(id);
    impl->addBody({id, 0}, std::move(b),
                  options.dynamic ? int(btBroadphaseProxy::DefaultFilter) : kStaticGroup,
                  options.dynamic ? int(btBroadphaseProxy::AllFilter) : kStaticMask);
    return id;
}

void FractureSystem::removeObject(ObjectId object)
{
    Impl::Object& o = impl->object(object);
    if (const std::shared_ptr<FractureJob> job = o.job)
    {
        impl->jobs.cancel(*job); // a queued job never runs, a running one is waited for
        impl->takePending(*job);
    }
    impl->stopPreparing(o);
    while (!o.bodies.empty())
        impl->removeBody(o, o.bodies.begin()->first);
    for (FragmentId fragment : o.state->liveFragments())
        impl->forget(o, fragment);
    impl->objects.erase(object);
    impl->ids.erase(std::find(impl->ids.begin(), impl->ids.end(), object));
}

void FractureSystem::clear()
{
    while (!impl->ids.empty())
        removeObject(impl->ids.back());
}

std::span<const ObjectId> FractureSystem::objects() const
{
    return impl->ids;
}

const ObjectState& FractureSystem::state(ObjectId object) const
{
    return *impl->object(object).state;
}

const Eigen::Isometry3d& FractureSystem::materialToBody(ObjectId object, FragmentId fragment) const
{
    const Impl::Object& o = impl->object(object);
    const auto it = o.bodies.find(fragment);
    if (it == o.bodies.end())
        throw Error("FractureSystem", "object " + std::to_string(object) + " has no body for fragment " +
                                          std::to_string(fragment));
    return it->second.materialToBody;
}

const Material& FractureSystem::material(ObjectId object) const
{
    return impl->object(object).material;
}

std::vector<btRigidBody*> FractureSystem::bodies(ObjectId object) const
{
    std::vector<btRigidBody*> out;
    for (auto& [fragment, body] : impl->object(object).bodies)
        out.push_back(body.body.get());
    return out;
}

bool FractureSystem::lookup(const btCollisionObject* body, ObjectId& object, FragmentId& fragment) const
{
    const auto it = impl->owners.find(body);
    if (it == impl->owners.end())
        return false;
    object = it->second.object;
    fragment = it->second.fragment;
    return true;
}

std::optional<FractureEvent> FractureSystem::breakWithImpulses(ObjectId object, FragmentId fragment,
                                                               std::span<const Eigen::Vector3d> points,
                                                               std::span<const Eigen::Vector3d> impulses,
                                                               Real timeStep)
{
    if (points.size() != impulses.size())
        throw Error("FractureSystem::breakWithImpulses", "points and impulses differ in number");
    if (!std::isfinite(timeStep) || timeStep <= 0)
        throw Error("FractureSystem::breakWithImpulses", "timeStep must be finite and > 0");
    Impl::Object& o = impl->object(object);
    // A pending job of the object is completed first (its result applied now, its event appended to
    // lastStepEvents): the blow below must see, and change, the state that job was computed from.
    // If that job broke `fragment` itself, the blow finds no body: no event (the job's is reported).
    if (const std::shared_ptr<FractureJob> job = o.job)
    {
        impl->finishAndComplete(job, false);
        if (job->fragment == fragment && !o.bodies.contains(fragment))
            return std::nullopt;
    }
    const auto it = o.bodies.find(fragment);
    if (it == o.bodies.end())
        throw Error("FractureSystem::breakWithImpulses", "fragment " + std::to_string(fragment) +
                                                             " of object " + std::to_string(object) +
                                                             " has no body (not alive)");
    const Eigen::Isometry3d worldToMaterial =
        (toEigen(it->second.body->getWorldTransform()) * it->second.materialToBody).inverse();
    std::vector<ImpactForce> forces;
    for (std::size_t i = 0; i < points.size(); ++i)
    {
        if (!points[i].allFinite() || !impulses[i].allFinite())
            throw Error("FractureSystem::breakWithImpulses", "non-finite point or impulse");
        forces.push_back({worldToMaterial * points[i], worldToMaterial.linear() * impulses[i] / timeStep});
    }
    // Synchronous: the pipeline runs here, and what it throws reaches the caller.
    Real impulse = 0;
    for (const Eigen::Vector3d& j : impulses)
        impulse += j.norm();
    const std::shared_ptr<FractureJob> job = impl->makeJob(object, fragment, forces, impulse);
    if (!job)
        return std::nullopt;
    FractureJobRunner::run(*job);
    std::optional<FractureEvent> event;
    try
    {
        event = impl->complete(*job, false);
    }
    catch (...)
    {
        impl->brokenBody = FragmentBody{};
        throw;
    }
    if (event)
    {
        ++impl->total;
        impl->announce(*event);
    }
    return event;
}

void FractureSystem::onInternalTick(btScalar timeStep) noexcept
{
    Impl& s = *impl;
    const auto start = Clock::now();
    try
    {
        tick(timeStep);
    }
    catch (const std::bad_alloc&)
    {
        s.failed("out of memory in the post-tick callback (std::bad_alloc)");
    }
    catch (const std::exception& e)
    {
        s.failed(e.what());
    }
    catch (...)
    {
        s.failed("unknown exception in the post-tick callback");
    }
    s.stepStats.pendingJobs = int(s.pending.size());
    s.stepStats.mainThreadMs = msSince(start);
}

void FractureSystem::tick(btScalar timeStep)
{
    Impl& s = *impl;
    s.lastEvents.clear();
    s.stepStats = FractureStepStats{};
    ++s.stepIndex;
    if (std::isfinite(timeStep) && timeStep > 0)
        s.lastTimeStep = double(timeStep);
    auto countLive = [&]
    {
        s.stepStats.liveFragments = Index(s.liveBodies());
    };
    s.removeNonFiniteBodies();
    if (s.settings.continuousCollision && std::isfinite(timeStep) && timeStep > 0)
        for (auto& [id, o] : s.objects)
            for (auto& [fragment, b] : o.bodies)
                sweepConcaveBody(s.world, *b.body, timeStep);
    // The jobs due at this boundary (impact step + latencySteps ≥ 1), in submission order, before this
    // step's impacts: their objects take new impacts again from this step on. They complete even if the
    // system was disabled since.
    while (!s.pending.empty() && s.pending.front()->dueStep <= s.stepIndex)
        s.finishAndComplete(s.pending.front(), true);
    if (!s.settings.enabled || !(timeStep > 0) || s.objects.empty())
    {
        if (timeStep > 0)
            s.applyDebris(double(timeStep));
        countLive();
        return;
    }

    // Contact forces per (object, fragment): gathered in manifold order, then grouped in key order
    // (stable, so processing does not depend on addresses).
    s.contactForces.clear();
    btDispatcher& dispatcher = *s.world.getDispatcher();
    const Real dt = Real(timeStep);
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold& manifold = *dispatcher.getManifoldByIndexInternal(m);
        for (int side = 0; side < 2; ++side)
        {
            const btCollisionObject* body = side == 0 ? manifold.getBody0() : manifold.getBody1();
            const auto owner = s.owners.find(body);
            if (owner == s.owners.end())
                continue;
            const Impl::Object& o = s.objects.at(owner->second.object);
            if (!o.options.fracturable)
                continue;
            const FragmentBody& fb = o.bodies.at(owner->second.fragment);
            const Eigen::Isometry3d worldToMaterial =
                (toEigen(body->getWorldTransform()) * fb.materialToBody).inverse();
            for (int k = 0; k < manifold.getNumContacts(); ++k)
            {
                const btManifoldPoint& p = manifold.getContactPoint(k);
                const Real impulse = Real(p.getAppliedImpulse());
                if (!(impulse > s.settings.minImpulse))
                    continue;
                // m_normalWorldOnB points from B toward A: it pushes A, its negative pushes B.
                const Vec3 normal = (side == 0 ? 1.0 : -1.0) * toEigen(p.m_normalWorldOnB);
                const Vec3 point = toEigen(side == 0 ? p.getPositionWorldOnA() : p.getPositionWorldOnB());
                s.contactForces.push_back(
                    {owner->second,
                     {worldToMaterial * point, worldToMaterial.linear() * normal * (impulse / dt)},
                     impulse});
            }
        }
    }
    std::stable_sort(s.contactForces.begin(), s.contactForces.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });

    // The gate (FractureSystemSettings::impulseGrowth): the held impulse decays, then a body whose load
    // grew past it is evaluated; the others hold at least their current load.
    for (auto& [id, o] : s.objects)
        for (auto& [fragment, held] : o.heldImpulse)
            held *= s.settings.heldImpulseDecay;
    s.impactScratch.clear();
    for (std::uint32_t i = 0; i < s.contactForces.size();)
    {
        Impl::Impact impact{s.contactForces[i].key, i, i, 0};
        for (; impact.end < s.contactForces.size() && s.contactForces[impact.end].key == impact.key;
             ++impact.end)
            impact.impulse += s.contactForces[impact.end].impulse;
        i = impact.end;
        const Impl::Object& o = s.objects.at(impact.key.object);
        if (!s.ready(o, impact.key.fragment))
        {
            ++s.stepStats.unreadyImpacts; // neither evaluated nor held: it is not a fracture candidate yet
            continue;
        }
        auto& held = s.objects.at(impact.key.object).heldImpulse;
        const auto last = held.find(impact.key.fragment);
        const bool growing = last == held.end() || impact.impulse > s.settings.impulseGrowth * last->second;
        if (s.settings.evaluateEveryStep || growing)
            s.impactScratch.push_back(impact);
        else
            last->second = std::max(last->second, impact.impulse);
    }
    std::stable_sort(s.impactScratch.begin(), s.impactScratch.end(),
                     [](const auto& a, const auto& b) { return a.impulse > b.impulse; });
    if (s.impactScratch.size() > std::size_t(s.settings.maxEventsPerStep))
        s.impactScratch.resize(std::size_t(s.settings.maxEventsPerStep));
    // Submission, strongest impact first. An object with a pending job takes no new one: with
    // latencySteps ≥ 1 its impact is not evaluated (and its gate not changed); with latencySteps = 0 it is
    // deferred until the job before it was applied, below.
    enum class Fate : std::uint8_t
    {
        None,
        Submitted,
        Deferred
    };
    s.fateScratch.assign(s.impactScratch.size(), std::uint8_t(Fate::None));
    auto forcesOf = [&](const Impl::Impact& impact) -> std::span<const ImpactForce>
    {
        s.forceScratch.clear();
        for (std::uint32_t i = impact.begin; i < impact.end; ++i)
            s.forceScratch.push_back(s.contactForces[i].force);
        return s.forceScratch;
    };
    // The world's fragment limit (FractureSystemSettings::maxWorldFragments): an event adds at most its
    // material's maxFragments − 1 bodies, so one is submitted only while the bodies there are and those
    // the pending events may add leave room for it; the others are counted and not evaluated.
    std::size_t committed = 0; // bodies there are plus what the pending events may add
    if (!s.impactScratch.empty())
    {
        committed = s.liveBodies();
        for (const std::shared_ptr<FractureJob>& job : s.pending)
            committed += std::size_t(job->material->maxFragments - 1);
    }
    auto mostAdded = [&](const Impl::Impact& impact)
    {
        return std::size_t(s.objects.at(impact.key.object).material.maxFragments - 1);
    };
    auto fits = [&](const Impl::Impact& impact)
    {
        if (committed + mostAdded(impact) <= std::size_t(s.settings.maxWorldFragments))
            return true;
        ++s.stepStats.fragmentLimitImpacts;
        return false;
    };
    for (std::size_t i = 0; i < s.impactScratch.size(); ++i)
    {
        const Impl::Impact& impact = s.impactScratch[i];
        if (s.objects.at(impact.key.object).job)
            s.fateScratch[i] = std::uint8_t(s.latency == 0 ? Fate::Deferred : Fate::None);
        else if (fits(impact) && s.submit(impact.key, forcesOf(impact), impact.impulse))
        {
            s.fateScratch[i] = std::uint8_t(Fate::Submitted);
            committed += mostAdded(impact);
        }
    }
    // latencySteps = 0: the results now, in impulse order (the jobs of different objects ran side by
    // side; a deferred impact runs after its object's earlier one was applied, as a sequential loop).
    if (s.latency == 0)
        for (std::size_t i = 0; i < s.impactScratch.size(); ++i)
        {
            const Impl::Impact& impact = s.impactScratch[i];
            if (s.fateScratch[i] == std::uint8_t(Fate::Deferred))
            {
                if (!(fits(impact) && s.submit(impact.key, forcesOf(impact), impact.impulse)))
                    continue;
                committed += mostAdded(impact);
            }
            if (s.fateScratch[i] == std::uint8_t(Fate::None))
                continue;
            const std::shared_ptr<FractureJob> job = s.objects.at(impact.key.object).job;
            SHATTER_ASSERT(job && job->fragment == impact.key.fragment);
            s.finishAndComplete(job, true);
        }
    s.applyDebris(double(timeStep));
    countLive();
}

const TriMesh& FractureSystem::surface(ObjectId object, FragmentId fragment,
                                       std::span<const std::uint8_t>* crack) const
{
    const ObjectState& s = state(object);
    const std::shared_ptr<const FragmentMesh> mesh = s.alive(fragment) ? s.fragmentMesh(fragment) : nullptr;
    if (!mesh)
        throw Error("FractureSystem::surface", "fragment " + std::to_string(fragment) + " of object " +
                                                   std::to_string(object) + " is not alive");
    if (crack)
        *crack = mesh->crack;
    return mesh->surface;
}

btDiscreteDynamicsWorld& FractureSystem::world() const
{
    return impl->world;
}

std::span<const FractureEvent> FractureSystem::lastStepEvents() const
{
    return impl->lastEvents;
}

std::size_t FractureSystem::totalEvents() const
{
    return impl->total;
}

const FractureStepStats& FractureSystem::lastStepStats() const
{
    return impl->stepStats;
}

FractureSystemSettings& FractureSystem::settings()
{
    return impl->settings;
}

FracturePipeline& pipeline(FractureSystem& system)
{
    return shatter::detail::InternalAccess::pipeline(system);
}

void setPipelineSettings(FractureSystem& system, const PipelineSettings& settings)
{
    shatter::detail::InternalAccess::setPipelineSettings(system, settings);
}

ObjectStateSettings& objectStateSettings(FractureSystem& system)
{
    return shatter::detail::InternalAccess::objectStateSettings(system);
}

} // namespace shatter::fracture

namespace shatter
{

fracture::FracturePipeline& detail::InternalAccess::pipeline(fracture::FractureSystem& system)
{
    return *system.impl->pipeline;
}

void detail::InternalAccess::setPipelineSettings(fracture::FractureSystem& system,
                                                 const fracture::PipelineSettings& settings)
{
    if (!system.impl->objects.empty())
        throw Error("setPipelineSettings", "the system already has objects");
    system.impl->pipeline = std::make_unique<fracture::FracturePipeline>(settings);
    system.impl->settings.deformation = settings.deformation.model;
    system.impl->settings.metric = settings.metric;
}

ObjectStateSettings& detail::InternalAccess::objectStateSettings(fracture::FractureSystem& system)
{
    return system.impl->objectState;
}

void detail::InternalAccess::apply(fracture::FractureSystem& system, const ComparisonVariants& variants)
{
    if (variants.shapes != fracture::FragmentShapeKind::Fracturable &&
        variants.shapes != fracture::FragmentShapeKind::GImpact &&
        variants.shapes != fracture::FragmentShapeKind::ConvexHull)
        throw Error("ComparisonVariants::shapes", "unknown fragment shape kind");
    if (variants.restructure != RestructureMethod::Tvcg2013 &&
        variants.restructure != RestructureMethod::Sca2012 &&
        variants.restructure != RestructureMethod::Rebuild)
        throw Error("ComparisonVariants::restructure", "unknown restructure method");
    btCollisionDispatcher& dispatcher = system.impl->registration.dispatcher();
    if (variants.shapes == fracture::FragmentShapeKind::GImpact)
        btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher); // idempotent
    // The hull baseline's pairs get Bullet's multipoint perturbation, its remedy for resting convex
    // bodies: without it a step adds one point to a manifold, and at long steps a resting hull rocks
    // about it and sinks. The other modes keep Bullet's defaults: Shatter's balls and ground are convex
    // pairs too (its results must not depend on the baselines), and GImpact's triangle pairs, convex as
    // well, go unstable with it (docs/scenes.md).
    if (variants.shapes == fracture::FragmentShapeKind::ConvexHull)
        if (auto* configuration =
                dynamic_cast<btDefaultCollisionConfiguration*>(dispatcher.getCollisionConfiguration()))
        {
            configuration->setConvexConvexMultipointIterations(kBaselineMultipointIterations,
                                                               kBaselineMultipointIterations);
            configuration->setPlaneConvexMultipointIterations(kBaselineMultipointIterations,
                                                              kBaselineMultipointIterations);
        }
    system.impl->shapes = variants.shapes;
    system.impl->objectState.restructure = variants.restructure;
}

void applyComparisonVariants(fracture::FractureSystem& system, const ComparisonVariants& variants)
{
    detail::InternalAccess::apply(system, variants);
}

} // namespace shatter
