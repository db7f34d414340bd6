// The fracturable sphere forest: updating sphere trees at fracture events (TVCG §6.2-6.3). When
// fragment P breaks only P's tree changes, in four passes: tag P's points with their new fragments
// (everything validated before anything changes), split the nodes whose subtree spans several
// fragments (§6.2, Fig. 7), restructure the copies around the closest point of their subtree (§6.2,
// sphere_forest_split.cpp) and insert two surface points per cut tet edge (§6.3, Fig. 8), with radii
// kept exact. SCA'12's re-parenting update (RestructureMethod::Sca2012) replaces the last three passes.
// Invariants: crack points sit exactly on the crack, (1 − t)·p0 + t·p1 on both sides (the distance
// field decides their side; Algorithm 1's tolerance ε makes touching fragments contacts); freed nodes
// are reused, so the node array stays bounded by about twice the points ever inserted. How each pass
// works and why the tree is laid out as it is: docs/algorithms.md, "Updating the sphere trees".
// ObjectState checks the result once for the whole state and then calls applyChecked().
#include "sphere_forest_edit.h"

#include "asset_data.h"
#include "crack_geometry.h"

#include <string>

namespace shatter
{
namespace
{

const char* const kSource = "FractureResult";

/// Room for `extra` more elements, exactly. A fracture job applies its event to a fresh copy of the
/// state, whose vectors are tight, so geometric growth would double every array (and the node scratch
/// sized by capacity) at each event; the copy is O(size) already, so one exact growth costs nothing more.
template <class T>
void reserveMore(std::vector<T>& v, std::size_t extra)
{
    v.reserve(v.size() + extra); // does nothing when the room is there
}

std::string str(std::uint64_t v)
{
    return std::to_string(v);
}

} // namespace

SphereForest::SphereForest(const SphereTree& initial)
{
    if (initial.roots.size() != 1 || initial.pointCount() == 0 ||
        initial.pointNode.size() != initial.points.size())
        throw Error("SphereForest", "needs a single non-empty sphere tree (got " + str(initial.roots.size()) +
                                        " roots over " + str(initial.pointCount()) + " points)");
    // The same spheres, laid out breadth first with the own-copy tails dropped (install()).
    tetNodes = initial.pointCount();
    data.points = initial.points;
    data.pointNode.assign(tetNodes, kInvalidIndex);
    data.nodes.reserve(initial.nodes.size());
    data.roots.assign(1, ForestEditor(*this).install(initial, {})); // the forest's points are the tree's
    pointTag.assign(tetNodes, 0);
    fragmentRoot.assign(1, data.roots[0]);
    fragmentLive.assign(1, 1);
    // Scratch for the first events, sized here rather than at fracture time.
    scratch.pointStamp.assign(2 * std::size_t(tetNodes), 0);
    scratch.newTag.assign(2 * std::size_t(tetNodes), kNoFragment);
    ForestEditor editor(*this);
    editor.growNodeScratch(2 * data.nodes.size());
    // The initial tree never changes until it breaks, so its numbering is made once, here.
    editor.number(data.roots[0], 0);
}

SphereForest::SphereForest(const Asset& asset) : SphereForest(asset.sphereTree)
{
    scratch.tetStamp.assign(asset.tetMesh.tetCount(), 0);
    scratch.tetRecord.assign(asset.tetMesh.tetCount(), kInvalidIndex);
    if (asset.tetMesh.nodeCount() != tetNodes)
        throw Error(asset.name.empty() ? std::string("<asset>") : asset.name,
                    "the sphere tree has " + str(tetNodes) + " points for " + str(asset.tetMesh.nodeCount()) +
                        " tet nodes");
}

void SphereForest::check(const FractureResult& r, const TetMesh& mesh)
{
    scratch.checked = nullptr;
    if (mesh.nodeCount() != tetNodes)
        throw Error(kSource, "the tet mesh has " + str(mesh.nodeCount()) + " nodes, the sphere forest " +
                                 str(tetNodes));
    if (mesh.nodeTetOffsets.size() != std::size_t(tetNodes) + 1)
        throw Error(kSource, "the tet mesh has no connectivity (TetMesh::buildConnectivity)");
    if (!alive(r.parent))
        throw Error(kSource, "parent fragment " + str(r.parent) + " is not alive in the sphere forest");
    const FragmentId firstNew = fragmentCount();
    const FragmentId count = FragmentId(r.fragments.size());
    if (count == 0)
        throw Error(kSource, "no new fragments");
    for (FragmentId i = 0; i < count; ++i)
        if (r.fragments[i] != firstNew + i)
            throw Error(kSource, "new fragment ids must be the next free ids: expected " + str(firstNew + i) +
                                     ", got " + str(r.fragments[i]));
    auto isNew = [&](FragmentId f)
    {
        return f >= firstNew && f - firstNew < count;
    };
    if (r.nodes.size() != r.nodeFragments.size())
        throw Error(kSource, "nodes and nodeFragments differ in length");

    Scratch& s = scratch;
    if (s.pointStamp.size() < pointCount())
    {
        s.pointStamp.resize(std::max<std::size_t>(pointCount(), 2 * s.pointStamp.size()), 0);
        s.newTag.resize(s.pointStamp.size(), kNoFragment);
    }
    if (++s.epoch == 0)
    {
        std::fill(s.pointStamp.begin(), s.pointStamp.end(), 0);
        std::fill(s.nodeStamp.begin(), s.nodeStamp.end(), 0);
        std::fill(s.tetStamp.begin(), s.tetStamp.end(), 0);
        s.epoch = 1;
    }
    for (std::size_t i = 0; i < r.nodes.size(); ++i)
    {
        const Index n = r.nodes[i];
        if (n >= tetNodes || pointTag[n] != r.parent || s.pointStamp[n] == s.epoch)
            throw Error(kSource, "node " + str(n) + " is out of range, listed twice or not in fragment " +
                                     str(r.parent));
        if (!isNew(r.nodeFragments[i]))
            throw Error(kSource, "node " + str(n) + " is labelled " + str(r.nodeFragments[i]) +
                                     ", not one of the new fragments");
        s.pointStamp[n] = s.epoch;
        s.newTag[n] = r.nodeFragments[i];
    }
    for (const CutEdge& e : r.cutEdges)
        if (e.node0 >= tetNodes || e.node1 >= tetNodes || e.node0 == e.node1 || !(e.t > 0 && e.t < 1) ||
            !isNew(e.fragment0) || !isNew(e.fragment1) || e.fragment0 == e.fragment1)
            throw Error(kSource, "cut edge (" + str(e.node0) + ", " + str(e.node1) + ") is malformed");

    // The parent's points, each once, from its tree's depth-first numbering (made now unless the
    // tree still has the one it was made or last numbered with).
    if (s.numbered != r.parent)
        ForestEditor(*this).number(fragmentRoot[r.parent], r.parent);
    s.crackPointsOfParent.clear();
    for (const Index p : s.positionPoint)
    {
        if (p >= tetNodes)
            s.crackPointsOfParent.push_back(p);
        else if (s.pointStamp[p] != s.epoch)
            throw Error(kSource, "tet node " + str(p) + " of fragment " + str(r.parent) + " has no label");
    }
    // The cut tet records serve only to classify old crack points: a first fracture has none, and
    // its records are left to the distance field, which reads them all.
    if (!s.crackPointsOfParent.empty())
    {
        for (const CutTetRecord& rec : r.cutTets)
        {
            bool ok = rec.tet < mesh.tetCount() && rec.count >= 1 && rec.count <= 4;
            for (int i = 0; ok && i < rec.count; ++i)
                ok = isNew(rec.fragments[i]);
            if (!ok)
                throw Error(kSource, "cut tet record of tet " + str(rec.tet) + " is malformed");
        }
        if (s.tetStamp.size() < mesh.tetCount())
        {
            s.tetStamp.resize(mesh.tetCount(), 0);
            s.tetRecord.resize(mesh.tetCount(), kInvalidIndex);
        }
        for (std::size_t i = 0; i < r.cutTets.size(); ++i)
        {
            const Index t = r.cutTets[i].tet;
            if (s.tetStamp[t] == s.epoch)
                throw Error(kSource, "tet " + str(t) + " has two cut tet records");
            s.tetStamp[t] = s.epoch;
            s.tetRecord[t] = Index(i);
        }
        for (const Index p : s.crackPointsOfParent)
        {
            s.newTag[p] = classifyCrackPoint(p, r, mesh);
            s.pointStamp[p] = s.epoch;
        }
    }
    s.checked = &r;
}

FragmentId SphereForest::classifyCrackPoint(Index p, const FractureResult& r, const TetMesh& mesh) const
{
    const Scratch& s = scratch;
    const CrackPoint& cp = crackPoint(p);
    const Index cut = mesh.findEdgeTet(cp.node0, cp.node1, [&](Index t) { return s.tetStamp[t] == s.epoch; });
    if (cut != kInvalidIndex)
    {
        const Tet& tet = mesh.tets[cut];
        const CutTetRecord& rec = r.cutTets[s.tetRecord[cut]];
        Bary b = Bary::Zero();
        b[std::find(tet.begin(), tet.end(), cp.node0) - tet.begin()] = 1 - cp.t;
        b[std::find(tet.begin(), tet.end(), cp.node1) - tet.begin()] = cp.t;
        return rec.fragments[argminCrackFunction(rec.values, rec.count, b)];
    }
    // The event did not split the parent around this edge: all of its region there has one label.
    auto labelled = [&](Index n)
    {
        return s.pointStamp[n] == s.epoch;
    };
    const Index nearer = cp.t < 0.5 ? cp.node0 : cp.node1;
    const Index farther = cp.t < 0.5 ? cp.node1 : cp.node0;
    if (labelled(nearer))
        return s.newTag[nearer];
    if (labelled(farther))
        return s.newTag[farther];
    Index label = kInvalidIndex;
    mesh.findEdgeTet(cp.node0, cp.node1,
                     [&](Index t)
                     {
                         for (const Index n : mesh.tets[t])
                             if (labelled(n))
                             {
                                 label = n;
                                 return true;
                             }
                         return false;
                     });
    if (label != kInvalidIndex)
        return s.newTag[label];
    throw Error(kSource, "crack point " + str(p) + " on edge (" + str(cp.node0) + ", " + str(cp.node1) +
                             ") lies in no cut tet record and next to no labelled node");
}

void SphereForest::apply(const FractureResult& r, const TetMesh& mesh, RestructureMethod method,
                         ForestUpdateReport* report)
{
    check(r, mesh);
    applyChecked(r, mesh, method, report);
}

void SphereForest::applyChecked(const FractureResult& r, const TetMesh& mesh, RestructureMethod method,
                                ForestUpdateReport* report)
{
    SHATTER_ASSERT(scratch.checked == &r, "applyChecked() needs a check() of the same result first");
    scratch.checked = nullptr;
    ForestUpdateReport local;
    ForestEditor editor(*this);
    Scratch& s = scratch;
    const FragmentId parent = r.parent;
    const FragmentId firstNew = fragmentCount();
    const FragmentId count = FragmentId(r.fragments.size());
    const Index top = fragmentRoot[parent];
    local.parentPoints = Index(s.positionPoint.size());

    // The parent's points take their new tags: its tet nodes are exactly r.nodes (check() verified
    // it), its old crack points are those check() classified.
    for (std::size_t i = 0; i < r.nodes.size(); ++i)
        pointTag[r.nodes[i]] = r.nodeFragments[i];
    for (const Index p : s.crackPointsOfParent)
        pointTag[p] = s.newTag[p];
    fragmentRoot.resize(firstNew + count, kInvalidIndex);
    fragmentLive.resize(firstNew + count, 1);
    fragmentRoot[parent] = kInvalidIndex;
    fragmentLive[parent] = 0;
    s.newRoots.assign(count, kInvalidIndex);
    // What the split reads, with a bound on the nodes it may add: Tvcg2013 visits only the nodes
    // whose subtree spans several fragments (copies hold two or more of those nodes' children each,
    // so they are fewer than the children), Sca2012 the whole tree (it may give leaves own copies),
    // Rebuild the whole tree too, to free it.
    std::size_t splitNodes = 0;
    if (top != kInvalidIndex)
    {
        if (method == RestructureMethod::Tvcg2013)
            splitNodes = editor.collectCap(top);
        else
        {
            editor.collectBreadthFirst(top, s.order);
            splitNodes = method == RestructureMethod::Sca2012 ? s.order.size() : 0;
        }
    }
    s.numbered = kNoFragment; // the parent's tree is about to change
    // Room for those and the crack points with their own copies, so that neither the nodes nor the
    // scratch indexed by node grow piecemeal.
    const std::size_t added = 2 * r.cutEdges.size();
    reserveMore(data.nodes, splitNodes + 2 * added);
    if (s.tail.size() < data.nodes.size() + splitNodes + 2 * added)
        editor.growNodeScratch(data.nodes.capacity());
    if (top != kInvalidIndex)
    {
        if (method == RestructureMethod::Tvcg2013)
            editor.splitTvcg(top, firstNew, local, splitNodes);
        else if (method == RestructureMethod::Sca2012)
            editor.splitSca(top, firstNew, local);
        else
            editor.releaseTree(s.order);
    }
    for (FragmentId i = 0; i < count; ++i)
        fragmentRoot[firstNew + i] = s.newRoots[i];

    // New surface points (§6.3), two per cut edge: the per-point arrays in bulk, every point's anchor
    // on the tree as the split left it, the points grouped by anchor, the tree edits group by group,
    // then the radii above each group's anchor. Grouping keeps every pass local: a group's points
    // walk the same chain, their nodes are allocated side by side, and §6.3's bottom-up radius update
    // walks the path above the anchor once for the whole group (insertCrackPoints).
    const Index firstPoint = data.pointCount();
    SHATTER_ASSERT((firstPoint - tetNodes) % 2 == 0, "crack points come in pairs");
    const std::size_t pointTotal = std::size_t(firstPoint) + added;
    reserveMore(data.points, added);
    reserveMore(data.pointNode, added);
    reserveMore(pointTag, added);
    reserveMore(crackPoints, r.cutEdges.size());
    data.points.resize(pointTotal);
    data.pointNode.resize(pointTotal, kInvalidIndex);
    pointTag.resize(pointTotal);
    crackPoints.resize((pointTotal - tetNodes) / 2);
    // One pass over the cut edges sets both crack points and their anchors. The anchor of a crack
    // point is the highest node of the edge endpoint on its side, else of the other endpoint, else of
    // the closest node of its fragment nearby (findAnchor, which reads only the tet nodes and the tree
    // as the split left it).
    s.anchors.resize(added);
    for (std::size_t i = 0; i < r.cutEdges.size(); ++i)
    {
        const CutEdge& e = r.cutEdges[i];
        const Index a = firstPoint + Index(2 * i);
        // The tet nodes' positions are the forest's first points: reading them there rather than from
        // the mesh keeps one copy of them in cache, which the searches read anyway.
        data.points[a] = data.points[a + 1] = (1 - e.t) * data.points[e.node0] + e.t * data.points[e.node1];
        pointTag[a] = e.fragment0;
        pointTag[a + 1] = e.fragment1;
        crackPoints[(a - tetNodes) / 2] =
            e.node0 < e.node1 ? CrackPoint{e.node0, e.node1, e.t} : CrackPoint{e.node1, e.node0, 1 - e.t};
        if (method == RestructureMethod::Rebuild)
            continue;
        auto anchor = [&](Index point, Index own, Index other)
        {
            const FragmentId f = pointTag[point];
            if (pointTag[own] == f)
                return data.pointNode[own];
            if (pointTag[other] == f)
                return data.pointNode[other];
            if (fragmentRoot[f] == kInvalidIndex)
                return kInvalidIndex; // a fragment without a tree yet: insertCrackPoints makes one
            ++local.nearestParents;
            return findAnchor(point, mesh);
        };
        s.anchors[2 * i] = anchor(a, e.node0, e.node1);
        s.anchors[2 * i + 1] = anchor(a + 1, e.node1, e.node0);
    }
    if (method == RestructureMethod::Rebuild)
        rebuildTrees(firstPoint, firstNew, count, local);
    else
        insertCrackPoints(firstPoint, method, local);

    data.roots.clear();
    for (FragmentId f = 0; f < fragmentCount(); ++f)
        if (fragmentRoot[f] != kInvalidIndex)
            data.roots.push_back(fragmentRoot[f]);
    if (report)
        *report = local;
}

Index SphereForest::findAnchor(Index point, const TetMesh& mesh)
{
    const Vec3 p = data.points[point];
    const FragmentId f = pointTag[point];
    const CrackPoint& where = crackPoint(point);
    // Every node of a tet around the edge is a neighbour of both endpoints. Few neighbours of node0
    // are in f (it lies beyond a second crack), so the sorted neighbour list of node1 is searched only
    // for those.
    Index closest = kInvalidIndex;
    Real best = std::numeric_limits<Real>::infinity();
    const Index* others = mesh.neighbors.data() + mesh.neighborOffsets[where.node1];
    const Index* othersEnd = mesh.neighbors.data() + mesh.neighborOffsets[where.node1 + 1];
    for (Index i = mesh.neighborOffsets[where.node0]; i < mesh.neighborOffsets[where.node0 + 1]; ++i)
    {
        const Index n = mesh.neighbors[i];
        if (pointTag[n] != f || !std::binary_search(others, othersEnd, n))
            continue;
        if (const Real d2 = squaredDistance(data.points[n], p); d2 < best)
        {
            best = d2;
            closest = n;
        }
    }
    return closest != kInvalidIndex ? data.pointNode[closest]
                                    : ForestEditor(*this).nearest(fragmentRoot[f], p, true);
}

void SphereForest::insertGroup(Index anchor, std::span<const Index> group, Index firstPoint,
                               RestructureMethod method)
{
    ForestEditor editor(*this);
    const Index anchorPoint = data.nodes[anchor].point;
    const Vec3 center = data.points[anchorPoint];
    Real farthest = 0; // squared
    for (const Index k : group)
    {
        const Index point = firstPoint + k;
        const Real d2 = squaredDistance(center, data.points[point]);
        farthest = std::max(farthest, d2);
        Index parent = anchor;
        if (method == RestructureMethod::Tvcg2013)
        {
            // Fig. 8: down the anchor point's chain (its own copies are first children) to the deepest
            // instance whose sphere is still larger than the distance (compared squared). Radii only
            // shrink along the chain (same centre, fewer descendants), so the walk ends at the first
            // one that is not.
            for (Index c = data.nodes[anchor].firstChild;
                 c != kInvalidIndex && data.nodes[c].point == anchorPoint &&
                 data.nodes[c].radius * data.nodes[c].radius > d2;
                 c = data.nodes[c].firstChild)
                parent = c;
        }
        const Index v = editor.allocate(point, data.nodes[parent].level + 1);
        editor.adopt(parent, v);
        data.pointNode[point] = v;
    }
    // Every node of the chain below the anchor that a point now hangs under already reaches it (that
    // is how Fig. 8 chose the level); only the anchor itself may have to grow. No level choice reads
    // an anchor's own radius, so growing it here leaves the other groups' insertions unchanged.
    Real& radius = data.nodes[anchor].radius;
    if (farthest > radius * radius)
        radius = std::max(radius, std::sqrt(farthest));
}

// The crack points are inserted grouped by anchor, in node order (a counting sort over node
// indices), so that a group's points walk one chain while it is in cache and get nodes side by side.
// TVCG §6.3 ends with "we update sphere radii bottom-up": here once per group (or per run of groups
// whose anchors are siblings), after its insertions, along the path above the anchor, growing each
// ancestor to the group's farthest point from its centre. Exact, since the old radii were. Node order is
// the insertion order, and it matters as the paper's one-by-one insertions do: a walk above one group
// can grow the chain below a later group's anchor, whose Fig. 8 level reads those radii. Points of a fragment
// that has no tree yet (no tet node) come last, one at a time: the first becomes the root, each later
// one hangs under the closest point inserted before it.
void SphereForest::insertCrackPoints(Index firstPoint, RestructureMethod method, ForestUpdateReport& report)
{
    Scratch& s = scratch;
    const Index added = pointCount() - firstPoint;
    report.insertedPoints += added;
    // Counting sort by anchor. The counts live in anchorStart[anchor + 1], then become offsets. Only
    // nodes that exist now can be anchors, so the nodes the insertions add need no slot.
    const Index nodeEnd = data.nodeCount();
    if (s.anchorStart.size() < std::size_t(nodeEnd) + 1)
        s.anchorStart.resize(std::size_t(nodeEnd) + 1);
    std::fill(s.anchorStart.begin(), s.anchorStart.begin() + nodeEnd + 1, 0);
    for (Index k = 0; k < added; ++k)
        if (s.anchors[k] != kInvalidIndex)
            ++s.anchorStart[s.anchors[k] + 1];
    for (Index v = 0; v < nodeEnd; ++v)
        s.anchorStart[v + 1] += s.anchorStart[v];
    const Index grouped = s.anchorStart[nodeEnd];
    s.insertOrder.resize(added);
    for (Index k = 0; k < added; ++k)
        if (s.anchors[k] != kInvalidIndex)
            s.insertOrder[s.anchorStart[s.anchors[k]]++] = k; // anchorStart[v] ends as v's group end
    for (Index begin = 0; begin < grouped;)
    {
        // Consecutive groups whose anchors share a parent (siblings are stored side by side) share
        // the walk above it: their points are one range of insertOrder.
        const Index above = data.nodes[s.anchors[s.insertOrder[begin]]].parent;
        Index end = begin;
        do
        {
            const Index anchor = s.anchors[s.insertOrder[end]];
            const Index groupEnd = s.anchorStart[anchor];
            insertGroup(anchor, std::span(s.insertOrder).subspan(end, groupEnd - end), firstPoint, method);
            end = groupEnd;
        } while (end < grouped && data.nodes[s.anchors[s.insertOrder[end]]].parent == above);
        growRadiiFrom(above, firstPoint, std::span(s.insertOrder).subspan(begin, end - begin));
        begin = end;
    }
    // Fragments without a tree, one point at a time.
    ForestEditor editor(*this);
    for (Index k = 0; k < added; ++k)
    {
        if (s.anchors[k] != kInvalidIndex)
            continue;
        const Index point = firstPoint + k;
        const FragmentId f = pointTag[point];
        if (fragmentRoot[f] == kInvalidIndex)
        {
            fragmentRoot[f] = data.pointNode[point] = editor.allocate(point, 0);
            continue;
        }
        ++report.nearestParents;
        const Index anchor = editor.nearest(fragmentRoot[f], data.points[point], true);
        insertGroup(anchor, std::span(&k, 1), firstPoint, method);
        growRadiiFrom(data.nodes[anchor].parent, firstPoint, std::span(&k, 1));
    }
}

void SphereForest::growRadiiFrom(Index node, Index firstPoint, std::span<const Index> group)
{
    // The group's farthest point is measured again at every node, even where the centre is its
    // child's (a chain of own copies): cheaper than a test for it, which would be mispredicted.
    for (Index v = node; v != kInvalidIndex; v = data.nodes[v].parent)
    {
        SphereNode& n = data.nodes[v];
        const Vec3 center = data.points[n.point];
        Real farthest = 0;
        for (const Index k : group)
            farthest = std::max(farthest, squaredDistance(center, data.points[firstPoint + k]));
        n.radius = std::max(n.radius, std::sqrt(farthest));
    }
}

} // namespace shatter
