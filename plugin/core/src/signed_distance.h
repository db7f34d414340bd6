// Exact signed distance to a closed triangle mesh: the source of the tet-node distances (TVCG §4.1)
// and of the regular surface grid (TVCG §4.4).
#pragma once

#include "shatter/mesh.h"
#include "triangle_bvh.h"

#include <limits>
#include <string>
#include <vector>

namespace shatter
{

/// The answer of SignedDistanceField::signedDistance. `found()` is false only when a finite
/// maxDistance excluded every triangle.
struct SignedDistance
{
    Real distance = std::numeric_limits<Real>::infinity(); ///< negative inside the solid, 0 on its surface
    Vec3 closestPoint = Vec3::Zero();                      ///< closest surface point
    /// Unit outward gradient of the signed distance: from closestPoint towards p outside, from p
    /// towards closestPoint inside (out of the solid either way); the face normal on the surface.
    Vec3 direction = Vec3::Zero();
    Index triangle = kInvalidIndex; ///< mesh triangle holding closestPoint

    bool found() const { return triangle != kInvalidIndex; }
};

/// Signed distance to a closed, consistently oriented mesh whose shells face out of the solid (an
/// outer shell with outward normals, cavities as nested shells facing into the cavity). The magnitude
/// is the exact Euclidean distance to round-off; the sign comes from the angle-weighted pseudonormal
/// of the face, edge or vertex holding the closest point (Bærentzen & Aanæs 2005), which is correct
/// for every point off the surface, however close. Const queries are allocation-free and thread-safe.
class SignedDistanceField
{
public:
    /// An empty field: every query finds nothing.
    SignedDistanceField() = default;
    /// Precomputes the tree and the pseudonormals. Throws shatter::Error naming `sourceName` if the mesh
    /// is empty, has a non-finite vertex or an out-of-range vertex index, is open (an edge with one
    /// triangle), is not consistently oriented (an edge used twice in one direction), or is inside out.
    explicit SignedDistanceField(const TriMesh& mesh, const std::string& sourceName = "<memory>");

    /// Signed distance from p to the surface, considering only triangles within `maxDistance` of p.
    /// Points within surfaceTolerance() of the surface get distance 0 and the face normal.
    SignedDistance signedDistance(const Vec3& p,
                                  Real maxDistance = std::numeric_limits<Real>::infinity()) const;
    /// The same answer by testing every triangle: the baseline for tests and benchmarks.
    SignedDistance signedDistanceBruteForce(const Vec3& p) const;
    /// True if p is strictly inside the solid (farther than surfaceTolerance() from its surface).
    bool isInside(const Vec3& p) const { return signedDistance(p).distance < 0; }

    const TriangleBvh& bvh() const { return tree; }
    bool empty() const { return tree.empty(); }
    Aabb bounds() const { return tree.bounds(); }
    /// Mean length of the unique mesh edges: the natural scale for grid spacings.
    Real meanEdgeLength() const { return meanEdge; }
    /// Distances up to this are reported as 0: 1e-12 × the bounding-box diagonal.
    Real surfaceTolerance() const { return tolerance; }

    const Vec3& faceNormal(Index triangle) const { return faceNormals[triangle]; }
    /// Pseudonormal of edge k of `triangle` (joining its local vertices k and (k + 1) % 3).
    const Vec3& edgeNormal(Index triangle, int k) const { return edgeNormals[triangle][k]; }
    /// Angle-weighted pseudonormal of a mesh vertex.
    const Vec3& vertexNormal(Index vertex) const { return vertexNormals[vertex]; }

private:
    SignedDistance finish(const Vec3& p, const ClosestPoint& hit) const;
    const Vec3& pseudonormal(const ClosestPoint& hit) const;

    TriangleBvh tree;
    std::vector<Vec3> vertices;
    std::vector<Triangle> triangles;
    std::vector<Vec3> faceNormals;
    std::vector<std::array<Vec3, 3>> edgeNormals;
    std::vector<Vec3> vertexNormals;
    Real meanEdge = 0;
    Real tolerance = 0;
};

/// Generalized winding number of the mesh around p (Jacobson, Kavan & Sorkine-Hornung 2013): the sum
/// of the triangles' signed solid angles over 4π, ≈ 1 inside a closed outward mesh, 0 outside, 0 in
/// a cavity. O(triangles) per call: an independent reference for tests, and the sign of last resort.
Real windingNumber(const std::vector<Vec3>& vertices, const std::vector<Triangle>& triangles, const Vec3& p);
/// windingNumber over a TriMesh.
inline Real windingNumber(const TriMesh& mesh, const Vec3& p)
{
    return windingNumber(mesh.vertices, mesh.triangles, p);
}

} // namespace shatter
