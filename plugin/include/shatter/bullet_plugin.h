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

#include "shatter/shape_field.h"
#include "shatter/sphere_tree_query.h"

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

/// Bytes of one FracturableCollisionAlgorithm (for m_customCollisionAlgorithmMaxElementSize).
std::size_t collisionAlgorithmSize();

/// A btDefaultCollisionConfiguration whose algorithm pool slot fits FracturableCollisionAlgorithm;
/// `info`'s other fields are kept.
std::unique_ptr<btDefaultCollisionConfiguration>
makeCollisionConfiguration(btDefaultCollisionConstructionInfo info = btDefaultCollisionConstructionInfo());

} // namespace shatter
