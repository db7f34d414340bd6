// Internals of ShapeField (shape_field.h): one small struct per field kind, each with the two queries
// of collide()'s Field concept, and the point-shell helpers. The primitives and the shell code are
// Bullet-free; only the convex (GJK), mesh and dispatch files include Bullet.
#pragma once

#include "shape_field.h"
#include "shatter/mesh.h"
#include "signed_distance.h"
#include "triangle_bvh.h"

#include <limits>
#include <memory>
#include <variant>
#include <vector>

class btCollisionShape;
class btConvexShape;
class btPolyhedralConvexShape;

namespace shatter::detail
{

/// Exact sphere of `radius` about the origin.
struct SphereField
{
    Real radius = 0;

    Real signedDistance(const Vec3& p, Vec3& normal) const;
    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return radius; }
    Real accuracy() const { return 0; }
};

/// Exact axis-aligned box of half extents `half` about the origin.
struct BoxField
{
    Vec3 half = Vec3::Zero();

    Real signedDistance(const Vec3& p, Vec3& normal) const;
    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return half.norm(); }
    Real accuracy() const { return 0; }
};

/// Exact capsule: the points within `radius` of the segment ±halfHeight along axis `axis`.
struct CapsuleField
{
    int axis = 1;
    Real halfHeight = 0;
    Real radius = 0;

    Real signedDistance(const Vec3& p, Vec3& normal) const;
    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return halfHeight + radius; }
    Real accuracy() const { return 0; }
};

/// The half-space normal·x ≤ constant (btStaticPlaneShape's solid side).
struct PlaneField
{
    Vec3 normal = Vec3::UnitY();
    Real constant = 0;

    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return std::numeric_limits<Real>::infinity(); }
    Real accuracy() const { return 0; }
};

/// Any other convex shape through btGjkEpaSolver2::SignedDistance (margin included).
struct ConvexField
{
    const btConvexShape* shape = nullptr;
    Vec3 center = Vec3::Zero(); ///< a point inside the shape (mean of support points)
    Vec3 boxCenter = Vec3::Zero();
    Vec3 boxHalf = Vec3::Zero(); ///< local AABB (with margin) half extents
    Real radius = 0;             ///< bounding sphere about boxCenter
    Real originRadius = 0;       ///< bounding sphere about the origin
    Real tolerance = 0;          ///< absolute GJK/EPA error bound (accuracy())
    /// Polyhedral shapes: the exact core hull (then GJK is not used) and the margin around it.
    std::shared_ptr<const SignedDistanceField> polytope;
    Real margin = 0;

    /// Builds from a convex Bullet shape (kept by pointer).
    static ConvexField make(const btConvexShape& shape);
    void makePolytope(const btPolyhedralConvexShape& shape);
    /// GJK/EPA signed distance and outward normal, checked against the support function (see the
    /// .cpp); always finite.
    Real signedDistance(const Vec3& p, Vec3& normal) const;
    /// The shape's extreme surface point in direction u (margin included).
    Vec3 support(const Vec3& u) const;
    /// u·p − h(u) for a unit u: a lower bound of the signed distance, exact for the right normal.
    Real supportBound(const Vec3& p, const Vec3& u) const;
    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return originRadius; }
    Real accuracy() const { return tolerance; }
};

/// A triangle mesh's one-sided layer of depth `thickness` (see shape_field.h).
struct MeshField
{
    TriMesh mesh; ///< welded (exactly equal corners merged), local scaling applied
    TriangleBvh bvh;
    std::vector<Vec3> faceNormals;
    std::vector<std::array<Vec3, 3>> edgeNormals; ///< per triangle, edge k = (k, k + 1)
    std::vector<Vec3> vertexNormals;              ///< angle-weighted
    Real thickness = 0;
    Real surfaceTolerance = 0; ///< distances below this are 0 (1e-12 × bounding diagonal)
    Real originRadius = 0;
    bool closed = false; ///< every edge joins exactly two triangles in opposite directions

    /// Reads the triangles of a btBvhTriangleMeshShape / btScaledBvhTriangleMeshShape.
    static MeshField make(const btCollisionShape& shape, Real thickness);
    /// Builds from a mesh directly (tests, and the Bullet reader above). Throws for an empty mesh or
    /// non-finite vertices.
    static MeshField make(TriMesh mesh, Real thickness);

    FieldSample sample(const Vec3& p, Real band) const;
    bool sphereTest(const Vec3& p, Real r) const;
    Real boundingRadius() const { return originRadius; }
    Real accuracy() const { return 0; }

private:
    const Vec3& pseudonormal(const ClosestPoint& hit) const;
};

using AnyField = std::variant<SphereField, BoxField, CapsuleField, PlaneField, ConvexField, MeshField>;

/// Surface samples for a point shell: a dense candidate set (about 4 × `count`), from which
/// makeShell keeps a well-spread subset.
std::vector<Vec3> shellCandidates(const SphereField& f, Index count);
std::vector<Vec3> shellCandidates(const BoxField& f, Index count);
std::vector<Vec3> shellCandidates(const CapsuleField& f, Index count);
std::vector<Vec3> shellCandidates(const ConvexField& f, Index count);
std::vector<Vec3> shellCandidates(const MeshField& f, Index count);

/// Surface points every shell must hold (box corners, capsule tips); none for the other kinds, whose
/// extreme points farthest-point selection finds by itself.
std::vector<Vec3> shellFeatures(const BoxField& f);
std::vector<Vec3> shellFeatures(const CapsuleField& f);
template <class F>
std::vector<Vec3> shellFeatures(const F&)
{
    return {};
}

/// `features`, then candidates in maximum-distance order (TVCG §5.1) up to `count` points, built into a
/// one-tree forest.
std::unique_ptr<SphereForest> makeShell(const std::vector<Vec3>& candidates,
                                        const std::vector<Vec3>& features, Index count);

/// `count` points of the Fibonacci lattice on the unit sphere: near-uniform, deterministic.
std::vector<Vec3> fibonacciSphere(Index count);

} // namespace shatter::detail

namespace shatter
{

struct ShapeField::Impl
{
    detail::AnyField field;
    ShapeFieldKind kind = ShapeFieldKind::Sphere;
    std::unique_ptr<SphereForest> shell;
};

} // namespace shatter
