// Analytic distance fields of the primitives Bullet collides exactly: sphere, box, capsule, static
// plane (TVCG §3's insideTest + penetration, in closed form). The signed distance is exact, so
// sphereTest is exact too: a sphere touches the solid iff the distance of its centre is at most its
// radius (the signed distance is 1-Lipschitz and attains it). A relative round-off slack keeps the
// test conservative on the boundary.
#include "shape_field_detail.h"

#include <algorithm>
#include <cmath>

namespace shatter::detail
{

namespace
{

// Round-off slack of sphereTest, relative to the sizes involved.
constexpr Real kRelativeSlack = 1e-12;

FieldSample makeSample(Real distance, const Vec3& normal, Real band)
{
    FieldSample s;
    s.distance = distance;
    s.normal = normal;
    s.near = distance <= band;
    return s;
}

} // namespace

Real SphereField::signedDistance(const Vec3& p, Vec3& normal) const
{
    const Real len = p.norm();
    // At the centre every direction is as good; pick +z so the answer is deterministic.
    normal = len > 0 ? Vec3(p / len) : Vec3::UnitZ();
    return len - radius;
}

FieldSample SphereField::sample(const Vec3& p, Real band) const
{
    Vec3 n;
    const Real d = signedDistance(p, n);
    return makeSample(d, n, band);
}

bool SphereField::sphereTest(const Vec3& p, Real r) const
{
    return p.norm() - radius <= r + kRelativeSlack * (radius + r + p.norm());
}

Real BoxField::signedDistance(const Vec3& p, Vec3& normal) const
{
    const Vec3 q = p.cwiseAbs() - half;
    const Vec3 sign(p.x() < 0 ? -1.0 : 1.0, p.y() < 0 ? -1.0 : 1.0, p.z() < 0 ? -1.0 : 1.0);
    if ((q.array() > 0).any())
    {
        // Outside: the closest point clamps p to the box; the gradient points from it to p.
        const Vec3 out = q.cwiseMax(Vec3::Zero());
        const Real d = out.norm();
        normal = sign.cwiseProduct(out) / d;
        return d;
    }
    // Inside: the nearest face is the one with the largest (least negative) q; ties to the lowest axis.
    int axis = 0;
    for (int k = 1; k < 3; ++k)
        if (q[k] > q[axis])
            axis = k;
    normal = Vec3::Zero();
    normal[axis] = sign[axis];
    return q[axis];
}

FieldSample BoxField::sample(const Vec3& p, Real band) const
{
    Vec3 n;
    const Real d = signedDistance(p, n);
    return makeSample(d, n, band);
}

bool BoxField::sphereTest(const Vec3& p, Real r) const
{
    const Vec3 out = (p.cwiseAbs() - half).cwiseMax(Vec3::Zero());
    const Real slack = kRelativeSlack * (half.norm() + r + p.norm());
    return out.squaredNorm() <= (r + slack) * (r + slack);
}

Real CapsuleField::signedDistance(const Vec3& p, Vec3& normal) const
{
    Vec3 c = Vec3::Zero();
    c[axis] = std::clamp(p[axis], -halfHeight, halfHeight);
    const Vec3 v = p - c;
    const Real len = v.norm();
    if (len > 0)
        normal = v / len;
    else
    {
        // On the axis segment: every radial direction is nearest; take the next axis.
        normal = Vec3::Zero();
        normal[(axis + 1) % 3] = 1;
    }
    return len - radius;
}

FieldSample CapsuleField::sample(const Vec3& p, Real band) const
{
    Vec3 n;
    const Real d = signedDistance(p, n);
    return makeSample(d, n, band);
}

bool CapsuleField::sphereTest(const Vec3& p, Real r) const
{
    Vec3 n;
    const Real d = signedDistance(p, n);
    return d <= r + kRelativeSlack * (halfHeight + radius + r + p.norm());
}

FieldSample PlaneField::sample(const Vec3& p, Real band) const
{
    return makeSample(normal.dot(p) - constant, normal, band);
}

bool PlaneField::sphereTest(const Vec3& p, Real r) const
{
    return normal.dot(p) - constant <= r + kRelativeSlack * (std::abs(constant) + r + p.norm());
}

} // namespace shatter::detail
