// FracturableShape: what Bullet sees of one fragment (internal; programs get it through
// makeFracturableBody, shatter/fracturable_body.h, or FractureSystem). It derives from btConcaveShape
// with the shape type CUSTOM_CONCAVE_SHAPE_TYPE, so that Bullet's ray tests, convex sweeps and debug
// drawing walk the fragment's surface triangles through processAllTriangles, while contacts come from
// FracturableCollisionAlgorithm (TVCG Algorithm 1 over the ObjectState) — which must be registered for
// every pair, see shatter/collision.h: CUSTOM_CONCAVE_SHAPE_TYPE is also SDF_SHAPE_PROXYTYPE, and Bullet's
// own convex–concave algorithm would treat an unregistered pair as a btSdfCollisionShape.
//
// Frames. The ObjectState answers queries in the asset's material frame. A rigid body's
// frame has its origin at the centre of mass and its axes along the principal axes of inertia (Bullet
// wants a diagonal local inertia), so each shape keeps the fixed rigid transform O = material → body.
// A material point x is at T·O·x in the world, T being the body's (or compound child's) world transform.
//
// Scaling. Only the identity scaling is supported. A scaled shape would need the sphere tree, the
// distance field and every distance of Algorithm 1 scaled too (collide() works on rigid transforms);
// build the asset from a scaled mesh instead, which also keeps the tet quality and ε (TVCG §5.2) in the
// object's real units. setLocalScaling cannot throw (Bullet calls it, e.g. from a compound's own
// setLocalScaling, and would be left half done): it records the request (getLocalScaling returns it, so
// a compound set back to its old scaling sets the child back to 1) but the geometry stays unscaled, and
// every pair of the shape fails with a message saying so (counted and logged by the registration).
//
// Threading: immutable after construction; every const method is safe from several threads at once.
#pragma once

#include "fracture_result.h"
#include "fragment_mesh.h"
#include "shatter/fracturable_body.h"
#include "triangle_bvh.h"

#include <BulletCollision/CollisionShapes/btConcaveShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <Eigen/Geometry>

#include <memory>
#include <mutex>
#include <vector>

namespace shatter
{

class ObjectState;

/// One fragment of an ObjectState as a Bullet collision shape; see the file comment.
ATTRIBUTE_ALIGNED16(class) FracturableShape : public btConcaveShape
{
public:
    BT_DECLARE_ALIGNED_ALLOCATOR();

    /// The shape of fragment `fragment` of `state`, in the principal frame of `massProperties` (which
    /// must be the fragment's, e.g. from computeMassProperties of its mesh). Throws shatter::Error if
    /// `state` is null, the fragment is not alive, has no mesh or no sphere-tree point (it could not
    /// collide), or the mass properties are invalid.
    FracturableShape(std::shared_ptr<ObjectState> state, FragmentId fragment,
                     const MassProperties& massProperties);
    ~FracturableShape() override;

    /// The object this fragment belongs to (shared with its sibling fragments' shapes).
    const ObjectState& state() const
    {
        return *m_state;
    }
    const std::shared_ptr<ObjectState>& statePointer() const
    {
        return m_state;
    }
    FragmentId fragment() const
    {
        return m_fragment;
    }
    /// O: material frame → body frame (centre of mass, principal axes).
    const Eigen::Isometry3d& materialToBody() const
    {
        return m_materialToBody;
    }
    /// The fragment's surface (material frame).
    const FragmentMesh& mesh() const
    {
        return *m_mesh;
    }
    /// Radius of the bounding sphere about the body origin (the centre of mass), model units.
    Real boundingRadius() const
    {
        return m_boundingRadius;
    }
    /// Tight box of the surface in the body frame, without the margin.
    const Aabb& localBounds() const
    {
        return m_localBounds;
    }
    /// Mass properties the shape was made with (density as given to the factory).
    const MassProperties& massProperties() const
    {
        return m_massProperties;
    }

    // btCollisionShape / btConcaveShape.
    void getAabb(const btTransform& t, btVector3& aabbMin, btVector3& aabbMax) const override;
    void getBoundingSphere(btVector3 & center, btScalar & radius) const override;
    btScalar getAngularMotionDisc() const override;
    btScalar getContactBreakingThreshold(btScalar defaultContactThresholdFactor) const override;
    /// Records the request; anything but (1, 1, 1) is refused (refusedScaling); see the file comment.
    void setLocalScaling(const btVector3& scaling) override;
    /// True after setLocalScaling asked for anything but (1, 1, 1), until it asks for (1, 1, 1) again.
    bool refusedScaling() const
    {
        return m_localScaling != btVector3(1, 1, 1);
    }
    const btVector3& getLocalScaling() const override
    {
        return m_localScaling;
    }
    /// Principal moments of the fragment's solid (uniform density) scaled to `mass`.
    void calculateLocalInertia(btScalar mass, btVector3 & inertia) const override;
    const char* getName() const override
    {
        return "FracturableShape";
    }
    /// Emits the fragment's surface triangles (body frame, outward winding) whose boxes overlap the box;
    /// partId = fragment id, triangleIndex = the triangle's index in mesh().surface.
    void processAllTriangles(btTriangleCallback * callback, const btVector3& aabbMin,
                             const btVector3& aabbMax) const override;

    /// True if `shape` is a FracturableShape (and not another CUSTOM_CONCAVE shape such as Bullet's
    /// btSdfCollisionShape, which shares the type id).
    static bool is(const btCollisionShape& shape);
    /// `shape` as a FracturableShape, or null if it is none.
    static const FracturableShape* from(const btCollisionShape* shape)
    {
        return shape && is(*shape) ? static_cast<const FracturableShape*>(shape) : nullptr;
    }

private:
    std::shared_ptr<ObjectState> m_state;
    std::shared_ptr<const FragmentMesh> m_mesh;
    FragmentId m_fragment;
    MassProperties m_massProperties;
    Eigen::Isometry3d m_materialToBody;
    Vec3 m_unitInertia; // principal moments per unit mass
    // Over the material-frame surface, for processAllTriangles only (rays, sweeps, debug drawing,
    // Bullet's fallback algorithms): built at the first such query, not with the fragment's body.
    const TriangleBvh& bvh() const;
    mutable std::once_flag m_bvhOnce;
    mutable std::unique_ptr<const TriangleBvh> m_bvh;
    std::vector<btVector3> m_bodyVertices; // surface vertices in the body frame
    Aabb m_localBounds;                    // tight body-frame box of the surface
    Real m_boundingRadius = 0;
    btVector3 m_localScaling; // as asked; the geometry is never scaled (see the file comment)
};

} // namespace shatter
