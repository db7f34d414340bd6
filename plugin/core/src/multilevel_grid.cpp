#include "multilevel_grid.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

MultilevelGrid::MultilevelGrid(const Aabb& bounds, Real finestCell, const MultilevelGridSettings& options)
{
    if (!(options.cellFactor > 0))
        throw Error("MultilevelGridSettings", "cellFactor must be > 0");
    if (options.maxCells < 1)
        throw Error("MultilevelGridSettings", "maxCells must be >= 1");
    if (bounds.empty() || !(finestCell > 0))
        throw Error("MultilevelGrid", "needs a non-empty box and a positive cell size");
    origin = bounds.min;
    const Vec3 extent = bounds.extent();
    Real cell = std::max(finestCell, Real(1e-9) * extent.maxCoeff());
    std::array<Index, 3> dims{};
    for (;;)
    {
        for (int a = 0; a < 3; ++a)
            dims[a] = Index(std::floor(extent[a] / cell)) + 1;
        if (Real(dims[0]) * dims[1] * dims[2] <= Real(options.maxCells))
            break;
        cell *= Real(1.25);
    }
    for (;;)
    {
        levels.push_back({cell, dims});
        if (dims[0] == 1 && dims[1] == 1 && dims[2] == 1)
            break;
        for (Index& d : dims)
            d = (d + 1) / 2;
        cell *= 2;
    }
    words.resize(levels.size());
    stamps.resize(levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l)
        stamps[l].assign(levels[l].cellCount(), 0);
    reserveFragments(64);
}

void MultilevelGrid::reserveFragments(FragmentId count)
{
    const std::size_t needed = (std::size_t(count) + 63) / 64;
    while (wordCount < needed)
    {
        for (std::size_t l = 0; l < levels.size(); ++l)
            words[l].emplace_back(levels[l].cellCount(), 0);
        ++wordCount;
    }
}

int MultilevelGrid::levelFor(Real radius) const
{
    for (int l = 0; l < levelCount(); ++l)
        if (levels[l].cellSize > 2 * radius)
            return l;
    return -1;
}

bool MultilevelGrid::cellHas(int level, Index x, Index y, Index z, FragmentId f) const
{
    const Level& L = levels[level];
    if (x >= L.dims[0] || y >= L.dims[1] || z >= L.dims[2] || f / 64 >= wordCount)
        return false;
    return (words[level][f / 64][L.cellIndex(x, y, z)] >> (f % 64)) & 1;
}

bool MultilevelGrid::mayIntersect(const Vec3& p, Real radius, FragmentId f) const
{
    if (levels.empty())
        return true;
    const int level = levelFor(radius);
    if (level < 0)
        return true;
    if (f / 64 >= wordCount)
        return false; // never marked
    const Level& L = levels[level];
    // Grid point g closest to p; the eight cells sharing it cover g ± h, which holds the sphere because
    // |p − g| ≤ h/2 per axis and r < h/2.
    std::array<long, 3> g{};
    for (int a = 0; a < 3; ++a)
    {
        const Real u = std::round((p[a] - origin[a]) / L.cellSize);
        if (!(u >= 0 && u <= Real(L.dims[a]))) // the eight cells are all outside the grid (or NaN)
            return false;
        g[a] = long(u);
    }
    const std::vector<std::uint64_t>& plane = words[level][f / 64];
    const std::uint64_t bit = std::uint64_t(1) << (f % 64);
    for (long z = g[2] - 1; z <= g[2]; ++z)
    {
        if (z < 0 || z >= long(L.dims[2]))
            continue;
        for (long y = g[1] - 1; y <= g[1]; ++y)
        {
            if (y < 0 || y >= long(L.dims[1]))
                continue;
            for (long x = g[0] - 1; x <= g[0]; ++x)
                if (x >= 0 && x < long(L.dims[0]) && (plane[L.cellIndex(Index(x), Index(y), Index(z))] & bit))
                    return true;
        }
    }
    return false;
}

bool MultilevelGrid::finestCells(const Aabb& box, std::array<Index, 3>& lo, std::array<Index, 3>& hi) const
{
    const Level& L = levels[0];
    for (int a = 0; a < 3; ++a)
    {
        const Real u0 = (box.min[a] - origin[a]) / L.cellSize;
        const Real u1 = (box.max[a] - origin[a]) / L.cellSize;
        if (!(u1 >= 0 && u0 < Real(L.dims[a])))
            return false;
        lo[a] = Index(std::max(Real(0), std::floor(u0)));
        hi[a] = Index(std::min(Real(L.dims[a] - 1), std::floor(u1)));
        if (hi[a] < lo[a])
            return false;
    }
    return true;
}

template <class Op>
void MultilevelGrid::forCells(const Aabb& box, Op&& op) const
{
    const Level& L = levels[0];
    std::array<Index, 3> lo{}, hi{};
    if (!finestCells(box, lo, hi))
        return;
    for (Index z = lo[2]; z <= hi[2]; ++z)
        for (Index y = lo[1]; y <= hi[1]; ++y)
            for (Index x = lo[0]; x <= hi[0]; ++x)
                op(L.cellIndex(x, y, z));
}

CellRange MultilevelGrid::cellRange(const Aabb& box, bool& fits) const
{
    fits = true;
    CellRange range;
    if (levels.empty())
        return range;
    std::array<Index, 3> lo{}, hi{};
    if (!finestCells(box, lo, hi)) // forCells' cells exactly
        return range;
    for (int a = 0; a < 3; ++a)
    {
        if (hi[a] - lo[a] >= 255)
        {
            fits = false;
            return {};
        }
        range.lo[a] = lo[a];
        range.count[a] = std::uint8_t(hi[a] - lo[a] + 1);
    }
    return range;
}

void MultilevelGrid::mark(const CellRange& range, FragmentId f, std::vector<Index>& dirty)
{
    SHATTER_ASSERT(!levels.empty() && f / 64 < wordCount);
    if (range.empty())
        return;
    const Level& L = levels[0];
    std::uint64_t* plane = words[0][f / 64].data();
    Index* stamp = stamps[0].data();
    const std::uint64_t bit = std::uint64_t(1) << (f % 64);
    for (Index z = range.lo[2]; z < range.lo[2] + range.count[2]; ++z)
        for (Index y = range.lo[1]; y < range.lo[1] + range.count[1]; ++y)
        {
            const Index row = L.cellIndex(0, y, z);
            for (Index x = range.lo[0]; x < range.lo[0] + range.count[0]; ++x)
            {
                const Index c = row + x;
                if (plane[c] & bit)
                    continue; // marked (and made dirty) earlier in this batch, or already propagated
                plane[c] |= bit;
                if (stamp[c] != batch)
                {
                    stamp[c] = batch;
                    dirty.push_back(c);
                }
            }
        }
}

void MultilevelGrid::mark(const Aabb& box, FragmentId f, std::vector<Index>& dirty)
{
    SHATTER_ASSERT(!levels.empty() && f / 64 < wordCount);
    std::vector<std::uint64_t>& plane = words[0][f / 64];
    const std::uint64_t bit = std::uint64_t(1) << (f % 64);
    forCells(box,
             [&](Index c)
             {
                 plane[c] |= bit;
                 if (stamps[0][c] != batch)
                 {
                     stamps[0][c] = batch;
                     dirty.push_back(c);
                 }
             });
}

void MultilevelGrid::clear(const Aabb& box, FragmentId f, std::vector<Index>& dirty)
{
    SHATTER_ASSERT(!levels.empty() && f / 64 < wordCount);
    std::vector<std::uint64_t>& plane = words[0][f / 64];
    const std::uint64_t bit = std::uint64_t(1) << (f % 64);
    forCells(box,
             [&](Index c)
             {
                 plane[c] &= ~bit;
                 if (stamps[0][c] != batch)
                 {
                     stamps[0][c] = batch;
                     dirty.push_back(c);
                 }
             });
}

void MultilevelGrid::propagate(std::vector<Index>& dirty, std::span<const FragmentId> fragments)
{
    // The word planes touched by the fragments, each once.
    std::vector<std::size_t> planes;
    for (FragmentId f : fragments)
        if (std::find(planes.begin(), planes.end(), f / 64) == planes.end())
            planes.push_back(f / 64);

    for (std::size_t l = 1; l < levels.size(); ++l)
    {
        const Level& child = levels[l - 1];
        const Level& parent = levels[l];
        // Parents of the dirty child cells, each once.
        nextDirty.clear();
        for (Index c : dirty)
        {
            const Index x = c % child.dims[0];
            const Index y = (c / child.dims[0]) % child.dims[1];
            const Index z = c / (child.dims[0] * child.dims[1]);
            const Index p = parent.cellIndex(x / 2, y / 2, z / 2);
            if (stamps[l][p] != batch)
            {
                stamps[l][p] = batch;
                nextDirty.push_back(p);
            }
        }
        dirty.swap(nextDirty);
        for (Index c : dirty)
        {
            const Index px = c % parent.dims[0];
            const Index py = (c / parent.dims[0]) % parent.dims[1];
            const Index pz = c / (parent.dims[0] * parent.dims[1]);
            for (std::size_t w : planes)
            {
                const std::vector<std::uint64_t>& below = words[l - 1][w];
                std::uint64_t bits = 0;
                for (Index z = 2 * pz; z < std::min(2 * pz + 2, child.dims[2]); ++z)
                    for (Index y = 2 * py; y < std::min(2 * py + 2, child.dims[1]); ++y)
                        for (Index x = 2 * px; x < std::min(2 * px + 2, child.dims[0]); ++x)
                            bits |= below[child.cellIndex(x, y, z)];
                words[l][w][c] = bits;
            }
        }
    }
    dirty.clear();
    ++batch;
}

} // namespace shatter
