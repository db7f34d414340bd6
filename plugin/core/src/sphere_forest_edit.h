// Internal: the in-place editing operations on a SphereForest's flat node array, shared by the
// update driver (sphere_forest.cpp) and the two restructuring methods (sphere_forest_split.cpp).
// Everything works on node indices: allocate() may grow the node array, so no reference to a node
// survives a call to it.
#pragma once

#include "max_distance_order.h"
#include "shatter/error.h"
#include "sphere_forest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace shatter
{

struct ForestEditor
{
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
    Real exactRadius(Index v, Real bound = std::numeric_limits<Real>::infinity())
    {
        const SphereNode* nodes = tree.nodes.data();
        const Vec3* points = tree.points.data();
        const Vec3 c = points[nodes[v].point];
        const Index point = nodes[v].point;
        Real best = 0;
        SearchStack stack(s);
        stack.push(v, std::numeric_limits<Real>::infinity());
        while (!stack.empty() && best < bound)
        {
            Index u;
            if (stack.pop(u) <= best)
                continue; // the best grew since it was pushed
            const std::size_t begin = stack.size();
            for (Index w = nodes[u].firstChild; w != kInvalidIndex; w = nodes[w].nextSibling)
            {
                const SphereNode& n = nodes[w];
                if (n.point == point) // v's own copy: same centre, so its exact radius is the answer
                {
                    best = std::max(best, n.radius);
                    continue;
                }
                // Every centre raises the best at once; computed without a branch, which the
                // scattered distances would mispredict.
                const Real d = std::sqrt(squaredDistance(points[n.point], c));
                best = std::max(best, d);
                if (n.firstChild == kInvalidIndex || d + n.radius <= best)
                    continue; // a leaf, or a subtree that cannot beat the best
                stack.pushSorted(w, d + n.radius, begin, [](Real a, Real b) { return a > b; });
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
        SearchStack stack(s);
        if (includeTop)
        {
            best = top;
            bestDistance = std::sqrt(squaredDistance(center(top), target));
            if (nodes[top].firstChild != kInvalidIndex)
                stack.push(top, bestDistance - nodes[top].radius);
        }
        else
            pushNearer(stack, top, target, bestDistance, best);
        while (!stack.empty())
        {
            Index u; // measured (and a candidate) when it was pushed
            if (stack.pop(u) < bestDistance && (targetPoint == kInvalidIndex || s.copyOf[u] != targetPoint))
                pushNearer(stack, u, target, bestDistance, best);
        }
        return best;
    }

    /// The branch-and-bound stack over scratch.searchKeys and searchNodes, with the end kept in a
    /// register (a std::vector's end would be reloaded after every store into its elements). Keys and
    /// nodes are separate arrays: an entry is often popped right after it was pushed, and a load that
    /// matches its store exactly is forwarded from the store buffer, where a struct's wider loads
    /// would wait for the stores to retire.
    struct SearchStack
    {
        std::vector<Real>& keyStorage;
        std::vector<Index>& nodeStorage;
        Real* keys;
        Index* nodes;
        std::size_t count = 0;
        std::size_t capacity; // keyStorage.size(), kept in a register too

        explicit SearchStack(SphereForest::Scratch& s) : keyStorage(s.searchKeys), nodeStorage(s.searchNodes)
        {
            if (keyStorage.size() < 64)
            {
                keyStorage.resize(64);
                nodeStorage.resize(64);
            }
            keys = keyStorage.data();
            nodes = nodeStorage.data();
            capacity = keyStorage.size();
        }
        bool empty() const { return count == 0; }
        std::size_t size() const { return count; }
        /// Removes the last entry: its node goes to `node`, its key is returned.
        Real pop(Index& node)
        {
            --count;
            node = nodes[count];
            return keys[count];
        }
        void push(Index node, Real key)
        {
            if (count == capacity)
            {
                keyStorage.resize(2 * count);
                nodeStorage.resize(2 * count);
                keys = keyStorage.data();
                nodes = nodeStorage.data();
                capacity = keyStorage.size();
            }
            keys[count] = key;
            nodes[count] = node;
            ++count;
        }
        /// Pushes an entry among those from `begin` on, kept sorted so that the one popped first is the
        /// last in `before` order (insertion sort; stable: equal keys keep the push order).
        template <class Before>
        void pushSorted(Index node, Real key, std::size_t begin, Before before)
        {
            push(node, key);
            std::size_t i = count - 1;
            for (; i > begin && before(keys[i - 1], key); --i)
            {
                keys[i] = keys[i - 1];
                nodes[i] = nodes[i - 1];
            }
            keys[i] = key;
            nodes[i] = node;
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
            // Without branches on the scattered distances, which would be mispredicted: the
            // candidate update is a pair of selects.
            const Real d = std::sqrt(squaredDistance(points[n.point], x));
            const bool closer = d < bestDistance;
            best = closer ? w : best;
            bestDistance = closer ? d : bestDistance;
            if (n.firstChild == kInvalidIndex || d - n.radius >= bestDistance)
                continue; // it could not hold a closer point when popped
            stack.pushSorted(w, d - n.radius, begin, [](Real a, Real b) { return a < b; });
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

    /// Numbers the points of the tree under `root` depth first, for the split's "single fragment?"
    /// test: a point takes the next position when its highest node is entered, so the points first met
    /// in the subtree of any node v are exactly the positions spans[v] (a lower copy's own point lies
    /// outside its span, at the position of its highest node, an ancestor). A threaded walk over the
    /// parent and sibling links, no stack. O(nodes of the tree).
    void number(Index root, FragmentId fragment)
    {
        s.numbered = fragment;
        s.positionPoint.clear();
        if (root == kInvalidIndex)
            return;
        if (s.spans.size() < tree.nodes.size())
            s.spans.resize(std::max(tree.nodes.size(), 2 * s.spans.size()));
        const SphereNode* nodes = tree.nodes.data();
        Index position = 0;
        for (Index v = root;;)
        {
            const SphereNode& n = nodes[v];
            s.spans[v].begin = position;
            if (tree.pointNode[n.point] == v)
            {
                s.positionPoint.push_back(n.point);
                ++position;
            }
            if (n.firstChild != kInvalidIndex)
            {
                v = n.firstChild;
                continue;
            }
            // Leave v, and every ancestor whose last child was just left.
            for (;;)
            {
                s.spans[v].end = position;
                if (v == root)
                    return;
                if (nodes[v].nextSibling != kInvalidIndex)
                {
                    v = nodes[v].nextSibling;
                    break;
                }
                v = nodes[v].parent;
            }
        }
    }

    /// Collects in s.cap, top down and breadth first, the nodes of the numbered tree under `root` whose
    /// subtree holds points of more than one fragment (by forest.pointTag), and returns how many
    /// children those nodes have. These are exactly TVCG §6.2's splitting nodes: every other node
    /// heads a single-fragment subtree that the split leaves as it is. They are closed upward (a
    /// node's subtree holds its children's), so the walk tests only their children, each in O(1)
    /// from the tag changes along the depth-first positions.
    std::size_t collectCap(Index root)
    {
        SHATTER_ASSERT(s.numbered != kNoFragment && root != kInvalidIndex && !s.positionPoint.empty());
        const FragmentId* tag = forest.pointTag.data();
        const Index* at = s.positionPoint.data();
        const std::size_t count = s.positionPoint.size();
        s.tagChanges.resize(count);
        Index changes = 0;
        s.tagChanges[0] = 0;
        for (std::size_t i = 1; i < count; ++i)
        {
            changes += tag[at[i]] != tag[at[i - 1]];
            s.tagChanges[i] = changes;
        }
        auto spansFragments = [&](Index v)
        {
            const SphereForest::Span span = s.spans[v];
            if (span.begin == span.end)
                return false; // a leaf, or only copies of v's point below v
            return s.tagChanges[span.end - 1] != s.tagChanges[span.begin] ||
                   tag[at[span.begin]] != tag[node(v).point];
        };
        s.cap.clear();
        std::size_t children = 0;
        if (spansFragments(root))
            s.cap.push_back(root);
        for (std::size_t i = 0; i < s.cap.size(); ++i)
            for (Index c = node(s.cap[i]).firstChild; c != kInvalidIndex; c = node(c).nextSibling)
            {
                ++children;
                if (spansFragments(c))
                    s.cap.push_back(c);
            }
        return children;
    }

    /// Copies `built` (a buildSphereTree result over local points) into the forest as a new tree and
    /// returns its root: local point i becomes forest point global[i] (or i, if `global` is empty:
    /// the asset's tree, whose points are the forest's first ones), nodes are laid out breadth
    /// first with a node's children side by side, and a node whose subtree is only copies of its own
    /// point becomes a leaf (sphere_forest_rebuild.cpp says why). Every point's highest node becomes
    /// its pointNode; those of `global` must be kInvalidIndex first.
    Index install(const SphereTree& built, std::span<const Index> global);

    /// Puts every node of `nodes` (a whole tree, links and all) on the free list, so that allocate()
    /// hands them out again in the order listed.
    void releaseTree(const std::vector<Index>& nodes)
    {
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
        {
            tree.nodes[*it] = SphereNode{};
            forest.freeNodes.push_back(*it);
        }
    }

    // The two restructuring methods (sphere_forest_split.cpp). Both read the new tags from
    // forest.pointTag and leave the top node of each new fragment's tree in s.newRoots (indexed by
    // fragment − firstNew); splitTvcg reads the parent's tree from s.cap (collectCap), splitSca from
    // s.order (collectBreadthFirst).
    void splitTvcg(Index root, FragmentId firstNew, ForestUpdateReport& report, std::size_t capChildren);
    void splitSca(Index root, FragmentId firstNew, ForestUpdateReport& report);
    /// Gives the copy n (no point yet) of a node centred at `targetPoint` the point of its subtree
    /// closest to it (TVCG §6.2).
    void restructure(Index n, Index targetPoint);
};

} // namespace shatter
