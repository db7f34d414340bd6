// Checks a generated surface must pass before it is written: exactly what the asset pipeline demands of
// imported meshes (checkMesh: closed, 2-manifold, outward, cavities inward, no self-intersection),
// with nothing left for it to repair or weld, plus triangle quality.
#pragma once

#include "shatter/mesh.h"

#include <string>

namespace shatter::assets
{

/// Figures of a validated surface, for the generator's report.
struct SurfaceReport
{
    Index shells = 0;         ///< connected components (the hollow piggy bank has 2)
    Real volume = 0;          ///< enclosed volume, m^3
    Real minAngleDegrees = 0; ///< smallest triangle angle
    Real meanEdge = 0;        ///< mean edge length, m
    Real maxEdge = 0;         ///< longest edge, m
};

/// True when every edge is shared by exactly two triangles that traverse it in opposite directions and
/// the triangles around every vertex form one fan (a single disc).
bool isClosedManifold(const TriMesh& mesh);

/// Throws shatter::Error naming `name` unless checkMesh() accepts the mesh exactly as it is (no vertex
/// welded or dropped, no triangle re-wound) and its smallest angle is at least `minAngleDegrees`.
SurfaceReport validateSurface(const TriMesh& mesh, const std::string& name, Real minAngleDegrees = 5);

} // namespace shatter::assets
