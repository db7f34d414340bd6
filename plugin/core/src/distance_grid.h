// The regular-grid distance field near the original surface (TVCG §4.4): exact signed distances on
// a dense grid, kept only in a narrow band around the surface, sampled by trilinear interpolation.
#pragma once

#include "shatter/math.h"
#include "shatter/mesh.h"
#include "shatter/progress.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace shatter
{

class SignedDistanceField;

/// Settings of DistanceGrid::build; checked there.
struct DistanceGridSettings
{
    /// Grid spacing in model units; 0 picks cellFactor × the mean surface edge length.
    Real cellSize = 0;
    /// Spacing relative to the mean surface edge length when cellSize is 0 (> 0).
    Real cellFactor = 0.5;
    /// Half-width of the band of exact distances, in cells (≥ 1, so the band catches every sign
    /// change between neighbouring grid points).
    Real bandCells = 3;
    /// Worker threads (0: all hardware threads).
    unsigned threads = 0;
    /// Refuse grids with more points than this (a too small cellSize), rather than exhaust memory.
    std::size_t maxPoints = std::size_t(1) << 27;
};

/// What DistanceGrid::sample returns. Invalid outside the grid or where any of the eight corners of
/// the cell lies outside the band; `distance` and `gradient` are then 0.
struct GridSample
{
    bool valid = false;
    Real distance = 0;            ///< trilinear signed distance, negative inside
    Vec3 gradient = Vec3::Zero(); ///< gradient of the trilinear interpolant (about unit length)
};

/// A dense grid of signed distances around a closed mesh, in the mesh's frame. Plain data, so a cache
/// writer serialises the five fields and a reader checks them with validate(). Points within
/// bandWidth of the surface hold the exact signed distance (as float); the others hold ±bandWidth
/// with the sign of their side, so |value| < bandWidth means "in the band".
struct DistanceGrid
{
    std::array<Index, 3> dims = {0, 0, 0}; ///< grid points along x, y, z (each ≥ 2 unless empty)
    Vec3 origin = Vec3::Zero();            ///< position of point (0, 0, 0)
    Real cellSize = 0;                     ///< spacing between neighbouring points, > 0
    Real bandWidth = 0;                    ///< exact distances are kept where |d| < bandWidth
    std::vector<float> values;             ///< x fastest: values[pointIndex(i, j, k)]

    bool empty() const { return values.empty(); }
    std::size_t pointCount() const { return std::size_t(dims[0]) * dims[1] * dims[2]; }
    std::size_t pointIndex(Index i, Index j, Index k) const
    {
        return (std::size_t(k) * dims[1] + j) * dims[0] + i;
    }
    Vec3 pointPosition(Index i, Index j, Index k) const { return origin + cellSize * Vec3(i, j, k); }
    /// True if the stored value is an exact distance rather than the out-of-band sentinel.
    bool inBand(float value) const { return std::abs(value) < static_cast<float>(bandWidth); }
    /// Region covered by the grid points.
    Aabb bounds() const;

    /// Trilinear interpolation of the cell holding p. Allocation-free and thread-safe.
    GridSample sample(const Vec3& p) const;

    /// Throws shatter::Error naming `source` if the fields are inconsistent (sizes, spacing, values
    /// outside [-bandWidth, bandWidth]), e.g. after reading a cache file.
    void validate(const std::string& source) const;

    /// The grid build() would make, without its values: cell size, band width, origin and dims. Returns
    /// the number of grid points in `points` (a Real: it may exceed every index type); dims are clamped
    /// when that is over options.maxPoints, which build() refuses. Throws as build() for bad options.
    static DistanceGrid layout(const SignedDistanceField& field, const DistanceGridSettings& options,
                               Real& points);
    /// Builds the grid over the field's bounding box plus bandWidth + one cell on every side, exact
    /// distances in the band, in parallel over z-slices. Progress is reported from the calling
    /// thread as stage "distance grid". Throws shatter::Error for bad options or an empty field.
    static DistanceGrid build(const SignedDistanceField& field, const DistanceGridSettings& options = {},
                              const ProgressCallback& progress = {});
    /// Builds the signed distance field of `mesh` and then the grid (see above).
    static DistanceGrid build(const TriMesh& mesh, const DistanceGridSettings& options = {},
                              const ProgressCallback& progress = {});
};

} // namespace shatter
