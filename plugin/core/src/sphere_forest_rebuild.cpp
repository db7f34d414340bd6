// Fresh sphere trees in the forest: install() copies a buildSphereTree result into the forest's layout
// (the constructor's asset tree and every tree of RestructureMethod::Rebuild), and rebuildTrees() is
// that method: the "full recomputation" TVCG §7.3 and Fig. 15 compare the update with. It gives the
// new fragments the same points, tags and crack points as the update (applyChecked makes them, check()
// validated the event the same way) and builds each tree as the asset's was built (§5.1), so the
// two methods differ only in how the trees are made.
#include "sphere_forest_edit.h"

namespace shatter
{
namespace
{

/// True if the subtree of v holds nothing but copies of v's point (a leaf's own-copy tail).
bool ownCopiesOnly(const SphereTree& tree, Index v)
{
    for (;; v = tree.nodes[v].firstChild)
    {
        const SphereNode& node = tree.nodes[v];
        if (node.firstChild == kInvalidIndex)
            return true;
        if (node.childCount != 1 || tree.nodes[node.firstChild].point != node.point)
            return false;
    }
}

} // namespace

// buildSphereTree repeats every point on all levels below its first one, so a point's own-copy tail is
// about a third of its nodes; such tails carry no sphere (radius 0, same centre), Algorithm 1 never
// enters them (a radius-0 node is only descended into when its point is a contact, whose copies add
// nothing), and Fig. 8 never inserts below them (it needs a radius larger than the distance), but every
// update would walk them. The split (§6.2) removes single-child nodes the same way.
Index ForestEditor::install(const SphereTree& built, std::span<const Index> global)
{
    SHATTER_ASSERT(built.roots.size() == 1 && (global.empty() || global.size() == built.points.size()));
    auto& queue = s.installQueue;
    queue.clear();
    auto copy = [&](Index v, Index parent)
    {
        const SphereNode& source = built.nodes[v];
        const Index point = global.empty() ? source.point : global[source.point];
        const Index w = allocate(point, source.level);
        node(w).radius = source.radius;
        node(w).parent = parent;
        if (tree.pointNode[point] == kInvalidIndex) // breadth first meets the highest copy first
            tree.pointNode[point] = w;
        queue.emplace_back(v, w);
        return w;
    };
    const Index root = copy(built.roots[0], kInvalidIndex);
    for (std::size_t i = 0; i < queue.size(); ++i)
    {
        const auto [v, w] = queue[i]; // by value: copy() appends to the queue
        if (ownCopiesOnly(built, v))
        {
            node(w).radius = 0;
            continue;
        }
        Index previous = kInvalidIndex;
        for (const Index c : built.children(v))
        {
            const Index x = copy(c, w);
            (previous == kInvalidIndex ? node(w).firstChild : node(previous).nextSibling) = x;
            ++node(w).childCount;
            previous = x;
        }
    }
    return root;
}

void SphereForest::rebuildTrees(Index firstPoint, FragmentId firstNew, FragmentId count,
                                ForestUpdateReport& report)
{
    Scratch& s = scratch;
    ForestEditor editor(*this);
    const Index added = pointCount() - firstPoint;
    report.insertedPoints += added;

    // The new fragments' points, grouped by fragment (a counting sort): the parent's, which check()
    // listed, then the new crack points.
    auto forEachPoint = [&](auto&& visit)
    {
        for (const Index p : s.positionPoint)
            visit(p);
        for (Index p = firstPoint; p < pointCount(); ++p)
            visit(p);
    };
    s.fragmentStart.assign(std::size_t(count) + 1, 0);
    forEachPoint([&](Index p) { ++s.fragmentStart[pointTag[p] - firstNew + 1]; });
    for (FragmentId i = 0; i < count; ++i)
        s.fragmentStart[i + 1] += s.fragmentStart[i];
    s.fragmentPoints.resize(s.fragmentStart[count]);
    forEachPoint([&](Index p) { s.fragmentPoints[s.fragmentStart[pointTag[p] - firstNew]++] = p; });
    // fragmentStart[i] is now the end of fragment i's points.

    for (FragmentId i = 0; i < count; ++i)
    {
        const Index begin = i == 0 ? 0 : s.fragmentStart[i - 1];
        const std::span<const Index> points(s.fragmentPoints.data() + begin, s.fragmentStart[i] - begin);
        if (points.empty())
            continue;
        s.fragmentPositions.clear();
        for (const Index p : points)
        {
            s.fragmentPositions.push_back(data.points[p]);
            data.pointNode[p] = kInvalidIndex;
        }
        fragmentRoot[firstNew + i] = editor.install(buildPointShell(s.fragmentPositions), points);
    }
}

} // namespace shatter
