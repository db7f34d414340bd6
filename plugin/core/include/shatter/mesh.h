// Indexed triangle meshes, the input and output of mesh import and the procedural assets.
#pragma once

#include "shatter/math.h"

#include <vector>

namespace shatter
{

using Triangle = std::array<Index, 3>;

/// An indexed triangle mesh. Closed meshes are oriented counter-clockwise seen from outside
/// (outward normals, positive volume).
struct TriMesh
{
    std::vector<Vec3> vertices;
    std::vector<Triangle> triangles;

    Vec3 normal(Index t) const; ///< unit normal of triangle t (zero for a degenerate one)
    Real area(Index t) const;
    Aabb bounds() const;
    /// Signed volume by the divergence theorem; negative for an inside-out closed mesh.
    Real signedVolume() const;
};

} // namespace shatter
