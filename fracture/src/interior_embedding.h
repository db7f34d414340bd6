// Interior-distance embedding (CVD §3.2): per tet node a point in R^d whose Euclidean distances
// approximate the interior (geodesic, through-the-material) distance, so that the CVD of a concave
// object is a Euclidean CVD in R^d (CVD Theorem 1, Corollary 1) and cells do not leak across
// cavities, slots or thin walls. Computed once per asset (and warp) and shared by its instances.
#pragma once

#include "asset_data.h"
#include "shatter/fracture/material.h"

#include <vector>

namespace shatter::fracture
{

/// Settings of computeInteriorEmbedding; checked there.
struct EmbeddingSettings
{
    int dimension = 16;     ///< d, dimensions of the embedding (≥ 1; 8-32 is typical)
    int landmarkCount = 64; ///< geodesic landmarks (≥ dimension + 1); more: better far distances, slower
    /// Appends positionWeight × (warped) 3-D coordinates as three extra dimensions (≥ 0; 0: off), so that
    /// nearly convex parts behave exactly Euclidean (docs/algorithms.md, "Interior metric").
    Real positionWeight = 0;
    /// Rest-shape warp of the metric (CVD §3.4): geodesics are measured in the warped shape.
    MetricWarp warp;
};

/// Per-node points in R^dimension; node n's point is coords[n · dimension, (n + 1) · dimension).
struct InteriorEmbedding
{
    int dimension = 0;
    std::vector<Real> coords; ///< dimension × nodeCount
    MetricWarp warp;          ///< the warp it was built with (metricCoordinates checks it)
};

/// The embedding of every tet node of `asset`; see interior_embedding.cpp for the method (landmark
/// MDS of graph geodesics). Scaled so that distances beyond a few edges match the geodesics in the
/// median (model units). Deterministic.
/// Throws shatter::Error for bad options or an asset without tets.
InteriorEmbedding computeInteriorEmbedding(const Asset& asset, const EmbeddingSettings& options = {});

/// Throws shatter::Error naming the bad field.
void checkEmbeddingSettings(const EmbeddingSettings& options, Index nodeCount);

} // namespace shatter::fracture
