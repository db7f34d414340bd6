// FracturableCollisionAlgorithm: Bullet's per-pair narrow phase for pairs with at least one
// FracturableShape. Bullet creates one when the broad phase reports the pair and keeps it
// while the pair's boxes overlap, so it is where the pair's state lives: the self-adapting contact
// budget m (TVCG §5.2) and the manifolds. The why of the implementation is in the comment at the top of
// fracturable_collision_algorithm.cpp. Users only need CollisionRegistration (shatter/collision.h).
#pragma once

#include "shatter/collision.h"
#include "sphere_tree_query.h"

#include <BulletCollision/CollisionDispatch/btActivatingCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionCreateFunc.h>
#include <LinearMath/btAlignedObjectArray.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace shatter
{

class BinaryReader;
class BinaryWriter;
class ShapeField;
class ShapeFieldCache;

namespace detail
{
struct PairSide;    // one side of a pair at a step (fracturable_collision_algorithm.cpp)
struct PairScratch; // per-thread buffers of the narrow phase
} // namespace detail

/// The counters behind CollisionStatistics: relaxed atomics, since pairs may run on several threads
/// and only the totals matter; the failure message under a mutex (failures are rare).
struct CollisionCounters
{
    std::atomic<long> outputContacts{0};
    std::atomic<long> collidingPoints{0};
    std::atomic<long> pairs{0};
    std::atomic<long> failures{0};
    std::atomic<long> budgetLimitedPairs{0};
    std::atomic<long> unsupportedPairs{0};
    /// Simulation pairs with an algorithm (not a statistic: never reset). Algorithms are made and
    /// destroyed outside the parallel part of a step (parallel_dispatcher.cpp), so every pair of a step
    /// reads the same count whatever the thread count.
    std::atomic<long> livePairs{0};
    std::mutex errorMutex;
    std::string lastError;               // guarded by errorMutex
    std::set<int> unsupportedShapeTypes; // logged once each; guarded by errorMutex
};

/// What every algorithm of one registration shares: the settings (checked once, at registration), the
/// comparison variants, the other shapes' fields and the statistics counters (the only shared state a
/// pair writes). Immutable once registered: a change of variants makes a new context.
struct CollisionContext
{
    CollisionSettings settings;
    ContactMode mode = ContactMode::Adaptive;
    TraversalOrder order = TraversalOrder::MaxDistance;
    std::shared_ptr<ShapeFieldCache> fields;
    std::shared_ptr<CollisionCounters> counters;
};

/// Bytes of one FracturableCollisionAlgorithm (for m_customCollisionAlgorithmMaxElementSize).
std::size_t collisionAlgorithmSize();

/// The narrow phase of one pair; see the file comment.
class FracturableCollisionAlgorithm : public btActivatingCollisionAlgorithm
{
public:
    /// `closestPoints`: created from the closest-point table (contactTest, contactPairTest): a one-shot
    /// query that also reports points within resultOut->m_closestPointDistanceThreshold.
    FracturableCollisionAlgorithm(const btCollisionAlgorithmConstructionInfo& ci,
                                  const btCollisionObjectWrapper* body0Wrap,
                                  const btCollisionObjectWrapper* body1Wrap,
                                  std::shared_ptr<const CollisionContext> context, bool closestPoints);
    ~FracturableCollisionAlgorithm() override;

    /// Never throws (Bullet is not exception-safe): a failure empties the pair's manifolds for this step
    /// and is counted in the registration's statistics.
    void processCollision(const btCollisionObjectWrapper* body0Wrap,
                          const btCollisionObjectWrapper* body1Wrap, const btDispatcherInfo& dispatchInfo,
                          btManifoldResult* resultOut) override;
    /// Unused by Bullet's discrete dynamics (nothing sets DISPATCH_CONTINUOUS); no time of impact.
    btScalar calculateTimeOfImpact(btCollisionObject*, btCollisionObject*, const btDispatcherInfo&,
                                   btManifoldResult*) override
    {
        return btScalar(1);
    }
    /// Every manifold of the pair (4 points each; as many as the contacts need).
    void getAllContactManifolds(btManifoldArray& manifoldArray) override;

    /// The pair's current budget m (TVCG §5.2).
    Index contactBudget() const { return m_budget; }

private:
    /// Where each contact went last step: key = point id · 2 + owner side, slot = manifold index.
    struct Route
    {
        std::uint32_t key;
        std::uint32_t slot;
    };

public:
    /// What a pair carries between steps besides its manifolds' points (world saves).
    struct SavedState
    {
        Index budget = 0;
        btScalar breakingThreshold = 0;
        Vec3 pairNormal = Vec3::Zero();
        std::vector<Route> routes; // keys increasing
        std::int32_t manifolds = 0;
    };
    /// Appends the pair's state to `writer` (its manifolds are the caller's).
    void writeState(BinaryWriter& writer) const;
    /// Reads and checks what writeState wrote for a pair with `manifolds` manifolds.
    static SavedState readState(BinaryReader& reader, std::int32_t manifolds);
    /// Takes `state` on an algorithm made for the same pair (body0 first) that has not run yet, making
    /// its manifolds (empty: the caller fills them). False, changing nothing, if the saved budget is
    /// outside this registration's CollisionSettings.
    bool restoreState(const SavedState& state, const btCollisionObject* body0,
                      const btCollisionObject* body1);

    /// Creates the algorithm for pairs with a FracturableShape; other pairs (e.g. a btSdfCollisionShape,
    /// which shares the type id) go to `fallback`, the configuration's default entry.
    struct CreateFunc : public btCollisionAlgorithmCreateFunc
    {
        std::shared_ptr<const CollisionContext> context;
        btCollisionAlgorithmCreateFunc* fallback = nullptr;
        int poolElementSize = 0; ///< the dispatcher's pool slot; larger algorithms go to btAlignedAlloc
        bool closestPoints = false;

        btCollisionAlgorithm* CreateCollisionAlgorithm(btCollisionAlgorithmConstructionInfo& ci,
                                                       const btCollisionObjectWrapper* body0Wrap,
                                                       const btCollisionObjectWrapper* body1Wrap) override;
    };

private:
    /// processCollision's work; may throw.
    void collide(const btCollisionObjectWrapper* body0Wrap, const btCollisionObjectWrapper* body1Wrap,
                 const btDispatcherInfo& dispatchInfo, btManifoldResult* resultOut);
    /// Counts and reports a failure of collide(), and leaves the pair without contacts.
    void fail(const char* message) noexcept;

    const Route* findRoute(std::uint32_t key) const;
    /// Adaptive: drops tunnelled and ambiguous-edge contacts and updates m_pairNormal (see the .cpp).
    void filterNormals(Real tolerance, Real band, detail::PairScratch& s);
    /// Adaptive: keeps `keep` of this step's contacts, spread out (contact_selection.h).
    void selectContacts(Index keep, Real tolerance, detail::PairScratch& s) const;
    /// Assigns every contact its manifold (creating manifolds as needed) and records the routes.
    void routeContacts(const btCollisionObject* const (&objects)[2], detail::PairScratch& s);
    /// Marks `side` (of `shape`) unsupported: the pair gets no contacts; counted, and logged once per
    /// shape type.
    void unsupported(int side, const btCollisionShape& shape, const char* why) noexcept;
    /// Writes this step's contacts into the manifolds, refreshes them and releases the empty ones.
    void addContacts(const btCollisionObject* const (&objects)[2], const detail::PairSide (&sides)[2],
                     Real band, btManifoldResult* resultOut, detail::PairScratch& s);

    std::shared_ptr<const CollisionContext> m_context;
    std::shared_ptr<const ShapeField> m_fields[2]; // per side: the non-fracturable shape's field, else null
    btAlignedObjectArray<btPersistentManifold*> m_manifolds;
    std::vector<Route> m_routes; // sorted by key
    Index m_budget;
    Vec3 m_pairNormal = Vec3::Zero(); // world normal on B of the last step with contacts; 0 = none yet
    btScalar m_breakingThreshold = 0; // the manifolds' own contact breaking threshold (Bullet's default)
    std::uint8_t m_kind[2];           // per side: fracturable, ShapeField, unsupported
    bool m_closestPoints;
};

} // namespace shatter
