// A FractureResult in a byte stream: how a save file (FractureSystem::save) keeps an object's fracture
// history, so that a restore replays the events through ObjectState::apply and rebuilds the field, the
// grid and the sphere trees exactly as the run built them.
#pragma once

#include "binary_io.h"
#include "fracture_result.h"

namespace shatter
{

/// Appends `result`, meshes included, to `w`.
void writeFractureResult(BinaryWriter& w, const FractureResult& result);
/// Reads what writeFractureResult wrote. Checks what ObjectState::apply does not: sizes that agree and
/// meshes with finite vertices and triangles that index them; throws shatter::Error naming the reader's
/// source otherwise. apply() checks the rest against the state it is applied to.
FractureResult readFractureResult(BinaryReader& r);

} // namespace shatter
