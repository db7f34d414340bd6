// Oriented boxes in the world and the separating axis test between two of them. The collision algorithm
// uses it to skip a pair whose fragments' tight body-frame boxes, turned with the bodies, cannot touch
// although their world boxes (a turned box's bounds, wider than it) overlap.
#pragma once

#include <LinearMath/btMatrix3x3.h>
#include <LinearMath/btVector3.h>

namespace shatter
{

/// A box in the world: centre, axes (the basis's columns, orthonormal) and half extents (≥ 0).
struct OrientedBox
{
    btVector3 centre;
    btMatrix3x3 axes;
    btVector3 half;
};

/// True if a separating axis exists between `a` and `b`: one of their 3 + 3 face normals or the 9 cross
/// products of their edges (Gottschalk, Lin and Manocha, OBBTree, SIGGRAPH 1996). Conservative: false
/// whenever the boxes overlap or touch; near-parallel edges never separate (a small slack is added).
bool separated(const OrientedBox& a, const OrientedBox& b);

} // namespace shatter
