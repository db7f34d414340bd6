// Conversions between Shatter's double-precision Eigen types and Bullet's btScalar types. Internal
// geometry is always Real = double; these are the only places where a value crosses to
// btScalar, so the plugin compiles against Bullet built in float (Debian's default) or in double.
#pragma once

#include "shatter/math.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btTransform.h>
#include <LinearMath/btVector3.h>

namespace shatter
{

inline btVector3 toBullet(const Vec3& v)
{
    return {btScalar(v.x()), btScalar(v.y()), btScalar(v.z())};
}

inline Vec3 toEigen(const btVector3& v)
{
    return {Real(v.x()), Real(v.y()), Real(v.z())};
}

inline btMatrix3x3 toBullet(const Mat3& m)
{
    return {btScalar(m(0, 0)), btScalar(m(0, 1)), btScalar(m(0, 2)), btScalar(m(1, 0)), btScalar(m(1, 1)),
            btScalar(m(1, 2)), btScalar(m(2, 0)), btScalar(m(2, 1)), btScalar(m(2, 2))};
}

inline Mat3 toEigen(const btMatrix3x3& m)
{
    Mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r(i, j) = Real(m[i][j]);
    return r;
}

inline btTransform toBullet(const Eigen::Isometry3d& t)
{
    return btTransform(toBullet(Mat3(t.linear())), toBullet(Vec3(t.translation())));
}

/// A rigid transform from Bullet. The rotation is re-orthonormalized: a float btMatrix3x3 is only
/// orthonormal to ~1e-7, and the frame chains of the narrow phase ((T_B·O_B)⁻¹(T_A·O_A)) invert it.
inline Eigen::Isometry3d toEigen(const btTransform& t)
{
    Eigen::Isometry3d r = Eigen::Isometry3d::Identity();
    const Eigen::Quaterniond q = Eigen::Quaterniond(toEigen(t.getBasis())).normalized();
    r.linear() = q.toRotationMatrix();
    r.translation() = toEigen(t.getOrigin());
    return r;
}

/// True if the body's transform and velocities are all finite (a body's state turns NaN for good once
/// one of them does).
inline bool hasFiniteMotion(const btRigidBody& body)
{
    const btTransform& t = body.getWorldTransform();
    return toEigen(t.getBasis()).allFinite() && toEigen(t.getOrigin()).allFinite() &&
           toEigen(body.getLinearVelocity()).allFinite() && toEigen(body.getAngularVelocity()).allFinite();
}

} // namespace shatter
