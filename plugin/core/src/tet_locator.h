// Point location in a tet mesh (TVCG §4.3 uses a k-d tree; we use a uniform grid of tet lists, O(1)
// expected): which tet holds a point, with its barycentric coordinates. Immutable after build, so
// queries are const, allocation-free and safe from many threads at once.
#pragma once

#include "crack_geometry.h"
#include "large_array.h"
#include "tet_mesh.h"

#include <cstdint>
#include <vector>

namespace shatter
{

/// Settings of the TetLocator constructor; checked there.
struct TetLocatorSettings
{
    /// Grid cell size as a multiple of the mean tet edge length (> 0).
    Real cellFactor = 0.5;
    /// A point belongs to a tet when all its barycentric coordinates are ≥ −tolerance (in [0, 0.1]:
    /// meant for round-off, and every tet's share of the grid grows with it).
    Real tolerance = 1e-9;
    /// Refuse grids with more cells than this; the cell size grows until the grid fits.
    std::size_t maxCells = std::size_t(1) << 22;

    bool operator==(const TetLocatorSettings&) const = default;
};

/// Where a point lies: the tet holding it (kInvalidIndex outside the mesh) and its barycentric
/// coordinates there.
struct TetLocation
{
    Index tet = kInvalidIndex;
    Bary bary = Bary::Zero();

    bool found() const { return tet != kInvalidIndex; }
};

/// A uniform grid over the mesh bounds; each cell lists (in increasing order) the tets whose bounding
/// box overlaps it. Each tet also stores the affine map to its barycentric coordinates.
class TetLocator
{
public:
    /// An empty locator: every point is outside.
    TetLocator() = default;
    /// Builds the grid; `mesh` needs only nodes and tets. Throws shatter::Error for bad options.
    explicit TetLocator(const TetMesh& mesh, const TetLocatorSettings& options = {});

    /// The tet holding p: the lowest-numbered tet of p's cell whose barycentric coordinates are all
    /// ≥ −tolerance, so a point on a shared face or edge gets a deterministic answer without testing
    /// every tet around it (sphere-tree points on crack edges are exactly such points); kInvalidIndex
    /// if there is none (outside the mesh).
    TetLocation locate(const Vec3& p) const;
    /// Barycentric coordinates of p in tet t (also outside it).
    Bary barycentric(Index t, const Vec3& p) const
    {
        const TetFrame& f = frames[t];
        const Vec3 b = f.toBary * (p - f.origin);
        return Bary(1 - b.sum(), b[0], b[1], b[2]);
    }

    bool empty() const { return frames.empty(); }
    Real cellSize() const { return cell; }
    std::array<Index, 3> dimensions() const { return dims; }
    /// Mean and maximum number of tets listed per non-empty cell (a measure of query cost).
    Real meanCellTets() const;
    Index maxCellTets() const;

private:
    struct TetFrame
    {
        Mat3 toBary; // maps x − origin to barycentric coordinates 1..3
        Vec3 origin; // node 0
    };
    static_assert(sizeof(TetFrame) == 96, "TetFrame is read per candidate tet; keep it compact");

    // The two large arrays live on huge pages where the system has them (LargeArray): a locate reads
    // scattered frames and cell lists, so fewer TLB misses pay (docs/algorithms.md, "Measurements").
    LargeArray<TetFrame> frames;
    Vec3 origin = Vec3::Zero();
    Real cell = 1;
    Real inverseCell = 1;
    std::array<Index, 3> dims = {0, 0, 0};
    // A cell's candidate: the tet with the part of its bounding box inside the cell, in 1/255ths of
    // the cell (rounded outward). Only the tets whose box holds p get their frame read. 12 bytes
    // where a box of floats would take 28, at the same query speed: a locate reads about five
    // candidates in a row.
    struct Candidate
    {
        std::uint8_t lo[3], hi[3];
        Index tet;
    };
    static_assert(sizeof(Candidate) == 12);

    std::vector<Index> cellOffsets; // CSR over cells, x fastest
    LargeArray<Candidate> cellTets;
    Real tolerance = 0;
};

} // namespace shatter
