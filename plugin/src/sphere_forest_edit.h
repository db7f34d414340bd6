// Internal: the in-place editing operations on a SphereForest's flat node array, shared by the
// update driver (sphere_forest.cpp) and the two restructuring methods (sphere_forest_split.cpp).
// Everything works on node indices: allocate() may grow the node array, so no reference to a node
// survives a call to it.
#pragma once

#include "shatter/error.h"
#include "shatter/max_distance_order.h"
#include "shatter/sphere_forest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace shatter
{

struct ForestEditor
{
    using SearchEntry = SphereForest::SearchEntry;

    SphereForest& forest;
    SphereTree& tree;
    SphereForest::Scratch& s;

    explicit ForestEditor(SphereForest& f) : forest(f), tree(f.data), s(f.scratch) {}

    SphereNode& node(Index v) { return tree.nodes[v]; }
    const Vec3& center(Index v) const { return tree.points[tree.nodes[v].point]; }

    /// A parentless, childless node, from the free list if possible. Scratch arrays indexed by node
    /// grow with the node array.
    Index allocate(Index point, Index level)
    {
        Index v;
        if (!forest.freeNodes.empty())
        {
            v = forest.freeNodes.back();
            forest.freeNodes.pop_back();
            tree.nodes[v] = SphereNode{};
            tree.nodes[v].point = point;
            tree.nodes[v].level = level;
        }
        else
        {
            v = Index(tree.nodes.size());
            tree.nodes.push_back({});
            tree.nodes[v].point = point;
            tree.nodes[v].level = level;
            if (s.nodeTag.size() < tree.nodes.size())
                growNodeScratch(std::max<std::size_t>(2 * s.nodeTag.size(), 64));
        }
        return v;
    }

    /// Sizes the scratch arrays indexed by node for `size` nodes (never shrinks them).
    void growNodeScratch(std::size_t size)
    {
        if (s.nodeTag.size() >= size)
            return;
        s.nodeTag.resize(size, kNoFragment);
        s.tail.resize(size, kInvalidIndex);
        s.groupHead.resize(size, kInvalidIndex);
        s.groupStamp.resize(size, 0);
    }

    /// Puts an unlinked node on the free list.
    void release(Index v)
    {
        SHATTER_ASSERT(node(v).parent == kInvalidIndex && node(v).firstChild == kInvalidIndex);
        tree.nodes[v] = SphereNode{};
        forest.freeNodes.push_back(v);
    }

    /// The link that points at v: its parent's firstChild or its previous sibling's nextSibling.
    Index* linkTo(Index v)
    {
        const Index parent = node(v).parent;
        SHATTER_ASSERT(parent != kInvalidIndex);
        Index* link = &node(parent).firstChild;
        while (*link != v)
        {
            SHATTER_ASSERT(*link != kInvalidIndex, "node missing from its parent's child list");
            link = &node(*link).nextSibling;
        }
        return link;
    }

    /// Removes v (with its subtree) from its parent's child list. O(siblings).
    void unlink(Index v)
    {
        Index* link = linkTo(v);
        *link = node(v).nextSibling;
        --node(node(v).parent).childCount;
        node(v).parent = kInvalidIndex;
        node(v).nextSibling = kInvalidIndex;
    }

    /// Links the parentless v right after `previous` in previous's parent's child list.
    void insertAfter(Index previous, Index v)
    {
        const Index parent = node(previous).parent;
        node(v).parent = parent;
        node(v).nextSibling = node(previous).nextSibling;
        node(previous).nextSibling = v;
        ++node(parent).childCount;
    }

    /// Links the parentless v as the first child of `parent`.
    void pushFront(Index parent, Index v)
    {
        node(v).parent = parent;
        node(v).nextSibling = node(parent).firstChild;
        node(parent).firstChild = v;
        ++node(parent).childCount;
    }

    /// Links the parentless v as the last child of `parent`. O(1) when the remembered tail of parent
    /// is still its last child (a child without next sibling is the last one, whatever happened
    /// since), else O(children of parent).
    void append(Index parent, Index v)
    {
        Index* link = &node(parent).firstChild;
        const Index tail = s.tail[parent];
        if (tail != kInvalidIndex && node(tail).parent == parent && node(tail).nextSibling == kInvalidIndex)
            link = &node(tail).nextSibling;
        while (*link != kInvalidIndex)
            link = &node(*link).nextSibling;
        *link = v;
        node(v).parent = parent;
        ++node(parent).childCount;
        s.tail[parent] = v;
    }

    /// append(), but a leaf parent first gets its own copy as first child (a new leaf with its point),
    /// so that every internal node keeps its own copy.
    void adopt(Index parent, Index v)
    {
        if (node(parent).firstChild == kInvalidIndex)
        {
            const Index copy = allocate(node(parent).point, node(parent).level + 1);
            pushFront(parent, copy);
        }
        append(parent, v);
    }

    /// Makes `child` the first child of its parent (the parent's own copy comes first, §5.1).
    void moveToFront(Index child)
    {
        const Index parent = node(child).parent;
        if (node(parent).firstChild == child)
            return;
        unlink(child);
        pushFront(parent, child);
    }

    /// The parentless `with` takes old's place in old's parent's child list; old ends up unlinked.
    void replace(Index old, Index with)
    {
        Index* link = linkTo(old);
        *link = with;
        node(with).parent = node(old).parent;
        node(with).nextSibling = node(old).nextSibling;
        node(old).parent = kInvalidIndex;
        node(old).nextSibling = kInvalidIndex;
    }

    /// Exact radius of v: distance from its centre to the farthest point below it, by branch and bound
    /// over the spheres below (a subtree is skipped when |c_u − c_v| + r_u cannot beat the best so
    /// far; the child with the largest such bound is explored first). Needs exact (or conservative)
    /// radii below v; the own copy's radius is used as is (same centre). `bound`, if given, is known not to
    /// be exceeded (the old radius of a node that only lost descendants): reaching it ends the search.
    Real exactRadius(Index v, Real bound = std::numeric_limits<Real>::infinity())
    {
        const Vec3 c = center(v);
        const Index point = node(v).point;
        Real best = 0;
        s.search.clear();
        pushChildren(v, c, +1);
        while (!s.search.empty() && best < bound)
        {
            const auto [u, d, key] = s.search.back();
            s.search.pop_back();
            if (node(u).point == point) // v's own copy: same centre, so its exact radius is the answer
                best = std::max(best, node(u).radius);
            else if (best = std::max(best, d); node(u).firstChild != kInvalidIndex && key > best)
                pushChildren(u, c, +1);
        }
        return best;
    }

    /// The highest node of the point closest to `target` in the subtree of `top` (top itself included
    /// only if `includeTop`), by branch and bound: a subtree is skipped when |c_u − target| − r_u cannot
    /// beat the best so far, and the child with the smallest such bound is explored first. Ties go to
    /// the first point met; a point's highest node is met before its lower copies (its descendants).
    Index nearest(Index top, const Vec3& target, bool includeTop)
    {
        Index best = kInvalidIndex;
        Real bestDistance = std::numeric_limits<Real>::infinity();
        s.search.clear();
        if (includeTop)
        {
            const Real d = std::sqrt(squaredDistance(center(top), target));
            s.search.push_back({top, d, d - node(top).radius});
        }
        else
            pushChildren(top, target, -1);
        while (!s.search.empty())
        {
            const auto [u, d, key] = s.search.back();
            s.search.pop_back();
            if (d < bestDistance)
            {
                bestDistance = d;
                best = u;
            }
            if (node(u).firstChild != kInvalidIndex && key < bestDistance)
                pushChildren(u, target, -1);
        }
        return best;
    }

    /// Pushes the children of u with their distances to x onto s.search, ordered so that the most
    /// promising child is popped first: the largest d + r (sign +1, farthest search) or the smallest
    /// d − r (sign −1, nearest search). Stable, so equal bounds keep the child order.
    void pushChildren(Index u, const Vec3& x, Real sign)
    {
        const std::size_t begin = s.search.size();
        for (Index w = node(u).firstChild; w != kInvalidIndex; w = node(w).nextSibling)
        {
            const Real d = std::sqrt(squaredDistance(center(w), x));
            const SearchEntry entry{w, d, d + sign * node(w).radius};
            // Insertion sort, popped from the back: keys ascend (farthest) or descend (nearest).
            std::size_t i = s.search.size();
            s.search.push_back(entry);
            for (;
                 i > begin && (sign > 0 ? s.search[i - 1].key > entry.key : s.search[i - 1].key < entry.key);
                 --i)
                s.search[i] = s.search[i - 1];
            s.search[i] = entry;
        }
    }

    /// The tree under `root`, breadth first (parents before children).
    void collectBreadthFirst(Index root, std::vector<Index>& out)
    {
        out.clear();
        if (root == kInvalidIndex)
            return;
        out.push_back(root);
        for (std::size_t i = 0; i < out.size(); ++i)
            for (Index c = node(out[i]).firstChild; c != kInvalidIndex; c = node(c).nextSibling)
                out.push_back(c);
    }

    // The two restructuring methods (sphere_forest_split.cpp). Both read the new tags from
    // forest.pointTag, the parent's tree from s.order, and leave the top node of each new fragment's
    // tree in s.newRoots (indexed by fragment − firstNew).
    void splitTvcg(Index root, FragmentId firstNew, ForestUpdateReport& report);
    void splitSca(Index root, FragmentId firstNew, ForestUpdateReport& report);
    /// Gives the copy n (no point yet) the point of its subtree closest to `target` (TVCG §6.2).
    void restructure(Index n, const Vec3& target);
};

} // namespace shatter
