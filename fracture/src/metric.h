// The metric space the CVD works in (CVD §3.2-3.4): per tet node a point whose Euclidean distances are
// the fracture metric — the rest positions with the artist's warp (Euclidean metric), or the interior
// embedding (interior metric).
#pragma once

#include "asset_data.h"
#include "interior_embedding.h"
#include "shatter/fracture/material.h"

#include <vector>

namespace shatter::fracture
{

/// Per-node coordinates in the metric space; node n's point is coords[n · dimension, (n + 1) · dimension).
struct MetricCoordinates
{
    int dimension = 0;
    std::vector<Real> coords; ///< dimension × nodeCount
};

/// A rest position under the warp of CVD §3.4: p' = L p + a sin(2π (p · ĉ) / w) d̂, with L = warp.linear,
/// a = waveAmplitude, w = waveLength, d̂ = waveDirection and ĉ = wavePhaseDirection (both normalised).
Vec3 warpPoint(const MetricWarp& warp, const Vec3& p);

/// True when the warp is the identity (no linear map, no wave).
bool isIdentityWarp(const MetricWarp& warp);

/// The metric coordinates of every tet node of `asset`: with `embedding` null, the warped 3-D positions
/// (dimension 3); otherwise the embedding's coordinates, which must have been built for this asset
/// with the same warp (it is baked into its geodesics) — a mismatch throws shatter::Error.
MetricCoordinates metricCoordinates(const Asset& asset, const InteriorEmbedding* embedding,
                                    const MetricWarp& warp);

/// The coordinates the fracture pipeline's CVD uses: metricCoordinates(), and with an embedding that
/// appends the position (positionWeight w > 0) every coordinate scaled by 1/√(1 + w²). The embedding
/// matches geodesics in model units and the appended position adds w × the same distance in quadrature
/// where the object is locally convex, so the scale keeps distances in model units and γ means the
/// same in both metrics.
MetricCoordinates pipelineCoordinates(const Asset& asset, const InteriorEmbedding* embedding,
                                      const MetricWarp& warp, Real positionWeight);

} // namespace shatter::fracture
