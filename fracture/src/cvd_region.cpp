// The region one fracture event splits (cvd.h): the parent fragment's nodes, their dual volumes and the
// tet edges the CVD flooding may cross (CVD §3.3: "flooding Voronoi cells from the sites, exploiting the
// graph defined by the tetrahedral mesh").
//
// Why edges come from tets where the parent has a region: after earlier fractures two parent nodes can
// share a tet whose middle belongs to a sibling (a crack passes between them only if the parent's piece
// of the tet is non-convex, which cannot happen: each piece is an intersection of half-spaces,
// see fracture_result.h). So an edge of such a tet between two parent nodes runs through parent material, and
// flooding along it never jumps a crack. Tets without a parent region are skipped all the same.
#include "cvd.h"

#include "shatter/error.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace shatter::fracture
{
namespace
{

/// Builds volumes and CSR adjacency of `region.nodes` from the tets accepted by `useTet`.
template <class UseTet>
void buildAdjacency(const TetMesh& mesh, FragmentRegion& region, const std::vector<Index>& localOf,
                    UseTet&& useTet)
{
    const Index n = region.nodeCount();
    region.nodeVolumes.assign(n, 0);
    std::vector<std::array<Index, 2>> pairs;
    pairs.reserve(std::size_t(n) * 14);
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const Tet& tet = mesh.tets[t];
        std::array<Index, 4> local;
        int inside = 0;
        for (int k = 0; k < 4; ++k)
        {
            local[k] = localOf[tet[k]];
            inside += local[k] != kInvalidIndex ? 1 : 0;
        }
        if (inside == 0 || !useTet(t))
            continue;
        const Real quarter = mesh.tetVolume(t) / 4;
        for (int k = 0; k < 4; ++k)
            if (local[k] != kInvalidIndex)
                region.nodeVolumes[local[k]] += quarter;
        for (const auto& e : kTetEdges)
        {
            const Index a = local[e[0]], b = local[e[1]];
            if (a != kInvalidIndex && b != kInvalidIndex)
            {
                pairs.push_back({a, b});
                pairs.push_back({b, a});
            }
        }
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    region.adjacencyOffsets.assign(std::size_t(n) + 1, 0);
    region.adjacency.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
    {
        ++region.adjacencyOffsets[pairs[i][0] + 1];
        region.adjacency[i] = pairs[i][1];
    }
    std::partial_sum(region.adjacencyOffsets.begin(), region.adjacencyOffsets.end(),
                     region.adjacencyOffsets.begin());
}

} // namespace

Index FragmentRegion::localIndex(Index node) const
{
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), node);
    return it != nodes.end() && *it == node ? Index(it - nodes.begin()) : kInvalidIndex;
}

Real FragmentRegion::volume() const
{
    return std::accumulate(nodeVolumes.begin(), nodeVolumes.end(), Real(0));
}

FragmentRegion wholeMeshRegion(const TetMesh& mesh)
{
    if (mesh.nodeCount() == 0 || mesh.tetCount() == 0)
        throw Error("wholeMeshRegion", "the tet mesh is empty");
    FragmentRegion region;
    region.parent = 0;
    region.nodes.resize(mesh.nodeCount());
    std::iota(region.nodes.begin(), region.nodes.end(), Index(0));
    buildAdjacency(mesh, region, region.nodes, [](Index) { return true; });
    return region;
}

FragmentRegion fragmentRegion(const FragmentField& field, FragmentId parent)
{
    const TetMesh& mesh = field.mesh();
    FragmentRegion region;
    region.parent = parent;
    std::vector<Index> localOf(mesh.nodeCount(), kInvalidIndex);
    for (Index i = 0; i < mesh.nodeCount(); ++i)
    {
        if (field.node(i).fragment == parent)
        {
            localOf[i] = Index(region.nodes.size());
            region.nodes.push_back(i);
        }
    }
    if (region.nodes.empty())
        throw Error("fragmentRegion", "fragment " + std::to_string(parent) + " has no tet nodes");
    RegionRef ref;
    buildAdjacency(mesh, region, localOf, [&](Index t) { return field.findRegion(t, parent, ref); });
    return region;
}

} // namespace shatter::fracture
