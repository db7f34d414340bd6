// The two ways of turning the parent's sphere tree into one tree per new fragment (TVCG §6.2 and
// SCA'12 §5.2). Both run on the parent's tree only, with the points already carrying their new tags;
// see the essay in sphere_forest.cpp.
#include "sphere_forest_edit.h"

namespace shatter
{

// TVCG §6.2, bottom-up over the nodes whose subtree spans several fragments (s.cap, listed top down by
// collectCap; every other node heads a single-fragment subtree and is left as it is). After a node's
// children are done, each child heads a subtree of a single fragment (a "child" may be a copy made one
// level down, or a subtree spliced up), and they do not all agree: the node is a splitting
// node. Its children are grouped by fragment (stable, so max-distance order survives); the group of
// the node's own point stays with the node, every other group gets a copy of the node, placed right
// after it among its parent's children so the split propagates upward when the parent is processed.
// A group of one child needs no copy (it would be a single-child node): the child moves up in its
// place. The node itself is spliced out the same way if only its own copy is left.
void ForestEditor::splitTvcg(Index root, FragmentId firstNew, ForestUpdateReport& report,
                             std::size_t capChildren)
{
    // A node's fragment is its point's: a node left whole shares its subtree's one fragment, a node
    // that splits keeps its own point's group, and a copy takes a point of its group (restructure).
    const FragmentId* tag = forest.pointTag.data();
    auto fragmentOf = [&](Index v)
    {
        return tag[node(v).point];
    };
    // Copies live in this pass only. Each holds at least two nodes that were children of the cap's
    // nodes or other copies, so there are fewer copies than such children.
    if (s.copyOf.size() < tree.nodes.size() + capChildren)
        s.copyOf.resize(tree.nodes.size() + capChildren, kInvalidIndex);
    s.topLevel.assign(1, root);
    for (auto it = s.cap.rbegin(); it != s.cap.rend(); ++it)
    {
        const Index v = *it;
        const Index first = node(v).firstChild;
        const FragmentId own = fragmentOf(v);
        SHATTER_ASSERT(first != kInvalidIndex && fragmentOf(first) == own,
                       "a node spanning several fragments has its own copy first");
        ++report.splittingNodes;
        // The children, detached, with their fragments, in raw arrays (a node has few children, and
        // push_back would reload the vectors' ends after every store).
        const std::size_t childCount = node(v).childCount;
        if (s.children.size() < childCount)
        {
            s.children.resize(2 * childCount);
            s.childTags.resize(2 * childCount);
        }
        Index* const kids = s.children.data();
        FragmentId* const kidTags = s.childTags.data();
        std::size_t n = 0;
        for (Index c = first; c != kInvalidIndex; ++n)
        {
            SHATTER_ASSERT(n < childCount, "a child list longer than its count");
            const Index next = node(c).nextSibling;
            kids[n] = c;
            kidTags[n] = fragmentOf(c);
            node(c).parent = kInvalidIndex;
            node(c).nextSibling = kInvalidIndex;
            c = next;
        }
        SHATTER_ASSERT(n == childCount && kidTags[0] == own, "the own copy is the first child");
        node(v).firstChild = kInvalidIndex;
        node(v).childCount = 0;

        const bool top = node(v).parent == kInvalidIndex;
        const Vec3 target = center(v);
        Index previous = v;
        auto place = [&](Index x)
        {
            if (top)
                s.topLevel.push_back(x);
            else
                insertAfter(previous, x);
            previous = x;
        };
        // The groups in the order of their first child (the own group first).
        for (std::size_t lead = 0; lead < childCount; ++lead)
        {
            const FragmentId g = kidTags[lead];
            if (std::find(kidTags, kidTags + lead, g) != kidTags + lead)
                continue; // done with its first child
            if (g != own && std::count(kidTags + lead + 1, kidTags + childCount, g) == 0)
            {
                place(kids[lead]);
                continue;
            }
            const Index holder = g == own ? v : allocate(kInvalidIndex, node(v).level);
            Index tail = kInvalidIndex;
            for (std::size_t i = lead; i < childCount; ++i)
            {
                if (kidTags[i] != g)
                    continue;
                const Index c = kids[i];
                (tail == kInvalidIndex ? node(holder).firstChild : node(tail).nextSibling) = c;
                node(c).parent = holder;
                ++node(holder).childCount;
                tail = c;
            }
            if (holder != v)
            {
                ++report.copies;
                place(holder);
                SHATTER_ASSERT(holder < s.copyOf.size(), "more copies than nodes in the parent's tree");
                s.copyOf[holder] = node(v).point;
                s.copies.push_back(holder);
                restructure(holder, node(v).point);
            }
        }

        if (node(v).childCount > 1)
        {
            // v only lost descendants. If no child it lost could reach its radius (|c − c_v| + r_c
            // bounds the distance from v's centre to anything under c), its farthest point stayed.
            // The old radius would still contain everything (§6.2 does not say to shrink it), but
            // these nodes line the crack, where the new fragments' queries go: an exact radius costs
            // once and saves visited nodes in every later query (docs/algorithms.md, "Updating the
            // sphere trees").
            Real lostReach = 0;
            for (std::size_t i = 0; i < childCount; ++i)
                if (kidTags[i] != own)
                {
                    const Index c = kids[i];
                    lostReach =
                        std::max(lostReach, std::sqrt(squaredDistance(center(c), target)) + node(c).radius);
                }
            if (lostReach >= node(v).radius)
                node(v).radius = exactRadius(v, node(v).radius);
            continue;
        }
        // Only the own copy is left: it takes v's place.
        const Index c = node(v).firstChild;
        node(v).firstChild = kInvalidIndex;
        node(v).childCount = 0;
        node(c).parent = kInvalidIndex;
        if (top)
            s.topLevel.front() = c;
        else
            replace(v, c);
        if (tree.pointNode[node(c).point] == v)
            tree.pointNode[node(c).point] = c;
        release(v);
        ++report.removed;
    }
    for (const Index copy : s.copies)
        s.copyOf[copy] = kInvalidIndex;
    s.copies.clear();
    for (const Index x : s.topLevel)
        s.newRoots[fragmentOf(x) - firstNew] = x;
}

// TVCG §6.2, last paragraph: the copy n lacks a point. Take the point x of its subtree closest to the
// original centre (favouring the max-distance order, whose point n stood for) and make x the centre of
// every node on the branch from n down to x's highest node. A point y that leaves the branch this way
// is not lost: the deepest branch node that held y has y's own copy among its other children, which
// becomes y's highest node. Radii on the branch are recomputed bottom-up; nothing else changed.
void ForestEditor::restructure(Index n, Index targetPoint)
{
    // A copy made earlier in this pass from a node with the same centre (the own copies of a
    // splitting node split too) already holds its subtree's closest point: the search does not open it.
    const Index np = nearest(n, tree.points[targetPoint], false, targetPoint);
    SHATTER_ASSERT(np != kInvalidIndex);
    const Index x = node(np).point;
    s.branch.clear();
    for (Index b = node(np).parent; b != n; b = node(b).parent)
        s.branch.push_back(b);
    s.branch.push_back(n);
    std::reverse(s.branch.begin(), s.branch.end()); // n, ..., parent of np
    const std::size_t k = s.branch.size();
    for (std::size_t i = 1; i < k; ++i)
    {
        const Index b = s.branch[i];
        const Index next = i + 1 < k ? s.branch[i + 1] : np;
        const Index y = node(b).point;
        if (node(next).point == y)
            continue;
        Index copy = node(b).firstChild;
        while (copy != kInvalidIndex && (copy == next || node(copy).point != y))
            copy = node(copy).nextSibling;
        SHATTER_ASSERT(copy != kInvalidIndex, "every internal node has its own copy");
        tree.pointNode[y] = copy;
    }
    for (const Index b : s.branch)
        node(b).point = x;
    tree.pointNode[x] = n;
    for (std::size_t i = 0; i < k; ++i)
        moveToFront(i + 1 < k ? s.branch[i + 1] : np);
    for (std::size_t i = k; i-- > 0;)
        node(s.branch[i]).radius = exactRadius(s.branch[i]);
}

// SCA'12 §5.2: top-down, a node whose (original) parent now belongs to another fragment is hung under
// its closest original ancestor of its own fragment, as the last child. With no such ancestor SCA'12
// starts an extra root; to keep one tree per fragment (so Algorithm 1 starts from one node in both
// methods) the first such node becomes the fragment's root and later ones hang under it, as if it
// were their closest ancestor. No node is removed or created. Radii are recomputed bottom-up on every
// node that lost or gained a child and on their new ancestors.
void ForestEditor::splitSca(Index /*root*/, FragmentId firstNew, ForestUpdateReport& report)
{
    // s.order: the parent's tree, breadth first (applyChecked collected it).
    const std::vector<FragmentId>& tag = forest.pointTag;
    s.children.clear();
    const Index dirty = s.epoch;
    auto markDirty = [&](Index v)
    {
        for (; v != kInvalidIndex && s.nodeStamp[v] != dirty; v = node(v).parent)
            s.nodeStamp[v] = dirty;
    };
    if (s.nodeStamp.size() < tree.nodes.capacity())
    {
        s.nodeStamp.resize(tree.nodes.capacity(), 0);
        s.originalParent.resize(tree.nodes.capacity(), kInvalidIndex);
    }
    for (const Index v : s.order)
        s.originalParent[v] = node(v).parent;
    for (const Index v : s.order)
    {
        const FragmentId f = tag[node(v).point];
        const Index up = s.originalParent[v];
        if (up == kInvalidIndex)
        {
            s.newRoots[f - firstNew] = v;
            continue;
        }
        if (tag[node(up).point] == f)
            continue;
        Index a = s.originalParent[up];
        while (a != kInvalidIndex && tag[node(a).point] != f)
            a = s.originalParent[a];
        s.children.push_back(node(v).parent); // loses v
        unlink(v);
        ++report.reparented;
        if (a == kInvalidIndex)
        {
            Index& top = s.newRoots[f - firstNew];
            if (top == kInvalidIndex)
            {
                top = v;
                continue;
            }
            a = top;
        }
        adopt(a, v);
        s.children.push_back(a); // gains v
    }
    // s.children collected the nodes whose child lists changed; mark them and their new ancestors
    // (after all moves, so the ancestors are the final ones), then recompute bottom-up.
    if (s.nodeStamp.size() < tree.nodes.size()) // own copies given to leaves (adopt)
        s.nodeStamp.resize(tree.nodes.capacity(), 0);
    for (const Index v : s.children)
        markDirty(v);
    s.order.clear();
    for (const Index r : s.newRoots)
    {
        if (r == kInvalidIndex)
            continue;
        const std::size_t begin = s.order.size();
        s.order.push_back(r);
        for (std::size_t i = begin; i < s.order.size(); ++i)
            for (Index c = node(s.order[i]).firstChild; c != kInvalidIndex; c = node(c).nextSibling)
                s.order.push_back(c);
    }
    for (auto it = s.order.rbegin(); it != s.order.rend(); ++it)
        if (s.nodeStamp[*it] == dirty)
            node(*it).radius = exactRadius(*it);
}

} // namespace shatter
