// Maximum-distance (farthest-point) ordering of a point set, TVCG §5.1: the order in which the
// sphere tree inserts its points, so that every prefix of the order is a close-to-uniform sampling.
#pragma once

#include "shatter/math.h"

#include <span>
#include <utility>
#include <vector>

namespace shatter
{

/// Squared Euclidean distance, evaluated as dx*dx + dy*dy + dz*dz in this order. The ordering, the
/// sphere tree and their brute-force references in the tests all compare distances through this
/// one expression, so ties are decided on identical numbers.
inline Real squaredDistance(const Vec3& a, const Vec3& b)
{
    const Real dx = a.x() - b.x();
    const Real dy = a.y() - b.y();
    const Real dz = a.z() - b.z();
    return dx * dx + dy * dy + dz * dz;
}

/// The two farthest points of the set (its exact diameter), as indices (i, j) with i < j. Among
/// several pairs at the maximum squared distance the lexicographically smallest (i, j) wins. Exact
/// (equal to the brute-force O(n²) answer) but pruned with a k-d tree: near-linear for most
/// inputs, about O(n^1.5) for points on a sphere, the worst case. Needs at least two points.
std::pair<Index, Index> farthestPair(std::span<const Vec3> points);

/// Maximum-distance order of `points` (TVCG §5.1): the result is a permutation of [0, n) that starts
/// with the farthest pair (see farthestPair) and then repeatedly appends the remaining point whose
/// distance to the nearest already chosen point is largest. Ties go to the lowest point index, so
/// duplicate points come out in index order once everything else is chosen. Exactly equal to the
/// O(n²) definition; runs in about O(n log n) for well-spread points (k-d tree with per-cell maxima
/// of the distance to the chosen set). n = 0 gives {}, n = 1 gives {0}.
std::vector<Index> orderByMaxDistance(std::span<const Vec3> points);

} // namespace shatter
