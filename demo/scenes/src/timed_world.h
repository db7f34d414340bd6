// TimedWorld: a btDiscreteDynamicsWorld that measures its collision detection. Bullet's step runs
// performDiscreteCollisionDetection (AABB update, broad phase, dispatcher = narrow phase) once per
// internal step; overriding it gives the "collision detection" column of TVCG Table 3 without touching
// Bullet, and the manifolds right after it are exactly what the solver receives (Table 2's output
// contacts, the pairs in contact, the deepest penetration).
#pragma once

#include <btBulletDynamicsCommon.h>

namespace shatter::scenes
{

/// What the narrow phase handed to the solver in the last internal step.
struct NarrowPhaseCounts
{
    double collisionMs = 0;    ///< broad + narrow phase wall time, ms
    long contacts = 0;         ///< contact points in all manifolds
    long pairs = 0;            ///< body pairs with at least one contact point
    double maxPenetration = 0; ///< m, deepest contact (−distance of the most negative point), ≥ 0
};

class TimedWorld : public btDiscreteDynamicsWorld
{
public:
    using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;

    void performDiscreteCollisionDetection() override;

    /// The counts of the last internal step (zero before the first).
    const NarrowPhaseCounts& lastCounts() const { return counts; }

private:
    NarrowPhaseCounts counts;
};

} // namespace shatter::scenes
