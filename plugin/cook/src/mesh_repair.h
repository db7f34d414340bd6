// Mesh repair steps used by mesh import (ImportSettings::repair). Each is a free function that
// changes the mesh in place and says how much it changed; none of them throws. Run them on meshes
// with valid indices and finite coordinates.
#pragma once

#include "shatter/mesh.h"

#include <optional>
#include <vector>

namespace shatter
{

/// Merges each vertex into the lowest-index earlier vertex that was kept and lies within
/// `tolerance` (absolute distance; 0 merges exact copies only, NaN-safe), then drops unreferenced
/// vertices. Kept vertices keep their order and position, so the result depends only on the input
/// order. Returns the number of vertices merged away.
Index weldVertices(TriMesh& mesh, Real tolerance);

/// Drops vertices no triangle uses, keeping the order of the rest. Returns how many were dropped.
Index removeUnusedVertices(TriMesh& mesh);

/// Renumbers vertices in order of first use by the triangles (corner by corner) and drops the
/// unused ones: two files listing the same triangles in the same order then give identical meshes.
void renumberByFirstUse(TriMesh& mesh);

/// Removes the listed triangles (any order, repeats allowed). Vertices are left alone.
void removeTriangles(TriMesh& mesh, std::vector<Index> triangles);

/// Zero-area "cap" triangles (three distinct, collinear vertices) leave a flat, unfillable hole when
/// removed. This splits the neighbour across each cap's longest edge at the cap's middle vertex, so
/// removing the cap afterwards leaves a closed surface. Returns the number of splits.
Index splitCapNeighbours(TriMesh& mesh);

/// Makes the winding of each edge-connected component consistent by flipping the smaller of the two
/// orientation classes. Returns the number of triangles flipped, or nullopt (and leaves the mesh
/// unchanged) if a component is not orientable (a Möbius strip) or has an edge with more than two
/// triangles.
std::optional<Index> orientConsistently(TriMesh& mesh);

/// Reverses the winding of the listed triangles.
void flipTriangles(TriMesh& mesh, const std::vector<Index>& triangles);

/// What fillHoles did.
struct HoleFillResult
{
    Index holes = 0;     ///< boundary loops closed
    Index triangles = 0; ///< triangles added
    Index vertices = 0;  ///< vertices added inside the patches
    Index failed = 0;    ///< loops left open (too tangled to triangulate); validation reports them
};

/// Closes every hole (boundary loop) of a consistently oriented, vertex-manifold mesh with a patch
/// shaped like the surrounding surface (Liepa 2003, "Filling holes in meshes"): an ear-clipping
/// triangulation that prefers the sharpest corner, refined until its edges match the boundary's
/// edge lengths, Delaunay-flipped, then faired with the uniform bi-Laplacian so it continues the
/// curvature of the surface around it.
HoleFillResult fillHoles(TriMesh& mesh);

} // namespace shatter
