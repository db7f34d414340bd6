// Enabling Shatter in an existing Bullet program (DESIGN.md §4, §6; docs/user-guide.md):
//
//     auto config = shatter::makeCollisionConfiguration();   // or keep yours, see below
//     btCollisionDispatcher dispatcher(config.get());
//     shatter::registerCollisionAlgorithms(dispatcher);      // the one call
//
// registerCollisionAlgorithms puts FracturableCollisionAlgorithm's create function into *every*
// (type, CUSTOM_CONCAVE) and (CUSTOM_CONCAVE, type) entry of both of the dispatcher's tables — the
// contact-point table (simulation) and the closest-point table (contactTest, contactPairTest) — except
// for compounds, whose own algorithm recurses child-first and so reaches our entries with the child
// shape and the child's world transform. Every entry is needed (reference/bullet_integration.md §2):
// CUSTOM_CONCAVE_SHAPE_TYPE is also SDF_SHAPE_PROXYTYPE, so an unregistered convex pair would go to
// Bullet's SDF code and crash, and unregistered concave pairs (static plane, triangle mesh,
// fracturable × fracturable) would silently never collide. Pairs of two non-fracturable shapes that
// land in these entries (a btSdfCollisionShape) still get Bullet's default algorithm.
//
// Algorithm size: the algorithm may be larger than the pool slot of a default
// btDefaultCollisionConfiguration; it is then allocated outside the pool (btAlignedAlloc, which
// Bullet's freeCollisionAlgorithm handles), so any configuration works. makeCollisionConfiguration
// sizes the slot for it so that it comes from the pool.
//
// Threading: Debian's Bullet is built without BT_THREADSAFE, so btCollisionDispatcherMt and
// btDiscreteDynamicsWorldMt run sequentially there (call btSetTaskScheduler(btGetSequentialTaskScheduler())
// before creating them). The algorithm itself is re-entrant: per-pair state in the algorithm object,
// per-thread query scratch, shared data only read.
#pragma once

#include "shape_field.h"
#include "sphere_tree_query.h"

#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>

#include <cstddef>
#include <memory>

class btCollisionDispatcher;

namespace shatter
{

/// Settings of the narrow phase for one dispatcher; checked by registerCollisionAlgorithms.
struct CollisionSettings
{
    /// TVCG §5.2: Adaptive (the budget m self-adapts per pair), Full (every point within ε; for
    /// reference and tests) or FixedBudget (stop at m).
    ContactMode mode = ContactMode::Adaptive;
    /// TVCG §5.3 maximum-distance traversal (Algorithm 1) or plain breadth first (SCA'12).
    TraversalOrder order = TraversalOrder::MaxDistance;
    /// ε as a fraction of the radius of the smaller object of the pair (TVCG §5.2: 0.2 %). Contacts
    /// closer than ε are kept as speculative contacts; resting penetration settles below ε. In (0, 0.1].
    Real toleranceFraction = 0.002;
    /// m at the first step of a pair (TVCG §5.2: eight), ≥ 1. Also the fixed budget of FixedBudget.
    Index initialBudget = kInitialContactBudget;
    /// Adaptive: the most contacts one pair hands to the solver in a step, ≥ initialBudget. TVCG §5.2
    /// raises m for every point deeper than ε, without bound; after a deep impact that is hundreds of
    /// contacts per pair, most of them redundant for the solver. The cap keeps a well-spread subset.
    Index maxContactsPerPair = 32;
    /// Adaptive: the query collects up to this many times m candidate contacts (≥ 1), of which m are
    /// kept, spread over the contact patch (contact_selection.h). 1 = TVCG's first m contacts.
    Index candidateFactor = 4;
    /// Adaptive and FixedBudget: speculative contacts. The query band grows from ε to ε plus how far
    /// the pair can approach in the step (relative speed bound × Δt, capped at the smaller radius), so
    /// that a fast body is stopped at the surface instead of landing deep inside it: Bullet runs no CCD
    /// for concave shapes (reference/bullet_integration.md §1). The solver lets a contact at distance d
    /// close by d and no more, so these contacts cost nothing while the bodies stay apart.
    bool speculativeContacts = true;
    /// How the non-fracturable shapes are seen (triangle-mesh thickness, point shell size).
    ShapeFieldSettings otherShapes;
};

/// Registers FracturableCollisionAlgorithm with `dispatcher` (see the file comment). Calling it again
/// replaces the settings for pairs created from then on. The create functions live until
/// unregisterCollisionAlgorithms(dispatcher) or the end of the program. Throws shatter::Error for bad
/// settings.
void registerCollisionAlgorithms(btCollisionDispatcher& dispatcher, const CollisionSettings& settings = {});

/// Puts the configuration's default create functions back into the entries registerCollisionAlgorithms
/// took over, and frees the registration. Call it before destroying the dispatcher only if the
/// dispatcher's address may be reused by one you register again with other settings, or to reclaim the
/// registration's memory (shape fields of the other shapes). Remove fracturable bodies first.
void unregisterCollisionAlgorithms(btCollisionDispatcher& dispatcher);

/// Drops the cached field of `shape` (built for pairs of fracturable bodies with it). Call it before
/// deleting a shape whose address may be reused by a new shape while `dispatcher` lives.
void forgetShape(btCollisionDispatcher& dispatcher, const btCollisionShape* shape);

/// Narrow-phase counters of one dispatcher, accumulated over the steps since registration or the last
/// resetCollisionStatistics (TVCG Table 2, Fig. 12). Only simulation pairs count (contactTest and
/// contactPairTest queries do not).
struct CollisionStatistics
{
    long outputContacts = 0;  ///< contacts handed to the solver ("output points")
    long collidingPoints = 0; ///< sphere-tree points found within the query band, before selection
    long pairs = 0;           ///< pair evaluations that output at least one contact
};

/// The counters of `dispatcher` (all zero if it has no registration). Safe to call between steps.
CollisionStatistics collisionStatistics(const btCollisionDispatcher& dispatcher);
/// Sets the counters of `dispatcher` to zero (e.g. at the start of each step to get per-step figures).
void resetCollisionStatistics(btCollisionDispatcher& dispatcher);

/// Bytes of one FracturableCollisionAlgorithm (for m_customCollisionAlgorithmMaxElementSize).
std::size_t collisionAlgorithmSize();

/// A btDefaultCollisionConfiguration whose algorithm pool slot fits FracturableCollisionAlgorithm;
/// `info`'s other fields are kept.
std::unique_ptr<btDefaultCollisionConfiguration>
makeCollisionConfiguration(btDefaultCollisionConstructionInfo info = btDefaultCollisionConstructionInfo());

} // namespace shatter
