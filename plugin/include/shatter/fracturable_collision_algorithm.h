// FracturableCollisionAlgorithm: Bullet's per-pair narrow phase for pairs with at least one
// FracturableShape (DESIGN.md §4). Bullet creates one when the broad phase reports the pair and keeps it
// while the pair's boxes overlap, so it is where the pair's state lives: the self-adapting contact
// budget m (TVCG §5.2) and the manifolds. The why of the implementation is in the comment at the top of
// fracturable_collision_algorithm.cpp. Users only need registerCollisionAlgorithms (bullet_plugin.h).
#pragma once

#include "shatter/bullet_plugin.h"

#include <BulletCollision/CollisionDispatch/btActivatingCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionCreateFunc.h>
#include <LinearMath/btAlignedObjectArray.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace shatter
{

class ShapeField;
class ShapeFieldCache;

/// What every algorithm of one registration shares: the settings and the other shapes' fields.
struct CollisionContext
{
    CollisionSettings settings;
    std::shared_ptr<ShapeFieldCache> fields;
};

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
    /// Where each contact went last step: key = point id · 2 + owner side, slot = manifold index.
    struct Route
    {
        std::uint32_t key;
        std::uint32_t slot;
    };

    std::shared_ptr<const CollisionContext> m_context;
    std::shared_ptr<const ShapeField> m_fields[2]; // per side: the non-fracturable shape's field, else null
    btAlignedObjectArray<btPersistentManifold*> m_manifolds;
    std::vector<Route> m_routes; // sorted by key
    Index m_budget;
    std::uint8_t m_kind[2]; // per side: fracturable, ShapeField, unsupported
    bool m_closestPoints;
};

} // namespace shatter
