// Volume of the convex hull of a point set: FractureMetric::Auto compares an asset's volume with it to
// tell a non-convex object (CVD §3.2: the interior metric matters only where the shape has concavities).
// Internal to the fracture module.
#pragma once

#include "shatter/math.h"

#include <span>

namespace shatter::fracture
{

/// Volume enclosed by the convex hull of `points` (model units³); 0 for fewer than four points or a
/// flat set. Incremental hull with a relative tolerance: exact enough for a convexity ratio, not a
/// robust hull for geometry output.
Real convexHullVolume(std::span<const Vec3> points);

} // namespace shatter::fracture
