// The maximum-distance order (TVCG §5.1) must equal the O(n²) definition exactly, ties included.
#include "max_distance_order.h"

#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

namespace shatter
{
namespace
{

/// The paper's definition, written as plainly as possible.
std::vector<Index> bruteForceOrder(std::span<const Vec3> points)
{
    const Index n = Index(points.size());
    if (n < 2)
    {
        return n == 1 ? std::vector<Index>{0} : std::vector<Index>{};
    }
    Index bi = 0;
    Index bj = 1;
    Real best = -1;
    for (Index i = 0; i < n; ++i)
    {
        for (Index j = i + 1; j < n; ++j)
        {
            const Real d2 = squaredDistance(points[i], points[j]);
            if (d2 > best)
            {
                best = d2;
                bi = i;
                bj = j;
            }
        }
    }
    std::vector<Real> nearest(n, std::numeric_limits<Real>::infinity());
    std::vector<bool> chosen(n, false);
    std::vector<Index> order;
    auto choose = [&](Index c)
    {
        order.push_back(c);
        chosen[c] = true;
        for (Index k = 0; k < n; ++k)
        {
            nearest[k] = std::min(nearest[k], squaredDistance(points[k], points[c]));
        }
    };
    choose(bi);
    choose(bj);
    while (order.size() < n)
    {
        Index arg = kInvalidIndex;
        for (Index k = 0; k < n; ++k)
        {
            if (!chosen[k] && (arg == kInvalidIndex || nearest[k] > nearest[arg]))
            {
                arg = k;
            }
        }
        choose(arg);
    }
    return order;
}

std::vector<Vec3> randomBox(Index n, unsigned seed, const Vec3& size = Vec3(1, 1, 1))
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> u(-0.5, 0.5);
    std::vector<Vec3> points(n);
    for (Vec3& p : points)
    {
        p = Vec3(u(rng), u(rng), u(rng)).cwiseProduct(size);
    }
    return points;
}

std::vector<Vec3> randomSphere(Index n, unsigned seed, Real radius = 1)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<Real> g;
    std::vector<Vec3> points(n);
    for (Vec3& p : points)
    {
        p = radius * Vec3(g(rng), g(rng), g(rng)).normalized();
    }
    return points;
}

/// A regular lattice: countless exact distance ties, both for the diameter and for later picks.
std::vector<Vec3> lattice(int nx, int ny, int nz, Real spacing)
{
    std::vector<Vec3> points;
    for (int z = 0; z < nz; ++z)
    {
        for (int y = 0; y < ny; ++y)
        {
            for (int x = 0; x < nx; ++x)
            {
                points.push_back(spacing * Vec3(x, y, z));
            }
        }
    }
    return points;
}

void expectSameOrder(const std::vector<Vec3>& points)
{
    const std::vector<Index> fast = orderByMaxDistance(points);
    const std::vector<Index> reference = bruteForceOrder(points);
    ASSERT_EQ(fast.size(), reference.size());
    const auto mismatch = std::mismatch(fast.begin(), fast.end(), reference.begin());
    EXPECT_TRUE(mismatch.first == fast.end())
        << "first difference at position " << (mismatch.first - fast.begin()) << ": got " << *mismatch.first
        << ", expected " << *mismatch.second;
}

TEST(MaxDistanceOrder, TinyInputs)
{
    EXPECT_TRUE(orderByMaxDistance({}).empty());
    const std::vector<Vec3> one = {Vec3(1, 2, 3)};
    EXPECT_EQ(orderByMaxDistance(one), std::vector<Index>{0});
    const std::vector<Vec3> two = {Vec3(1, 2, 3), Vec3(1, 2, 3)};
    EXPECT_EQ(orderByMaxDistance(two), (std::vector<Index>{0, 1}));
    const std::vector<Vec3> three = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(5, 0, 0)};
    EXPECT_EQ(orderByMaxDistance(three), (std::vector<Index>{0, 2, 1}));
    EXPECT_THROW(farthestPair(one), Error);
    const std::vector<Vec3> bad = {Vec3(0, 0, 0), Vec3(1, std::numeric_limits<Real>::quiet_NaN(), 0)};
    EXPECT_THROW(orderByMaxDistance(bad), Error);
}

TEST(MaxDistanceOrder, OrderIsAPermutation)
{
    const std::vector<Vec3> points = randomBox(5000, 7);
    std::vector<Index> order = orderByMaxDistance(points);
    std::sort(order.begin(), order.end());
    std::vector<Index> expected(points.size());
    std::iota(expected.begin(), expected.end(), Index(0));
    EXPECT_EQ(order, expected);
}

TEST(MaxDistanceOrder, MatchesBruteForceOnRandomBoxes)
{
    for (unsigned seed : {1u, 2u, 3u})
    {
        SCOPED_TRACE(seed);
        expectSameOrder(randomBox(2000, seed));
    }
    expectSameOrder(randomBox(2000, 4, Vec3(10, 1, 0.1))); // flat and elongated
    expectSameOrder(randomBox(2000, 5, Vec3(1, 1, 0)));    // planar: every z equal
}

TEST(MaxDistanceOrder, MatchesBruteForceOnSpheres)
{
    expectSameOrder(randomSphere(2000, 11));
    expectSameOrder(randomSphere(2000, 12, 1000));
}

TEST(MaxDistanceOrder, MatchesBruteForceOnLatticesWithTies)
{
    expectSameOrder(lattice(10, 10, 20, 1));    // exact integer distances
    expectSameOrder(lattice(20, 10, 10, 0.1));  // inexact spacing, still mirror-symmetric
    expectSameOrder(lattice(2000, 1, 1, 0.25)); // collinear
    std::vector<Vec3> shuffled = lattice(13, 13, 12, 0.5);
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    expectSameOrder(shuffled);
}

TEST(MaxDistanceOrder, MatchesBruteForceWithDuplicates)
{
    // Every point twice, interleaved in a shuffled order.
    std::vector<Vec3> doubled = randomBox(1000, 21);
    doubled.insert(doubled.end(), doubled.begin(), doubled.end());
    std::shuffle(doubled.begin(), doubled.end(), std::mt19937(4));
    expectSameOrder(doubled);

    // 2000 points on only 7 distinct positions, including many copies of the diameter's ends.
    const std::vector<Vec3> sites = randomSphere(7, 22);
    std::vector<Vec3> clustered;
    std::mt19937 rng(5);
    for (int i = 0; i < 2000; ++i)
    {
        clustered.push_back(sites[rng() % sites.size()]);
    }
    expectSameOrder(clustered);

    expectSameOrder(std::vector<Vec3>(2000, Vec3(0.5, -2, 3))); // all the same point
}

TEST(MaxDistanceOrder, FarthestPairMatchesBruteForce)
{
    for (const std::vector<Vec3>& points :
         {randomSphere(4000, 31), randomBox(4000, 32), lattice(16, 16, 16, 0.3)})
    {
        std::pair<Index, Index> expected{0, 1};
        Real best = -1;
        for (Index i = 0; i < Index(points.size()); ++i)
        {
            for (Index j = i + 1; j < Index(points.size()); ++j)
            {
                const Real d2 = squaredDistance(points[i], points[j]);
                if (d2 > best)
                {
                    best = d2;
                    expected = {i, j};
                }
            }
        }
        EXPECT_EQ(farthestPair(points), expected);
    }
}

TEST(MaxDistanceOrder, PrefixesSampleUniformly)
{
    // The covering radius of each prefix never grows: the key property self-adapting queries need.
    const std::vector<Vec3> points = randomBox(3000, 41);
    const std::vector<Index> order = orderByMaxDistance(points);
    std::vector<Real> nearest(points.size(), std::numeric_limits<Real>::infinity());
    Real previous = std::numeric_limits<Real>::infinity();
    for (size_t m = 0; m < order.size(); ++m)
    {
        if (m >= 2)
        {
            EXPECT_LE(nearest[order[m]], previous);
            previous = nearest[order[m]];
        }
        for (size_t k = 0; k < points.size(); ++k)
        {
            nearest[k] = std::min(nearest[k], squaredDistance(points[k], points[order[m]]));
        }
    }
}

} // namespace
} // namespace shatter
