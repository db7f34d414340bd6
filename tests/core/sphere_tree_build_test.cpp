// Sphere tree construction (TVCG §5.1, §6.1): level sizes, closest parents, exact radii, containment.
#include "sphere_tree.h"

#include "max_distance_order.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace shatter
{
namespace
{

std::vector<Vec3> randomBox(Index n, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> u(-1, 1);
    std::vector<Vec3> points(n);
    for (Vec3& p : points)
    {
        p = Vec3(u(rng), u(rng), u(rng));
    }
    return points;
}

/// Like an asset's point set (TVCG §6.1): dense surface vertices on a sphere followed by coarser,
/// jittered interior tet nodes.
std::vector<Vec3> tetMeshLike(unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<Real> g;
    std::uniform_real_distribution<Real> jitter(-0.05, 0.05);
    std::vector<Vec3> points;
    for (int i = 0; i < 1200; ++i)
    {
        points.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
    }
    for (int z = -4; z <= 4; ++z)
    {
        for (int y = -4; y <= 4; ++y)
        {
            for (int x = -4; x <= 4; ++x)
            {
                const Vec3 p = 0.2 * Vec3(x, y, z) + Vec3(jitter(rng), jitter(rng), jitter(rng));
                if (p.norm() < 0.9)
                {
                    points.push_back(p);
                }
            }
        }
    }
    return points;
}

std::vector<Vec3> lattice(int side, Real spacing)
{
    std::vector<Vec3> points;
    for (int z = 0; z < side; ++z)
    {
        for (int y = 0; y < side; ++y)
        {
            for (int x = 0; x < side; ++x)
            {
                points.push_back(spacing * Vec3(x, y, z));
            }
        }
    }
    return points;
}

/// Checks a freshly built tree against brute-force definitions independent of checkSphereTree.
void expectBuiltTree(const std::vector<Vec3>& points)
{
    const std::vector<Index> order = orderByMaxDistance(points);
    const SphereTree tree = buildSphereTree(points, order);
    const Index n = Index(points.size());
    ASSERT_EQ(checkSphereTree(tree), "");
    ASSERT_EQ(tree.roots, std::vector<Index>{0});

    // Level l holds the first min(2^l, n) points of the order, stored in order.
    Index begin = 0;
    Index size = 1;
    Index aboveBegin = 0;
    Index aboveSize = 0;
    Index levels = 0;
    for (; begin < tree.nodeCount(); ++levels)
    {
        for (Index q = 0; q < size; ++q)
        {
            ASSERT_EQ(tree.nodes[begin + q].level, levels);
            ASSERT_EQ(tree.nodes[begin + q].point, order[q]);
        }
        // Parents: own copy for re-appearing points, else the closest node above (lowest position).
        for (Index q = 0; levels > 0 && q < size; ++q)
        {
            Index expected = q;
            if (q >= aboveSize)
            {
                Real best = std::numeric_limits<Real>::infinity();
                for (Index r = 0; r < aboveSize; ++r)
                {
                    const Real d2 = squaredDistance(points[order[r]], points[order[q]]);
                    if (d2 < best)
                    {
                        best = d2;
                        expected = r;
                    }
                }
            }
            ASSERT_EQ(tree.nodes[begin + q].parent, aboveBegin + expected)
                << "level " << levels << " position " << q;
        }
        aboveBegin = begin;
        aboveSize = size;
        begin += size;
        size = std::min(2 * size, n);
    }
    EXPECT_EQ(aboveSize, n) << "the last level holds all points";
    EXPECT_EQ(levels, n <= 1 ? n : Index(std::ceil(std::log2(Real(n)))) + 1);

    // Radius = exact largest distance to a descendant; children are in order-position order and a
    // point's own copy comes first.
    std::vector<Index> stack;
    for (Index v = 0; v < tree.nodeCount(); ++v)
    {
        Real far2 = 0;
        stack.assign(1, v);
        while (!stack.empty())
        {
            const Index u = stack.back();
            stack.pop_back();
            far2 = std::max(far2, squaredDistance(tree.center(v), tree.center(u)));
            for (Index c : tree.children(u))
            {
                stack.push_back(c);
            }
        }
        ASSERT_EQ(tree.nodes[v].radius, std::sqrt(far2)) << "node " << v;
        Index previous = kInvalidIndex;
        for (Index c : tree.children(v))
        {
            if (previous == kInvalidIndex)
            {
                EXPECT_EQ(tree.nodes[c].point, tree.nodes[v].point) << "own copy first under node " << v;
            }
            else
            {
                EXPECT_GT(c, previous);
            }
            previous = c;
        }
    }
}

TEST(SphereTreeBuild, TinyInputs)
{
    const SphereTree empty = buildSphereTree({}, {});
    EXPECT_TRUE(empty.nodes.empty());
    EXPECT_TRUE(empty.roots.empty());
    EXPECT_EQ(checkSphereTree(empty), "");

    const std::vector<Vec3> one = {Vec3(1, 2, 3)};
    const SphereTree single = buildPointShell(one);
    ASSERT_EQ(single.nodeCount(), 1u);
    EXPECT_EQ(single.nodes[0].radius, 0);
    EXPECT_EQ(checkSphereTree(single), "");

    for (Index n : {2u, 3u, 5u, 8u, 9u})
    {
        expectBuiltTree(randomBox(n, n));
    }
}

TEST(SphereTreeBuild, RandomPoints)
{
    expectBuiltTree(randomBox(2000, 1));
    expectBuiltTree(randomBox(2048, 2)); // exact power of two: no partial last level
    expectBuiltTree(randomBox(1025, 3)); // last level barely started
}

TEST(SphereTreeBuild, TetMeshLikePoints)
{
    expectBuiltTree(tetMeshLike(4));
}

TEST(SphereTreeBuild, TiesAndDuplicates)
{
    expectBuiltTree(lattice(12, 0.1));
    std::vector<Vec3> doubled = randomBox(700, 5);
    doubled.insert(doubled.end(), doubled.begin(), doubled.end());
    std::shuffle(doubled.begin(), doubled.end(), std::mt19937(6));
    expectBuiltTree(doubled);
    expectBuiltTree(std::vector<Vec3>(100, Vec3(1, 1, 1)));
}

TEST(SphereTreeBuild, PointShellIsOrderPlusTree)
{
    const std::vector<Vec3> points = randomBox(500, 7);
    const SphereTree shell = buildPointShell(points);
    const SphereTree tree = buildSphereTree(points, orderByMaxDistance(points));
    ASSERT_EQ(shell.nodeCount(), tree.nodeCount());
    for (Index v = 0; v < tree.nodeCount(); ++v)
    {
        EXPECT_EQ(shell.nodes[v].point, tree.nodes[v].point);
        EXPECT_EQ(shell.nodes[v].parent, tree.nodes[v].parent);
        EXPECT_EQ(shell.nodes[v].radius, tree.nodes[v].radius);
    }
}

TEST(SphereTreeBuild, RejectsBadOrders)
{
    const std::vector<Vec3> points = randomBox(4, 8);
    const std::vector<Index> shortOrder = {0, 1, 2};
    const std::vector<Index> repeated = {0, 1, 1, 3};
    const std::vector<Index> outOfRange = {0, 1, 2, 4};
    EXPECT_THROW(buildSphereTree(points, shortOrder), Error);
    EXPECT_THROW(buildSphereTree(points, repeated), Error);
    EXPECT_THROW(buildSphereTree(points, outOfRange), Error);
    std::vector<Vec3> infinite = points;
    infinite[2].z() = std::numeric_limits<Real>::infinity();
    EXPECT_THROW(buildSphereTree(infinite, std::vector<Index>{0, 1, 2, 3}), Error);
}

TEST(SphereTreeBuild, CheckCatchesBrokenTrees)
{
    const SphereTree good = buildPointShell(randomBox(300, 9));
    ASSERT_EQ(checkSphereTree(good), "");

    SphereTree shrunk = good;
    shrunk.nodes[0].radius *= 0.9;
    EXPECT_NE(checkSphereTree(shrunk), "");

    SphereTree miscounted = good;
    miscounted.nodes[1].childCount += 1;
    EXPECT_NE(checkSphereTree(miscounted), "");

    // Re-hang the last node (a new point of the last level, so a leaf) under another node of the
    // level above, fixing up links and radii so that only the closest-parent rule is broken.
    SphereTree moved = good;
    const Index v = moved.nodeCount() - 1;
    const Index oldParent = moved.nodes[v].parent;
    Index newParent = kInvalidIndex;
    for (Index u = 0; u < moved.nodeCount(); ++u)
    {
        if (moved.nodes[u].level + 1 == moved.nodes[v].level && u != oldParent)
        {
            newParent = u;
            break;
        }
    }
    Index* link = &moved.nodes[oldParent].firstChild;
    while (*link != v)
    {
        link = &moved.nodes[*link].nextSibling;
    }
    *link = moved.nodes[v].nextSibling;
    --moved.nodes[oldParent].childCount;
    moved.nodes[v].parent = kInvalidIndex;
    moved.nodes[v].nextSibling = kInvalidIndex;
    moved.appendChild(newParent, v);
    for (Index a = newParent; a != kInvalidIndex; a = moved.nodes[a].parent)
    {
        moved.nodes[a].radius =
            std::max(moved.nodes[a].radius, std::sqrt(squaredDistance(moved.center(a), moved.center(v))));
    }
    EXPECT_EQ(checkSphereTree(moved, {.closestParents = false}), "");
    EXPECT_NE(checkSphereTree(moved), "");
}

} // namespace
} // namespace shatter
