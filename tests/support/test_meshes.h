// Procedural closed meshes for tests and benchmarks: every geometric test can run on all of them.
#pragma once

#include "shatter/mesh.h"

namespace shatter::test
{

/// Icosahedron subdivided `subdivisions` times (20·4^s triangles), vertices on the sphere of `radius`
/// around `center`; outward oriented.
TriMesh icosphere(int subdivisions, Real radius = 1, const Vec3& center = Vec3::Zero());

/// An icosphere whose vertices are moved radially by radius · amplitude · sin(7x + 1) sin(5y + 2)
/// sin(6z + 3) (x, y, z on the unit sphere): star-shaped, hence never self-intersecting, with sharp
/// convex and concave creases and saddles when the amplitude is large. Needs amplitude < 1.
TriMesh bumpySphere(int subdivisions, Real radius, Real amplitude);

/// Regular tetrahedron with vertices at distance `radius` from the origin: sharp edges (dihedral angle
/// 70.5°) where a face normal alone gives the wrong side.
TriMesh tetrahedron(Real radius);

/// Axis-aligned box of the given half extents around `center`: 8 vertices, 12 outward triangles.
TriMesh box(const Vec3& halfExtents, const Vec3& center = Vec3::Zero());

/// A solid box with a box-shaped hole in the middle: the outer shell faces out, the inner shell
/// (the cavity's wall) faces into the cavity. Needs inner < outer on every axis.
TriMesh boxWithCavity(const Vec3& outerHalfExtents, const Vec3& innerHalfExtents);

/// Torus around the z axis (genus 1: convex, concave and saddle vertices), outward oriented.
TriMesh torus(Real majorRadius, Real minorRadius, int majorSegments, int minorSegments);

/// Appends `part`'s vertices and triangles to `mesh` (a separate shell).
void appendMesh(TriMesh& mesh, const TriMesh& part);

/// Reverses the orientation of every triangle.
void flipTriangles(TriMesh& mesh);

/// Exact signed distance to an axis-aligned box around the origin (negative inside).
Real boxSignedDistance(const Vec3& p, const Vec3& halfExtents);

} // namespace shatter::test
