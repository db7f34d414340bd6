// Signed-distance primitives and smooth blends for the implicit objects (the piggy bank). Values are
// negative inside and close to the Euclidean distance near the surface, which is all the polygoniser
// and the Newton projection need. Formulas after Inigo Quilez's distance-function notes.
#pragma once

#include "shatter/math.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace shatter::assets
{

/// An implicit solid: negative inside, positive outside, roughly a signed distance in metres.
using ImplicitFunction = std::function<Real(const Vec3&)>;

/// Ellipsoid with semi-axes r centred at the origin. The first-order bound k0 (k0 - 1) / k1 is smooth
/// everywhere except the centre and exact on the surface, unlike |p / r| - 1 which is badly scaled.
inline Real sdEllipsoid(const Vec3& p, const Vec3& r)
{
    const Real k0 = p.cwiseQuotient(r).norm();
    const Real k1 = p.cwiseQuotient(r.cwiseProduct(r)).norm();
    return k1 > Real(0) ? k0 * (k0 - Real(1)) / k1 : -r.minCoeff();
}

/// Capsule: segment a-b swept by a ball of radius r.
inline Real sdCapsule(const Vec3& p, const Vec3& a, const Vec3& b, Real r)
{
    const Vec3 pa = p - a, ba = b - a;
    const Real h = std::clamp(pa.dot(ba) / ba.squaredNorm(), Real(0), Real(1));
    return (pa - ba * h).norm() - r;
}

/// Cylinder along the local y axis, radius `radius`, half-height `halfHeight`, its rim rounded with
/// radius `rounding` (so the flat ends stay flat, as a snout or a leg should).
inline Real sdRoundedCylinder(const Vec3& p, Real radius, Real halfHeight, Real rounding)
{
    const Real dr = std::hypot(p.x(), p.z()) - radius + rounding;
    const Real dy = std::abs(p.y()) - halfHeight + rounding;
    return std::min(std::max(dr, dy), Real(0)) + std::hypot(std::max(dr, Real(0)), std::max(dy, Real(0))) -
           rounding;
}

/// Box with half extents `half`, its edges rounded with radius `rounding`.
inline Real sdRoundedBox(const Vec3& p, const Vec3& half, Real rounding)
{
    const Vec3 q = p.cwiseAbs() - half + Vec3::Constant(rounding);
    return q.cwiseMax(Vec3::Zero()).norm() + std::min(q.maxCoeff(), Real(0)) - rounding;
}

/// Torus around the local y axis: ring radius `major`, tube radius `minor`.
inline Real sdTorus(const Vec3& p, Real major, Real minor)
{
    return std::hypot(std::hypot(p.x(), p.z()) - major, p.y()) - minor;
}

/// Smooth union with blend width k (cubic polynomial smooth minimum, C2): the fillet where two parts
/// meet is what keeps the polygonised surface free of creases that relaxation could fold over.
inline Real smoothUnion(Real a, Real b, Real k)
{
    const Real h = std::max(k - std::abs(a - b), Real(0)) / k;
    return std::min(a, b) - h * h * h * k / Real(6);
}

/// Smooth subtraction of b from a with blend width k.
inline Real smoothSubtract(Real a, Real b, Real k)
{
    return -smoothUnion(-a, b, k);
}

/// Central-difference gradient of f at p.
inline Vec3 gradient(const ImplicitFunction& f, const Vec3& p, Real step = Real(1e-6))
{
    Vec3 g;
    for (int axis = 0; axis < 3; ++axis)
    {
        Vec3 d = Vec3::Zero();
        d[axis] = step;
        g[axis] = (f(p + d) - f(p - d)) / (Real(2) * step);
    }
    return g;
}

/// Moves p onto the zero set of f with a few Newton steps along the gradient.
inline Vec3 projectToSurface(const ImplicitFunction& f, Vec3 p, int steps = 3)
{
    for (int i = 0; i < steps; ++i)
    {
        const Real value = f(p);
        const Vec3 g = gradient(f, p);
        const Real g2 = g.squaredNorm();
        if (g2 <= Real(0))
            break;
        p -= value * g / g2;
    }
    return p;
}

} // namespace shatter::assets
