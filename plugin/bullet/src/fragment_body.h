// One fragment as a Bullet rigid body for FractureSystem, in any of the three shape kinds of
// FragmentShapeKind (Shatter's FracturableShape, and the GImpact / convex hull baselines of TVCG §7).
// Internal to the fracture module; Bullet glue.
#pragma once

#include "comparison_variants.h"
#include "fracturable_shape.h"
#include "shatter/fracture_system.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <memory>
#include <vector>

class btStridingMeshInterface;

namespace shatter::fracture
{

/// A body with everything it references. Body frame: centre of mass and principal axes for every
/// kind, so the same impulse moves the same fragment the same way whatever the shape.
struct FragmentBody
{
    ~FragmentBody();
    FragmentBody();
    FragmentBody(FragmentBody&&) noexcept;
    FragmentBody& operator=(FragmentBody&&) noexcept;

    std::unique_ptr<btRigidBody> body;
    std::unique_ptr<btCollisionShape> shape;
    std::unique_ptr<btStridingMeshInterface> meshInterface; ///< GImpact: the triangles it points into
    std::vector<int> indices;                               ///< GImpact: triangle indices
    std::vector<btScalar> vertices;                         ///< GImpact: body-frame vertices, xyz
    Eigen::Isometry3d materialToBody = Eigen::Isometry3d::Identity(); ///< O: material frame → body frame
    MassProperties massProperties;                                    ///< at the object's density
    std::uint64_t bornStep = 0; ///< FractureSystem's internal step at which the body appeared
    double asleepFor = 0;       ///< s that Bullet has kept it asleep without a break (DebrisSettings)
    bool frozen = false;        ///< made static by DebrisSettings::freezeBelowVolume
};

/// Builds the body of live fragment `fragment` of `state` (which must have a mesh) with its material
/// frame at `materialToWorld`; velocities zero. Throws shatter::Error like makeFracturableBody.
FragmentBody makeFragmentBody(FragmentShapeKind kind, const std::shared_ptr<ObjectState>& state,
                              FragmentId fragment, const Eigen::Isometry3d& materialToWorld, Real density,
                              bool dynamic);

} // namespace shatter::fracture
