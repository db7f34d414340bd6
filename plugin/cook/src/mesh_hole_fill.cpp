// Hole filling after Liepa, "Filling holes in meshes" (SGP 2003), simplified where the holes we
// meet (scanner gaps, a missing face or two) allow it:
//
// 1. Trace each boundary loop; the patch must traverse every boundary edge against the existing
//    triangle's direction, so it is built on the reversed loop.
// 2. Triangulate the loop by ear clipping in the plane of its Newell normal, always clipping the
//    sharpest valid ear (convex, empty, its new diagonal not already an edge of the mesh). Sharp
//    ears first avoids the slivers a plain fan makes; Liepa's O(n³) minimum-dihedral triangulation
//    is better for very twisted loops but not needed for the near-planar holes of scans.
// 3. Refine: split a triangle at its centroid while its centroid is farther (by √2) from each corner
//    than the local target edge length σ, interpolated from the boundary's edge lengths, and
//    restore the Delaunay property by flipping after each pass. Patch edges then match the
//    surrounding edge lengths.
// 4. Fair: place the new vertices so the uniform bi-Laplacian vanishes at each (a thin-plate
//    patch), with the loop vertices and the ring of the mesh behind them fixed. This continues the
//    curvature of the surroundings, so a hole in a sphere gets a dome, not a flat lid. Planar loops
//    (a missing face of a CAD part) are not faired: their lid stays flat instead of bulging to
//    continue the faces beyond the sharp edges around it.
#include "mesh_repair.h"
#include "mesh_validate.h"

#include "mesh_hole_patch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_set>

namespace shatter
{

namespace
{

// Loops flatter than this (relative to their diameter) count as planar: far below any scan's
// noise, far above float32 rounding of a flat CAD face.
constexpr Real kPlanarTolerance = 1e-5;

using detail::angleAt;
using detail::directedEdge;

// Boundary loops as vertex chains following the boundary half-edges of the existing triangles.
std::vector<std::vector<Index>> boundaryLoops(const TriMesh& mesh, const EdgeTable& edges, Index& failed)
{
    std::vector<Index> next(mesh.vertices.size(), kInvalidIndex);
    std::vector<bool> tangled(mesh.vertices.size(), false);
    std::vector<Index> starts;
    for (Index e = 0; e < edges.edgeCount(); ++e)
    {
        if (edges.valence(e) != 1)
            continue;
        const EdgeTable::HalfEdge& h = edges.halfEdges[edges.offsets[e]];
        tangled[h.from] = tangled[h.from] || next[h.from] != kInvalidIndex;
        next[h.from] = h.to;
        starts.push_back(h.from);
    }
    std::vector<bool> visited(mesh.vertices.size(), false);
    std::vector<std::vector<Index>> loops;
    for (Index start : starts)
    {
        if (visited[start])
            continue;
        std::vector<Index> loop;
        Index v = start;
        bool ok = true;
        while (ok && (loop.empty() || v != start))
        {
            ok = v != kInvalidIndex && !tangled[v] && !visited[v];
            if (ok)
            {
                visited[v] = true;
                loop.push_back(v);
                v = next[v];
            }
        }
        if (ok && loop.size() >= 3)
            loops.push_back(std::move(loop));
        else
            ++failed;
    }
    return loops;
}

// The plane of a loop: centroid and Newell normal (the loop runs counter-clockwise around it).
struct LoopPlane
{
    Vec3 centroid = Vec3::Zero();
    Vec3 normal = Vec3::Zero();
    Real flatness = 0; ///< largest distance of a loop vertex from the plane over the loop's diameter
};

std::optional<LoopPlane> loopPlane(const TriMesh& mesh, const std::vector<Index>& loop)
{
    LoopPlane plane;
    for (Index v : loop)
        plane.centroid += mesh.vertices[v];
    plane.centroid /= Real(loop.size());
    Real diameter = 0;
    for (std::size_t i = 0; i < loop.size(); ++i)
    {
        const Vec3 p = mesh.vertices[loop[i]] - plane.centroid;
        plane.normal += p.cross(mesh.vertices[loop[(i + 1) % loop.size()]] - plane.centroid);
        diameter = std::max(diameter, 2 * p.norm());
    }
    if (!(plane.normal.norm() > 0))
        return std::nullopt;
    plane.normal.normalize();
    for (Index v : loop)
        plane.flatness =
            std::max(plane.flatness, std::abs(plane.normal.dot(mesh.vertices[v] - plane.centroid)));
    plane.flatness /= diameter;
    return plane;
}

// Ear clipping of one loop (step 2). The polygon lists the patch's boundary in patch winding.
class EarClipper
{
public:
    EarClipper(const TriMesh& mesh, const EdgeTable& edges, const std::vector<Index>& polygon)
        : mesh(mesh), edges(edges), polygon(polygon)
    {
    }

    void run(const LoopPlane& plane, std::vector<Triangle>& out)
    {
        const int m = int(polygon.size());
        const Vec3 e1 = plane.normal.unitOrthogonal();
        const Vec3 e2 = plane.normal.cross(e1);
        flat.resize(m);
        prev.resize(m);
        next.resize(m);
        alive.assign(m, true);
        convex.assign(m, false);
        valid.assign(m, false);
        angle.assign(m, 0);
        for (int i = 0; i < m; ++i)
        {
            flat[i] = Vec2((point(i) - plane.centroid).dot(e1), (point(i) - plane.centroid).dot(e2));
            prev[i] = (i + m - 1) % m;
            next[i] = (i + 1) % m;
        }
        for (int i = 0; i < m; ++i)
            evaluate(i);
        for (int remaining = m; remaining > 3; --remaining)
        {
            int ear = best(true);
            if (ear < 0)
            {
                for (int i = 0; i < m; ++i) // clipping may have unblocked ears evaluated earlier
                    if (alive[i])
                        evaluate(i);
                ear = best(true);
            }
            if (ear < 0) // the loop overlaps itself in projection: best effort, validation judges
                ear = best(false);
            if (ear < 0)
                return;
            const int p = prev[ear];
            const int n = next[ear];
            out.push_back({polygon[p], polygon[ear], polygon[n]});
            diagonals.insert(undirectedEdge(polygon[p], polygon[n]));
            alive[ear] = false;
            next[p] = n;
            prev[n] = p;
            evaluate(p);
            evaluate(n);
        }
        for (int i = 0; i < m; ++i)
            if (alive[i])
            {
                out.push_back({polygon[prev[i]], polygon[i], polygon[next[i]]});
                return;
            }
    }

private:
    using Vec2 = Eigen::Vector2d;

    static std::uint64_t undirectedEdge(Index a, Index b)
    {
        return directedEdge(std::min(a, b), std::max(a, b));
    }
    static Real cross2(const Vec2& a, const Vec2& b, const Vec2& c)
    {
        return (b - a).x() * (c - a).y() - (b - a).y() * (c - a).x();
    }

    const Vec3& point(int i) const { return mesh.vertices[polygon[i]]; }

    bool diagonalFree(int p, int n) const
    {
        const Index a = polygon[p];
        const Index b = polygon[n];
        return edges.find(a, b) == kInvalidIndex && !diagonals.count(undirectedEdge(a, b));
    }

    void evaluate(int i)
    {
        const int p = prev[i];
        const int n = next[i];
        const Vec2& a = flat[p];
        const Vec2& b = flat[i];
        const Vec2& c = flat[n];
        angle[i] = angleAt(point(i), point(p), point(n));
        convex[i] = cross2(a, b, c) > 1e-12 * (b - a).norm() * (c - b).norm();
        bool ear = convex[i] && diagonalFree(p, n);
        for (int j = next[n]; ear && j != p; j = next[j]) // no other vertex inside or on the ear
            ear = !(cross2(a, b, flat[j]) >= 0 && cross2(b, c, flat[j]) >= 0 && cross2(c, a, flat[j]) >= 0);
        valid[i] = ear;
    }

    int best(bool strict) const
    {
        int chosen = -1;
        for (int i = 0; i < int(polygon.size()); ++i)
        {
            if (!alive[i])
                continue;
            const bool ok = strict ? bool(valid[i]) : convex[i] && diagonalFree(prev[i], next[i]);
            if (ok && (chosen < 0 || angle[i] < angle[chosen]))
                chosen = i;
        }
        return chosen;
    }

    const TriMesh& mesh;
    const EdgeTable& edges;
    const std::vector<Index>& polygon;
    std::vector<Vec2> flat;
    std::vector<int> prev;
    std::vector<int> next;
    std::vector<bool> alive;
    std::vector<bool> convex;
    std::vector<bool> valid;
    std::vector<Real> angle;
    std::unordered_set<std::uint64_t> diagonals;
};

} // namespace

HoleFillResult fillHoles(TriMesh& mesh)
{
    HoleFillResult result;
    const EdgeTable edges(mesh);
    const std::vector<std::vector<Index>> loops = boundaryLoops(mesh, edges, result.failed);
    std::vector<Index> faired;
    for (const std::vector<Index>& loop : loops)
    {
        // Existing triangles traverse the loop forwards, so the patch goes backwards.
        const std::vector<Index> polygon(loop.rbegin(), loop.rend());
        const std::optional<LoopPlane> plane = loopPlane(mesh, polygon);
        std::vector<Triangle> patch;
        if (plane)
            EarClipper(mesh, edges, polygon).run(*plane, patch);
        if (patch.size() + 2 != polygon.size())
        {
            ++result.failed;
            continue;
        }
        std::vector<Index> patchVertices;
        detail::refinePatch(mesh, edges, polygon, patch, patchVertices);
        if (plane->flatness > kPlanarTolerance)
            faired.insert(faired.end(), patchVertices.begin(), patchVertices.end());
        mesh.triangles.insert(mesh.triangles.end(), patch.begin(), patch.end());
        ++result.holes;
        result.triangles += Index(patch.size());
        result.vertices += Index(patchVertices.size());
    }
    detail::fairVertices(mesh, faired);
    return result;
}

} // namespace shatter
