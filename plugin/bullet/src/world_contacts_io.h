// saveWorldContacts / restoreWorldContacts (collision.h) without their framing: what a Bullet world
// carries from one step to the next besides its bodies' motion — the broad phase (each proxy's id, fat
// box and stage, the two trees' shapes, the pair array in its order), every pair's collision algorithm
// with its contact manifolds (warm-start impulses, lifetimes), the continuous collision's predictive
// manifolds, the time stepSimulation has not stepped, and the order of the manifolds, bodies and moving
// bodies the solver and the integration walk. Restoring all of it continues a run bit for bit; restoring
// only the bodies does not (the solver's order and warm start differ). Not installed.
//
// Needs the stock btDbvtBroadphase with a btHashedOverlappingPairCache (Bullet's defaults); pairs with
// Shatter's FracturableCollisionAlgorithm keep their own state, Bullet's algorithms are rebuilt from
// the manifolds (their other state is per call). Constraints, actions, soft bodies and user data on
// contacts (m_userPersistentData) are not saved.
#pragma once

#include "binary_io.h"
#include "shatter/collision.h"

namespace shatter
{

/// Appends the world's state between steps (see the file comment) to `writer`. Throws shatter::Error
/// naming `source` if the world uses another broadphase or pair cache, two objects share a key, or a
/// manifold belongs to no pair.
void writeWorldContacts(BinaryWriter& writer, btDiscreteDynamicsWorld& world, const CollisionObjectKey& key,
                        const std::string& source);

/// Restores what writeWorldContacts wrote into a world between steps that holds the same collision
/// objects (matched by key) with their saved motion, and no contact state that matters (its pairs are
/// replaced). Everything read is checked before the world changes; a failure is the reader's error.
void readWorldContacts(BinaryReader& reader, btDiscreteDynamicsWorld& world, const CollisionObjectKey& key);

/// A world contacts file around `payload` (the fuzz harness frames its mutations with it).
std::vector<std::byte> worldContactsFileBytes(std::span<const std::byte> payload);

} // namespace shatter
