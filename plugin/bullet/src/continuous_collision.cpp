#include "continuous_collision.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <algorithm>
#include <cmath>

namespace shatter::fracture
{

namespace
{

// The closest hit of the sweep with another body that has contact response and that the sphere
// approaches along the hit normal (which points back towards the sphere) by more than `minApproach`
// over the step, relative to that body's motion; a grazing or separating hit, or one with a body
// moving along, is left to the narrow phase.
struct ApproachingHit : btCollisionWorld::ClosestConvexResultCallback
{
    ApproachingHit(const btRigidBody& self, const btVector3& from, const btVector3& to, btScalar dt,
                   btScalar minApproach)
        : ClosestConvexResultCallback(from, to), self(self), motion(to - from), dt(dt),
          minApproach(minApproach)
    {
        const btBroadphaseProxy* proxy = self.getBroadphaseHandle();
        m_collisionFilterGroup = proxy ? proxy->m_collisionFilterGroup : btBroadphaseProxy::DefaultFilter;
        m_collisionFilterMask = proxy ? proxy->m_collisionFilterMask : btBroadphaseProxy::AllFilter;
    }

    bool needsCollision(btBroadphaseProxy* proxy) const override
    {
        return proxy->m_clientObject != &self && ClosestConvexResultCallback::needsCollision(proxy);
    }

    btScalar addSingleResult(btCollisionWorld::LocalConvexResult& result, bool normalInWorldSpace) override
    {
        if (result.m_hitCollisionObject == &self || !result.m_hitCollisionObject->hasContactResponse())
            return 1;
        const btVector3 normal =
            normalInWorldSpace
                ? result.m_hitNormalLocal
                : result.m_hitCollisionObject->getWorldTransform().getBasis() * result.m_hitNormalLocal;
        // The approach relative to the other body over the step (Bullet's own CCD filters hits so).
        btVector3 relative = motion;
        if (const btRigidBody* other = btRigidBody::upcast(result.m_hitCollisionObject))
            relative -= other->getLinearVelocity() * dt;
        if (-normal.dot(relative) <= minApproach)
            return 1;
        return ClosestConvexResultCallback::addSingleResult(result, normalInWorldSpace);
    }

    const btRigidBody& self;
    btVector3 motion;
    btScalar dt;
    btScalar minApproach;
};

} // namespace

void setContinuousCollision(btRigidBody& body, const MassProperties& mass)
{
    if (!(mass.mass > 0))
        return;
    // A box with half-extents (a, b, c) has moments m(b² + c²)/3, m(a² + c²)/3, m(a² + b²)/3; the
    // largest moment is about the axis of the smallest extent.
    const Vec3& moments = mass.principalInertia; // ascending
    const Real squares = 1.5 * moments.sum() / mass.mass;
    const Real smallest = std::sqrt(std::max(squares - 3 * moments.z() / mass.mass, Real(0)));
    btVector3 centre;
    btScalar radius = 0;
    body.getCollisionShape()->getBoundingSphere(centre, radius);
    if (!(smallest > 0) || !(radius > 0))
        return;
    body.setCcdSweptSphereRadius(btScalar(0.9 * smallest));
    body.setCcdMotionThreshold(btScalar(0.5) * radius);
}

bool sweepConcaveBody(btCollisionWorld& world, btRigidBody& body, btScalar dt)
{
    const btScalar threshold = body.getCcdMotionThreshold();
    if (body.getCollisionShape()->isConvex() || !(threshold > 0) || !(body.getCcdSweptSphereRadius() > 0) ||
        body.isStaticOrKinematicObject() || !body.isActive())
        return false;
    const btVector3 motion = body.getLinearVelocity() * dt;
    if (!(motion.length2() > threshold * threshold))
        return false;
    const btTransform& to = body.getCenterOfMassTransform();
    btTransform from = to;
    from.setOrigin(to.getOrigin() - motion);
    btSphereShape sphere(body.getCcdSweptSphereRadius());
    ApproachingHit hit(body, from.getOrigin(), to.getOrigin(), dt, threshold);
    world.convexSweepTest(&sphere, from, to, hit);
    if (!hit.hasHit() || !(hit.m_closestHitFraction < 1))
        return false;
    btTransform clamped = to;
    clamped.setOrigin(from.getOrigin().lerp(to.getOrigin(), hit.m_closestHitFraction));
    body.setCenterOfMassTransform(clamped);
    return true;
}

} // namespace shatter::fracture
