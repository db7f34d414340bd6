// Narrow-band regular distance grid (TVCG §4.4).
//
// TVCG uses a dense regular grid of exact distances "near original surfaces": there, fracture does not
// change distances, so the runtime penetration query takes the minimum of this grid and the coarser,
// dynamically updated fragment distance field. Far from the surface the fragment field is what
// matters, so exact values are only computed in a band of a few cells around the surface.
//
// Each grid point near the surface asks the signed distance field for the closest triangle within the
// band. Three observations keep the build fast:
//  * Only points within the band of some BVH leaf box can be within the band of the surface. Leaves
//    are bucketed by z-slice, and each slice marks the rectangles their grown boxes cover; every
//    other point is out of the band without a query. For a closed surface that skips most of the grid.
//  * Along a row, consecutive points are one cell apart, so the previous point's closest surface point
//    bounds the current distance from above; passing that bound as the query's reach prunes most of
//    the tree (1-Lipschitz distance).
//  * Points outside the band need only their side. With a band of at least one cell, the surface can
//    only cross a row between two in-band points (both ends of the crossing segment are within one
//    cell of the crossing), so every run of out-of-band points has the side of the in-band point
//    before it; rows start outside the mesh's box, hence outside. The one gap is an in-band point on
//    the surface itself (a grid aligned with a box face does that), whose neighbour may lie exactly on
//    the band's edge: that neighbour asks for its own side. Otherwise no inside test is ever needed.
//
// Slices are independent and every value depends only on its own row, so the result is the same for
// any thread count.
#include "distance_grid.h"

#include "shatter/error.h"
#include "signed_distance.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace shatter
{

namespace
{

void checkSettings(const DistanceGridSettings& options)
{
    const char* source = "DistanceGridSettings";
    if (!(options.cellSize >= 0) || !std::isfinite(options.cellSize))
        throw Error(source, "cellSize must be finite and ≥ 0 (0: automatic), got " +
                                std::to_string(options.cellSize));
    if (options.cellSize == 0 && !(options.cellFactor > 0 && std::isfinite(options.cellFactor)))
        throw Error(source, "cellFactor must be finite and > 0, got " + std::to_string(options.cellFactor));
    if (!(options.bandCells >= 1) || !std::isfinite(options.bandCells))
        throw Error(source, "bandCells must be finite and ≥ 1, got " + std::to_string(options.bandCells));
}

// BVH leaves whose box, grown by the band, reaches each z-slice (CSR). A grid point farther than the
// band from every leaf box is farther than the band from the surface, so only points inside some grown
// leaf box need a query at all: for a closed surface that is a thin shell of the grid.
struct SliceLeaves
{
    std::vector<Aabb> boxes;    // every leaf's bounds
    std::vector<Index> offsets; // leaves of slice k: leaves[offsets[k], offsets[k + 1])
    std::vector<Index> leaves;  // indices into boxes

    SliceLeaves(const DistanceGrid& grid, const TriangleBvh& bvh) : boxes(bvh.leafBounds())
    {
        const Index slices = grid.dims[2];
        offsets.assign(slices + 1, 0);
        for (int pass = 0; pass < 2; ++pass) // count, then fill
        {
            std::vector<Index> cursor(offsets.begin(), offsets.end() - 1);
            for (Index n = 0; n < boxes.size(); ++n)
            {
                const auto [k0, k1] = range(grid, boxes[n], 2);
                for (Index k = k0; k <= k1; ++k)
                    pass == 0 ? void(++offsets[k + 1]) : void(leaves[cursor[k]++] = n);
            }
            if (pass == 0)
            {
                for (Index k = 0; k < slices; ++k)
                    offsets[k + 1] += offsets[k];
                leaves.resize(offsets[slices]);
            }
        }
    }

    // Grid indices along `axis` within the band of `box`, clamped to the grid.
    static std::pair<Index, Index> range(const DistanceGrid& grid, const Aabb& box, int axis)
    {
        const Real low = std::ceil((box.min[axis] - grid.bandWidth - grid.origin[axis]) / grid.cellSize);
        const Real high = std::floor((box.max[axis] + grid.bandWidth - grid.origin[axis]) / grid.cellSize);
        const Real last = Real(grid.dims[axis] - 1);
        return {Index(std::clamp(low, Real(0), last)), Index(std::clamp(high, Real(0), last))};
    }
};

// Fills one z-slice; `candidates` is scratch of dims[0] × dims[1]. Every row is independent: see the
// essay above for the side of out-of-band points.
void fillSlice(DistanceGrid& grid, const SignedDistanceField& field, const SliceLeaves& sliceLeaves, Index k,
               std::vector<std::uint8_t>& candidates)
{
    const Index nx = grid.dims[0];
    std::fill(candidates.begin(), candidates.end(), std::uint8_t(0));
    for (Index l = sliceLeaves.offsets[k]; l < sliceLeaves.offsets[k + 1]; ++l)
    {
        const Aabb& leaf = sliceLeaves.boxes[sliceLeaves.leaves[l]];
        const auto [i0, i1] = SliceLeaves::range(grid, leaf, 0);
        const auto [j0, j1] = SliceLeaves::range(grid, leaf, 1);
        for (Index j = j0; j <= j1; ++j)
            std::fill(candidates.begin() + std::size_t(j) * nx + i0,
                      candidates.begin() + std::size_t(j) * nx + i1 + 1, std::uint8_t(1));
    }

    const float sentinel = static_cast<float>(grid.bandWidth);
    // Below this, a distance's sign says nothing about the next point's side (see sideKnown).
    const Real sureSide = Real(1e-6) * grid.cellSize;
    for (Index j = 0; j < grid.dims[1]; ++j)
    {
        float side = 1; // rows start outside the mesh's bounding box
        // False after a point on (or within round-off of) the surface: the surface may pass through a
        // grid point and, with a one-cell band, the next point may sit exactly at the band's edge, so
        // the sweep's argument has no slack left. The next out-of-band point then asks for its side.
        bool sideKnown = true;
        Vec3 previous = Vec3::Zero();
        bool havePrevious = false;
        for (Index i = 0; i < nx; ++i)
        {
            float& value = grid.values[grid.pointIndex(i, j, k)];
            const Vec3 p = grid.pointPosition(i, j, k);
            SignedDistance d;
            if (candidates[std::size_t(j) * nx + i])
            {
                Real reach = grid.bandWidth; // an upper bound of the distance, capped by the band
                if (havePrevious)
                    reach = std::min(reach, (p - previous).norm() * Real(1 + 1e-9));
                d = field.signedDistance(p, reach);
                if (!d.found() && reach < grid.bandWidth) // round-off excluded the bounding triangle
                    d = field.signedDistance(p, grid.bandWidth);
            }
            if (d.found() && std::abs(d.distance) < grid.bandWidth)
            {
                value = static_cast<float>(d.distance);
                sideKnown = std::abs(d.distance) > sureSide;
                if (sideKnown)
                    side = d.distance < 0 ? -1.0f : 1.0f;
                previous = d.closestPoint;
                havePrevious = true;
                continue;
            }
            if (!d.found() && !sideKnown)
                d = field.signedDistance(p);
            if (d.found()) // at or beyond the band's edge, with its own side known
            {
                side = d.distance < 0 ? -1.0f : 1.0f;
                sideKnown = true;
            }
            value = side * sentinel;
            havePrevious = false;
        }
    }
}

} // namespace

Aabb DistanceGrid::bounds() const
{
    Aabb box;
    if (empty())
        return box;
    box.min = origin;
    box.max = pointPosition(dims[0] - 1, dims[1] - 1, dims[2] - 1);
    return box;
}

GridSample DistanceGrid::sample(const Vec3& p) const
{
    GridSample result;
    if (values.empty())
        return result;
    const Vec3 u = (p - origin) / cellSize;
    Index cell[3];
    Real t[3];
    for (int a = 0; a < 3; ++a)
    {
        if (!(u[a] >= 0 && u[a] <= Real(dims[a] - 1))) // also rejects NaN
            return result;
        cell[a] = std::min(Index(u[a]), dims[a] - 2);
        t[a] = u[a] - Real(cell[a]);
    }
    const std::size_t base = pointIndex(cell[0], cell[1], cell[2]);
    const std::size_t dy = dims[0];
    const std::size_t dz = std::size_t(dims[0]) * dims[1];
    const float corners[8] = {values[base],           values[base + 1],          values[base + dy],
                              values[base + dy + 1],  values[base + dz],         values[base + dz + 1],
                              values[base + dz + dy], values[base + dz + dy + 1]};
    for (float c : corners)
        if (!inBand(c))
            return result;
    Real v[8];
    for (int c = 0; c < 8; ++c)
        v[c] = corners[c];

    // Corner c has offsets (c & 1, c >> 1 & 1, c >> 2 & 1).
    const Real x0 = 1 - t[0], y0 = 1 - t[1], z0 = 1 - t[2];
    const Real c00 = v[0] * x0 + v[1] * t[0]; // y = 0, z = 0
    const Real c10 = v[2] * x0 + v[3] * t[0]; // y = 1, z = 0
    const Real c01 = v[4] * x0 + v[5] * t[0]; // y = 0, z = 1
    const Real c11 = v[6] * x0 + v[7] * t[0]; // y = 1, z = 1
    const Real c0 = c00 * y0 + c10 * t[1];
    const Real c1 = c01 * y0 + c11 * t[1];
    result.valid = true;
    result.distance = c0 * z0 + c1 * t[2];
    const Real gx =
        ((v[1] - v[0]) * y0 + (v[3] - v[2]) * t[1]) * z0 + ((v[5] - v[4]) * y0 + (v[7] - v[6]) * t[1]) * t[2];
    const Real gy = (c10 - c00) * z0 + (c11 - c01) * t[2];
    const Real gz = c1 - c0;
    result.gradient = Vec3(gx, gy, gz) / cellSize;
    return result;
}

void DistanceGrid::validate(const std::string& source) const
{
    if (values.empty() && pointCount() == 0)
        return;
    if (dims[0] < 2 || dims[1] < 2 || dims[2] < 2)
        throw Error(source, "distance grid needs at least 2 points along each axis");
    if (pointCount() != values.size())
        throw Error(source, "distance grid has " + std::to_string(values.size()) + " values for " +
                                std::to_string(pointCount()) + " points");
    if (!(cellSize > 0) || !std::isfinite(cellSize) || !(bandWidth > 0) || !std::isfinite(bandWidth))
        throw Error(source, "distance grid cell size and band width must be finite and positive");
    if (!origin.allFinite())
        throw Error(source, "distance grid origin is not finite");
    const float limit = static_cast<float>(bandWidth);
    for (float v : values)
        if (!(std::abs(v) <= limit))
            throw Error(source, "distance grid value " + std::to_string(v) + " is outside ±bandWidth");
}

DistanceGrid DistanceGrid::build(const TriMesh& mesh, const DistanceGridSettings& options,
                                 const ProgressCallback& progress)
{
    checkSettings(options);
    return build(SignedDistanceField(mesh), options, progress);
}

DistanceGrid DistanceGrid::layout(const SignedDistanceField& field, const DistanceGridSettings& options,
                                  Real& points)
{
    checkSettings(options);
    if (field.empty())
        throw Error("DistanceGrid", "cannot build a distance grid over an empty signed distance field");

    DistanceGrid grid;
    grid.cellSize = options.cellSize > 0 ? options.cellSize : options.cellFactor * field.meanEdgeLength();
    if (!(grid.cellSize > 0) || !std::isfinite(grid.cellSize))
        throw Error("DistanceGridSettings",
                    "the automatic cell size is not positive (all edges have zero length)");
    grid.bandWidth = options.bandCells * grid.cellSize;
    // One cell beyond the band, so every band point is inside the grid and rows start off the mesh.
    const Real margin = grid.bandWidth + grid.cellSize;
    const Aabb box = field.bounds();
    grid.origin = box.min - Vec3::Constant(margin);
    points = 1;
    for (int a = 0; a < 3; ++a)
    {
        const Real cells = std::ceil((box.extent()[a] + 2 * margin) / grid.cellSize);
        grid.dims[a] = Index(std::min(cells + 1, Real(options.maxPoints) + 1));
        points *= cells + 1;
    }
    return grid;
}

DistanceGrid DistanceGrid::build(const SignedDistanceField& field, const DistanceGridSettings& options,
                                 const ProgressCallback& progress)
{
    Real points = 0;
    DistanceGrid grid = layout(field, options, points);
    if (points > Real(options.maxPoints))
        throw Error("DistanceGridSettings", "a grid of cell size " + std::to_string(grid.cellSize) +
                                                " needs " + std::to_string(points) +
                                                " points, more than maxPoints (" +
                                                std::to_string(options.maxPoints) + "); raise the cell size");
    grid.values.assign(grid.pointCount(), 0.0f);

    const Index slices = grid.dims[2];
    unsigned threadCount =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threadCount = std::min<unsigned>(threadCount, slices);
    std::atomic<Index> nextSlice{0};
    std::atomic<Index> doneSlices{0};
    std::atomic<bool> stop{false};
    std::exception_ptr failure;
    std::mutex failureMutex;
    const SliceLeaves sliceLeaves(grid, field.bvh());
    auto work = [&](bool report)
    {
        try
        {
            std::vector<std::uint8_t> candidates(std::size_t(grid.dims[0]) * grid.dims[1]);
            for (Index k = nextSlice++; k < slices && !stop; k = nextSlice++)
            {
                fillSlice(grid, field, sliceLeaves, k, candidates);
                const Index done = ++doneSlices;
                if (report && progress)
                    progress("distance grid", Real(done) / Real(slices));
            }
        }
        catch (...)
        {
            const std::lock_guard lock(failureMutex);
            if (!failure)
                failure = std::current_exception();
            stop = true;
        }
    };
    std::vector<std::thread> workers;
    workers.reserve(threadCount - 1);
    for (unsigned t = 1; t < threadCount; ++t)
    {
        try
        {
            workers.emplace_back(work, false);
        }
        catch (const std::system_error&) // no more threads to be had: the others share the slices
        {
            break;
        }
    }
    work(true); // the calling thread works too, and is the only one to report progress
    for (std::thread& worker : workers)
        worker.join();
    if (failure)
        std::rethrow_exception(failure);
    if (progress)
        progress("distance grid", 1.0);
    return grid;
}

} // namespace shatter
