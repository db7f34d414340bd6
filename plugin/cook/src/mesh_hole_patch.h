// Internal: steps 3 and 4 of hole filling (see mesh_hole_fill.cpp), which shape a patch once its
// loop is triangulated.
#pragma once

#include "mesh_validate.h"
#include "shatter/mesh.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace shatter::detail
{

inline std::uint64_t directedEdge(Index from, Index to)
{
    return (std::uint64_t(from) << 32) | to;
}

/// Angle at `corner` between the directions to a and b, in [0, pi].
inline Real angleAt(const Vec3& corner, const Vec3& a, const Vec3& b)
{
    const Vec3 u = a - corner;
    const Vec3 v = b - corner;
    return std::atan2(u.cross(v).norm(), u.dot(v));
}

/// Step 3: splits patch triangles at their centroids until their size matches the edge lengths
/// along `polygon` (the loop, in patch winding), Delaunay-flipping after each pass. `edges` is the
/// mesh without the patch. New vertices are appended to the mesh and to `added`.
void refinePatch(TriMesh& mesh, const EdgeTable& edges, const std::vector<Index>& polygon,
                 std::vector<Triangle>& patch, std::vector<Index>& added);

/// Step 4: moves `vertices` (patch interiors, already in mesh.triangles) to where the uniform
/// bi-Laplacian vanishes, everything else fixed. Leaves them alone if the system cannot be solved.
void fairVertices(TriMesh& mesh, const std::vector<Index>& vertices);

} // namespace shatter::detail
