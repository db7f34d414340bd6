// Enabling Shatter's narrow phase in an existing Bullet program:
//
//     auto config = shatter::makeCollisionConfiguration();    // or keep yours, see below
//     btCollisionDispatcher dispatcher(config.get());
//     shatter::CollisionRegistration shatter(dispatcher);      // the one object; outlives nothing it needs
//
// A CollisionRegistration puts Shatter's create function into every (type, CUSTOM_CONCAVE) and
// (CUSTOM_CONCAVE, type) entry of both of the dispatcher's tables — contact points (simulation) and
// closest points (contactTest, contactPairTest) — except for compounds, whose own algorithm recurses
// child-first and so reaches these entries with the child shape. Every entry is needed: the fracturable
// shape's type CUSTOM_CONCAVE_SHAPE_TYPE is also Bullet's SDF_SHAPE_PROXYTYPE, so an unregistered
// convex pair would go to Bullet's SDF code, and unregistered concave pairs (plane, triangle mesh,
// fracturable × fracturable) would never collide. Pairs of two non-fracturable shapes that land there
// still get Bullet's default algorithm. The destructor puts Bullet's default create functions back.
//
// The registration owns the settings, the statistics and the fields of the other shapes; each create
// function holds them directly, so nothing is looked up by the dispatcher's address. Destroy it before
// the dispatcher (or never destroy the dispatcher first); pairs Bullet still holds keep what they use.
//
// Errors: bad settings throw shatter::Error from the constructor. During a step nothing throws through
// Bullet: a pair whose narrow phase fails outputs no contacts for that step, and the failure is counted
// in CollisionStatistics (and passed to CollisionSettings::log).
//
// Algorithm size: the algorithm may be larger than the pool slot of a default
// btDefaultCollisionConfiguration; it is then allocated outside the pool (btAlignedAlloc, which
// Bullet's freeCollisionAlgorithm handles), so any configuration works. makeCollisionConfiguration
// sizes the slot so that it comes from the pool.
//
// Threading: the algorithm is re-entrant (per-pair state in the algorithm, per-thread query scratch,
// shared data only read, counters atomic). ParallelCollisionDispatcher runs the pairs of a stock
// btDiscreteDynamicsWorld on several threads; where Bullet is built with BT_THREADSAFE,
// btCollisionDispatcherMt (with btDiscreteDynamicsWorldMt) may run them in parallel too.
#pragma once

#include "shatter/math.h"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

class btCollisionShape;
class btDiscreteDynamicsWorld;

namespace shatter
{

namespace detail
{
struct InternalAccess; // in-tree programs' access to the comparison variants (not installed)
} // namespace detail

/// Settings of the narrow phase of one dispatcher; checked by CollisionRegistration's constructor.
struct CollisionSettings
{
    /// ε as a fraction of the radius of the smaller object of a pair (TVCG §5.2); in (0, 0.1], default 0.002.
    Real toleranceFraction = 0.002;
    /// m, the contact budget a pair starts with (TVCG §5.2), ≥ 1; default 8.
    Index initialBudget = 8;
    /// The most contacts one pair hands to the solver in a step, ≥ initialBudget; default 32.
    Index maxContactsPerPair = 32;
    /// Contacts for all pairs of a step: each pair keeps at most this / (live fracturable pairs, touching
    /// or not), at least 1, so that bodies piled into one spot cannot exhaust memory; ≥ 1, default 2^20
    /// (binds from 32,768 live pairs; the soak's piles have a few thousand). Not for ContactMode::Full.
    Index maxContactsPerStep = Index(1) << 20;
    /// The query collects up to this many times m candidates and keeps m spread ones, in [1, 64]; default 4.
    Index candidateFactor = 4;
    /// Speculative contacts up to how far a pair can approach within the step (Bullet has no CCD for concave
    /// shapes); default on.
    bool speculativeContacts = true;
    /// Depth below a triangle mesh's surface that still counts as inside, model units, ≥ 0 (may be +inf);
    /// default 0.1.
    Real meshThickness = Real(0.1);
    /// Surface samples per non-fracturable shape (its point shell, TVCG §5.1), ≥ 1; default 256.
    Index shellPoints = 256;
    /// Called with the message of every narrow-phase failure during a step (from Bullet's thread); default
    /// none.
    std::function<void(const std::string&)> log;
};

/// Narrow-phase counters accumulated since construction or resetStatistics (TVCG Table 2); only
/// simulation pairs count, not contactTest / contactPairTest queries.
struct CollisionStatistics
{
    long outputContacts = 0;  ///< contacts handed to the solver ("output points")
    long collidingPoints = 0; ///< sphere-tree points found within the query band, before selection
    long pairs = 0;           ///< pair evaluations that output at least one contact
    long failures = 0;        ///< pair evaluations that failed and output no contacts (see the file comment)
    long budgetLimitedPairs = 0; ///< pair evaluations that kept fewer contacts for maxContactsPerStep
    /// Pairs made with a shape Shatter cannot collide with (they get no contacts); the first of each
    /// shape type is also logged through CollisionSettings::log.
    long unsupportedPairs = 0;
    std::string lastError; ///< the message of the last failure ("" if none)
};

/// Shatter's narrow phase registered with one dispatcher, for as long as this object lives; see the
/// file comment. Neither copyable nor movable: the dispatcher's entries point into it.
class CollisionRegistration
{
public:
    /// Registers with `dispatcher`, which must have a collision configuration. Throws shatter::Error
    /// for bad settings or a dispatcher without configuration.
    explicit CollisionRegistration(btCollisionDispatcher& dispatcher, const CollisionSettings& settings = {});
    /// Puts the configuration's default create functions back into the entries taken over.
    ~CollisionRegistration();
    CollisionRegistration(const CollisionRegistration&) = delete;
    CollisionRegistration& operator=(const CollisionRegistration&) = delete;

    btCollisionDispatcher& dispatcher() const;
    const CollisionSettings& settings() const;
    /// Replaces the settings for the pairs Bullet creates from now on (live pairs keep theirs; the
    /// statistics carry over). Throws shatter::Error for bad settings, keeping the current ones.
    void setSettings(const CollisionSettings& settings);

    /// The counters; safe to call between steps.
    CollisionStatistics statistics() const;
    /// Sets the counters to zero (e.g. at the start of each step for per-step figures).
    void resetStatistics();
    /// Drops the cached field of a non-fracturable `shape`: call it before deleting a shape whose
    /// address may be reused by a new shape while this registration lives.
    void forgetShape(const btCollisionShape* shape);

private:
    friend struct detail::InternalAccess;
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/// A btCollisionDispatcher that runs the narrow phase of the overlapping pairs on several threads
/// (oneTBB) with the results of btCollisionDispatcher: the same contacts, and the same manifold order,
/// whatever the thread count. Use it in place of btCollisionDispatcher (Bullet's own threaded
/// dispatcher needs a Bullet built with BT_THREADSAFE, which Debian's is not). Pairs with a GImpact
/// shape, a custom near callback and continuous (time of impact) dispatch run on the calling thread.
/// Every algorithm a world uses must be safe to run for different pairs at once, as Bullet's own are;
/// Bullet's global contact callbacks (gContactAddedCallback, ...) may then be called from any thread.
class ParallelCollisionDispatcher : public btCollisionDispatcher
{
public:
    /// `threads`: threads of the narrow phase including the caller's, ≥ 0, at most the cores oneTBB lets
    /// the process use; 0 all of them; 1 runs every pair on the calling thread. Throws shatter::Error
    /// for a negative count.
    explicit ParallelCollisionDispatcher(btCollisionConfiguration* configuration, int threads = 0);
    ~ParallelCollisionDispatcher() override;
    ParallelCollisionDispatcher(const ParallelCollisionDispatcher&) = delete;
    ParallelCollisionDispatcher& operator=(const ParallelCollisionDispatcher&) = delete;

    /// Changes the thread count (as in the constructor); call it between steps.
    void setThreads(int threads);
    /// The threads the narrow phase runs on (≥ 1).
    int threads() const;

    void dispatchAllCollisionPairs(btOverlappingPairCache* pairCache, const btDispatcherInfo& info,
                                   btDispatcher* dispatcher) override;
    btPersistentManifold* getNewManifold(const btCollisionObject* b0, const btCollisionObject* b1) override;
    void releaseManifold(btPersistentManifold* manifold) override;
    void* allocateCollisionAlgorithm(int size) override;
    void freeCollisionAlgorithm(void* ptr) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/// Names a collision object across a save and its restore (the game's entity ids, or an object and
/// fragment from FractureSystem::lookup): a different number for each object of the world.
using CollisionObjectKey = std::function<std::uint64_t(const btCollisionObject& object)>;

/// Version of the world contacts format (saveWorldContacts) this build reads and writes.
inline constexpr std::uint32_t kWorldContactsFormatVersion = 1;

/// What a Bullet world carries from one step to the next besides its bodies' motion, as bytes framed like
/// a save file: the broadphase (its trees, proxies and pair array), every pair's collision algorithm with
/// its contact manifolds (warm-start impulses, lifetimes), the continuous collision's predictive manifolds,
/// and the order of the bodies and manifolds that the solver and the integration walk. Call it between
/// steps. Restored with the bodies' motion (FractureSystem::save, and the game's own bodies), a run
/// continues bit for bit; without it the first steps re-find the contacts and the run drifts apart. Needs
/// Bullet's default btDbvtBroadphase with its btHashedOverlappingPairCache. Not saved: constraints,
/// actions and contacts' m_userPersistentData. Throws shatter::Error for another broadphase, two objects
/// with one key, or a manifold that no pair owns.
std::vector<std::byte> saveWorldContacts(btDiscreteDynamicsWorld& world, const CollisionObjectKey& key);
/// Puts saved contacts back into a world, between steps, that holds the same collision objects (by key)
/// with their saved motion and collision filters, and replaces its pairs and manifolds. Everything is
/// checked before the world changes except what only Bullet can tell (an algorithm that makes other
/// manifolds than the save's: the world then keeps its bodies without contacts, which the next step
/// finds again). Throws shatter::Error naming `source`: not a contacts save, truncated, corrupt, another
/// version or precision, or objects that do not match.
void restoreWorldContacts(btDiscreteDynamicsWorld& world, std::span<const std::byte> bytes,
                          const CollisionObjectKey& key, const std::string& source = "world contacts");

/// A btDefaultCollisionConfiguration whose algorithm pool slot fits Shatter's algorithm; `info`'s other
/// fields are kept.
std::unique_ptr<btDefaultCollisionConfiguration>
makeCollisionConfiguration(btDefaultCollisionConstructionInfo info = btDefaultCollisionConstructionInfo());

} // namespace shatter
