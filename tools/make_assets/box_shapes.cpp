// The brick and the shelf of TVCG Table 1, both unions of boxes on one rectilinear grid.
//
// A solid made of grid cells has a boundary made of grid faces, so the union is done in the
// construction: the surface is the set of faces between a solid and an empty cell, its vertices are
// grid points, it is conforming (no T-junctions) and closed by construction, and it is a 2-manifold as
// long as no two solid cells touch along an edge only (true for both objects). Each face is a rectangle
// split into two right triangles; grid spacings are chosen near-uniform so they stay near-isosceles.
//
// Frame: metres, +Y up, centred in x and z, resting on y = 0.
#include "procedural.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <tuple>
#include <utility>

namespace shatter::assets
{

namespace
{

/// A rectilinear grid of cells: lines[a] are the coordinates of the planes across axis a.
struct CellGrid
{
    std::array<std::vector<Real>, 3> lines;
    std::function<bool(int, int, int)> solid; ///< is cell (i, j, k) part of the object

    int cells(int axis) const { return int(lines[axis].size()) - 1; }
    bool solidAt(std::array<int, 3> c) const
    {
        for (int a = 0; a < 3; ++a)
            if (c[a] < 0 || c[a] >= cells(a))
                return false;
        return solid(c[0], c[1], c[2]);
    }
};

/// `count` cells from `from` to `to`, appended without repeating `from` if already present. With
/// grading g in [0, 1) the cells shrink towards both ends, to (1 - g) times the mean size, through the
/// smooth map u -> u - g sin(2 pi u) / (2 pi).
void appendLines(std::vector<Real>& lines, Real from, Real to, int count, Real grading = 0)
{
    constexpr Real kTwoPi = 2 * std::numbers::pi_v<Real>;
    if (lines.empty())
        lines.push_back(from);
    for (int i = 1; i <= count; ++i)
    {
        const Real u = Real(i) / Real(count);
        lines.push_back(i == count ? to : from + (to - from) * (u - grading * std::sin(kTwoPi * u) / kTwoPi));
    }
}

TriMesh boundaryMesh(const CellGrid& grid)
{
    TriMesh mesh;
    const std::array<int, 3> points = {grid.cells(0) + 1, grid.cells(1) + 1, grid.cells(2) + 1};
    std::vector<Index> vertexOf(static_cast<std::size_t>(points[0]) * points[1] * points[2], kInvalidIndex);
    const auto vertex = [&](const std::array<int, 3>& p)
    {
        Index& v = vertexOf[(std::size_t(p[2]) * points[1] + p[1]) * points[0] + p[0]];
        if (v == kInvalidIndex)
        {
            v = Index(mesh.vertices.size());
            mesh.vertices.emplace_back(grid.lines[0][p[0]], grid.lines[1][p[1]], grid.lines[2][p[2]]);
        }
        return v;
    };
    // Faces across axis a at plane p between cells p - 1 and p. Corners (b0,c0), (b1,c0), (b1,c1),
    // (b0,c1) with (b, c) = (a+1, a+2) run counter-clockwise seen from +a.
    for (int a = 0; a < 3; ++a)
    {
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int p = 0; p < points[a]; ++p)
            for (int j = 0; j < grid.cells(c); ++j)
                for (int i = 0; i < grid.cells(b); ++i)
                {
                    std::array<int, 3> below{}, above{};
                    below[a] = p - 1;
                    above[a] = p;
                    below[b] = above[b] = i;
                    below[c] = above[c] = j;
                    const bool solidBelow = grid.solidAt(below);
                    if (solidBelow == grid.solidAt(above))
                        continue;
                    std::array<Index, 4> quad;
                    constexpr std::array<std::array<int, 2>, 4> kCorners = {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
                    for (int q = 0; q < 4; ++q)
                    {
                        std::array<int, 3> point{};
                        point[a] = p;
                        point[b] = i + kCorners[q][0];
                        point[c] = j + kCorners[q][1];
                        quad[solidBelow ? q : 3 - q] = vertex(point);
                    }
                    mesh.triangles.push_back({quad[0], quad[1], quad[2]});
                    mesh.triangles.push_back({quad[0], quad[2], quad[3]});
                }
    }
    return mesh;
}

/// An axis-aligned box of the union.
struct Box
{
    Vec3 min, max;
};

/// The union of `boxes` on a grid whose lines include every box face and are otherwise about
/// `spacing` apart, graded by `grading` (appendLines) between consecutive faces. Boxes must not touch
/// along an edge only (that would be non-manifold).
TriMesh boxUnion(const std::vector<Box>& boxes, Real spacing, Real grading)
{
    CellGrid grid;
    for (int a = 0; a < 3; ++a)
    {
        std::vector<Real> breaks;
        for (const Box& box : boxes)
        {
            breaks.push_back(box.min[a]);
            breaks.push_back(box.max[a]);
        }
        std::sort(breaks.begin(), breaks.end());
        breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
        for (std::size_t k = 0; k + 1 < breaks.size(); ++k)
            appendLines(grid.lines[a], breaks[k], breaks[k + 1],
                        std::max(1, int(std::lround((breaks[k + 1] - breaks[k]) / spacing))), grading);
    }
    grid.solid = [&grid, &boxes](int i, int j, int k)
    {
        const Vec3 centre(grid.lines[0][i] + grid.lines[0][i + 1], grid.lines[1][j] + grid.lines[1][j + 1],
                          grid.lines[2][k] + grid.lines[2][k + 1]);
        for (const Box& box : boxes)
            if (((2 * box.min).array() < centre.array()).all() &&
                (centre.array() < (2 * box.max).array()).all())
                return true;
        return false;
    };
    return boundaryMesh(grid);
}

/// boxUnion() at the spacing (from a fixed geometric sweep) whose triangle count is closest to the target.
TriMesh boxUnionWithTriangles(const std::vector<Box>& boxes, Real grading, Index targetTriangles)
{
    Aabb bounds;
    for (const Box& box : boxes)
    {
        bounds.grow(box.min);
        bounds.grow(box.max);
    }
    TriMesh best;
    for (int step = 0; step < 400; ++step)
    {
        TriMesh mesh = boxUnion(boxes, bounds.extent().maxCoeff() / 8 * std::pow(Real(0.99), step), grading);
        if (best.triangles.empty() || std::abs(Real(mesh.triangles.size()) - Real(targetTriangles)) <
                                          std::abs(Real(best.triangles.size()) - Real(targetTriangles)))
            best = std::move(mesh);
        if (mesh.triangles.size() > 2 * std::size_t(targetTriangles))
            break;
    }
    return best;
}

} // namespace

TriMesh makeBrick(const Target& target)
{
    // A standard 215 x 65 x 102.5 mm brick lying flat, its faces split into n[a] cells per axis.
    // Candidates: cells at most 1.35 times longer one way than another, triangles within 10 % of the
    // target. TetGen adds (almost) no interior node to a box this coarse, so Table 1's 224 points are
    // essentially surface vertices: the candidate whose vertex count is closest to the point target
    // wins (12 x 3 x 5: 224 vertices, 444 triangles; the 468-triangle grid 11 x 3 x 6 overshoots the
    // tets by 19 %). Without a point target the triangle count decides.
    const Vec3 size(0.215, 0.065, 0.1025);
    std::array<int, 3> best{1, 1, 1};
    std::tuple<long, long, Real> bestScore{std::numeric_limits<long>::max(), 0, 0};
    for (int nx = 1; nx <= 40; ++nx)
        for (int ny = 1; ny <= 40; ++ny)
            for (int nz = 1; nz <= 40; ++nz)
            {
                const Vec3 cell = size.cwiseQuotient(Vec3(nx, ny, nz));
                const Real aspect = cell.maxCoeff() / cell.minCoeff();
                const long triangles = 4L * (nx * ny + ny * nz + nz * nx);
                const long triangleError = std::abs(triangles - long(target.triangles));
                const long pointError =
                    target.points > 0 ? std::abs(triangles / 2 + 2 - long(target.points)) : 0;
                if (aspect > Real(1.35) || Real(triangleError) > Real(0.1) * Real(target.triangles))
                    continue;
                const std::tuple<long, long, Real> score{pointError, triangleError, aspect};
                if (score < bestScore)
                {
                    bestScore = score;
                    best = {nx, ny, nz};
                }
            }
    CellGrid grid;
    for (int a = 0; a < 3; ++a)
    {
        const Real from = a == 1 ? Real(0) : -size[a] / 2;
        appendLines(grid.lines[a], from, from + size[a], best[a]);
    }
    grid.solid = [](int, int, int)
    {
        return true;
    };
    return boundaryMesh(grid);
}

TriMesh makeShelf(const Target& target)
{
    // A wall shelf: a 5 cm board, 1.2 m wide and 30 cm deep, on two corbels against the wall (-z),
    // with a lip along the front (+z) so that four 26 cm plates can lie on it side by side (TVCG
    // Fig. 1). The grid is graded towards every box face, as a CAD mesher refines towards edges: with
    // uniform cells TetGen meshes the board with surface nodes only (2.7 tets per node, 35 % fewer
    // tets than Table 1), while the graded surface makes it add interior nodes as it grades inwards,
    // which matches Table 1's tet and point counts. Grading 0.5 keeps the smallest angle near 19 deg.
    constexpr Real kWidth = 1.2, kDepth = 0.30, kBoard = 0.05;
    constexpr Real kCorbelWidth = 0.05, kCorbelHeight = 0.14, kCorbelDepth = 0.22, kCorbelX = 0.45;
    constexpr Real kLipHeight = 0.015, kLipDepth = 0.02;
    constexpr Real kGrading = 0.5;
    const std::vector<Box> boxes = {
        {Vec3(-kWidth / 2, kCorbelHeight, -kDepth / 2), Vec3(kWidth / 2, kCorbelHeight + kBoard, kDepth / 2)},
        {Vec3(-kCorbelX - kCorbelWidth / 2, 0, -kDepth / 2),
         Vec3(-kCorbelX + kCorbelWidth / 2, kCorbelHeight, -kDepth / 2 + kCorbelDepth)},
        {Vec3(kCorbelX - kCorbelWidth / 2, 0, -kDepth / 2),
         Vec3(kCorbelX + kCorbelWidth / 2, kCorbelHeight, -kDepth / 2 + kCorbelDepth)},
        {Vec3(-kWidth / 2, kCorbelHeight + kBoard, kDepth / 2 - kLipDepth),
         Vec3(kWidth / 2, kCorbelHeight + kBoard + kLipHeight, kDepth / 2)},
    };
    return boxUnionWithTriangles(boxes, kGrading, target.triangles);
}

} // namespace shatter::assets
