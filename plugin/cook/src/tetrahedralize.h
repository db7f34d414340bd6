// Tetrahedral meshing of a closed surface with TetGen 1.5 (TVCG §4.2: "TetGen ... maximum
// radius-edge ratio between 1 and 2 and interior edges shorter than twice the longest surface edge").
// TetrahedralizeSettings is public, in shatter/cook.h.
#pragma once

#include "shatter/cook.h"
#include "shatter/mesh.h"
#include "tet_mesh.h"

#include <string>

namespace shatter
{

/// Tetrahedralizes a closed, consistently oriented, self-intersection-free surface (as returned by
/// importMesh/checkMesh) without adding any point on it: nodes [0, surface.vertices.size()) are the
/// surface vertices, every surface triangle is a face of exactly one tet, cavities (inward-oriented
/// nested shells) stay empty, every tet is positively oriented. `sourceName` names the mesh in errors.
/// Throws shatter::Error when TetGen fails (never exits the process).
TetMesh tetrahedralize(const TriMesh& surface, const std::string& sourceName,
                       const TetrahedralizeSettings& options = {});

/// How many tets tetrahedralize() is expected to make of a surface: 2.3 per surface triangle plus 2.5 per
/// largest tet volume allowed in the enclosed volume. It overestimates TetGen's count by 10 to 70 % on the
/// meshes it was fitted to; for refusing a too large build early, not a bound.
struct TetCountEstimate
{
    Real bySurface = 0; ///< 2.3 × the surface triangles
    Real byVolume = 0;  ///< 2.5 × the enclosed volume / TetGen's volume bound (0 without one)
    Real total() const { return bySurface + byVolume; }
};
TetCountEstimate estimateTetCount(const TriMesh& surface, const TetrahedralizeSettings& options = {});

/// Maps the surface triangles to tet faces; throws shatter::Error naming `sourceName` if one is missing.
SurfaceTetFaces mapSurfaceToTets(const TriMesh& surface, const TetMesh& tets, const std::string& sourceName);

} // namespace shatter
