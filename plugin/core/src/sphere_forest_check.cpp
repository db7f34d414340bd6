// checkSphereForest: the invariants of a fracturable sphere forest, verified by brute force for tests.
// (checkSphereTree in sphere_tree.h checks a freshly built tree, whose levels are complete and whose
// nodes are all reachable; after fracture, levels have gaps where single-child nodes were spliced out
// and freed nodes wait on the free list, so the forest has its own checker.)
#include "max_distance_order.h"
#include "sphere_forest.h"

#include <cmath>
#include <sstream>

namespace shatter
{
namespace
{

template <typename... Parts>
std::string describe(const Parts&... parts)
{
    std::ostringstream out;
    (out << ... << parts);
    return out.str();
}

} // namespace

std::string checkSphereForest(const SphereForest& forest, const ForestCheck& options)
{
    const SphereTree& tree = forest.tree();
    const Index nodeCount = tree.nodeCount();
    const Index pointCount = tree.pointCount();
    if (tree.pointNode.size() != pointCount)
        return describe("pointNode has ", tree.pointNode.size(), " entries for ", pointCount, " points");

    // Links and reachability: every tree from its fragment's root; each node reached exactly once.
    std::vector<FragmentId> treeOf(nodeCount, kNoFragment);
    std::vector<Index> stack;
    Index liveRoots = 0;
    for (FragmentId f = 0; f < forest.fragmentCount(); ++f)
    {
        const Index root = forest.root(f);
        if (root == kInvalidIndex)
            continue;
        if (!forest.alive(f))
            return describe("retired fragment ", f, " still has root ", root);
        if (root >= nodeCount || forest.isFree(root) || tree.nodes[root].parent != kInvalidIndex ||
            treeOf[root] != kNoFragment)
            return describe("root ", root, " of fragment ", f,
                            " is out of range, free, has a parent or is shared");
        if (liveRoots >= tree.roots.size() || tree.roots[liveRoots] != root)
            return describe("tree().roots does not list root ", root, " of fragment ", f, " in order");
        ++liveRoots;
        treeOf[root] = f;
        stack.assign(1, root);
        while (!stack.empty())
        {
            const Index v = stack.back();
            stack.pop_back();
            const SphereNode& node = tree.nodes[v];
            if (node.point >= pointCount || forest.pointFragment(node.point) != f)
                return describe("node ", v, " of fragment ", f, " has point ", node.point,
                                " out of range or of another fragment");
            if (node.firstChild == kInvalidIndex && node.radius != 0)
                return describe("leaf ", v, " has radius ", node.radius);
            if (node.firstChild != kInvalidIndex && tree.nodes[node.firstChild].point != node.point)
                return describe("node ", v, " does not have its own copy as its first child");
            Index count = 0;
            for (Index c = node.firstChild; c != kInvalidIndex; c = tree.nodes[c].nextSibling, ++count)
            {
                if (c >= nodeCount || treeOf[c] != kNoFragment || tree.nodes[c].parent != v ||
                    forest.isFree(c))
                    return describe("child ", c, " of node ", v,
                                    " is out of range, free, reached twice or has parent ",
                                    c < nodeCount ? tree.nodes[c].parent : kInvalidIndex);
                treeOf[c] = f;
                stack.push_back(c);
            }
            if (count != node.childCount)
                return describe("node ", v, " lists ", count, " children but childCount is ",
                                node.childCount);
        }
    }
    if (liveRoots != tree.roots.size())
        return describe("tree().roots lists ", tree.roots.size(), " roots, the fragments have ", liveRoots);
    Index freeCount = 0;
    for (Index v = 0; v < nodeCount; ++v)
    {
        const bool isFree = forest.isFree(v);
        freeCount += isFree;
        if (isFree != (treeOf[v] == kNoFragment))
            return describe("node ", v, isFree ? " is free but reachable" : " is unreachable but not free");
    }
    if (freeCount != forest.freeNodeCount())
        return describe(freeCount, " free nodes, but the free list holds ", forest.freeNodeCount());

    // Points: each of a live fragment, present in its tree as one chain of own copies from pointNode.
    std::vector<Index> copies(pointCount, 0);
    for (Index v = 0; v < nodeCount; ++v)
        if (!forest.isFree(v))
            ++copies[tree.nodes[v].point];
    for (Index p = 0; p < pointCount; ++p)
    {
        if (!forest.alive(forest.pointFragment(p)))
            return describe("point ", p, " belongs to fragment ", forest.pointFragment(p),
                            ", which is not alive");
        const Index top = tree.pointNode[p];
        if (top >= nodeCount || forest.isFree(top) || tree.nodes[top].point != p)
            return describe("pointNode of point ", p, " is ", top, ", which does not hold it");
        const Index up = tree.nodes[top].parent;
        if (up != kInvalidIndex && tree.nodes[up].point == p)
            return describe("pointNode of point ", p, " is not its highest node");
        Index chain = 0;
        for (Index v = top; v != kInvalidIndex && tree.nodes[v].point == p; v = tree.nodes[v].firstChild)
            ++chain;
        if (chain != copies[p])
            return describe("point ", p, " has ", copies[p], " nodes but a chain of ", chain);
    }

    // Containment and exact radii: every node's point against every ancestor.
    std::vector<Real> farthest(nodeCount, 0);
    for (Index v = 0; v < nodeCount; ++v)
    {
        if (forest.isFree(v))
            continue;
        const Vec3& p = tree.center(v);
        for (Index a = tree.nodes[v].parent; a != kInvalidIndex; a = tree.nodes[a].parent)
        {
            const Real d = std::sqrt(squaredDistance(tree.center(a), p));
            if (d > tree.nodes[a].radius + options.tolerance)
                return describe("node ", v, " lies ", d, " from ancestor ", a, " of radius ",
                                tree.nodes[a].radius);
            farthest[a] = std::max(farthest[a], d);
        }
    }
    if (options.exactRadii)
        for (Index v = 0; v < nodeCount; ++v)
            if (!forest.isFree(v) && std::abs(farthest[v] - tree.nodes[v].radius) > options.tolerance)
                return describe("node ", v, " has radius ", tree.nodes[v].radius,
                                " but its farthest descendant is ", farthest[v], " away");
    return {};
}

} // namespace shatter
