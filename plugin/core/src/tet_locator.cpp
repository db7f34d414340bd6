#include "tet_locator.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shatter
{

namespace
{

constexpr Real kMaxTolerance = 0.1;

// Resolution of a candidate's box: 1/255th of a cell per step, the most a byte holds.
constexpr Real kSteps = 255;

Real meanEdgeOf(const TetMesh& mesh)
{
    Real sum = 0;
    for (const Tet& t : mesh.tets)
        for (const auto& e : kTetEdges)
            sum += (mesh.nodes[t[e[0]]] - mesh.nodes[t[e[1]]]).norm();
    return mesh.tets.empty() ? Real(0) : sum / Real(6 * mesh.tets.size());
}

// Separating-axis test of a tet against axis-aligned cells (the cell axes are handled by iterating only
// the cells of the tet's box): the tet's 4 face normals and the 18 cross products of its edges with the
// coordinate axes. The tet's extent along each axis is computed once per tet; a cell then costs one
// projection of its center and half size per axis.
struct TetAxes
{
    std::array<Vec3, 22> axis;
    std::array<Real, 22> lo, hi;
    int count = 0;

    explicit TetAxes(const std::array<Vec3, 4>& c)
    {
        auto add = [&](const Vec3& a)
        {
            if (!(a.squaredNorm() > 0))
                return;
            Real l = std::numeric_limits<Real>::infinity(), h = -l;
            for (const Vec3& p : c)
            {
                l = std::min(l, a.dot(p));
                h = std::max(h, a.dot(p));
            }
            axis[count] = a;
            lo[count] = l;
            hi[count] = h;
            ++count;
        };
        for (const auto& f : kTetFaces)
            add((c[f[1]] - c[f[0]]).cross(c[f[2]] - c[f[0]]));
        for (const auto& e : kTetEdges)
            for (int a = 0; a < 3; ++a)
                add((c[e[1]] - c[e[0]]).cross(Vec3::Unit(a)));
    }

    bool overlaps(const Vec3& center, const Vec3& half) const
    {
        for (int k = 0; k < count; ++k)
        {
            const Real m = axis[k].dot(center);
            const Real r = half.dot(axis[k].cwiseAbs());
            // A small slack keeps the test conservative under round-off.
            const Real slack = Real(1e-9) * (r + hi[k] - lo[k]);
            if (lo[k] > m + r + slack || hi[k] < m - r - slack)
                return false;
        }
        return true;
    }
};

} // namespace

TetLocator::TetLocator(const TetMesh& mesh, const TetLocatorSettings& options)
{
    if (!(options.cellFactor > 0))
        throw Error("TetLocatorSettings", "cellFactor must be > 0");
    if (!(options.tolerance >= 0 && options.tolerance <= kMaxTolerance))
        throw Error("TetLocatorSettings", "tolerance must be in [0, 0.1]");
    if (options.maxCells < 1)
        throw Error("TetLocatorSettings", "maxCells must be >= 1");
    tolerance = options.tolerance;
    if (mesh.tets.empty())
        return;

    // The points a tet accepts, those whose barycentric coordinates are all ≥ −tolerance, form the
    // tet scaled by 1 + 4·tolerance about its centroid (a vertex of that region has three
    // coordinates equal to −tolerance and the fourth 1 + 3·tolerance). The grid, the cell lists and
    // the boxes are built from these enlarged tets, so that no accepted point is ever filtered out.
    const auto acceptedRegion = [&](const Tet& tet)
    {
        std::array<Vec3, 4> corners;
        Vec3 centroid = Vec3::Zero();
        for (int k = 0; k < 4; ++k)
            centroid += mesh.nodes[tet[k]] / 4;
        for (int k = 0; k < 4; ++k)
            corners[k] = centroid + (1 + 4 * tolerance) * (mesh.nodes[tet[k]] - centroid);
        return corners;
    };
    Aabb bounds;
    for (const Tet& t : mesh.tets)
        for (const Vec3& c : acceptedRegion(t))
            bounds.grow(c);
    const Vec3 extent = bounds.extent();
    cell = std::max(options.cellFactor * meanEdgeOf(mesh), Real(1e-9) * extent.maxCoeff());
    for (;;)
    {
        for (int a = 0; a < 3; ++a)
            dims[a] = Index(std::floor(extent[a] / cell)) + 1;
        if (Real(dims[0]) * dims[1] * dims[2] <= Real(options.maxCells))
            break;
        cell *= Real(1.25);
    }
    inverseCell = 1 / cell;
    origin = bounds.min;

    frames.resize(mesh.tets.size());
    // Each box is padded by a millionth of a cell, far more than the round-off between the
    // expressions that quantize it here and place p in locate(), and then quantized outward.
    const Real pad = Real(1e-6) * cell;
    std::vector<Aabb> boxes(mesh.tets.size());
    std::vector<std::array<Index, 2>> pairs; // (cell, tet)
    pairs.reserve(mesh.tets.size() * 8);
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const Tet& tet = mesh.tets[t];
        const Vec3& p0 = mesh.nodes[tet[0]];
        Mat3 m;
        for (int k = 0; k < 3; ++k)
            m.col(k) = mesh.nodes[tet[k + 1]] - p0;
        frames[t] = {m.inverse(), p0};

        const std::array<Vec3, 4> region = acceptedRegion(tet);
        Aabb& box = boxes[t];
        for (const Vec3& c : region)
            box.grow(c);
        box.min.array() -= pad;
        box.max.array() += pad;
        std::array<Index, 3> lo, hi;
        for (int a = 0; a < 3; ++a)
        {
            lo[a] = std::min(dims[a] - 1, Index(std::max(Real(0), (box.min[a] - origin[a]) * inverseCell)));
            hi[a] = std::min(dims[a] - 1, Index(std::max(Real(0), (box.max[a] - origin[a]) * inverseCell)));
        }
        const TetAxes axes(region);
        const Vec3 half = Vec3::Constant(Real(0.5) * cell);
        for (Index z = lo[2]; z <= hi[2]; ++z)
            for (Index y = lo[1]; y <= hi[1]; ++y)
                for (Index x = lo[0]; x <= hi[0]; ++x)
                {
                    // Register the tet only in the cells it really overlaps (see TetAxes).
                    if (axes.overlaps(origin + cell * Vec3(x + Real(0.5), y + Real(0.5), z + Real(0.5)),
                                      half))
                        pairs.push_back({(z * dims[1] + y) * dims[0] + x, t});
                }
    }
    std::sort(pairs.begin(), pairs.end());
    const std::size_t cellCount = std::size_t(dims[0]) * dims[1] * dims[2];
    cellOffsets.assign(cellCount + 1, 0);
    for (const auto& p : pairs)
        ++cellOffsets[p[0] + 1];
    for (std::size_t c = 0; c < cellCount; ++c)
        cellOffsets[c + 1] += cellOffsets[c];
    cellTets.resize(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
    {
        const auto [c, t] = pairs[i];
        const Index cellCoordinate[3] = {c % dims[0], c / dims[0] % dims[1], c / dims[0] / dims[1]};
        Candidate& candidate = cellTets[i];
        candidate.tet = t;
        for (int a = 0; a < 3; ++a)
        {
            // In the cell's own units (as locate() computes them), clipped to the cell; floor and ceil
            // round outward.
            const auto inCell = [&](Real x)
            {
                return std::clamp(((x - origin[a]) * inverseCell - Real(cellCoordinate[a])) * kSteps, Real(0),
                                  kSteps);
            };
            candidate.lo[a] = std::uint8_t(std::floor(inCell(boxes[t].min[a])));
            candidate.hi[a] = std::uint8_t(std::ceil(inCell(boxes[t].max[a])));
        }
    }
}

TetLocation TetLocator::locate(const Vec3& p) const
{
    TetLocation result;
    if (frames.empty())
        return result;
    Index c[3];
    Real q[3];
    for (int a = 0; a < 3; ++a)
    {
        const Real u = (p[a] - origin[a]) * inverseCell;
        // The bounds hold every tet's accepted region; the slack covers round-off.
        if (!(u >= -Real(1e-6) && u < Real(dims[a]) + Real(1e-6))) // also rejects NaN
            return result;
        c[a] = std::min(dims[a] - 1, Index(std::max(Real(0), u)));
        // p in its cell's units (see Candidate), clamped to the cell: a point just outside the grid
        // moves onto the boundary, which lies in every clipped box that held the point unclipped.
        q[a] = std::clamp((u - Real(c[a])) * kSteps, Real(0), kSteps);
    }
    const Index cellIndex = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
    for (Index i = cellOffsets[cellIndex]; i < cellOffsets[cellIndex + 1]; ++i)
    {
        const Candidate& candidate = cellTets[i];
        if (q[0] < candidate.lo[0] || q[0] > candidate.hi[0] || q[1] < candidate.lo[1] ||
            q[1] > candidate.hi[1] || q[2] < candidate.lo[2] || q[2] > candidate.hi[2])
            continue;
        const Bary b = barycentric(candidate.tet, p);
        if (b.minCoeff() >= -tolerance) // p is in the tet or on its boundary: the first such tet wins
        {
            result.tet = candidate.tet;
            result.bary = b;
            return result;
        }
    }
    return result;
}

Real TetLocator::meanCellTets() const
{
    std::size_t used = 0;
    for (std::size_t c = 0; c + 1 < cellOffsets.size(); ++c)
        used += cellOffsets[c + 1] > cellOffsets[c];
    return used ? Real(cellTets.size()) / Real(used) : Real(0);
}

Index TetLocator::maxCellTets() const
{
    Index most = 0;
    for (std::size_t c = 0; c + 1 < cellOffsets.size(); ++c)
        most = std::max(most, cellOffsets[c + 1] - cellOffsets[c]);
    return most;
}

} // namespace shatter
