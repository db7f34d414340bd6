// Math types. Internal geometry is double precision with Eigen (the distance field and the crack planes
// need it); btScalar appears only at the Bullet boundary.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>
#include <limits>

namespace shatter
{

using Real = double;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Index = std::uint32_t;

inline constexpr Index kInvalidIndex = std::numeric_limits<Index>::max();

/// Axis-aligned box; empty when min > max.
struct Aabb
{
    Vec3 min = Vec3::Constant(std::numeric_limits<Real>::infinity());
    Vec3 max = Vec3::Constant(-std::numeric_limits<Real>::infinity());

    void grow(const Vec3& p)
    {
        min = min.cwiseMin(p);
        max = max.cwiseMax(p);
    }
    void grow(const Aabb& b)
    {
        min = min.cwiseMin(b.min);
        max = max.cwiseMax(b.max);
    }
    bool empty() const { return (min.array() > max.array()).any(); }
    Vec3 center() const { return Real(0.5) * (min + max); }
    Vec3 extent() const { return max - min; }
    /// Euclidean distance from p to the box, 0 inside.
    Real distance(const Vec3& p) const { return (min - p).cwiseMax(p - max).cwiseMax(Vec3::Zero()).norm(); }
};

} // namespace shatter
