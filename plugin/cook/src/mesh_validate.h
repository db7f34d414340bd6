// Mesh validation: each check finds one kind of defect, counts it and names the first offender.
// mesh_import.h runs them in order (and repairs what it may); they are public so asset code and
// tests can ask a single question of a mesh.
#pragma once

#include "shatter/error.h"
#include "shatter/mesh.h"

#include <string>
#include <vector>

namespace shatter
{

/// What is wrong with a mesh file or an in-memory mesh; carried by MeshError.
enum class MeshProblem
{
    ReadFailed,              ///< missing, unreadable, truncated or corrupt file
    UnknownFormat,           ///< not a mesh format we read, or content that does not match the extension
    Empty,                   ///< no triangles
    BadIndices,              ///< a triangle refers to a vertex that does not exist (in-memory meshes)
    NonFinite,               ///< NaN or infinite coordinate
    HugeCoordinates,         ///< |coordinate| > ImportSettings::maxAbsCoordinate
    TooSmall,                ///< bounding-box diagonal < ImportSettings::minSize
    DegenerateTriangles,     ///< zero area or a repeated vertex
    DuplicateTriangles,      ///< two triangles over the same three vertices
    BoundaryEdges,           ///< edges with one triangle: the surface has holes
    NonManifoldEdges,        ///< edges shared by more than two triangles
    NonManifoldVertices,     ///< triangles around a vertex form several fans ("bow-tie")
    InconsistentOrientation, ///< neighbouring triangles wound oppositely, or not orientable
    SelfIntersection,        ///< triangles cross (also two overlapping shells)
    MultipleComponents,      ///< more than one separate solid piece
};

/// Short lower-case name, e.g. "non-manifold edges".
const char* toString(MeshProblem problem);

/// The exception of mesh import: names the file (or the in-memory source), the problem and the
/// first offending element. what() is "file: problem name: detail".
class MeshError : public Error
{
public:
    MeshError(std::string file, MeshProblem problem, std::string detail);

    MeshProblem meshProblem() const noexcept { return problemKind; }
    const std::string& detail() const noexcept { return detailText; }

private:
    MeshProblem problemKind;
    std::string detailText;
};

/// "12 (0.5, 1, -0.25)": a vertex index and its position, for error messages.
std::string describeVertex(const TriMesh& mesh, Index vertex);

/// One kind of defect found by a check: how many offending elements and a sentence naming the first
/// (with vertex indices and positions). Empty (count 0) when the mesh passes.
struct MeshDefect
{
    Index count = 0;
    std::string detail;

    explicit operator bool() const { return count > 0; }
};

/// The triangles' directed edges grouped by undirected edge: the adjacency every topological check
/// and repair shares. Built in O(n log n); requires valid indices.
struct EdgeTable
{
    struct HalfEdge
    {
        Index from;
        Index to;
        Index triangle;
    };

    std::vector<HalfEdge> halfEdges; ///< sorted by (min(from, to), max(from, to), triangle)
    std::vector<Index> offsets;      ///< undirected edge e owns halfEdges[offsets[e], offsets[e + 1])
    std::vector<Index> cornerEdge;   ///< [3 t + k]: undirected edge from corner k to corner k + 1 of t

    explicit EdgeTable(const TriMesh& mesh);

    Index edgeCount() const { return Index(offsets.size() - 1); }
    /// Number of triangles sharing undirected edge e (2 on a closed manifold).
    Index valence(Index e) const { return offsets[e + 1] - offsets[e]; }
    /// Undirected edge between vertices a and b, or kInvalidIndex. O(log n).
    Index find(Index a, Index b) const;
};

/// Triangles referring to a vertex index >= vertices.size().
MeshDefect findBadIndices(const TriMesh& mesh);
/// Vertices with a NaN or infinite coordinate.
MeshDefect findNonFiniteVertices(const TriMesh& mesh);
/// Vertices with |coordinate| > maxAbsCoordinate.
MeshDefect findHugeCoordinates(const TriMesh& mesh, Real maxAbsCoordinate);
/// Triangles with a repeated vertex or (numerically) zero area: |cross| <= 1e-10 * longest edge².
/// Appends their indices to `triangles` if given.
MeshDefect findDegenerateTriangles(const TriMesh& mesh, std::vector<Index>* triangles = nullptr);
/// Triangles over the same vertex set as an earlier triangle, whatever their winding; appends the
/// later copies to `triangles` if given.
MeshDefect findDuplicateTriangles(const TriMesh& mesh, std::vector<Index>* triangles = nullptr);
/// Edges shared by more than two triangles.
MeshDefect findNonManifoldEdges(const TriMesh& mesh, const EdgeTable& edges);
/// Vertices whose triangles do not form one fan (a disk or a cone), joined through edges with two
/// triangles: two pieces touching at a vertex ("bow-tie"), or two holes touching at a vertex.
MeshDefect findNonManifoldVertices(const TriMesh& mesh, const EdgeTable& edges);
/// Edges used twice in the same direction: the two triangles are wound oppositely.
MeshDefect findInconsistentOrientation(const TriMesh& mesh, const EdgeTable& edges);
/// Edges with a single triangle; the detail counts the holes (boundary loops).
MeshDefect findBoundaryEdges(const TriMesh& mesh, const EdgeTable& edges);
/// Pairs of triangles that intersect anywhere except in the vertices or the edge they share (two
/// triangles sharing a vertex that also cross elsewhere do count). A bounding-volume hierarchy makes
/// it O(n log n) for ordinary meshes. Tolerances are relative to the triangles' edge lengths; touching
/// counts as intersecting. Requires valid indices and no degenerate triangles.
MeshDefect findSelfIntersections(const TriMesh& mesh);

/// One connected component of a closed surface and its place among the others.
struct Shell
{
    std::vector<Index> triangles; ///< ascending
    Real volume = 0;              ///< signed, by the current winding
    Index depth = 0; ///< number of other shells enclosing it: 0 outer, 1 cavity, 2 loose inside a cavity
};

/// Splits a mesh into edge-connected shells, ordered by their first triangle, and finds how they
/// nest: shell A is inside shell B when B's winding number at a vertex of A is ±1. Exact for closed,
/// non-intersecting shells (run the other checks first); O(shells × triangles).
std::vector<Shell> findShells(const TriMesh& mesh, const EdgeTable& edges);

/// Generalized winding number of `triangles` around p (van Oosterom–Strackee solid angles): +1
/// inside a closed, outward-wound surface, -1 inside an inward-wound one, 0 outside.
Real windingNumber(const TriMesh& mesh, const std::vector<Index>& triangles, const Vec3& p);

} // namespace shatter
