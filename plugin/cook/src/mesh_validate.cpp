// Mesh validation checks. Each check is a single pass (or a sort) over plain arrays and reports a
// count plus the first offender in index order, so messages are deterministic. Topological checks
// share one EdgeTable: half-edges sorted by undirected edge, the flat-array form of a half-edge mesh
// that also tolerates the non-manifold input a half-edge structure could not even represent.
#include "mesh_validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace shatter
{

namespace
{

// Degenerate means |cross| <= this × longest edge²: the smallest altitude is below 1e-10 of the
// longest edge, far below float32 input precision, so only truly collinear triangles qualify.
constexpr Real kDegenerateRatio = 1e-10;

struct DisjointSets
{
    std::vector<Index> parent;

    explicit DisjointSets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), Index(0)); }
    Index root(Index i)
    {
        while (parent[i] != i)
            i = parent[i] = parent[parent[i]];
        return i;
    }
    void join(Index a, Index b)
    {
        a = root(a);
        b = root(b);
        // The lower index wins, so roots (and everything numbered by them) are input-order stable.
        if (a < b)
            parent[b] = a;
        else if (b < a)
            parent[a] = b;
    }
};

std::string countOf(Index n, const char* singular, const char* plural)
{
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string describeEdge(const TriMesh& mesh, Index a, Index b)
{
    return "between vertices " + describeVertex(mesh, a) + " and " + describeVertex(mesh, b);
}

} // namespace

const char* toString(MeshProblem problem)
{
    switch (problem)
    {
    case MeshProblem::ReadFailed:
        return "cannot read file";
    case MeshProblem::UnknownFormat:
        return "unknown format";
    case MeshProblem::Empty:
        return "empty mesh";
    case MeshProblem::BadIndices:
        return "bad vertex indices";
    case MeshProblem::NonFinite:
        return "non-finite coordinates";
    case MeshProblem::HugeCoordinates:
        return "huge coordinates";
    case MeshProblem::TooSmall:
        return "too small";
    case MeshProblem::DegenerateTriangles:
        return "degenerate triangles";
    case MeshProblem::DuplicateTriangles:
        return "duplicate triangles";
    case MeshProblem::BoundaryEdges:
        return "holes";
    case MeshProblem::NonManifoldEdges:
        return "non-manifold edges";
    case MeshProblem::NonManifoldVertices:
        return "non-manifold vertices";
    case MeshProblem::InconsistentOrientation:
        return "inconsistent orientation";
    case MeshProblem::SelfIntersection:
        return "self-intersection";
    case MeshProblem::MultipleComponents:
        return "multiple components";
    }
    return "unknown problem";
}

MeshError::MeshError(std::string file, MeshProblem problem, std::string detail)
    : Error(std::move(file), std::string(toString(problem)) + ": " + detail), problemKind(problem),
      detailText(std::move(detail))
{
}

std::string describeVertex(const TriMesh& mesh, Index vertex)
{
    const Vec3& p = mesh.vertices[vertex];
    char buffer[112];
    std::snprintf(buffer, sizeof buffer, "%u (%g, %g, %g)", vertex, p.x(), p.y(), p.z());
    return buffer;
}

EdgeTable::EdgeTable(const TriMesh& mesh)
{
    const std::size_t cornerCount = 3 * mesh.triangles.size();
    offsets.push_back(0);
    if (cornerCount == 0)
        return; // also keeps GCC 12's -Warray-bounds from misreading the empty fill below
    auto corner = [&](std::size_t c)
    {
        const Triangle& tri = mesh.triangles[c / 3];
        return HalfEdge{tri[c % 3], tri[(c + 1) % 3], Index(c / 3)};
    };
    std::vector<Index> order(cornerCount);
    std::iota(order.begin(), order.end(), Index(0));
    auto key = [&](Index c)
    {
        const HalfEdge h = corner(c);
        return std::array<Index, 4>{std::min(h.from, h.to), std::max(h.from, h.to), h.triangle, c};
    };
    std::sort(order.begin(), order.end(), [&](Index a, Index b) { return key(a) < key(b); });

    halfEdges.reserve(cornerCount);
    cornerEdge.resize(cornerCount);
    for (std::size_t i = 0; i < cornerCount; ++i)
    {
        const HalfEdge h = corner(order[i]);
        if (i > 0)
        {
            const HalfEdge& last = halfEdges.back();
            if (std::min(h.from, h.to) != std::min(last.from, last.to) ||
                std::max(h.from, h.to) != std::max(last.from, last.to))
                offsets.push_back(Index(i));
        }
        halfEdges.push_back(h);
        cornerEdge[order[i]] = Index(offsets.size() - 1);
    }
    offsets.push_back(Index(cornerCount));
}

Index EdgeTable::find(Index a, Index b) const
{
    const std::array<Index, 2> wanted{std::min(a, b), std::max(a, b)};
    Index lo = 0;
    Index hi = edgeCount();
    while (lo < hi)
    {
        const Index mid = lo + (hi - lo) / 2;
        const HalfEdge& h = halfEdges[offsets[mid]];
        const std::array<Index, 2> key{std::min(h.from, h.to), std::max(h.from, h.to)};
        if (key < wanted)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < edgeCount())
    {
        const HalfEdge& h = halfEdges[offsets[lo]];
        if (std::min(h.from, h.to) == wanted[0] && std::max(h.from, h.to) == wanted[1])
            return lo;
    }
    return kInvalidIndex;
}

MeshDefect findBadIndices(const TriMesh& mesh)
{
    MeshDefect defect;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        for (Index v : mesh.triangles[t])
        {
            if (v < mesh.vertices.size())
                continue;
            if (defect.count++ == 0)
                defect.detail = "triangle " + std::to_string(t) + " refers to vertex " + std::to_string(v) +
                                " but there are " + std::to_string(mesh.vertices.size()) + " vertices";
            break;
        }
    }
    if (defect)
        defect.detail = countOf(defect.count, "triangle refers", "triangles refer") +
                        " to missing vertices; first, " + defect.detail;
    return defect;
}

MeshDefect findNonFiniteVertices(const TriMesh& mesh)
{
    MeshDefect defect;
    for (Index v = 0; v < mesh.vertices.size(); ++v)
        if (!mesh.vertices[v].allFinite() && defect.count++ == 0)
            defect.detail = describeVertex(mesh, v);
    if (defect)
        defect.detail = countOf(defect.count, "vertex has", "vertices have") +
                        " NaN or infinite coordinates, first vertex " + defect.detail;
    return defect;
}

MeshDefect findHugeCoordinates(const TriMesh& mesh, Real maxAbsCoordinate)
{
    MeshDefect defect;
    for (Index v = 0; v < mesh.vertices.size(); ++v)
        if (mesh.vertices[v].cwiseAbs().maxCoeff() > maxAbsCoordinate && defect.count++ == 0)
            defect.detail = describeVertex(mesh, v);
    if (defect)
    {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", maxAbsCoordinate);
        defect.detail = countOf(defect.count, "vertex has", "vertices have") +
                        " an absurdly large coordinate (beyond " + limit + "), first vertex " + defect.detail;
    }
    return defect;
}

MeshDefect findDegenerateTriangles(const TriMesh& mesh, std::vector<Index>* triangles)
{
    MeshDefect defect;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        const Triangle& tri = mesh.triangles[t];
        bool degenerate = tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0];
        if (!degenerate)
        {
            const Vec3& a = mesh.vertices[tri[0]];
            const Vec3& b = mesh.vertices[tri[1]];
            const Vec3& c = mesh.vertices[tri[2]];
            const Real longest =
                std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
            degenerate = (b - a).cross(c - a).norm() <= kDegenerateRatio * longest;
        }
        if (!degenerate)
            continue;
        if (triangles)
            triangles->push_back(t);
        if (defect.count++ == 0)
            defect.detail = std::to_string(t) + " over vertices " + describeVertex(mesh, tri[0]) + ", " +
                            describeVertex(mesh, tri[1]) + ", " + describeVertex(mesh, tri[2]);
    }
    if (defect)
        defect.detail = countOf(defect.count, "triangle has", "triangles have") +
                        " zero area or a repeated vertex, first triangle " + defect.detail;
    return defect;
}

MeshDefect findDuplicateTriangles(const TriMesh& mesh, std::vector<Index>* triangles)
{
    std::vector<std::array<Index, 4>> keys(mesh.triangles.size());
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        Triangle sorted = mesh.triangles[t];
        std::sort(sorted.begin(), sorted.end());
        keys[t] = {sorted[0], sorted[1], sorted[2], t};
    }
    std::sort(keys.begin(), keys.end());
    MeshDefect defect;
    std::array<Index, 2> first{kInvalidIndex, kInvalidIndex};
    for (std::size_t i = 1, original = 0; i < keys.size(); ++i)
    {
        if (!std::equal(keys[i].begin(), keys[i].begin() + 3, keys[i - 1].begin()))
        {
            original = i;
            continue;
        }
        ++defect.count;
        if (triangles)
            triangles->push_back(keys[i][3]);
        if (keys[i][3] < first[1])
            first = {keys[original][3], keys[i][3]};
    }
    if (defect)
    {
        const Triangle& tri = mesh.triangles[first[0]];
        defect.detail = countOf(defect.count, "triangle repeats", "triangles repeat") +
                        " an earlier one, first triangle " + std::to_string(first[1]) + " repeats triangle " +
                        std::to_string(first[0]) + " over vertices " + std::to_string(tri[0]) + ", " +
                        std::to_string(tri[1]) + ", " + std::to_string(tri[2]);
    }
    return defect;
}

MeshDefect findNonManifoldEdges(const TriMesh& mesh, const EdgeTable& edges)
{
    MeshDefect defect;
    for (Index e = 0; e < edges.edgeCount(); ++e)
    {
        if (edges.valence(e) <= 2 || defect.count++ > 0)
            continue;
        const EdgeTable::HalfEdge& h = edges.halfEdges[edges.offsets[e]];
        defect.detail = describeEdge(mesh, std::min(h.from, h.to), std::max(h.from, h.to)) + " (shared by " +
                        std::to_string(edges.valence(e)) + " triangles)";
    }
    if (defect)
        defect.detail = countOf(defect.count, "edge is", "edges are") +
                        " shared by more than two triangles, first " + defect.detail;
    return defect;
}

MeshDefect findNonManifoldVertices(const TriMesh& mesh, const EdgeTable& edges)
{
    // Corners (triangle, vertex) of one fan are joined through the manifold edges at that vertex;
    // a vertex whose corners end up in more than one set sits where separate fans touch.
    DisjointSets fans(3 * mesh.triangles.size());
    auto cornerOf = [&](Index t, Index v)
    {
        const Triangle& tri = mesh.triangles[t];
        return 3 * t + Index(tri[0] == v ? 0 : tri[1] == v ? 1 : 2);
    };
    for (Index e = 0; e < edges.edgeCount(); ++e)
    {
        if (edges.valence(e) != 2)
            continue;
        const EdgeTable::HalfEdge& h0 = edges.halfEdges[edges.offsets[e]];
        const EdgeTable::HalfEdge& h1 = edges.halfEdges[edges.offsets[e] + 1];
        fans.join(cornerOf(h0.triangle, h0.from), cornerOf(h1.triangle, h0.from));
        fans.join(cornerOf(h0.triangle, h0.to), cornerOf(h1.triangle, h0.to));
    }
    std::vector<Index> firstRoot(mesh.vertices.size(), kInvalidIndex);
    std::vector<Index> fanCount(mesh.vertices.size(), 0);
    for (Index c = 0; c < 3 * mesh.triangles.size(); ++c)
    {
        const Index v = mesh.triangles[c / 3][c % 3];
        const Index root = fans.root(c);
        if (root == c) // every fan has exactly one root corner
            ++fanCount[v];
        if (firstRoot[v] == kInvalidIndex)
            firstRoot[v] = root;
    }
    MeshDefect defect;
    for (Index v = 0; v < mesh.vertices.size(); ++v)
        if (fanCount[v] > 1 && defect.count++ == 0)
            defect.detail = describeVertex(mesh, v) + " with " + std::to_string(fanCount[v]) + " fans";
    if (defect)
        defect.detail = countOf(defect.count, "vertex joins", "vertices join") +
                        " separate fans of triangles (pieces or holes touching at a point), first vertex " +
                        defect.detail;
    return defect;
}

MeshDefect findInconsistentOrientation(const TriMesh& mesh, const EdgeTable& edges)
{
    MeshDefect defect;
    for (Index e = 0; e < edges.edgeCount(); ++e)
    {
        if (edges.valence(e) != 2)
            continue;
        const EdgeTable::HalfEdge& h0 = edges.halfEdges[edges.offsets[e]];
        const EdgeTable::HalfEdge& h1 = edges.halfEdges[edges.offsets[e] + 1];
        if (h0.from != h1.from || defect.count++ > 0)
            continue;
        defect.detail = describeEdge(mesh, h0.from, h0.to) + " (triangles " + std::to_string(h0.triangle) +
                        " and " + std::to_string(h1.triangle) + ")";
    }
    if (defect)
        defect.detail =
            countOf(defect.count, "edge is", "edges are") +
            " used twice in the same direction (neighbouring triangles wound oppositely), first " +
            defect.detail;
    return defect;
}

MeshDefect findBoundaryEdges(const TriMesh& mesh, const EdgeTable& edges)
{
    MeshDefect defect;
    DisjointSets loops(mesh.vertices.size());
    std::vector<Index> loopVertices;
    for (Index e = 0; e < edges.edgeCount(); ++e)
    {
        if (edges.valence(e) != 1)
            continue;
        const EdgeTable::HalfEdge& h = edges.halfEdges[edges.offsets[e]];
        loops.join(h.from, h.to);
        loopVertices.push_back(h.from);
        loopVertices.push_back(h.to);
        if (defect.count++ == 0)
            defect.detail =
                describeEdge(mesh, h.from, h.to) + " (triangle " + std::to_string(h.triangle) + ")";
    }
    if (!defect)
        return defect;
    std::sort(loopVertices.begin(), loopVertices.end());
    loopVertices.erase(std::unique(loopVertices.begin(), loopVertices.end()), loopVertices.end());
    Index holes = 0;
    for (Index v : loopVertices)
        holes += loops.root(v) == v ? 1 : 0;
    defect.detail = "the surface is open: " + countOf(defect.count, "edge has", "edges have") +
                    " a single triangle, around " + countOf(holes, "hole", "holes") + ", first " +
                    defect.detail;
    return defect;
}

} // namespace shatter
