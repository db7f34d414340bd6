// Continuous collision for fragment bodies. The speculative band of a pair covers an approach of up
// to about the smaller radius in a step; a fragment that moves farther (one falling off a shelf at
// 5 m/s moves 8 cm per 60 Hz step) ends inside what it hits and is pushed out over several steps.
// Bullet's CCD sweeps a sphere inside the body along its step and stops it at the first thing it
// would pass into, but only for convex shapes. These functions give fragment bodies Bullet's CCD
// settings and, after the step, do the same sweep for the bodies Bullet skipped.
#pragma once

#include "fragment_mesh.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>

class btCollisionWorld;

namespace shatter::fracture
{

/// Sets Bullet's CCD settings of a dynamic body from its mass properties: the swept sphere is 0.9 ×
/// the smallest half-extent of the box with the same principal moments, the motion threshold half
/// the shape's bounding radius. A body without mass is left as it is.
void setContinuousCollision(btRigidBody& body, const MassProperties& mass);

/// After a step (velocities v, ω already integrated over dt): if `body` has a concave shape, CCD
/// settings and moved farther than its threshold, sweeps its CCD sphere from where it was (its
/// centre of mass minus v · dt) to where it is, and moves it back to the first hit with something it
/// approaches (relative to its motion) by more than the threshold; velocities are kept. Returns
/// whether it moved the body.
bool sweepConcaveBody(btCollisionWorld& world, btRigidBody& body, btScalar dt);

} // namespace shatter::fracture
