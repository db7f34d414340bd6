// Helpers shared by crack_geometry.cpp and convex_polytope.cpp (not installed).
#pragma once

#include "crack_geometry.h"

#include <algorithm>
#include <cmath>

namespace shatter::detail
{

// The crossing of segment (a, b) with a plane, computed from the lexicographically smaller end so that
// two faces (or polygons) sharing the edge get bit-identical points.
inline Vec3 crossing(const Vec3& a, Real da, const Vec3& b, Real db)
{
    const bool swap = std::lexicographical_compare(b.data(), b.data() + 3, a.data(), a.data() + 3);
    const Vec3& p = swap ? b : a;
    const Vec3& q = swap ? a : b;
    const Real dp = swap ? db : da;
    const Real dq = swap ? da : db;
    return p + (dp / (dp - dq)) * (q - p);
}

// A monotonic stand-in for atan2(y, x) in [0, 4): cheaper, and enough to sort by angle.
inline Real pseudoAngle(Real y, Real x)
{
    const Real sum = std::abs(x) + std::abs(y);
    if (sum == 0)
        return 0;
    const Real r = y / sum; // in [-1, 1]
    return x >= 0 ? (r >= 0 ? r : 4 + r) : 2 - r;
}

} // namespace shatter::detail
