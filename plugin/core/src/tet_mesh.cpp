#include "tet_mesh.h"

#include <algorithm>

namespace shatter
{

Real TetMesh::tetVolume(Index t) const
{
    const Tet& tet = tets[t];
    const Vec3& a = nodes[tet[0]];
    return (nodes[tet[1]] - a).dot((nodes[tet[2]] - a).cross(nodes[tet[3]] - a)) / Real(6);
}

Real TetMesh::totalVolume() const
{
    Real volume = 0;
    for (Index t = 0; t < tetCount(); ++t)
        volume += tetVolume(t);
    return volume;
}

Real TetMesh::meanEdgeLength() const
{
    if (edges.empty())
        return 0;
    Real sum = 0;
    for (const Edge& e : edges)
        sum += (nodes[e[0]] - nodes[e[1]]).norm();
    return sum / Real(edges.size());
}

namespace
{

// Builds a CSR table from (key, value) pairs; values of each key are sorted and unique.
void buildCsr(Index keyCount, std::vector<std::array<Index, 2>>& pairs, std::vector<Index>& offsets,
              std::vector<Index>& values)
{
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    offsets.assign(keyCount + 1, 0);
    for (const auto& p : pairs)
        ++offsets[p[0] + 1];
    for (Index i = 0; i < keyCount; ++i)
        offsets[i + 1] += offsets[i];
    values.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
        values[i] = pairs[i][1];
}

} // namespace

void TetMesh::buildConnectivity()
{
    std::vector<std::array<Index, 2>> pairs;
    pairs.reserve(tets.size() * 12);
    for (const Tet& tet : tets)
        for (const auto& e : kTetEdges)
        {
            pairs.push_back({tet[e[0]], tet[e[1]]});
            pairs.push_back({tet[e[1]], tet[e[0]]});
        }
    buildCsr(nodeCount(), pairs, neighborOffsets, neighbors);

    edges.clear();
    for (Index i = 0; i < nodeCount(); ++i)
        for (Index k = neighborOffsets[i]; k < neighborOffsets[i + 1]; ++k)
            if (neighbors[k] > i)
                edges.push_back({i, neighbors[k]});

    pairs.clear();
    for (Index t = 0; t < tetCount(); ++t)
        for (Index n : tets[t])
            pairs.push_back({n, t});
    buildCsr(nodeCount(), pairs, nodeTetOffsets, nodeTets);
}

} // namespace shatter
