// Energy-weighted random seeding of Voronoi sites (CVD §3.3: "whenever we introduce new Voronoi sites we
// seed them randomly using as probability function the strain energy field").
#pragma once

#include "shatter/math.h"

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace shatter::fracture
{

/// Draws `count` distinct indices into `weights` one after another, each with probability ∝ its weight
/// among those not drawn yet (weights ≥ 0, finite). Uses only `rng()` (no std distribution, whose
/// algorithm differs between standard libraries), so a seed gives the same draw everywhere; a draw of
/// k + m starts with the draw of k from the same seed. Throws shatter::Error if fewer than `count`
/// weights are positive, or on a NaN / negative weight.
std::vector<Index> sampleWeighted(std::span<const Real> weights, Index count, std::mt19937_64& rng);

/// `count` sites at nodes drawn by sampleWeighted from std::mt19937_64(seed): dimension × count reals
/// copied from `localCoords` (dimension per entry of `weights`).
std::vector<Real> seedSites(std::span<const Real> localCoords, int dimension, std::span<const Real> weights,
                            Index count, std::uint64_t seed);

} // namespace shatter::fracture
