// Procedural meshes for the bodies that are not fracturable objects (balls, boxes) and the ground.
#pragma once

#include "shatter/mesh.h"

namespace shatter::demo
{

/// Unit-radius icosphere, outward oriented, `subdivisions` times refined (2 → 320 triangles).
TriMesh makeSphereMesh(int subdivisions);
/// Box with the given half extents, centred at the origin.
TriMesh makeBoxMesh(const Vec3& halfExtents);

} // namespace shatter::demo
