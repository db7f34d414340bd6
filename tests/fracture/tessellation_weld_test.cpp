// The position weld of the tessellation (fragment_assembly.cpp, weldPositions): every vertex goes to
// the earliest kept vertex within eps, found through the cell grid and its bit filters, checked
// against a brute-force search on clusters of nearly coincident points (on and off cell boundaries,
// negative coordinates included) that lie far apart from each other.
#include "tessellation_detail.h"

#include <gtest/gtest.h>

#include <random>

namespace shatter::test
{
namespace
{

using fracture::detail::weldPositions;

// Earliest kept vertex within eps (the clusters are far apart, so there is at most one).
std::vector<Index> bruteForce(const std::vector<Vec3>& p, Real eps)
{
    std::vector<Index> target(p.size());
    for (Index i = 0; i < p.size(); ++i)
    {
        target[i] = i;
        for (Index j = 0; j < i; ++j)
            if (target[j] == j && (p[j] - p[i]).norm() <= eps)
            {
                target[i] = j;
                break;
            }
    }
    return target;
}

TEST(TessellationWeld, MergesExactlyThePointsWithinEps)
{
    const Real eps = 1e-9;
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> cell(-2000, 2000);
    std::uniform_real_distribution<Real> jitter(-0.3 * eps, 0.3 * eps);
    std::uniform_int_distribution<int> copies(1, 4);
    std::vector<Vec3> points;
    for (int c = 0; c < 3000; ++c)
    {
        // Cluster centres 100 cells apart at least; a third of them exactly on a cell corner.
        const Vec3 centre = 100 * eps * Vec3(cell(rng), cell(rng), cell(rng)) +
                            (c % 3 == 0 ? Vec3::Zero() : Vec3(jitter(rng), jitter(rng), jitter(rng)));
        const int n = copies(rng);
        for (int k = 0; k < n; ++k)
            points.push_back(centre + (k == 0 ? Vec3::Zero() : Vec3(jitter(rng), jitter(rng), jitter(rng))));
    }
    std::shuffle(points.begin(), points.end(), rng);
    std::vector<Index> target;
    const Index welded = weldPositions(points, eps, target);
    const std::vector<Index> expected = bruteForce(points, eps);
    ASSERT_EQ(target.size(), points.size());
    Index expectedWelded = 0;
    for (Index i = 0; i < points.size(); ++i)
        expectedWelded += expected[i] != i;
    EXPECT_GT(expectedWelded, 1000u);
    EXPECT_EQ(welded, expectedWelded);
    Index mismatches = 0;
    for (Index i = 0; i < points.size(); ++i)
        mismatches += target[i] != expected[i];
    EXPECT_EQ(mismatches, 0u);
}

TEST(TessellationWeld, KeepsPointsFartherThanEps)
{
    const Real eps = 1e-6;
    std::vector<Vec3> points;
    for (int i = -50; i <= 50; ++i)
        points.push_back(Vec3(1.5 * eps * i, -0.7, 3.25));
    std::vector<Index> target;
    EXPECT_EQ(weldPositions(points, eps, target), 0u);
    for (Index i = 0; i < points.size(); ++i)
        EXPECT_EQ(target[i], i);
}

} // namespace
} // namespace shatter::test
