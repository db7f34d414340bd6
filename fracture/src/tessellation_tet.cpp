// The four canonical tessellation schemes of CVD §5 (Fig. 10) in a tet that lies wholly in the parent.
//
// One construction gives all four. Take the tet's barycentric subdivision: 24 small tets
// (node k, edge kl, face klm, tet), each owned by the label of its node. The crack is the set of
// triangles (edge point, face point, tet point) between two small tets whose nodes differ in label:
// flag (k, l, m) with label(k) ≠ label(l) gives one triangle for label(k)'s fragment, and flag
// (l, k, m) the same triangle reversed for label(l)'s — so both sides are emitted, oppositely
// oriented, by construction. The small tet (k, e, F, T) is positive iff (k, l, m, n) is an even
// permutation, which fixes the orientation of each triangle without looking at positions.
// The points are the fracture vertices of eq. 13 where the simplex has that many labels, and
// otherwise collapse onto one of them:
//  - edge with two labels → its eq. 13 vertex; uncut edge → its lower node (surface faces only);
//  - face with three labels → its eq. 13 vertex; with two → the vertex of its lowest cut edge;
//  - tet with four labels → its eq. 13 vertex; else the vertex of its lowest three-label face, else of
//    its lowest cut edge.
// Triangles with a repeated corner are dropped. This reproduces exactly the schemes of Fig. 10:
// 3+1 → 1 triangle, 2+2 → 2 (a quad), 2+1+1 → 5 (three polygons meeting along the segment between the
// two face vertices), 1+1+1+1 → 12 (six quads around the Voronoi vertex). The 2-D version of the same
// construction (6 small triangles per face) splits the original-surface faces of cut tets.
// Every collapse choice depends only on the simplex's sorted node ids, so neighbouring tets agree.
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <algorithm>

namespace shatter::fracture::detail
{

namespace
{

// Local edge index of (k, l) in kTetEdges, either order (a table: this runs per corner of every
// crack triangle).
constexpr std::array<std::array<int, 4>, 4> kEdgeIndex = []
{
    std::array<std::array<int, 4>, 4> t{};
    for (auto& row : t)
        row.fill(-1);
    for (int e = 0; e < 6; ++e)
    {
        t[kTetEdges[e][0]][kTetEdges[e][1]] = e;
        t[kTetEdges[e][1]][kTetEdges[e][0]] = e;
    }
    return t;
}();

int edgeIndex(int k, int l)
{
    return kEdgeIndex[k][l];
}

bool evenPermutation(int a, int b, int c, int d)
{
    const int p[4] = {a, b, c, d};
    int inversions = 0;
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            inversions += p[i] > p[j];
    return inversions % 2 == 0;
}

// Sorted global ids of a simplex, for "lowest" comparisons.
std::array<Index, 3> sortedIds(const Tet& tet, int a, int b, int c = -1)
{
    std::array<Index, 3> s{tet[a], tet[b], c >= 0 ? tet[c] : kInvalidIndex};
    std::sort(s.begin(), s.end());
    return s;
}

} // namespace

void emitWholeTet(const TessContext& ctx, Index slot, ChunkOutput& out)
{
    const Region& region = ctx.region;
    const Index t = region.tets[slot];
    const Tet& tet = ctx.state.asset().tetMesh.tets[t];
    const Index pieceBase = region.pieceStart[slot];
    const int pieceCount = int(region.pieceStart[slot + 1] - pieceBase);
    std::array<std::uint32_t, 4> lab;
    std::array<Index, 4> piece;
    for (int k = 0; k < 4; ++k)
    {
        lab[k] = region.nodeSite[tet[k]];
        for (int p = 0; p < pieceCount; ++p)
            if (region.pieceSite[pieceBase + p] == lab[k])
                piece[k] = pieceBase + Index(p);
    }
    // Faces to emit: original surface (crack 0), or facing a tet without the parent (crack 1).
    std::array<int, 4> faceKind{};
    for (int f = 0; f < 4; ++f)
    {
        const unsigned boundary = region.boundary[slot];
        faceKind[f] = boundary & (1u << f) ? 1 : (boundary & (0x10u << f) ? 2 : 0);
    }

    auto node = [&](int k)
    {
        return out.node(tet[k], ctx.meshNodes);
    };

    // A tet of one piece is not a cut tet: its boundary faces are added by assembleMeshes.
    SHATTER_ASSERT(pieceCount >= 2, "emitWholeTet needs a cut tet");

    // Scheme statistics (3+1, 2+2, 2+1+1, 1+1+1+1).
    {
        std::array<int, 4> mult{};
        for (int k = 0; k < 4; ++k)
            for (int p = 0; p < pieceCount; ++p)
                mult[p] += region.pieceSite[pieceBase + p] == lab[k];
        std::sort(mult.begin(), mult.end(), std::greater<>());
        const int scheme = mult[0] == 3 ? 0 : (mult[0] == 2 && mult[1] == 2 ? 1 : (mult[0] == 2 ? 2 : 3));
        ++out.schemes[scheme];
    }

    // Edge vertices.
    std::array<Index, 6> edgeV;
    std::array<bool, 6> cut{};
    int lowestCut = -1;
    for (int e = 0; e < 6; ++e)
    {
        const int k = kTetEdges[e][0], l = kTetEdges[e][1];
        if (lab[k] != lab[l])
        {
            cut[e] = true;
            const Index nodes[2] = {tet[k], tet[l]};
            const std::uint32_t sites[2] = {lab[k], lab[l]};
            edgeV[e] = out.siteVertex(ctx.table, nodes, sites, 2, ctx.meshNodes);
            if (lowestCut < 0 ||
                sortedIds(tet, k, l) < sortedIds(tet, kTetEdges[lowestCut][0], kTetEdges[lowestCut][1]))
                lowestCut = e;
        }
        else
            edgeV[e] = node(tet[k] < tet[l] ? k : l);
    }
    // Face vertices (face f is opposite local node f).
    std::array<Index, 4> faceV;
    int lowestTriple = -1;
    for (int f = 0; f < 4; ++f)
    {
        const auto& c = kTetFaces[f];
        const bool triple = lab[c[0]] != lab[c[1]] && lab[c[1]] != lab[c[2]] && lab[c[0]] != lab[c[2]];
        if (triple)
        {
            const Index nodes[3] = {tet[c[0]], tet[c[1]], tet[c[2]]};
            const std::uint32_t sites[3] = {lab[c[0]], lab[c[1]], lab[c[2]]};
            faceV[f] = out.siteVertex(ctx.table, nodes, sites, 3, ctx.meshNodes);
            if (lowestTriple < 0 || sortedIds(tet, c[0], c[1], c[2]) <
                                        sortedIds(tet, kTetFaces[lowestTriple][0], kTetFaces[lowestTriple][1],
                                                  kTetFaces[lowestTriple][2]))
                lowestTriple = f;
            continue;
        }
        int best = -1;
        for (int i = 0; i < 3; ++i)
        {
            const int e = edgeIndex(c[i], c[(i + 1) % 3]);
            if (cut[e] && (best < 0 || sortedIds(tet, kTetEdges[e][0], kTetEdges[e][1]) <
                                           sortedIds(tet, kTetEdges[best][0], kTetEdges[best][1])))
                best = e;
        }
        faceV[f] = best >= 0 ? edgeV[best] : kInvalidIndex;
    }
    Index tetV;
    if (pieceCount == 4)
    {
        const Index nodes[4] = {tet[0], tet[1], tet[2], tet[3]};
        tetV = out.siteVertex(ctx.table, nodes, lab.data(), 4, ctx.meshNodes);
    }
    else
        tetV = lowestTriple >= 0 ? faceV[lowestTriple] : edgeV[lowestCut];

    // Crack triangles: one per flag (k, l, m) with differing labels at k and l.
    for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 4; ++l)
        {
            if (l == k || lab[k] == lab[l])
                continue;
            for (int m = 0; m < 4; ++m)
            {
                if (m == k || m == l)
                    continue;
                const int n = 6 - k - l - m;
                const Index e = edgeV[edgeIndex(k, l)], f = faceV[n];
                if (evenPermutation(k, l, m, n))
                    out.triangle(piece[k], e, f, tetV, 1);
                else
                    out.triangle(piece[k], e, tetV, f, 1);
            }
        }

    // Surface faces: the 2-D construction, six small triangles (node k, edge kl, face) per face.
    for (int f = 0; f < 4; ++f)
    {
        if (faceKind[f] == 0)
            continue;
        const auto& cw = kTetFaces[f];
        const std::array<int, 3> c{cw[0], cw[2], cw[1]}; // outward order
        const std::uint8_t crack = std::uint8_t(faceKind[f] == 2);
        if (lab[c[0]] == lab[c[1]] && lab[c[1]] == lab[c[2]])
        {
            out.triangle(piece[c[0]], node(c[0]), node(c[1]), node(c[2]), crack);
            continue;
        }
        for (int i = 0; i < 3; ++i)
        {
            const int k = c[i], next = c[(i + 1) % 3], prev = c[(i + 2) % 3];
            const Index nk = node(k);
            out.triangle(piece[k], nk, edgeV[edgeIndex(k, next)], faceV[f], crack);
            out.triangle(piece[k], nk, faceV[f], edgeV[edgeIndex(k, prev)], crack);
        }
    }
}

} // namespace shatter::fracture::detail
