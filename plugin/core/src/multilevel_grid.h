// The multilevel fragment grid of TVCG §4.5: levels of cubic cells (level 0 finest, each coarser level
// doubles the cell size) with one fragment bitmask per cell. A sphere of radius r around p can only
// touch fragment f if f's bit is set in one of the eight cells, at the level whose cell size is just
// larger than 2r, around the grid point closest to p.
#pragma once

#include "fracture_result.h"
#include "shatter/math.h"

#include <span>
#include <vector>

namespace shatter
{

/// Settings of the MultilevelGrid constructor; checked there.
struct MultilevelGridSettings
{
    /// Finest cell size as a multiple of the mean tet edge length (> 0).
    Real cellFactor = 2.0;
    /// Refuse finest levels with more cells than this; the cell size grows until it fits.
    std::size_t maxCells = std::size_t(1) << 21;
};

/// The finest cells a box overlaps: [lo[a], lo[a] + count[a]) per axis (count 0: none). A tet's range
/// is fixed by the mesh, so ObjectState computes it once and marks whole tets from it.
struct CellRange
{
    std::array<Index, 3> lo = {0, 0, 0};
    std::array<std::uint8_t, 3> count = {0, 0, 0};
    bool empty() const { return count[0] == 0; }
};

/// Cell bitmasks over all levels, stored per level as structure-of-arrays "word planes": word w of
/// every cell of level l is contiguous (`words[l][w][cell]`), so a query reads eight nearby words of
/// one plane and growing past 64·k fragments appends one plane per level without moving anything.
/// Bits are only ever added at a fracture (the new fragments' regions); a retired fragment keeps its
/// bits, which is harmless because queries for it are answered before the grid is consulted. clear()
/// can retire it explicitly. Dirty cells are deduplicated with per-level stamps, so an update costs
/// O(marked cells), never O(grid).
class MultilevelGrid
{
public:
    /// An empty grid: mayIntersect() always answers true.
    MultilevelGrid() = default;
    /// Levels over `bounds` with finest cell `finestCell` (grown until the finest level has at most
    /// options.maxCells cells), up to the first level that is a single cell. Throws shatter::Error for
    /// bad options or an empty box.
    MultilevelGrid(const Aabb& bounds, Real finestCell, const MultilevelGridSettings& options = {});

    int levelCount() const { return int(levels.size()); }
    Real cellSize(int level) const { return levels[level].cellSize; }
    std::array<Index, 3> dimensions(int level) const { return levels[level].dims; }
    /// Fragments the masks can hold now (a multiple of 64; grows on demand).
    FragmentId capacity() const { return FragmentId(wordCount * 64); }

    /// The coarsest level needed for radius r: the finest level whose cell size is > 2r, or −1 if even
    /// the coarsest level is too small (then no culling is possible).
    int levelFor(Real radius) const;
    /// False only if no point of fragment f can lie within `radius` of p (conservative, exact in the
    /// sense that the registered cells cover f). Allocation-free.
    bool mayIntersect(const Vec3& p, Real radius, FragmentId f) const;
    /// True if f's bit is set in cell (x, y, z) of `level` (false outside the grid).
    bool cellHas(int level, Index x, Index y, Index z, FragmentId f) const;

    /// Makes room for fragment ids below `count`.
    void reserveFragments(FragmentId count);
    /// Sets f's bit in every finest cell overlapping `box`, appending the cells not yet in `dirty` since
    /// the last propagate() to it.
    void mark(const Aabb& box, FragmentId f, std::vector<Index>& dirty);
    /// The finest cells mark(box, ...) would set, when each axis spans at most 255 cells; otherwise
    /// `fits` is false (and the range unusable). Empty if the box misses the grid.
    CellRange cellRange(const Aabb& box, bool& fits) const;
    /// mark() over a range from cellRange(): the same bits as mark() of its box, and the same dirty
    /// cells provided f's bit was set before this batch only in cells whose coarser levels were
    /// propagated since (a cell that already has the bit is skipped). ObjectState marks only new
    /// fragments, whose bits are all unset before their event.
    void mark(const CellRange& range, FragmentId f, std::vector<Index>& dirty);
    /// Clears f's bit in every finest cell overlapping `box` (cells appended as by mark()).
    void clear(const Aabb& box, FragmentId f, std::vector<Index>& dirty);
    /// Bottom-up update: recomputes, for the word planes of `fragments`, every coarser cell above the
    /// finest cells in `dirty` as the OR of its (up to eight) children. `dirty` is consumed (left
    /// empty) and a new batch begins.
    void propagate(std::vector<Index>& dirty, std::span<const FragmentId> fragments);

private:
    struct Level
    {
        Real cellSize = 0;
        std::array<Index, 3> dims = {0, 0, 0};
        std::size_t cellCount() const { return std::size_t(dims[0]) * dims[1] * dims[2]; }
        Index cellIndex(Index x, Index y, Index z) const { return (z * dims[1] + y) * dims[0] + x; }
    };
    /// The finest level's cells [lo, hi] (inclusive) that `box` overlaps; false when it overlaps none.
    bool finestCells(const Aabb& box, std::array<Index, 3>& lo, std::array<Index, 3>& hi) const;
    template <class Op>
    void forCells(const Aabb& box, Op&& op) const;

    Vec3 origin = Vec3::Zero();
    std::vector<Level> levels;
    std::size_t wordCount = 0;
    std::vector<std::vector<std::vector<std::uint64_t>>> words; // [level][word][cell]
    std::vector<std::vector<Index>> stamps;                     // [level][cell]: last batch that touched it
    Index batch = 1;                                            // the current mark/clear → propagate batch
    std::vector<Index> nextDirty;
};

} // namespace shatter
