// Repeated fracture (the record chain of fragment_field.h): in a tet an earlier event already cut, the
// parent owns a convex piece P = tet ∩ {its functions of each record on its chain are the smallest}.
// The new crack is the exact argmin of the new functions over P: P is clipped by g_f ≤ g_h for each new
// site f present at the tet's parent nodes. (A site's cell inside P always holds its nodes, so no site
// is missed.)
//
// Watertightness with the neighbours. The clipper below remembers for every corner the planes it lies
// on: tet faces (→ the sub-simplex S of the tet holding it) and crack planes (→ equalities between
// functions). That is exactly a VertexKey (fracture_vertex.cpp), and the corner's position is then
// recomputed from the key, so a corner shared with a neighbour — a canonical-scheme vertex of a whole
// tet, or an earlier crack's vertex on a shared face — is bit-identical and welds. The clipper's own
// coordinates only classify corners and serve as the fallback for degenerate keys (a corner on more
// planes than its simplex needs: then neighbours may disagree by round-off; counted as singular).
// Polygons are fanned from a centre vertex local to the tet, so collinear corners (a neighbour's
// split point on a polygon edge) never make zero-area triangles.
//
// Sites of other fragments' nodes. The new functions must be defined at all four nodes, and the
// argmin restricted to a face must not depend on the tet it is seen from. So every node of a region
// tet carries a site (Region::nodeSite: a node of another fragment takes the nearest site by its
// extrapolated coordinates, tessellation_values.cpp) and the raises of the values file run over all of
// them: the whole tet then has the canonical structure, and its restriction to P is consistent across
// faces. A site whose cell misses P gets an empty piece (bit 7 of pieceTouch clear) and no fragment.
// A "sliver" — part of the parent in a tet without any of its nodes — is split like any other piece.
//
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>

namespace shatter::fracture::detail
{

namespace
{

struct Corner
{
    Vec3 x;
    std::uint32_t mask = 0; // bit p: on plane p (0..3 tet faces, then crack planes)
};

struct Face
{
    int tag = 0;
    std::vector<int> corners; // counter-clockwise from outside
};

struct Poly
{
    std::vector<Corner> corners;
    std::vector<Face> faces;
};

void makeTet(const TetCorners& x, Poly& p)
{
    p.corners.clear();
    p.faces.clear();
    for (int k = 0; k < 4; ++k)
        p.corners.push_back({x[k], std::uint32_t(0xf) & ~(1u << k)});
    for (int f = 0; f < 4; ++f)
    {
        const auto& c = kTetFaces[f];
        p.faces.push_back({f, {c[0], c[2], c[1]}});
    }
}

// Keeps plane.signedDistance ≤ 0; the new face gets `tag`, its corners bit `tag`.
void clip(Poly& p, const Plane& plane, int tag, Real tolerance)
{
    const std::uint32_t bit = 1u << tag;
    std::vector<Real> d(p.corners.size());
    bool anyOut = false, anyIn = false;
    for (std::size_t i = 0; i < p.corners.size(); ++i)
    {
        d[i] = plane.signedDistance(p.corners[i].x);
        if (std::abs(d[i]) <= tolerance)
        {
            d[i] = 0;
            p.corners[i].mask |= bit;
        }
        anyOut |= d[i] > 0;
        anyIn |= d[i] < 0;
    }
    if (!anyOut)
        return;
    if (!anyIn)
    {
        p.corners.clear();
        p.faces.clear();
        return;
    }
    std::vector<std::pair<std::pair<int, int>, int>> cuts; // edge → new corner
    auto cutCorner = [&](int a, int b)
    {
        const std::pair<int, int> key{std::min(a, b), std::max(a, b)};
        for (const auto& c : cuts)
            if (c.first == key)
                return c.second;
        const int lo = key.first, hi = key.second;
        const Real s = d[lo] / (d[lo] - d[hi]);
        Corner c{p.corners[lo].x + s * (p.corners[hi].x - p.corners[lo].x),
                 (p.corners[lo].mask & p.corners[hi].mask) | bit};
        p.corners.push_back(c);
        d.push_back(0);
        cuts.push_back({key, int(p.corners.size()) - 1});
        return int(p.corners.size()) - 1;
    };
    std::vector<Face> kept;
    std::vector<int> onPlane;
    for (const Face& f : p.faces)
    {
        Face g{f.tag, {}};
        const int n = int(f.corners.size());
        for (int i = 0; i < n; ++i)
        {
            const int a = f.corners[i], b = f.corners[(i + 1) % n];
            if (d[a] <= 0)
                g.corners.push_back(a);
            if ((d[a] < 0 && d[b] > 0) || (d[a] > 0 && d[b] < 0))
                g.corners.push_back(cutCorner(a, b));
        }
        if (g.corners.size() >= 3)
            kept.push_back(std::move(g));
    }
    for (const Face& f : kept)
        for (int c : f.corners)
            if (d[c] == 0 && std::find(onPlane.begin(), onPlane.end(), c) == onPlane.end())
                onPlane.push_back(c);
    p.faces = std::move(kept);
    if (onPlane.size() >= 3)
    {
        // Order counter-clockwise around the outward normal.
        Vec3 centre = Vec3::Zero();
        for (int c : onPlane)
            centre += p.corners[c].x;
        centre /= Real(onPlane.size());
        const Vec3 n = plane.normal;
        const Vec3 u = (p.corners[onPlane[0]].x - centre).normalized();
        const Vec3 v = n.cross(u);
        std::sort(onPlane.begin(), onPlane.end(),
                  [&](int a, int b)
                  {
                      const Vec3 pa = p.corners[a].x - centre, pb = p.corners[b].x - centre;
                      return std::atan2(pa.dot(v), pa.dot(u)) < std::atan2(pb.dot(v), pb.dot(u));
                  });
        p.faces.push_back({tag, onPlane});
    }
}

Real polygonArea(const Poly& p, const Face& f)
{
    Vec3 n = Vec3::Zero();
    const Vec3 o = p.corners[f.corners[0]].x;
    for (std::size_t i = 1; i + 1 < f.corners.size(); ++i)
        n += (p.corners[f.corners[i]].x - o).cross(p.corners[f.corners[i + 1]].x - o);
    return 0.5 * n.norm();
}

// One crack function of the tet (values at its four local nodes).
using Function = std::array<Real, 4>;

struct Equation
{
    int f = 0, g = 0; // g_f = g_h on the plane
};

} // namespace

void emitPrecutTet(const TessContext& ctx, Index slot, ChunkOutput& out, std::vector<std::uint8_t>& touch)
{
    const Region& region = ctx.region;
    const FragmentField& field = ctx.state.field();
    const Index t = region.tets[slot];
    const TetMesh& mesh = ctx.state.asset().tetMesh;
    const Tet& tet = mesh.tets[t];
    const TetCorners x = mesh.corners(t);
    const Real tolerance = clipTolerance(x);
    const FragmentId parent = ctx.labels.parent;

    // The chain of records down to the parent's piece: constraints g_s ≤ g_j of each level.
    std::vector<Function> functions;
    std::vector<Equation> equations;
    std::vector<Plane> planes;
    {
        std::vector<Index> chain;
        for (Index r = field.firstRecord(t); r != kInvalidIndex; r = field.record(r).next)
            chain.push_back(r);
        FragmentId target = parent;
        for (std::size_t i = chain.size(); i-- > 0;)
        {
            const FieldRecord& rec = field.record(chain[i]);
            int s = -1;
            for (int j = 0; j < rec.count; ++j)
                if (rec.fragments[j] == target)
                    s = j;
            if (s < 0)
                continue;
            const int base = int(functions.size());
            for (int j = 0; j < rec.count; ++j)
                functions.push_back(rec.values[j]);
            for (int j = 0; j < rec.count; ++j)
            {
                if (j == s)
                    continue;
                Plane plane;
                const CrackPlaneKind kind = crackPlane(x, rec.values[s], rec.values[j], s < j, plane);
                if (kind != CrackPlaneKind::Plane)
                    continue;
                equations.push_back({base + s, base + j});
                planes.push_back(plane);
            }
            target = rec.parent;
        }
    }
    const int oldPlanes = int(planes.size());

    const Index pieceBase = region.pieceStart[slot];
    const int sites = int(region.pieceStart[slot + 1] - pieceBase);
    const bool sliver = region.pieceSite[pieceBase] == kNoSite;
    const int siteBase = int(functions.size());
    if (!sliver)
        for (int i = 0; i < sites; ++i)
        {
            Function f;
            for (int k = 0; k < 4; ++k)
                f[k] = ctx.table.value(tet[k], region.pieceSite[pieceBase + i]);
            functions.push_back(f);
        }
    // New planes: one per unordered site pair, oriented per piece when clipping.
    std::array<std::array<int, 4>, 4> pairTag{};
    if (!sliver)
        for (int i = 0; i < sites; ++i)
            for (int j = i + 1; j < sites; ++j)
            {
                pairTag[i][j] = pairTag[j][i] = 4 + int(equations.size());
                equations.push_back({siteBase + i, siteBase + j});
                planes.emplace_back(); // placeholder: oriented per piece below
            }
    SHATTER_ASSERT(4 + equations.size() <= 32, "too many crack planes in one tet");

    std::array<int, 4> faceKind{};
    for (int f = 0; f < 4; ++f)
    {
        const unsigned boundary = region.boundary[slot];
        faceKind[f] = boundary & (1u << f) ? 1 : (boundary & (0x10u << f) ? 2 : 0);
    }

    Poly base;
    makeTet(x, base);
    for (int q = 0; q < oldPlanes; ++q)
        clip(base, planes[q], 4 + q, tolerance);

    // Key of corner `index` of piece `pieceIndex`'s polytope, from its planes: the simplex left by the
    // tet faces it lies on, and every function of the crack planes through it, in classes of functions
    // equal there (union-find over the planes' equations). The classes do not depend on which piece
    // sees the corner — a corner of the triple line g_i = g_j = g_k lies on planes (i, j), (i, k) in
    // piece i and (i, j), (j, k) in piece j, one class {i, j, k} either way — so all pieces and all
    // neighbours key it alike. All functions are kept: a key cut short depends on the piece that sees
    // the corner and can name two points (the triple lines {i, j, k} and {i, j, l} through one earlier
    // crack plane g_a = g_b both begin {a, b}, {i, j}), which left open edges.
    auto cornerVertex = [&](const Poly& p, int index, int pieceIndex) -> Index
    {
        const Corner& c = p.corners[index];
        VertexKey key;
        std::array<int, 4> local;
        int n = 0;
        for (int k = 0; k < 4; ++k)
            if (!(c.mask & (1u << k)))
                local[n++] = k;
        if (n == 1)
            return out.node(tet[local[0]], ctx.meshNodes);
        key.nodeCount = std::uint8_t(n);
        for (int i = 0; i < n; ++i)
            key.nodes[i] = tet[local[i]];
        std::array<int, 2 * kMaxKeyFunctions> fn{}, parentOf{};
        int count = 0;
        auto slotOf = [&](int f)
        {
            for (int i = 0; i < count; ++i)
                if (fn[i] == f)
                    return i;
            fn[count] = f;
            parentOf[count] = count;
            return count++;
        };
        auto root = [&](int i)
        {
            while (parentOf[i] != i)
                i = parentOf[i];
            return i;
        };
        for (std::size_t q = 0; q < equations.size() && count <= kMaxKeyFunctions; ++q)
            if (c.mask & (1u << (4 + q)))
            {
                const int a = slotOf(equations[q].f), b = slotOf(equations[q].g);
                parentOf[root(a)] = root(b);
            }
        if (count > kMaxKeyFunctions)
        {
            // A corner on more planes than a key holds (five or more crack planes through one point:
            // not seen in the stress runs): local to this piece, so it never names another point; the
            // other pieces' copies of it differ by round-off and meet in the position weld
            // (fragment_assembly.cpp).
            VertexKey own;
            own.nodes = {t, kInvalidIndex, Index(pieceIndex), Index(index)};
            const std::size_t before = out.keys.size();
            const Index id = out.vertex(own, ctx.meshNodes, &c.x);
            if (out.keys.size() != before)
                out.keyStatus.back() = VertexStatus::Singular;
            return id;
        }
        key.functionCount = std::uint8_t(count);
        for (int i = 0; i < count; ++i)
        {
            key.classOf[i] = std::uint8_t(root(i));
            for (int j = 0; j < n; ++j)
                key.values[i][j] = functions[fn[i]][local[j]];
        }
        canonicalize(key);
        return out.vertex(key, ctx.meshNodes, &c.x);
    };

    auto emitPolygon = [&](const Poly& p, const Face& f, Index piece, int sub, bool reversed,
                           std::uint8_t crack, Index otherPiece)
    {
        std::vector<Index> v;
        for (int c : f.corners)
        {
            const Index id = cornerVertex(p, c, int(piece - pieceBase));
            if (v.empty() || v.back() != id)
                v.push_back(id);
        }
        while (v.size() > 1 && v.front() == v.back())
            v.pop_back();
        if (v.size() < 3)
            return;
        auto emit = [&](Index a, Index b, Index c)
        {
            out.triangle(piece, a, reversed ? c : b, reversed ? b : c, crack);
            if (otherPiece != kInvalidIndex)
                out.triangle(otherPiece, a, reversed ? b : c, reversed ? c : b, crack);
        };
        if (v.size() == 3)
        {
            emit(v[0], v[1], v[2]);
            return;
        }
        Vec3 centre = Vec3::Zero();
        for (Index id : v)
            centre += out.positions[id];
        centre /= Real(v.size());
        VertexKey key;
        key.nodes = {t, Index(f.tag), Index(sub), 0};
        const Index mid = out.vertex(key, ctx.meshNodes, &centre);
        for (std::size_t i = 0; i < v.size(); ++i)
            emit(mid, v[i], v[(i + 1) % v.size()]);
    };

    const Real areaEpsilon = 1e-14 * (x[1] - x[0]).squaredNorm();
    const int pieces = sliver ? 1 : sites;
    Poly piece;
    for (int i = 0; i < pieces; ++i)
    {
        piece = base;
        if (!sliver)
            for (int j = 0; j < sites; ++j)
            {
                if (j == i)
                    continue;
                Plane plane;
                const CrackPlaneKind kind =
                    crackPlane(x, functions[siteBase + i], functions[siteBase + j], i < j, plane);
                if (kind == CrackPlaneKind::Never)
                {
                    piece.corners.clear();
                    piece.faces.clear();
                    break;
                }
                if (kind == CrackPlaneKind::Plane)
                    clip(piece, plane, pairTag[i][j], tolerance);
            }
        const Index pid = pieceBase + Index(i);
        std::uint8_t touches = 0;
        for (const Face& f : piece.faces)
        {
            if (f.tag < 4)
            {
                if (polygonArea(piece, f) > areaEpsilon)
                    touches |= std::uint8_t(1u << f.tag);
                if (faceKind[f.tag] != 0)
                    emitPolygon(piece, f, pid, i, false, std::uint8_t(faceKind[f.tag] == 2), kInvalidIndex);
            }
            else if (f.tag < 4 + oldPlanes)
                emitPolygon(piece, f, pid, i, false, 1, kInvalidIndex);
            else
            {
                // New crack between sites i and j: emitted once, from the lower site's piece.
                int j = -1;
                for (int h = 0; h < sites; ++h)
                    if (h != i && pairTag[i][h] == f.tag)
                        j = h;
                if (j > i)
                    emitPolygon(piece, f, pid, 16 + f.tag, false, 1, pieceBase + Index(j));
            }
        }
        // Bit 7: the piece is not empty inside the parent's region (a site of another fragment's node
        // may have no cell there; it then gets no fragment, fragment_components.cpp).
        touch[pid] = std::uint8_t(touches | (piece.faces.empty() ? 0 : 0x80));
    }
}

} // namespace shatter::fracture::detail
