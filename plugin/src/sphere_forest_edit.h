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
            if (s.tail.size() < tree.nodes.size())
                growNodeScratch(std::max<std::size_t>(2 * s.tail.size(), 64));
        }
        return v;
    }

    /// Sizes the scratch arrays indexed by node for `size` nodes (never shrinks them).
    void growNodeScratch(std::size_t size)
    {
        if (s.tail.size() < size)
            s.tail.resize(size, kInvalidIndex);
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
    /// far; of a node's children, the one with the largest such bound is explored first). Every centre
    /// met is a point below v, so it raises the best at once. Needs exact (or conservative) radii
    /// below v; the own copy's radius is used as is (same centre). `bound`, if given, is known not to
    /// be exceeded (the old radius of a node that only lost descendants): reaching it ends the search.
    /// Distances stay squared until a node is pushed or raises the best.
    Real exactRadius(Index v, Real bound = std::numeric_limits<Real>::infinity())
    {
        const SphereNode* nodes = tree.nodes.data();
        const Vec3* points = tree.points.data();
        const Vec3 c = points[nodes[v].point];
        const Index point = nodes[v].point;
        Real best = 0;
        SearchStack stack(s.search);
        stack.push({v, 0, std::numeric_limits<Real>::infinity()});
        while (!stack.empty() && best < bound)
        {
            const SearchEntry e = stack.pop();
            if (e.key <= best)
                continue; // the best grew since it was pushed
            const std::size_t begin = stack.size();
            for (Index w = nodes[e.node].firstChild; w != kInvalidIndex; w = nodes[w].nextSibling)
            {
                const SphereNode& n = nodes[w];
                if (n.point == point) // v's own copy: same centre, so its exact radius is the answer
                {
                    best = std::max(best, n.radius);
                    continue;
                }
                const Real d2 = squaredDistance(points[n.point], c);
                if (d2 > best * best)
                    best = std::sqrt(d2);
                const Real reach = best - n.radius; // the subtree can only beat `best` beyond this
                if (n.firstChild == kInvalidIndex || (reach > 0 && d2 <= reach * reach))
                    continue;
                const Real d = std::sqrt(d2);
                stack.pushSorted({w, d, d + n.radius}, begin, [](Real a, Real b) { return a > b; });
            }
        }
        return best;
    }

    /// The highest node of the point closest to `target` in the subtree of `top` (top itself included
    /// only if `includeTop`), by branch and bound: a subtree is skipped when |c_u − target| − r_u cannot
    /// beat the best so far, and of a node's children the one with the smallest such bound is
    /// explored first. Every centre is a candidate as soon as it is measured, which tightens the bound
    /// before its siblings are. Ties (equal distances) go to the first point met, in the order children
    /// are measured; a point's highest node is met before its lower copies (its descendants). A copy made in
    /// this event from a node centred at `targetPoint` (if given) is not opened: restructure() gave it the
    /// point of its subtree closest to that centre.
    Index nearest(Index top, const Vec3& target, bool includeTop, Index targetPoint = kInvalidIndex)
    {
        const SphereNode* nodes = tree.nodes.data();
        Index best = kInvalidIndex;
        Real bestDistance = std::numeric_limits<Real>::infinity();
        SearchStack stack(s.search);
        if (includeTop)
        {
            best = top;
            bestDistance = std::sqrt(squaredDistance(center(top), target));
            if (nodes[top].firstChild != kInvalidIndex)
                stack.push({top, bestDistance, bestDistance - nodes[top].radius});
        }
        else
            pushNearer(stack, top, target, bestDistance, best);
        while (!stack.empty())
        {
            const SearchEntry e = stack.pop(); // measured (and a candidate) when it was pushed
            if (e.key < bestDistance && (targetPoint == kInvalidIndex || s.copyOf[e.node] != targetPoint))
                pushNearer(stack, e.node, target, bestDistance, best);
        }
        return best;
    }

    /// The branch-and-bound stack over scratch.search, with the end kept in a register (a
    /// std::vector's end would be reloaded after every store into its elements).
    struct SearchStack
    {
        std::vector<SearchEntry>& storage;
        SearchEntry* data;
        std::size_t count = 0;
        std::size_t capacity; // storage.size(), kept in a register too

        explicit SearchStack(std::vector<SearchEntry>& v) : storage(v)
        {
            if (storage.size() < 64)
                storage.resize(64);
            data = storage.data();
            capacity = storage.size();
        }
        bool empty() const { return count == 0; }
        std::size_t size() const { return count; }
        SearchEntry pop() { return data[--count]; }
        void push(const SearchEntry& e)
        {
            if (count == capacity)
            {
                storage.resize(2 * count);
                data = storage.data();
                capacity = storage.size();
            }
            data[count++] = e;
        }
        /// Pushes e among the entries from `begin` on, kept sorted so that the one popped first is the
        /// last in `before` order (insertion sort; stable: equal keys keep the push order).
        template <class Before>
        void pushSorted(const SearchEntry& e, std::size_t begin, Before before)
        {
            push(e);
            std::size_t i = count - 1;
            for (; i > begin && before(data[i - 1].key, e.key); --i)
                data[i] = data[i - 1];
            data[i] = e;
        }
    };

    /// Measures the children of u that may hold a point closer to x than `bestDistance`: each is a
    /// candidate (best, bestDistance; u's own copy, at u's distance, never beats u, which was one), and
    /// each with children of its own is pushed with its distance, the smallest d − r to be popped
    /// first.
    void pushNearer(SearchStack& stack, Index u, const Vec3& x, Real& bestDistance, Index& best)
    {
        const SphereNode* nodes = tree.nodes.data();
        const Vec3* points = tree.points.data();
        const std::size_t begin = stack.size();
        for (Index w = nodes[u].firstChild; w != kInvalidIndex; w = nodes[w].nextSibling)
        {
            const SphereNode& n = nodes[w];
            const Real d2 = squaredDistance(points[n.point], x);
            const Real reach = bestDistance + n.radius;
            if (d2 >= reach * reach)
                continue; // d − r ≥ bestDistance: it could neither win nor be expanded when popped
            const Real d = std::sqrt(d2);
            if (d < bestDistance)
            {
                bestDistance = d;
                best = w;
            }
            if (n.firstChild != kInvalidIndex)
                stack.pushSorted({w, d, d - n.radius}, begin, [](Real a, Real b) { return a < b; });
        }
    }

    /// The tree under `root`, breadth first (parents before children). Writes through a raw pointer
    /// into a buffer sized for every node: push_back would store and reload the vector's end on every
    /// step of what is otherwise a walk along contiguous siblings.
    void collectBreadthFirst(Index root, std::vector<Index>& out)
    {
        out.clear();
        if (root == kInvalidIndex)
            return;
        out.resize(tree.nodes.size());
        Index* queue = out.data();
        const SphereNode* nodes = tree.nodes.data();
        std::size_t count = 0;
        queue[count++] = root;
        for (std::size_t i = 0; i < count; ++i)
            for (Index c = nodes[queue[i]].firstChild; c != kInvalidIndex; c = nodes[c].nextSibling)
            {
                SHATTER_ASSERT(count < out.size(), "a node reached twice");
                queue[count++] = c;
                while (nodes[c].nextSibling == c + 1)
                {
                    SHATTER_ASSERT(count < out.size(), "a node reached twice");
                    queue[count++] = ++c;
                }
            }
        out.resize(count);
    }

    // The two restructuring methods (sphere_forest_split.cpp). Both read the new tags from
    // forest.pointTag, the parent's tree from s.order, and leave the top node of each new fragment's
    // tree in s.newRoots (indexed by fragment − firstNew).
    void splitTvcg(Index root, FragmentId firstNew, ForestUpdateReport& report);
    void splitSca(Index root, FragmentId firstNew, ForestUpdateReport& report);
    /// Gives the copy n (no point yet) of a node centred at `targetPoint` the point of its subtree
    /// closest to it (TVCG §6.2).
    void restructure(Index n, Index targetPoint);
};

} // namespace shatter
