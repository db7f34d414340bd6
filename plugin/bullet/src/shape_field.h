// The other side of a pair: a Bullet shape that is *not* fracturable, seen through the
// same two queries as a fragment so that TVCG Algorithm 1 (collide()) can run against it — a distance
// field D(B) (sample + sphereTest, TVCG §3) — and, for the opposite direction, its own "sphere tree"
// S(B) (TVCG §5.1): a point shell sampled on its surface.
//
// What solid each field describes: the one Bullet's own algorithms collide.
//  - btSphereShape, btBoxShape (half extents *with* margin: the geometric box, as btBoxBoxDetector sees
//    it), btCapsuleShape (any up axis) and btStaticPlaneShape (the half-space below the plane, local
//    scaling ignored as Bullet's plane algorithms ignore it): exact analytic signed distances.
//  - Every other convex shape: the core shape inflated by its collision margin (rounded edges), which
//    is what Bullet's GJK pair detector collides. Polyhedra (btConvexHullShape, point clouds, …) are
//    answered exactly from their hull (btConvexHullComputer + SignedDistanceField, minus the margin);
//    curved ones (cylinder, cone, multi-sphere, …) by btGjkEpaSolver2::SignedDistance, checked
//    against the support function. GJK/EPA's error on curved faces is up to ~1e-3 of the shape's
//    size in float Bullet (accuracy() reports the bound used); sphereTest adds it as slack so it stays
//    conservative.
//  - btBvhTriangleMeshShape / btScaledBvhTriangleMeshShape: a TriangleBvh over the triangles; the
//    solid is the layer of depth `thickness` below the surface on the side opposite to the face
//    normals (angle-weighted pseudonormals decide the side, Bærentzen & Aanæs 2005). Inside the layer
//    the distance is minus the depth and the normal pushes out through the front surface (one-sided,
//    never out of the back); below the layer a point is outside at distance depth − thickness (a lower
//    bound). A closed mesh with thickness = +infinity is an ordinary solid.
// All coordinates are in the shape's local frame with its local scaling applied, in model units.
#pragma once

#include "sphere_forest.h"
#include "sphere_tree_query.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

class btCollisionShape;

namespace shatter
{

/// Which field a ShapeField evaluates.
enum class ShapeFieldKind : std::uint8_t
{
    Sphere,       ///< btSphereShape, analytic
    Box,          ///< btBoxShape (half extents with margin), analytic
    Capsule,      ///< btCapsuleShape / X / Z, analytic
    Plane,        ///< btStaticPlaneShape: the half-space below it, analytic; no point shell
    Convex,       ///< any other btConvexShape, margin included: exact hull for polyhedra, else GJK/EPA
    TriangleMesh, ///< btBvhTriangleMeshShape / btScaledBvhTriangleMeshShape: BVH + pseudonormals
};

/// Distance field and point shell of one non-fracturable Bullet shape; immutable once built, so many
/// pairs (and threads) share one through ShapeFieldCache. A curved Convex field keeps a pointer to the
/// Bullet shape (GJK runs on it): the shape must outlive the field, as it outlives its collision objects.
class ShapeField
{
public:
    /// True for the shapes ShapeField answers: convex shapes, static planes and
    /// btBvhTriangleMeshShape / btScaledBvhTriangleMeshShape (compounds are handled by Bullet's compound
    /// algorithm, child by child).
    static bool supports(const btCollisionShape& shape);

    /// Builds the field (a BVH for triangle meshes) and the point shell with `shellPoints` surface
    /// samples (none for a static plane, which is infinite; fewer only if the shape has fewer distinct
    /// candidates). `thickness` (model units, ≥ 0, may be +infinity) is how deep below a triangle
    /// mesh's surface points still count as inside; other shapes ignore it. Throws shatter::Error for
    /// an unsupported shape, an empty mesh, non-finite or non-positive dimensions or scaling, a
    /// negative or NaN thickness, or shellPoints = 0.
    ShapeField(const btCollisionShape& shape, Real thickness, Index shellPoints = 256);
    ~ShapeField();
    ShapeField(const ShapeField&) = delete;
    ShapeField& operator=(const ShapeField&) = delete;

    /// collide()'s Field concept: signed distance (negative inside) and push-out direction for p in
    /// the shape's local frame; `near` when inside or within `band` outside (then distance and normal
    /// are valid).
    FieldSample sample(const Vec3& p, Real band) const;
    /// False only if the sphere (p, radius) cannot touch the shape; true for most spheres that do not
    /// but come within accuracy() of it.
    bool sphereTest(const Vec3& p, Real radius) const;

    /// S(B): a one-tree forest (fragment 0) over the surface samples; null for a static plane.
    const SphereForest* pointShell() const;
    /// Radius of a bounding sphere about the local origin (infinite for a plane); sets ε (TVCG §5.2).
    Real boundingRadius() const;

    ShapeFieldKind kind() const;
    /// Bound on |sample().distance − exact distance| (model units): 0 for the analytic and mesh fields,
    /// btScalar rounding for polyhedra, GJK/EPA's tolerance for curved convex shapes.
    Real accuracy() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/// How ShapeFieldCache builds its fields.
struct ShapeFieldSettings
{
    /// ShapeField's `thickness` for triangle meshes (model units, ≥ 0, may be +infinity).
    Real meshThickness = Real(0.1);
    /// Point shell size per shape (≥ 1).
    Index shellPoints = 256;
};

/// Shares one ShapeField per shape among all pairs of a dispatcher. Thread-safe. An entry is rebuilt
/// when the shape's type, local scaling, margin or dimensions (local AABB, vertex count) change, and
/// dropped by forget() (call it before deleting a shape whose address may be reused). In-place edits
/// of a triangle mesh's vertices that leave its AABB unchanged are not detected: forget() the shape.
class ShapeFieldCache
{
public:
    /// Throws shatter::Error for bad settings.
    explicit ShapeFieldCache(const ShapeFieldSettings& settings = {});
    ~ShapeFieldCache();
    ShapeFieldCache(const ShapeFieldCache&) = delete;
    ShapeFieldCache& operator=(const ShapeFieldCache&) = delete;

    /// The field of `shape`, built on first use or when the shape changed. Throws what ShapeField
    /// throws. The returned pointer stays valid after a rebuild or forget().
    std::shared_ptr<const ShapeField> get(const btCollisionShape& shape);
    void forget(const btCollisionShape* shape);
    void clear();
    /// Shapes with an entry (for tests).
    std::size_t size() const;

    const ShapeFieldSettings& settings() const { return config; }
    /// Fields built so far (a rebuild counts again): for tests and statistics.
    Index buildCount() const;

private:
    struct Entry;
    ShapeFieldSettings config;
    mutable std::mutex mutex;
    std::unordered_map<const btCollisionShape*, std::shared_ptr<Entry>> entries;
    std::size_t pruneAt = kMinPrune; // entries at which get() next drops the fields nothing else holds
    static constexpr std::size_t kMinPrune = 256;
    Index builds = 0;
};

} // namespace shatter
