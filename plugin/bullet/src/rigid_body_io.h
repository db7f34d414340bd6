// A rigid body's motion and contact coefficients as Bullet holds them, for save files: the same bits
// restore the same body (a save continues a run bit for bit). Not installed.
#pragma once

#include "binary_io.h"

#include <btBulletDynamicsCommon.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace shatter
{

/// What a save keeps of a btRigidBody beyond its shape and mass, in Bullet's own precision. No padding:
/// every byte of a save is defined.
struct SavedMotion
{
    std::int32_t activationState = ACTIVE_TAG;
    std::int32_t collisionFlags = 0;
    std::int32_t group = 0, mask = 0; // the broadphase filter
    std::int32_t userIndex = -1, userIndex2 = -1, userIndex3 = -1;
    std::int32_t reserved = 0;
    btScalar transform[12]{}, interpolationTransform[12]{}; // basis rows, then the origin
    btScalar velocity[12]{}; // linear, angular, interpolation linear, interpolation angular
    btScalar deactivationTime = 0, hitFraction = 1;
    btScalar friction = 0, restitution = 0, rollingFriction = 0, spinningFriction = 0;
    btScalar linearDamping = 0, angularDamping = 0, linearSleep = 0, angularSleep = 0;
    btScalar ccdThreshold = 0, ccdRadius = 0;
};
static_assert(std::is_trivially_copyable_v<SavedMotion>);
static_assert(sizeof(SavedMotion) == 32 + 48 * sizeof(btScalar), "SavedMotion has no padding");

/// The body's state; the filter comes from its broadphase proxy (the body must be in a world).
SavedMotion saveMotion(const btRigidBody& body);
/// The inverse of saveMotion on a body of the same shape and mass (the filter is the caller's: it is
/// given when the body is added to the world). Also brings the world inertia up to the restored pose,
/// as Bullet's integration leaves it.
void restoreMotion(const SavedMotion& saved, btRigidBody& body);
/// Fails `reader` with a message starting with `which` unless every number is finite and in range, the
/// orientations are rotations and the activation state is Bullet's.
void checkMotion(const BinaryReader& reader, const SavedMotion& saved, const std::string& which);

} // namespace shatter
