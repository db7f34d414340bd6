// Fragment distance field update at a fracture event (TVCG §4.2). Only the broken fragment P's nodes
// can change, and only downward: for a node x of a new fragment F, dist(x, ∂F) = min(dist(x, ∂P),
// dist(x, crack faces of F)). Two phases: initialise the nodes of the cut tets from the crack planes
// that really bound their piece (tetRegion), then propagate a front over tet edges, per fragment, with
// eqs. 1-2 from upwind neighbours only, so d(q) ≥ min_j d_j holds exactly. Steps are Jacobi-style
// (independent of the front's order), the front stops when no distance decreases, and all scratch is
// stamped per event. Derivation and reasons: docs/algorithms.md, "Updating the distance field".
#include "fragment_field.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

void FragmentField::apply(const FractureResult& result, std::vector<RegionBox>& boxes,
                          std::vector<RegionTet>& wholeTets, FieldUpdateReport* report)
{
    check(result);
    const FragmentId parent = result.parent;
    const FragmentId end = FragmentId(nodeCounts.size() + result.fragments.size());
    nodeCounts.resize(end, 0);
    pieceTets.resize(end);

    std::vector<Index> seeds;
    // One growth per event instead of repeated reallocation and copying.
    boxes.reserve(boxes.size() + 4 * result.cutTets.size() + pieceTets[parent].size());
    wholeTets.reserve(wholeTets.size() + regionTetList.size());
    records.reserve(records.size() + result.cutTets.size());
    planePool.reserve(planePool.size() + 4 * result.cutTets.size());
    Index newRecords = 0;
    Index relabelled = 0;
    for (Index t : regionTetList)
    {
        FragmentId target = kNoFragment;
        if (tetStamp[t] == epoch)
        {
            const CutTetRecord& rec = result.cutTets[tetSlot[t]];
            if (rec.count >= 2)
            {
                appendRecord(t, rec, parent, boxes, seeds);
                ++newRecords;
                continue;
            }
            target = rec.fragments[0];
        }
        else
            target = tetSlot[t]; // the label check() found for the tet's nodes of the parent
        SHATTER_ASSERT(target != kNoFragment, "check() guarantees a label for every region tet");
        // The parent's region in this tet is not cut again: it joins `target` as a whole. A tet
        // never cut before is all one fragment's, and it is here for a node of the parent.
        if (tetRecords[t] == kInvalidIndex)
        {
            wholeTets.push_back({target, t});
            continue;
        }
        RegionRef region;
        const bool found = findRegion(t, parent, region);
        SHATTER_ASSERT(found, "a region tet holds part of the parent");
        if (!found || region.record == kInvalidIndex)
        {
            wholeTets.push_back({target, t});
            continue;
        }
        records[region.record].fragments[region.slot] = target;
        pieceTets[target].push_back(t);
        ++relabelled;
        // Tighter bounds: the piece cut by its planes (the whole tet if that comes out empty).
        const TetCorners c = tetMesh->corners(t);
        const auto piece = planes(records[region.record], region.slot);
        boundingScratch.resize(piece.size());
        Aabb box = tetRegion(c, piece, clipTolerance(c), 0, boundingScratch, regionScratch);
        if (box.empty())
            for (const Vec3& corner : c)
                box.grow(corner);
        boxes.push_back({target, t, box});
    }

    for (std::size_t i = 0; i < result.nodes.size(); ++i)
    {
        nodes[result.nodes[i]].fragment = result.nodeFragments[i];
        ++nodeCounts[result.nodeFragments[i]];
    }
    nodeCounts[parent] = 0;
    pieceTets[parent].clear();
    pieceTets[parent].shrink_to_fit();

    if (report)
    {
        report->regionTets = Index(regionTetList.size());
        report->newRecords = newRecords;
        report->relabelled = relabelled;
        report->seeds = Index(seeds.size());
        report->steps = 0;
        report->updates = 0;
        report->trace.clear();
        report->seedNodes.clear();
        if (report->keepTrace)
            report->seedNodes = seeds;
    }
    propagate(seeds, report);
}

void FragmentField::appendRecord(Index t, const CutTetRecord& input, FragmentId parent,
                                 std::vector<RegionBox>& boxes, std::vector<Index>& seeds)
{
    const TetCorners c = tetMesh->corners(t);
    const Real tolerance = clipTolerance(c); // 1e-12 of the longest edge
    const Real longest = tolerance * Real(1e12);
    const Real areaEpsilon = Real(1e-10) * longest * longest;

    // The parent's region in the tet: the whole tet, or a piece bounded by its stored planes.
    std::vector<Plane>& parentPlanes = parentPlaneScratch;
    parentPlanes.clear();
    RegionRef region;
    if (findRegion(t, parent, region) && region.record != kInvalidIndex)
    {
        const auto span = planes(records[region.record], region.slot);
        parentPlanes.assign(span.begin(), span.end());
    }

    FieldRecord rec;
    rec.values = input.values;
    rec.fragments = input.fragments;
    rec.count = input.count;
    rec.parent = parent;
    rec.firstPlane = Index(planePool.size());

    std::array<std::array<Plane, 4>, 4> crack{};
    std::array<std::array<CrackPlaneKind, 4>, 4> kinds{};
    crackPlanes(c, rec.values, rec.count, crack, kinds);
    std::array<std::array<bool, 4>, 4> bounding{};
    // planeStart is 8-bit: a piece keeps at most 255 planes per record (reaching that would take
    // hundreds of events all cutting one tet; the surplus would only make distances larger).
    auto keep = [&](const Plane& plane)
    {
        SHATTER_ASSERT(planePool.size() - rec.firstPlane < 255, "too many crack planes in one tet");
        if (planePool.size() - rec.firstPlane >= 255)
            return false;
        planePool.push_back(plane);
        return true;
    };

    // Each piece is the parent's region cut by its crack planes; tetRegion finds which of those planes
    // really bound it inside the tet (positive area) and its exact bounds.
    std::vector<Plane>& constraints = constraintScratch;
    // Most cut tets of a first break: one crack plane splits the whole tet in two, and both pieces
    // share its section (tetHalves, the same boxes and flags as the loop below).
    std::array<Aabb, 2> halves;
    bool halvesBound = false;
    const bool split =
        rec.count == 2 && parentPlanes.empty() && kinds[0][1] == CrackPlaneKind::Plane &&
        tetHalves(c, crack[0][1], tolerance, areaEpsilon, halves[0], halves[1], halvesBound, regionScratch);
    if (split)
        for (int i = 0; i < 2; ++i)
        {
            rec.planeStart[i] = std::uint8_t(planePool.size() - rec.firstPlane);
            if (halves[i].empty())
                continue;
            if (halvesBound)
            {
                planePool.push_back(crack[i][1 - i]);
                bounding[i][1 - i] = true;
            }
            boxes.push_back({rec.fragments[i], t, halves[i]});
        }
    else
        for (int i = 0; i < rec.count; ++i)
        {
            rec.planeStart[i] = std::uint8_t(planePool.size() - rec.firstPlane);
            constraints.assign(parentPlanes.begin(), parentPlanes.end());
            std::array<int, 4> crackIndex{-1, -1, -1, -1};
            bool empty = false;
            for (int j = 0; j < rec.count; ++j)
            {
                if (j == i || kinds[i][j] == CrackPlaneKind::Always)
                    continue;
                empty |= kinds[i][j] == CrackPlaneKind::Never;
                crackIndex[j] = int(constraints.size());
                constraints.push_back(crack[i][j]);
            }
            if (empty)
                continue; // the piece never wins in this tet
            boundingScratch.resize(constraints.size());
            const Aabb box =
                tetRegion(c, constraints, tolerance, areaEpsilon, boundingScratch, regionScratch);
            if (box.empty())
                continue; // the piece has no volume in this tet (to round-off)
            for (std::size_t q = 0; q < parentPlanes.size(); ++q)
                if (boundingScratch[q])
                    keep(parentPlanes[q]);
            for (int j = 0; j < rec.count; ++j)
                if (crackIndex[j] >= 0 && boundingScratch[std::size_t(crackIndex[j])])
                    bounding[i][j] = keep(crack[i][j]);
            boxes.push_back({rec.fragments[i], t, box});
        }
    rec.planeStart[rec.count] = std::uint8_t(planePool.size() - rec.firstPlane);
    for (int i = rec.count; i < 4; ++i)
        rec.planeStart[i + 1] = rec.planeStart[rec.count];

    const Index index = Index(records.size());
    records.push_back(rec);
    if (tetRecords[t] == kInvalidIndex)
        tetRecords[t] = index;
    else
    {
        Index last = tetRecords[t];
        while (records[last].next != kInvalidIndex)
            last = records[last].next;
        records[last].next = index;
    }
    for (int i = 0; i < rec.count; ++i)
        pieceTets[rec.fragments[i]].push_back(t);

    // Phase 1: the tet's nodes of the parent take the distance to the new crack planes bounding their
    // piece, when that is smaller than their distance to the parent's surface.
    const Tet& tet = tetMesh->tets[t];
    for (int k = 0; k < 4; ++k)
    {
        const Index node = tet[k];
        if (nodeStamp[node] != epoch)
            continue;
        int slot = 0;
        while (rec.fragments[slot] != nodeLabel[node])
            ++slot;
        FieldNode& sample = nodes[node];
        for (int j = 0; j < rec.count; ++j)
        {
            if (!bounding[slot][j])
                continue;
            const Real distance = std::max(Real(0), -crack[slot][j].signedDistance(c[k]));
            if (distance < sample.distance - progressEpsilon)
            {
                sample.distance = distance;
                sample.direction = crack[slot][j].normal;
                if (seedStamp[node] != epoch)
                {
                    seedStamp[node] = epoch;
                    seeds.push_back(node);
                }
            }
        }
    }
}

void FragmentField::propagate(const std::vector<Index>& seeds, FieldUpdateReport* report)
{
    const bool keepTrace = report && report->keepTrace;
    const std::vector<Index>& offsets = tetMesh->neighborOffsets;
    const std::vector<Index>& neighbors = tetMesh->neighbors;
    front = seeds;
    while (!front.empty())
    {
        ++stepEpoch;
        for (Index j : front)
            frontStamp[j] = stepEpoch;
        candidates.clear();
        for (Index j : front)
            for (Index e = offsets[j]; e < offsets[j + 1]; ++e)
            {
                const Index q = neighbors[e];
                if (nodes[q].fragment == nodes[j].fragment && candidateStamp[q] != stepEpoch)
                {
                    candidateStamp[q] = stepEpoch;
                    candidates.push_back(q);
                }
            }

        // Eqs. 1-2 over N_i(q), all from the values of step i.
        pending.clear();
        for (Index q : candidates)
        {
            const FragmentId f = nodes[q].fragment;
            const Vec3& pq = tetMesh->nodes[q];
            Real sumW = 0;
            Real sumD = 0;
            Vec3 sumN = Vec3::Zero();
            Real minSource = std::numeric_limits<Real>::infinity();
            for (Index e = offsets[q]; e < offsets[q + 1]; ++e)
            {
                const Index j = neighbors[e];
                if (frontStamp[j] != stepEpoch || nodes[j].fragment != f)
                    continue;
                const Vec3 toNeighbor = tetMesh->nodes[j] - pq;
                const Real ahead = nodes[j].direction.dot(toNeighbor);
                if (ahead < 0)
                    continue; // q lies between j and j's surface: j is downwind of q
                const Real w = 1 / toNeighbor.squaredNorm();
                sumW += w;
                sumD += w * (nodes[j].distance + ahead);
                sumN += w * nodes[j].direction;
                minSource = std::min(minSource, nodes[j].distance);
            }
            if (sumW == 0)
                continue;
            const Real d = sumD / sumW;
            if (d < nodes[q].distance - progressEpsilon)
            {
                const Real len = sumN.norm();
                pending.push_back({q, d, minSource, len > 0 ? Vec3(sumN / len) : nodes[q].direction});
            }
        }

        front.clear();
        for (const Pending& p : pending)
        {
            nodes[p.node].distance = p.distance;
            nodes[p.node].direction = p.direction;
            front.push_back(p.node);
            if (keepTrace)
                report->trace.push_back({p.node, report->steps + 1, p.distance, p.minSource});
        }
        if (report && !pending.empty())
        {
            ++report->steps;
            report->updates += Index(pending.size());
        }
    }
}

} // namespace shatter
