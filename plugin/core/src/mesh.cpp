#include "shatter/mesh.h"

namespace shatter
{

Vec3 TriMesh::normal(Index t) const
{
    const Triangle& tri = triangles[t];
    const Vec3 n = (vertices[tri[1]] - vertices[tri[0]]).cross(vertices[tri[2]] - vertices[tri[0]]);
    const Real length = n.norm();
    return length > Real(0) ? Vec3(n / length) : Vec3::Zero();
}

Real TriMesh::area(Index t) const
{
    const Triangle& tri = triangles[t];
    return Real(0.5) *
           (vertices[tri[1]] - vertices[tri[0]]).cross(vertices[tri[2]] - vertices[tri[0]]).norm();
}

Aabb TriMesh::bounds() const
{
    Aabb box;
    for (const Vec3& v : vertices)
        box.grow(v);
    return box;
}

Real TriMesh::signedVolume() const
{
    // Sum of signed tetrahedra (origin, a, b, c); exact for any closed mesh.
    Real sixVolume = 0;
    for (const Triangle& tri : triangles)
        sixVolume += vertices[tri[0]].dot(vertices[tri[1]].cross(vertices[tri[2]]));
    return sixVolume / Real(6);
}

} // namespace shatter
