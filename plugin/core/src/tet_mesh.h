// Tetrahedral meshes (TetGen output) with the connectivity the distance field and fracture need.
#pragma once

#include "shatter/math.h"

#include <array>
#include <cstdint>
#include <vector>

namespace shatter
{

using Tet = std::array<Index, 4>;
using Edge = std::array<Index, 2>;

/// A tetrahedral mesh conforming to a closed surface. Nodes [0, surfaceNodeCount) are the surface
/// vertices, in the order of the surface mesh; the rest are interior nodes. Every tet is positively
/// oriented: (n1 - n0) · ((n2 - n0) × (n3 - n0)) > 0.
struct TetMesh
{
    std::vector<Vec3> nodes;
    std::vector<Tet> tets;
    Index surfaceNodeCount = 0;

    // Derived by buildConnectivity():
    std::vector<Edge> edges;            ///< unique edges, each (low, high), sorted
    std::vector<Index> neighborOffsets; ///< CSR: neighbours of node i are neighbors[offsets[i], offsets[i+1])
    std::vector<Index> neighbors;       ///< sorted per node
    std::vector<Index> nodeTetOffsets;  ///< CSR: tets incident to node i
    std::vector<Index> nodeTets;        ///< sorted per node

    Index nodeCount() const { return Index(nodes.size()); }
    Index tetCount() const { return Index(tets.size()); }
    /// The positions of tet t's four nodes, in its node order.
    std::array<Vec3, 4> corners(Index t) const
    {
        const Tet& tet = tets[t];
        return {nodes[tet[0]], nodes[tet[1]], nodes[tet[2]], nodes[tet[3]]};
    }
    Real tetVolume(Index t) const;
    Real totalVolume() const;
    Real meanEdgeLength() const;
    /// Fills edges and the two CSR adjacency tables from nodes and tets.
    void buildConnectivity();
    /// Calls f(tet index) for the tets around the edge (a, b) in tet order until f returns true, and
    /// returns that tet (kInvalidIndex if none). Walks the intersection of the two nodes' sorted tet
    /// lists, so no tet is read that does not hold the edge. Needs buildConnectivity().
    template <class F>
    Index findEdgeTet(Index a, Index b, F&& f) const
    {
        const Index* i = nodeTets.data() + nodeTetOffsets[a];
        const Index* iEnd = nodeTets.data() + nodeTetOffsets[a + 1];
        const Index* j = nodeTets.data() + nodeTetOffsets[b];
        const Index* jEnd = nodeTets.data() + nodeTetOffsets[b + 1];
        while (i != iEnd && j != jEnd)
        {
            if (*i < *j)
                ++i;
            else if (*j < *i)
                ++j;
            else
            {
                if (f(*i))
                    return *i;
                ++i;
                ++j;
            }
        }
        return kInvalidIndex;
    }
};

/// Local faces of a tet, each opposite to local node k = index, wound clockwise seen from outside (their
/// right-hand normals point into a positive tet); code that needs outward faces swaps two corners.
inline constexpr std::array<std::array<int, 3>, 4> kTetFaces = {{{1, 3, 2}, {0, 2, 3}, {0, 3, 1}, {0, 1, 2}}};
/// The six local edges of a tet.
inline constexpr std::array<std::array<int, 2>, 6> kTetEdges = {
    {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}};

/// For each surface triangle: the tet that has it as a face, and the local face index (kTetFaces).
struct SurfaceTetFaces
{
    std::vector<Index> tet;
    std::vector<std::uint8_t> face;
};

} // namespace shatter
