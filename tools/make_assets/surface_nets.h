// Polygonising an implicit solid into a well-shaped closed triangle mesh with a given triangle count.
#pragma once

#include "implicit.h"

#include "shatter/mesh.h"

#include <string>

namespace shatter::assets
{

/// Naive surface nets on a uniform grid of `cellSize` covering `bounds` (which must contain the
/// solid), shifted by `phase` cells (each in [0, 1)): one vertex per grid cell the surface crosses, at
/// the mean of its edge crossings (not yet on the surface), and one quad per sign-changing grid edge,
/// split along its shorter diagonal. Triangles wind counter-clockwise seen from outside (f > 0). The
/// result is closed; it is 2-manifold unless a grid face is ambiguous (saddles, features thinner than
/// about two cells), so callers check.
TriMesh surfaceNets(const ImplicitFunction& f, const Aabb& bounds, Real cellSize,
                    const Vec3& phase = Vec3::Zero());

/// Settings for meshImplicit(); checked there.
struct ImplicitMeshSettings
{
    Index targetTriangles = 0;    ///< wanted triangle count, > 0
    Real tolerance = Real(0.015); ///< accepted relative deviation from the target
    int maxSearchSteps = 16;      ///< grid sizes tried at most
    int smoothingRounds = 4;      ///< rounds of (relaxation sweeps, then Delaunay flips)
    int relaxSweepsPerRound = 4;  ///< tangential relaxation sweeps per round
};

/// Surface nets at the cell size whose triangle count is closest to the target (searched with a
/// secant step on count ~ 1 / size^2 and fixed grid shifts, deterministically), projected onto f = 0
/// by Newton steps, then alternating tangential relaxation
/// (vertices move to the area-weighted centroid of their triangles, reprojected onto f = 0) and
/// intrinsic Delaunay edge flips, which turn the grid-aligned triangles into near-equilateral ones.
/// Throws shatter::Error naming `name` when no grid size gives a closed 2-manifold.
TriMesh meshImplicit(const ImplicitFunction& f, const Aabb& bounds, const ImplicitMeshSettings& options,
                     const std::string& name);

/// Moves every vertex `sweeps` times towards the area-weighted centroid of its incident triangles,
/// tangentially, then back onto f = 0 by Newton steps. Jacobi updates, so the order does not matter.
void relaxOnSurface(TriMesh& mesh, const ImplicitFunction& f, int sweeps);

/// Flips edges whose two opposite angles sum to more than pi (intrinsic Delaunay criterion) when the
/// two triangles are nearly coplanar and the flip keeps the surface unfolded and every vertex at
/// valence >= 4. Returns the number of flips. Triangle and vertex counts are unchanged.
Index flipToDelaunay(TriMesh& mesh);

} // namespace shatter::assets
