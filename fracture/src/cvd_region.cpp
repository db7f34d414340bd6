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

/// Builds volumes and CSR adjacency of `region.nodes` from the tets accepted by `useTet`. Gathered per
/// node from its tets (sorted per node in TetMesh), so each node's volume sums its tets' quarters in
/// increasing tet order and its neighbours come out sorted: the same result as collecting and sorting
/// every tet's edges, without that sort.
template <class UseTet>
void buildAdjacency(const TetMesh& mesh, FragmentRegion& region, const std::vector<Index>& localOf,
                    UseTet&& useTet)
{
    const Index n = region.nodeCount();
    region.nodeVolumes.assign(n, 0);
    // Per tet: accepted (holds a region node and passes useTet), and its quarter volume.
    std::vector<std::uint8_t> accepted(mesh.tetCount(), 0);
    std::vector<Real> quarter(mesh.tetCount(), 0);
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const Tet& tet = mesh.tets[t];
        bool inside = false;
        for (int k = 0; k < 4; ++k)
            inside |= localOf[tet[k]] != kInvalidIndex;
        if (!inside || !useTet(t))
            continue;
        accepted[t] = 1;
        quarter[t] = mesh.tetVolume(t) / 4;
    }
    region.adjacencyOffsets.assign(std::size_t(n) + 1, 0);
    region.adjacency.clear();
    region.adjacency.reserve(std::size_t(n) * 14);
    std::vector<Index> neighbours;
    for (Index a = 0; a < n; ++a)
    {
        const Index node = region.nodes[a];
        neighbours.clear();
        for (Index i = mesh.nodeTetOffsets[node]; i < mesh.nodeTetOffsets[node + 1]; ++i)
        {
            const Index t = mesh.nodeTets[i];
            if (!accepted[t])
                continue;
            region.nodeVolumes[a] += quarter[t];
            for (Index m : mesh.tets[t])
            {
                const Index b = localOf[m];
                if (m != node && b != kInvalidIndex)
                    neighbours.push_back(b);
            }
        }
        std::sort(neighbours.begin(), neighbours.end());
        neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
        region.adjacency.insert(region.adjacency.end(), neighbours.begin(), neighbours.end());
        region.adjacencyOffsets[std::size_t(a) + 1] = Index(region.adjacency.size());
    }
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
    // Every tet counts, so the edges are the mesh's own (TetMesh::neighbors, sorted per node as
    // buildAdjacency's are) and only the volumes are summed, in the same increasing tet order.
    region.adjacencyOffsets = mesh.neighborOffsets;
    region.adjacency = mesh.neighbors;
    SHATTER_ASSERT(region.adjacencyOffsets.size() == std::size_t(mesh.nodeCount()) + 1);
    region.nodeVolumes.assign(mesh.nodeCount(), 0);
    for (Index a = 0; a < mesh.nodeCount(); ++a)
        for (Index i = mesh.nodeTetOffsets[a]; i < mesh.nodeTetOffsets[a + 1]; ++i)
            region.nodeVolumes[a] += mesh.tetVolume(mesh.nodeTets[i]) / 4;
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
