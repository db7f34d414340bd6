// Construction and per-tet reads of the fragment distance field: the record chain (which fragment
// holds a point of a cut tet, TVCG §4.3) and the distance of a fragment inside one tet (eqs. 1-2 and
// the exact crack planes, TVCG §4.4). The update lives in fragment_field_update.cpp, the validation
// of a FractureResult in fragment_field_check.cpp.
#include "fragment_field.h"

#include "shatter/error.h"

#include <cmath>

namespace shatter
{

FragmentField::FragmentField(const TetMesh& mesh, std::span<const Real> nodeDistance,
                             std::span<const Vec3> nodeDirection)
    : tetMesh(&mesh)
{
    const Index n = mesh.nodeCount();
    if (nodeDistance.size() != n || nodeDirection.size() != n)
        throw Error("FragmentField", "needs one distance and one direction per tet node");
    if (mesh.neighborOffsets.size() != std::size_t(n) + 1 || mesh.nodeTetOffsets.size() != std::size_t(n) + 1)
        throw Error("FragmentField", "the tet mesh has no connectivity (call TetMesh::buildConnectivity)");
    nodes.resize(n);
    for (Index i = 0; i < n; ++i)
    {
        if (!std::isfinite(nodeDistance[i]) || !nodeDirection[i].allFinite())
            throw Error("FragmentField",
                        "node " + std::to_string(i) + " has a non-finite distance or direction");
        nodes[i].distance = std::max(Real(0), nodeDistance[i]);
        const Real len = nodeDirection[i].norm();
        nodes[i].direction = len > 0 ? Vec3(nodeDirection[i] / len) : Vec3::UnitZ();
        nodes[i].fragment = 0;
    }
    tetRecords.assign(mesh.tetCount(), kInvalidIndex);
    nodeCounts.assign(1, n);
    pieceTets.resize(1);
    const Real edge = mesh.meanEdgeLength();
    coincide2 = Real(1e-18) * edge * edge;
    progressEpsilon = Real(1e-12) * edge;

    nodeStamp.assign(n, 0);
    seedStamp.assign(n, 0);
    nodeLabel.assign(n, kNoFragment);
    frontStamp.assign(n, 0);
    candidateStamp.assign(n, 0);
    tetStamp.assign(mesh.tetCount(), 0);
    regionStamp.assign(mesh.tetCount(), 0);
    tetSlot.assign(mesh.tetCount(), kInvalidIndex);
}

FragmentId FragmentField::fragmentAt(Index t, const Bary& b) const
{
    Index r = tetRecords[t];
    if (r == kInvalidIndex)
        return nodes[tetMesh->tets[t][0]].fragment;
    // The first record splits the fragment that owned the whole tet; each later record refines the
    // point only if the point is in the piece it splits.
    FragmentId current = records[r].parent;
    for (; r != kInvalidIndex; r = records[r].next)
    {
        const FieldRecord& rec = records[r];
        if (rec.parent == current)
            current = rec.fragments[argminCrackFunction(rec.values, rec.count, b)];
    }
    return current;
}

bool FragmentField::findRegion(Index t, FragmentId f, RegionRef& region) const
{
    Index r = tetRecords[t];
    if (r == kInvalidIndex)
    {
        if (nodes[tetMesh->tets[t][0]].fragment != f)
            return false;
        region = {};
        return true;
    }
    // A live fragment is a piece of at most one record per tet (ids are never reused, and a fragment
    // that is split further is retired), so the first match is its region.
    for (; r != kInvalidIndex; r = records[r].next)
    {
        const FieldRecord& rec = records[r];
        for (int s = 0; s < rec.count; ++s)
            if (rec.fragments[s] == f)
            {
                region = {r, s};
                return true;
            }
    }
    return false;
}

bool FragmentField::distanceInTet(Index t, const Vec3& p, FragmentId f, Real& d, Vec3& n) const
{
    const Tet& tet = tetMesh->tets[t];
    Real best = std::numeric_limits<Real>::infinity();
    Vec3 bestDirection = Vec3::Zero();
    bool any = false;

    // Eqs. 1-2 with N(p) = the tet's nodes of f and w_j = 1/|p_j − p|².
    Real sumW = 0;
    Real sumD = 0;
    Vec3 sumN = Vec3::Zero();
    for (int k = 0; k < 4; ++k)
    {
        const FieldNode& node = nodes[tet[k]];
        if (node.fragment != f)
            continue;
        const Vec3 toNode = tetMesh->nodes[tet[k]] - p;
        const Real d2 = toNode.squaredNorm();
        if (d2 <= coincide2)
        {
            sumW = 0;
            best = node.distance;
            bestDirection = node.direction;
            any = true;
            break;
        }
        const Real w = 1 / d2;
        sumW += w;
        sumD += w * (node.distance + node.direction.dot(toNode));
        sumN += w * node.direction;
    }
    if (sumW > 0)
    {
        best = std::max(Real(0), sumD / sumW);
        const Real len = sumN.norm();
        bestDirection = len > 0 ? Vec3(sumN / len) : Vec3::UnitZ();
        any = true;
    }

    // The exact crack planes that bound f's region in a cut tet.
    if (tetRecords[t] != kInvalidIndex)
    {
        RegionRef region;
        if (findRegion(t, f, region) && region.record != kInvalidIndex)
        {
            any = true;
            for (const Plane& plane : planes(records[region.record], region.slot))
            {
                const Real distance = std::max(Real(0), -plane.signedDistance(p));
                if (distance < best)
                {
                    best = distance;
                    bestDirection = plane.normal;
                }
            }
        }
    }
    if (!any || !std::isfinite(best))
        return false;
    d = best;
    n = bestDirection;
    return true;
}

} // namespace shatter
