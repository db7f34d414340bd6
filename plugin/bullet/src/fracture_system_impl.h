// FractureSystem's private state (FractureSystem::Impl), shared by the files that implement it:
// fracture_system.cpp (objects, steps, events) and fracture_save.cpp (save and restore). Not installed.
#pragma once

#include "bullet_convert.h"
#include "fracture_jobs.h"
#include "fracture_system_internal.h"
#include "fragment_body.h"
#include "shatter/collision.h"
#include "shatter/error.h"

#include <btBulletDynamicsCommon.h>

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace shatter::fracture
{
namespace detail
{

// Bullet's filter of static bodies (btCollisionWorld::addCollisionObject's default for them).
constexpr int kStaticGroup = btBroadphaseProxy::StaticFilter;
constexpr int kStaticMask = btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter;

struct BodyKey
{
    ObjectId object = 0;
    FragmentId fragment = kNoFragment;
    auto operator<=>(const BodyKey&) const = default;
};

/// ObjectSettings' anchors as a flag per asset node (empty: none); throws shatter::Error for bad ones.
std::vector<char> anchoredNodes(const Asset& asset, const ObjectSettings& options);

} // namespace detail

using detail::BodyKey;

struct FractureSystem::Impl
{
    struct Object
    {
        std::shared_ptr<ObjectState> state;
        Material material;
        ObjectSettings options;
        std::map<FragmentId, FragmentBody> bodies; // live fragments, increasing id
        std::uint64_t runs = 0;                    // pipeline runs: the event index of the seed
        std::map<FragmentId, Real> heldImpulse;    // per fragment: see FractureSystemSettings::impulseGrowth
        std::map<FragmentId, std::uint64_t> readyAt; // per fragment since a fracture: its first ready step
        std::shared_ptr<FractureJob> job;            // the pending job of one of its fragments, if any
        std::vector<std::shared_ptr<FractureJob>> preparing; // its events' preparations not known done
        std::vector<char> anchored; // per asset node: in an anchor (ObjectSettings); empty: no anchors
        // The events that made its fragments, in order: a save keeps them, and a restore replays them
        // through ObjectState::apply to rebuild the field, grid and trees exactly (fracture_save.cpp).
        std::vector<std::shared_ptr<const FractureResult>> history;
    };

    Impl(btDiscreteDynamicsWorld& w, CollisionRegistration& r, const FractureSystemSettings& s)
        : world(w), registration(r), settings(s), latency(std::uint64_t(s.latencySteps)),
          readySteps(std::uint64_t(s.fragmentReadySteps)),
          pipeline(std::make_unique<FracturePipeline>(pipelineFor(s))), jobs(s.workers)
    {
    }

    static PipelineSettings pipelineFor(const FractureSystemSettings& s)
    {
        PipelineSettings p;
        p.deformation.model = s.deformation;
        p.metric = s.metric;
        return p;
    }

    // Counts nothing itself; reports `message` to the log, which must not throw through Bullet either.
    void log(const std::string& message) const noexcept
    {
        if (!settings.log)
            return;
        try
        {
            settings.log(message);
        }
        catch (...)
        {
        }
    }

    void failed(const char* message) noexcept
    {
        ++stepStats.failedEvents;
        try
        {
            stepStats.lastError = message;
        }
        catch (...)
        {
        }
        log(message);
    }

    Object& object(ObjectId id)
    {
        const auto it = objects.find(id);
        if (it == objects.end())
            throw Error("FractureSystem", "unknown object " + std::to_string(id));
        return it->second;
    }

    void addBody(BodyKey key, FragmentBody body, int group, int mask)
    {
        world.addRigidBody(body.body.get(), group, mask);
        owners[body.body.get()] = key;
        objects.at(key.object).bodies.emplace(key.fragment, std::move(body));
    }

    // Takes the fragment's body out of the world and the system; the caller owns what is returned.
    FragmentBody detachBody(Object& o, FragmentId fragment)
    {
        const auto it = o.bodies.find(fragment);
        if (it == o.bodies.end())
            return {};
        btRigidBody* body = it->second.body.get();
        while (body->getNumConstraintRefs() > 0)
            world.removeConstraint(body->getConstraintRef(0));
        world.removeRigidBody(body);
        owners.erase(body);
        registration.forgetShape(it->second.shape.get());
        FragmentBody detached = std::move(it->second);
        o.bodies.erase(it);
        return detached;
    }
    void removeBody(Object& o, FragmentId fragment) { (void)detachBody(o, fragment); }

    // Hands `event` to FractureSystemSettings::onBreak with the broken body (complete() kept it in
    // `brokenBody`), then lets that body go.
    void announce(FractureEvent& event) noexcept
    {
        if (settings.onBreak)
        {
            event.parentBody = brokenBody.body.get();
            try
            {
                settings.onBreak(event);
            }
            catch (const std::exception& e)
            {
                log(std::string("FractureSystemSettings::onBreak threw: ") + e.what());
            }
            catch (...)
            {
                log("FractureSystemSettings::onBreak threw a non-standard exception");
            }
            event.parentBody = nullptr;
        }
        brokenBody = FragmentBody{};
    }

    // Drops the pipeline's cached basis and bound data of a piece that will never break again (removed
    // as debris, or its object removed); the pipeline's cache would only keep them until its budget.
    void forget(const Object& o, FragmentId fragment) noexcept
    {
        try
        {
            pipeline->forget(*o.state, fragment, o.material);
        }
        catch (const std::exception& e) // bad_alloc of the region lookup: the cache's budget still holds
        {
            log(std::string("FractureSystem: could not release a piece's cached basis: ") + e.what());
        }
    }

    std::vector<std::shared_ptr<FractureJob>> lateForgets; // see stopPreparation
    void applyDebris(double timeStep) noexcept;
    void removeDebris(Object& o, ObjectId id, FragmentId fragment, DebrisReason reason);
    void freeze(FragmentBody& b);

    std::size_t liveBodies() const
    {
        std::size_t count = 0;
        for (const auto& [id, o] : objects)
            count += o.bodies.size();
        return count;
    }

    // A body whose transform or velocity is not finite (an absurd impulse, a degenerate mesh) would turn
    // an impact into non-finite fragments: it leaves the world before anything reads its contacts, its
    // pending job is cancelled, and it is counted and logged. Its fragment stays, without a body.
    void removeNonFiniteBodies()
    {
        std::vector<BodyKey> bad;
        for (const auto& [id, o] : objects)
            for (const auto& [fragment, b] : o.bodies)
                if (!hasFiniteMotion(*b.body))
                    bad.push_back({id, fragment});
        for (const BodyKey& key : bad)
        {
            Object& o = objects.at(key.object);
            if (o.job && o.job->fragment == key.fragment)
            {
                const std::shared_ptr<FractureJob> job = o.job;
                jobs.cancel(*job); // a queued job never runs, a running one is waited for
                takePending(*job);
            }
            removeBody(o, key.fragment);
            ++stepStats.nonFiniteBodies;
            log("FractureSystem: fragment " + std::to_string(key.fragment) + " of object " +
                std::to_string(key.object) +
                " has a non-finite transform or velocity; removed from the world");
        }
    }

    std::shared_ptr<FractureJob> makeJob(ObjectId id, FragmentId fragment,
                                         std::span<const ImpactForce> forces, Real impulse);
    bool mightBreak(const Object& o, FragmentId fragment, std::span<const ImpactForce> forces) noexcept;
    // Ends the object's preparations without waiting: a queued one never runs, a running one skips its
    // remaining fragments (they read nothing of the object, so it may go meanwhile).
    void stopPreparing(Object& o) noexcept
    {
        for (const std::shared_ptr<FractureJob>& p : o.preparing)
            stopPreparation(p);
        o.preparing.clear();
    }
    // One preparation: a queued one never runs; a running one still fills the pipeline's cache, so it
    // waits in lateForgets to be forgotten once done (forgetLate).
    void stopPreparation(const std::shared_ptr<FractureJob>& p) noexcept
    {
        p->stop.store(true, std::memory_order_relaxed);
        FractureJobRunner::abandon(*p);
        if (p->status.load(std::memory_order_acquire) == FractureJob::Running)
            try
            {
                lateForgets.push_back(p);
            }
            catch (const std::bad_alloc&)
            {
                // Its basis then waits for the cache's budget, as before.
            }
    }
    // The bases that stopped preparations built after their piece or object went.
    void forgetLate() noexcept
    {
        std::erase_if(
            lateForgets,
            [this](const std::shared_ptr<FractureJob>& p)
            {
                const int status = p->status.load(std::memory_order_acquire);
                if (status == FractureJob::Done)
                    try
                    {
                        pipeline->forgetFragments(*p->asset, *p->prepareFrom, p->prepare,
                                                  *p->preparedMaterial);
                    }
                    catch (const std::exception& e)
                    {
                        log(std::string("FractureSystem: could not release a piece's cached basis: ") +
                            e.what());
                    }
                return status == FractureJob::Done || status == FractureJob::Cancelled;
            });
    }
    // A fragment takes part in fracture from its ready step on (unbroken objects always).
    bool ready(const Object& o, FragmentId fragment) const
    {
        const auto at = o.readyAt.find(fragment);
        return at == o.readyAt.end() || stepIndex >= at->second;
    }
    bool submit(BodyKey key, std::span<const ImpactForce> forces, Real impulse);
    void takePending(const FractureJob& job);
    std::optional<FractureEvent> complete(FractureJob& job, bool insideStep);
    void finishAndComplete(std::shared_ptr<FractureJob> job,
                           bool insideStep) noexcept; // by value: it leaves `pending`

    btDiscreteDynamicsWorld& world;
    CollisionRegistration& registration;
    FractureSystemSettings settings;
    const std::uint64_t latency;    // FractureSystemSettings::latencySteps, read by the constructor
    const std::uint64_t readySteps; // FractureSystemSettings::fragmentReadySteps, likewise
    std::unique_ptr<FracturePipeline> pipeline;
    FractureJobRunner jobs; // after the pipeline: its destructor waits for the tasks that point to it
    std::vector<std::shared_ptr<FractureJob>> pending; // submission order
    std::uint64_t stepIndex = 0;                       // internal steps seen by onInternalTick
    double lastTimeStep = 1.0 / 60;                    // s, of the last internal step seen
    // The step at which the preparations submitted so far would be done on one worker, as predicted from
    // fragmentBasisMs: the ready step of the next event's fragments counts from here.
    double preparedUntil = 0;
    ObjectStateSettings objectState;                           // of objects added from now on
    FragmentShapeKind shapes = FragmentShapeKind::Fracturable; // comparison variant
    bool callbackInstalled = false;
    std::map<ObjectId, Object> objects;
    std::vector<ObjectId> ids; // increasing
    ObjectId nextId = 0;
    std::unordered_map<const btCollisionObject*, BodyKey> owners; // lookups only, never iterated
    std::vector<FractureEvent> lastEvents;
    // applyDebris's lists, kept between steps (it walks every piece every step while a rule is on).
    struct DebrisPiece
    {
        Real volume;
        std::uint64_t born;
        ObjectId object;
        FragmentId fragment;
        DebrisReason reason;
        auto operator<=>(const DebrisPiece&) const = default; // the budget's order: smallest, then oldest
    };
    struct
    {
        std::vector<DebrisPiece> kept, doomed;
    } debrisScratch;
    FragmentBody brokenBody; // the body complete() replaced, until announce() has shown it to onBreak

    // onInternalTick scratch, kept between steps so that a step without fracture does not allocate.
    struct ContactForce
    {
        BodyKey key;
        ImpactForce force;
        Real impulse = 0; // N·s
    };
    struct Impact
    {
        BodyKey key;
        std::uint32_t begin = 0, end = 0; // its range of contactForces
        Real impulse = 0;                 // Σ J, N·s
    };
    std::vector<ContactForce> contactForces;
    std::vector<Impact> impactScratch;
    std::vector<ImpactForce> forceScratch;
    std::vector<std::uint8_t> fateScratch; // per impact of the step: what became of it
    std::size_t total = 0;
    FractureStepStats stepStats;
};

} // namespace shatter::fracture
