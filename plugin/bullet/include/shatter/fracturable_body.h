// One fragment of an object as a Bullet rigid body, for programs that manage their own bodies instead
// of letting FractureSystem do it:
//
//     auto plate = shatter::makeFracturableBody(shatter::makeObjectState(asset), 0, placement);
//     btRigidBody body(plate.constructionInfo());
//     world.addRigidBody(&body);      // the dispatcher needs a CollisionRegistration (collision.h)
//
// The shape is Shatter's fracturable shape: Bullet's ray tests, convex sweeps and debug drawing see
// the fragment's surface triangles, and contacts come from TVCG Algorithm 1 over the object's state.
// Frames: the state answers in the asset's material frame; a rigid body's frame has its origin at the
// centre of mass and its axes along the principal axes of inertia, so the body keeps the fixed rigid
// transform O = material → body, and a material point x is at T·O·x in the world (T the body's world
// transform). The shape accepts only the identity local scaling (setLocalScaling throws otherwise):
// build the asset from a scaled mesh instead, which keeps the tet quality and ε (TVCG §5.2) in the
// object's real units.
#pragma once

#include "shatter/math.h"

#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <Eigen/Geometry>

#include <cstdint>
#include <memory>

namespace shatter
{

struct Asset;
class ObjectState;
/// A fragment of an object: 0 is the unbroken object, new fragments get increasing ids.
using FragmentId = std::uint32_t;

/// Everything needed to put one fragment into a Bullet world as a rigid body.
struct FracturableBody
{
    std::unique_ptr<btCollisionShape> shape; ///< the fragment's shape; must outlive the body
    Eigen::Isometry3d materialToBody = Eigen::Isometry3d::Identity(); ///< O: material frame → body frame
    btScalar mass = 0;                                                ///< kg; 0 for a static body
    btVector3 localInertia{0, 0, 0}; ///< principal moments (0 for a static body)
    btTransform worldTransform;      ///< the body frame in the world: placement · O⁻¹

    /// Construction info for btRigidBody: mass, inertia, shape and start transform (no motion state
    /// unless given, as Bullet's own examples do).
    btRigidBody::btRigidBodyConstructionInfo constructionInfo(btMotionState* motionState = nullptr) const;
};

/// Settings of makeFracturableBody; checked there.
struct FracturableBodySettings
{
    Real density = 1000; ///< kg per cubic model unit, > 0; sets mass and inertia; default 1000
    bool dynamic =
        true; ///< false: a static body (mass 0) that still collides as a fracturable shape; default true
};

/// Builds the shape of live fragment `fragment` of `state`, its mass properties (from its surface mesh)
/// and the body transform that puts the material frame at `materialToWorld`. Throws shatter::Error for
/// a null state, a dead or mesh-less fragment, one without sphere-tree points (it could not collide), a
/// non-finite placement or bad settings.
FracturableBody makeFracturableBody(std::shared_ptr<ObjectState> state, FragmentId fragment,
                                    const Eigen::Isometry3d& materialToWorld,
                                    const FracturableBodySettings& settings = {});

} // namespace shatter
