// Construction of the sphere tree, TVCG §5.1 and §6.1.
//
// Given the maximum-distance order L of the points (surface vertices ∪ tet nodes for a fracturable
// object, §6.1), level l holds the first 2^l points of L and the last level holds all n. Level l+1
// consists of level l's points again (each hangs under its own copy: distance 0) followed by the next
// 2^l points, each hung under its closest node of level l. The paper does this with O(n²) pairwise
// distances; here a small k-d tree over each level answers the closest-node queries, so the whole
// build is about O(n log n) (every level is at most twice the previous one, so the per-level trees add
// up to O(n log n) too).
//
// Radii are exact: because every point of a non-last level re-appears one level down under its own
// copy, the points below a node are exactly the last-level leaves of its subtree, so walking up from
// every leaf once (n × depth steps) gives each node its farthest descendant.
#include "sphere_tree.h"

#include "max_distance_order.h"
#include "shatter/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

namespace shatter
{
namespace
{

/// Exact closest-point queries over a prefix of the order; ties go to the lowest order position.
class ClosestPointTree
{
public:
    /// Indexes order positions [0, count) of `order`.
    ClosestPointTree(std::span<const Vec3> points, std::span<const Index> order, Index count)
        : slotRank(count), positions(count)
    {
        for (Index q = 0; q < count; ++q)
        {
            slotRank[q] = q;
            positions[q] = points[order[q]];
        }
        nodes.reserve(2 * (count / kLeafSize + 1));
        build(0, count);
        for (Index s = 0; s < count; ++s)
        {
            positions[s] = points[order[slotRank[s]]]; // from here on indexed by slot
        }
    }

    /// Order position of the indexed point closest to p.
    Index closest(const Vec3& p) const
    {
        Real bestD2 = std::numeric_limits<Real>::infinity();
        Index rank = kInvalidIndex;
        visit(0, p, bestD2, rank);
        return rank;
    }

private:
    static constexpr Index kLeafSize = 8;

    struct Node
    {
        Aabb box;
        Index begin = 0; ///< slot range [begin, end)
        Index end = 0;
        Index left = kInvalidIndex; ///< kInvalidIndex for a leaf
        Index right = kInvalidIndex;
    };

    Index build(Index begin, Index end)
    {
        const Index id = Index(nodes.size());
        nodes.push_back({});
        Node node;
        node.begin = begin;
        node.end = end;
        for (Index s = begin; s < end; ++s)
        {
            node.box.grow(positions[slotRank[s]]);
        }
        if (end - begin > kLeafSize)
        {
            int axis = 0;
            node.box.extent().maxCoeff(&axis);
            const Index mid = begin + (end - begin) / 2;
            std::nth_element(slotRank.begin() + begin, slotRank.begin() + mid, slotRank.begin() + end,
                             [&](Index a, Index b)
                             {
                                 const Real ca = positions[a][axis];
                                 const Real cb = positions[b][axis];
                                 return ca < cb || (ca == cb && a < b);
                             });
            node.left = build(begin, mid);
            node.right = build(mid, end);
        }
        nodes[id] = node;
        return id;
    }

    /// Squared distance from p to the box, never above squaredDistance(p, q) for q in the box
    /// (same differences, and rounding is monotone).
    Real boxDistance2(Index id, const Vec3& p) const
    {
        const Aabb& b = nodes[id].box;
        Real s = 0;
        for (int a = 0; a < 3; ++a)
        {
            const Real d = std::max({b.min[a] - p[a], p[a] - b.max[a], Real(0)});
            s += d * d;
        }
        return s;
    }

    void visit(Index id, const Vec3& p, Real& bestD2, Index& rank) const
    {
        const Node& n = nodes[id];
        if (n.left == kInvalidIndex)
        {
            for (Index s = n.begin; s < n.end; ++s)
            {
                const Real d2 = squaredDistance(positions[s], p);
                if (d2 < bestD2 || (d2 == bestD2 && slotRank[s] < rank))
                {
                    bestD2 = d2;
                    rank = slotRank[s];
                }
            }
            return;
        }
        // Nearer box first. Boxes at exactly the best distance are still visited: they may hold a
        // tie of lower rank (the 1e-12 margin keeps that true even with fused arithmetic).
        const bool leftFirst = boxDistance2(n.left, p) <= boxDistance2(n.right, p);
        for (const Index child : {leftFirst ? n.left : n.right, leftFirst ? n.right : n.left})
        {
            if (boxDistance2(child, p) * (1 - 1e-12) <= bestD2)
            {
                visit(child, p, bestD2, rank);
            }
        }
    }

    std::vector<Node> nodes;
    std::vector<Index> slotRank; ///< slot → order position
    std::vector<Vec3> positions; ///< by order position while building, by slot afterwards
};

template <typename... Parts>
std::string describe(const Parts&... parts)
{
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

void checkOrder(std::span<const Vec3> points, std::span<const Index> order)
{
    if (order.size() != points.size())
    {
        throw Error("<memory>", "buildSphereTree: the order has " + std::to_string(order.size()) +
                                    " entries for " + std::to_string(points.size()) + " points");
    }
    if (points.size() >= size_t(kInvalidIndex) / 4)
    {
        throw Error("<memory>", "buildSphereTree: too many points for 32-bit node indices");
    }
    for (size_t i = 0; i < points.size(); ++i)
    {
        if (!points[i].allFinite())
        {
            throw Error("<memory>", "buildSphereTree: point " + std::to_string(i) + " is not finite");
        }
    }
    std::vector<bool> seen(points.size(), false);
    for (Index p : order)
    {
        if (p >= points.size() || seen[p])
        {
            throw Error("<memory>", "buildSphereTree: the order is not a permutation (entry " +
                                        std::to_string(p) + " is out of range or repeated)");
        }
        seen[p] = true;
    }
}

} // namespace

Index SphereTree::addNode(Index point, Index level)
{
    SHATTER_ASSERT(point < points.size(), "node centre out of range");
    SphereNode node;
    node.point = point;
    node.level = level;
    nodes.push_back(node);
    return Index(nodes.size() - 1);
}

void SphereTree::appendChild(Index parent, Index child)
{
    SHATTER_ASSERT(nodes[child].parent == kInvalidIndex && nodes[child].nextSibling == kInvalidIndex,
                   "appendChild: the child is already linked");
    Index* link = &nodes[parent].firstChild;
    while (*link != kInvalidIndex)
    {
        link = &nodes[*link].nextSibling;
    }
    *link = child;
    nodes[child].parent = parent;
    ++nodes[parent].childCount;
}

SphereTree buildSphereTree(std::span<const Vec3> points, std::span<const Index> maxDistanceOrder)
{
    checkOrder(points, maxDistanceOrder);
    const std::span<const Index> order = maxDistanceOrder;
    const Index n = Index(points.size());
    SphereTree tree;
    tree.points.assign(points.begin(), points.end());
    tree.pointNode.assign(n, kInvalidIndex);
    if (n == 0)
    {
        return tree;
    }

    Index total = 1;
    for (Index size = 1; size < n;)
    {
        size = std::min<Index>(2 * size, n);
        total += size;
    }
    tree.nodes.reserve(total);
    std::vector<Index> lastChild(total, kInvalidIndex); // O(1) appends while building
    auto link = [&](Index parent, Index child)
    {
        SphereNode& p = tree.nodes[parent];
        (p.firstChild == kInvalidIndex ? p.firstChild : tree.nodes[lastChild[parent]].nextSibling) = child;
        lastChild[parent] = child;
        tree.nodes[child].parent = parent;
        ++p.childCount;
    };

    tree.roots.push_back(tree.addNode(order[0], 0));
    tree.pointNode[order[0]] = 0;
    Index previousBegin = 0; // first node of the level above; its node q holds order position q
    Index previousSize = 1;
    for (Index level = 1; previousSize < n; ++level)
    {
        const Index begin = tree.nodeCount();
        const Index size = std::min<Index>(2 * previousSize, n);
        for (Index q = 0; q < previousSize; ++q)
        {
            link(previousBegin + q, tree.addNode(order[q], level));
        }
        const ClosestPointTree closest(points, order, previousSize);
        for (Index q = previousSize; q < size; ++q)
        {
            const Index node = tree.addNode(order[q], level);
            link(previousBegin + closest.closest(points[order[q]]), node);
            tree.pointNode[order[q]] = node;
        }
        previousBegin = begin;
        previousSize = size;
    }
    SHATTER_ASSERT(tree.nodeCount() == total, "sphere tree level sizes");

    // Radii: every leaf (the last level, nodes [previousBegin, total)) walks up its ancestors.
    std::vector<Real> radius2(total, 0);
    for (Index leaf = previousBegin; leaf < total; ++leaf)
    {
        const Vec3& p = tree.center(leaf);
        for (Index a = tree.nodes[leaf].parent; a != kInvalidIndex; a = tree.nodes[a].parent)
        {
            radius2[a] = std::max(radius2[a], squaredDistance(tree.center(a), p));
        }
    }
    for (Index i = 0; i < total; ++i)
    {
        tree.nodes[i].radius = std::sqrt(radius2[i]);
    }
    return tree;
}

SphereTree buildPointShell(std::span<const Vec3> points)
{
    const std::vector<Index> order = orderByMaxDistance(points);
    return buildSphereTree(points, order);
}

std::string checkSphereTree(const SphereTree& tree, const SphereTreeCheck& options)
{
    const Index nodeCount = tree.nodeCount();
    if (tree.pointNode.size() != tree.points.size())
    {
        return describe("pointNode has ", tree.pointNode.size(), " entries for ", tree.pointCount(),
                        " points");
    }
    for (Index p = 0; p < tree.pointCount(); ++p)
    {
        if (!tree.points[p].allFinite())
        {
            return describe("point ", p, " is not finite");
        }
    }
    // Structure: walk every tree from its root; each node must be reached exactly once.
    std::vector<Index> treeOf(nodeCount, kInvalidIndex);
    std::vector<Index> deepest(tree.roots.size(), 0);
    std::vector<Index> stack;
    for (Index t = 0; t < Index(tree.roots.size()); ++t)
    {
        const Index root = tree.roots[t];
        if (root >= nodeCount || tree.nodes[root].parent != kInvalidIndex || treeOf[root] != kInvalidIndex)
        {
            return describe("root ", root, " is out of range, has a parent or is reached twice");
        }
        treeOf[root] = t;
        stack.assign(1, root);
        while (!stack.empty())
        {
            const Index v = stack.back();
            stack.pop_back();
            const SphereNode& node = tree.nodes[v];
            deepest[t] = std::max(deepest[t], node.level);
            if (node.point >= tree.pointCount() || (node.firstChild == kInvalidIndex && node.radius != 0))
            {
                return describe("node ", v, " has point ", node.point,
                                " out of range or is a leaf of radius ", node.radius);
            }
            if (!(node.radius >= 0) || !std::isfinite(node.radius))
            {
                return describe("node ", v, " has radius ", node.radius, " (must be finite and >= 0)");
            }
            Index count = 0;
            for (Index c = node.firstChild; c != kInvalidIndex; c = tree.nodes[c].nextSibling, ++count)
            {
                if (c >= nodeCount || treeOf[c] != kInvalidIndex || tree.nodes[c].parent != v ||
                    tree.nodes[c].level != node.level + 1)
                {
                    return describe("child ", c, " of node ", v,
                                    " is out of range, reached twice, or has a "
                                    "wrong parent or level");
                }
                treeOf[c] = t;
                stack.push_back(c);
            }
            if (count != node.childCount)
            {
                return describe("node ", v, " lists ", count, " children but childCount is ",
                                node.childCount);
            }
        }
    }
    for (Index v = 0; v < nodeCount; ++v)
    {
        if (treeOf[v] == kInvalidIndex)
        {
            return describe("node ", v, " is not reachable from any root");
        }
        // Containment: the node's point lies in the sphere of every ancestor.
        for (Index a = tree.nodes[v].parent; a != kInvalidIndex; a = tree.nodes[a].parent)
        {
            const Real d = std::sqrt(squaredDistance(tree.center(a), tree.center(v)));
            if (d > tree.nodes[a].radius + options.tolerance)
            {
                return describe("node ", v, " lies ", d, " from ancestor ", a, " of radius ",
                                tree.nodes[a].radius);
            }
        }
    }
    // Points: pointNode is each point's highest node; with completeLevels, every point has one node
    // per level from there down to the deepest level of its tree.
    std::vector<std::array<Index, 3>> copies; // (point, level, node)
    for (Index v = 0; v < nodeCount; ++v)
    {
        copies.push_back({tree.nodes[v].point, tree.nodes[v].level, v});
    }
    std::sort(copies.begin(), copies.end());
    Index pointsSeen = 0;
    for (size_t i = 0, j = 0; i < copies.size(); i = j, ++pointsSeen)
    {
        const auto [point, level, node] = copies[i];
        const Index t = treeOf[node];
        if (tree.pointNode[point] != node || (options.completeLevels && point != pointsSeen))
        {
            return describe("point ", point, " has a wrong pointNode, or point ", pointsSeen,
                            " is in no tree");
        }
        for (j = i; j < copies.size() && copies[j][0] == point; ++j)
        {
            if (options.completeLevels && (treeOf[copies[j][2]] != t || copies[j][1] != level + (j - i)))
            {
                return describe("point ", point, " is missing or repeated on level ", level + (j - i));
            }
        }
        if (options.completeLevels && copies[j - 1][1] != deepest[t])
        {
            return describe("point ", point, " does not reach the deepest level of its tree");
        }
    }
    if (options.completeLevels && pointsSeen != tree.pointCount())
    {
        return describe("point ", pointsSeen, " is in no tree");
    }
    if (!options.closestParents)
    {
        return {};
    }
    // Brute force per tree and level: own copy first, else the nearest, ties to the lowest index.
    std::vector<std::array<Index, 3>> byLevel; // (tree, level, node)
    for (Index v = 0; v < nodeCount; ++v)
    {
        byLevel.push_back({treeOf[v], tree.nodes[v].level, v});
    }
    std::sort(byLevel.begin(), byLevel.end());
    size_t above = 0; // first entry of the level above the current one
    for (const auto [t, level, v] : byLevel)
    {
        if (tree.nodes[v].parent == kInvalidIndex)
        {
            continue;
        }
        while (byLevel[above][0] != t || byLevel[above][1] + 1 != level)
        {
            ++above;
        }
        Index best = kInvalidIndex;
        Real bestD2 = std::numeric_limits<Real>::infinity();
        for (size_t k = above; k < byLevel.size() && byLevel[k][0] == t && byLevel[k][1] + 1 == level; ++k)
        {
            const Index u = byLevel[k][2];
            const Real d2 = squaredDistance(tree.center(u), tree.center(v));
            if (tree.nodes[u].point == tree.nodes[v].point)
            {
                best = u;
                break;
            }
            best = d2 < bestD2 ? (bestD2 = d2, u) : best;
        }
        if (tree.nodes[v].parent != best)
        {
            return describe("node ", v, " hangs under ", tree.nodes[v].parent,
                            " but the closest node above is ", best);
        }
    }
    return {};
}

} // namespace shatter
