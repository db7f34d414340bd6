#include "rigid_body_io.h"

#include "bullet_convert.h"

#include <algorithm>
#include <cmath>

namespace shatter
{
namespace
{

void put(const btTransform& t, btScalar* out)
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            out[3 * r + c] = t.getBasis()[r][c];
    for (int k = 0; k < 3; ++k)
        out[9 + k] = t.getOrigin()[k];
}

btTransform transform(const btScalar* in)
{
    return btTransform(btMatrix3x3(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8]),
                       btVector3(in[9], in[10], in[11]));
}

void put(const btVector3& v, btScalar* out)
{
    for (int k = 0; k < 3; ++k)
        out[k] = v[k];
}

btVector3 vector(const btScalar* in)
{
    return btVector3(in[0], in[1], in[2]);
}

} // namespace

SavedMotion saveMotion(const btRigidBody& body)
{
    SavedMotion s;
    s.activationState = body.getActivationState();
    s.collisionFlags = body.getCollisionFlags();
    s.group = body.getBroadphaseHandle()->m_collisionFilterGroup;
    s.mask = body.getBroadphaseHandle()->m_collisionFilterMask;
    s.userIndex = body.getUserIndex();
    s.userIndex2 = body.getUserIndex2();
    s.userIndex3 = body.getUserIndex3();
    put(body.getWorldTransform(), s.transform);
    put(body.getInterpolationWorldTransform(), s.interpolationTransform);
    put(body.getLinearVelocity(), s.velocity);
    put(body.getAngularVelocity(), s.velocity + 3);
    put(body.getInterpolationLinearVelocity(), s.velocity + 6);
    put(body.getInterpolationAngularVelocity(), s.velocity + 9);
    s.deactivationTime = body.getDeactivationTime();
    s.hitFraction = body.getHitFraction();
    s.friction = body.getFriction();
    s.restitution = body.getRestitution();
    s.rollingFriction = body.getRollingFriction();
    s.spinningFriction = body.getSpinningFriction();
    s.linearDamping = body.getLinearDamping();
    s.angularDamping = body.getAngularDamping();
    s.linearSleep = body.getLinearSleepingThreshold();
    s.angularSleep = body.getAngularSleepingThreshold();
    s.ccdThreshold = body.getCcdMotionThreshold();
    s.ccdRadius = body.getCcdSweptSphereRadius();
    return s;
}

void restoreMotion(const SavedMotion& s, btRigidBody& body)
{
    body.setWorldTransform(transform(s.transform));
    body.setInterpolationWorldTransform(transform(s.interpolationTransform));
    // Bullet computes the world inertia from the pose at each integration; the body's was made for the
    // pose it was created at.
    body.updateInertiaTensor();
    body.setLinearVelocity(vector(s.velocity));
    body.setAngularVelocity(vector(s.velocity + 3));
    body.setInterpolationLinearVelocity(vector(s.velocity + 6));
    body.setInterpolationAngularVelocity(vector(s.velocity + 9));
    body.setCollisionFlags(s.collisionFlags);
    body.forceActivationState(s.activationState);
    body.setDeactivationTime(s.deactivationTime);
    body.setHitFraction(s.hitFraction);
    body.setFriction(s.friction);
    body.setRestitution(s.restitution);
    body.setRollingFriction(s.rollingFriction);
    body.setSpinningFriction(s.spinningFriction);
    body.setDamping(s.linearDamping, s.angularDamping);
    body.setSleepingThresholds(s.linearSleep, s.angularSleep);
    body.setCcdMotionThreshold(s.ccdThreshold);
    body.setCcdSweptSphereRadius(s.ccdRadius);
    body.setUserIndex(s.userIndex);
    body.setUserIndex2(s.userIndex2);
    body.setUserIndex3(s.userIndex3);
}

void checkMotion(const BinaryReader& r, const SavedMotion& s, const std::string& which)
{
    for (const btScalar* values : {s.transform, s.interpolationTransform, s.velocity})
        if (!std::all_of(values, values + 12, [](btScalar v) { return std::isfinite(double(v)); }))
            r.fail(which + ": a body's transform or velocity is not finite");
    for (const btScalar* t : {s.transform, s.interpolationTransform})
    {
        const Eigen::Matrix3d m = toEigen(transform(t)).linear();
        if (!((m.transpose() * m - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-3 &&
              m.determinant() > 0))
            r.fail(which + ": a body's orientation is not a rotation");
    }
    for (btScalar v :
         {s.deactivationTime, s.hitFraction, s.friction, s.restitution, s.rollingFriction, s.spinningFriction,
          s.linearDamping, s.angularDamping, s.linearSleep, s.angularSleep, s.ccdThreshold, s.ccdRadius})
        if (!(double(v) >= 0 && std::isfinite(double(v))))
            r.fail(which + ": a body's coefficient is negative or not finite");
    if (!(s.activationState >= ACTIVE_TAG && s.activationState <= DISABLE_SIMULATION))
        r.fail(which + ": a body's activation state " + std::to_string(s.activationState) +
               " is not Bullet's");
}

} // namespace shatter
