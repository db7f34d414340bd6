// Surface nets (Gibson 1998) rather than marching cubes: one vertex per crossed cell and quads between
// them give far fewer slivers, and the quads' regular structure relaxes into near-equilateral
// triangles. TetGen runs with -Y (no Steiner points on the surface) and -q1.5, so every surface
// triangle is final: bad ones would turn into bad tets next to the surface.
#include "surface_nets.h"

#include "mesh_checks.h"

#include "shatter/error.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace shatter::assets
{

namespace
{

// The 12 edges of a grid cell as pairs of corner numbers; corner c sits at offset (c&1, c>>1&1, c>>2&1).
constexpr std::array<std::array<int, 2>, 12> kCellEdges = {
    {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}};

struct Grid
{
    Vec3 origin;
    Real cell = 0;
    std::array<int, 3> points{}; // grid points per axis

    std::size_t pointIndex(int i, int j, int k) const
    {
        return (std::size_t(k) * points[1] + j) * points[0] + i;
    }
    std::size_t cellIndex(int i, int j, int k) const
    {
        return (std::size_t(k) * (points[1] - 1) + j) * (points[0] - 1) + i;
    }
    Vec3 position(int i, int j, int k) const { return origin + cell * Vec3(i, j, k); }
};

} // namespace

TriMesh surfaceNets(const ImplicitFunction& f, const Aabb& bounds, Real cellSize, const Vec3& phase)
{
    // At least two cells of margin so that the outermost grid points are outside and no crossing
    // touches the border.
    Grid grid;
    grid.cell = cellSize;
    grid.origin = bounds.min - cellSize * (Vec3::Constant(2) + phase);
    for (int axis = 0; axis < 3; ++axis)
        grid.points[axis] = int(std::ceil(bounds.extent()[axis] / cellSize)) + 6;

    std::vector<Real> value(std::size_t(grid.points[0]) * grid.points[1] * grid.points[2]);
    for (int k = 0; k < grid.points[2]; ++k)
        for (int j = 0; j < grid.points[1]; ++j)
            for (int i = 0; i < grid.points[0]; ++i)
                value[grid.pointIndex(i, j, k)] = f(grid.position(i, j, k));
    const auto inside = [&](int i, int j, int k)
    {
        return value[grid.pointIndex(i, j, k)] < Real(0);
    };

    TriMesh mesh;
    std::vector<Index> cellVertex(
        std::size_t(grid.points[0] - 1) * (grid.points[1] - 1) * (grid.points[2] - 1), kInvalidIndex);
    for (int k = 0; k + 1 < grid.points[2]; ++k)
        for (int j = 0; j + 1 < grid.points[1]; ++j)
            for (int i = 0; i + 1 < grid.points[0]; ++i)
            {
                std::array<Real, 8> v;
                std::array<Vec3, 8> p;
                int insideCount = 0;
                for (int c = 0; c < 8; ++c)
                {
                    const int ci = i + (c & 1), cj = j + (c >> 1 & 1), ck = k + (c >> 2 & 1);
                    v[c] = value[grid.pointIndex(ci, cj, ck)];
                    p[c] = grid.position(ci, cj, ck);
                    insideCount += v[c] < 0 ? 1 : 0;
                }
                if (insideCount == 0 || insideCount == 8)
                    continue;
                Vec3 sum = Vec3::Zero();
                int crossings = 0;
                for (const auto& [a, b] : kCellEdges)
                    if ((v[a] < 0) != (v[b] < 0))
                    {
                        sum += p[a] + (v[a] / (v[a] - v[b])) * (p[b] - p[a]);
                        ++crossings;
                    }
                cellVertex[grid.cellIndex(i, j, k)] = Index(mesh.vertices.size());
                mesh.vertices.push_back(sum / Real(crossings));
            }

    // One quad per sign-changing grid edge, around the edge through the four cells that share it. The
    // cell order (-1,-1), (0,-1), (0,0), (-1,0) in the two other axes (b, c) = (a+1, a+2) is counter-
    // clockwise seen from +a, which is outward when the edge starts inside.
    constexpr std::array<std::array<int, 2>, 4> kAround = {{{-1, -1}, {0, -1}, {0, 0}, {-1, 0}}};
    for (int k = 1; k + 1 < grid.points[2]; ++k)
        for (int j = 1; j + 1 < grid.points[1]; ++j)
            for (int i = 1; i + 1 < grid.points[0]; ++i)
                for (int a = 0; a < 3; ++a)
                {
                    const std::array<int, 3> start = {i, j, k};
                    std::array<int, 3> end = start;
                    ++end[a];
                    const bool startInside = inside(i, j, k);
                    if (startInside == inside(end[0], end[1], end[2]))
                        continue;
                    const int b = (a + 1) % 3, c = (a + 2) % 3;
                    std::array<Index, 4> quad;
                    for (int q = 0; q < 4; ++q)
                    {
                        std::array<int, 3> cell = start;
                        cell[b] += kAround[q][0];
                        cell[c] += kAround[q][1];
                        quad[startInside ? q : 3 - q] = cellVertex[grid.cellIndex(cell[0], cell[1], cell[2])];
                    }
                    const auto& x = mesh.vertices;
                    if ((x[quad[0]] - x[quad[2]]).squaredNorm() <= (x[quad[1]] - x[quad[3]]).squaredNorm())
                    {
                        mesh.triangles.push_back({quad[0], quad[1], quad[2]});
                        mesh.triangles.push_back({quad[0], quad[2], quad[3]});
                    }
                    else
                    {
                        mesh.triangles.push_back({quad[0], quad[1], quad[3]});
                        mesh.triangles.push_back({quad[1], quad[2], quad[3]});
                    }
                }
    return mesh;
}

TriMesh meshImplicit(const ImplicitFunction& f, const Aabb& bounds, const ImplicitMeshSettings& options,
                     const std::string& name)
{
    if (options.targetTriangles == 0)
        throw Error(name, "meshImplicit needs a positive triangle target");
    if (!(options.tolerance > 0) || options.maxSearchSteps < 1 || options.smoothingRounds < 0 ||
        options.relaxSweepsPerRound < 0)
        throw Error(name, "meshImplicit options out of range");

    // Surface nets make about 3 A / h^2 triangles for area A; the box's surface is a fair first guess
    // for A, and each step rescales h by sqrt(count / target). Where a saddle (the fillet between an
    // ear and the body) puts an ambiguous face in the grid, one vertex per cell cannot be manifold;
    // shifting the grid by a fraction of a cell moves the face off the saddle, so each size tries a
    // fixed sequence of shifts (a 3D golden-ratio sequence) until the mesh is manifold. Counts jump
    // with the shift, so the search keeps the best manifold result rather than insisting on convergence.
    constexpr int kPhases = 12;
    const Vec3 e = bounds.extent();
    const Real boxArea = 2 * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
    Real cell = std::sqrt(3 * boxArea / Real(options.targetTriangles));
    TriMesh best;
    Real bestError = std::numeric_limits<Real>::infinity();
    for (int step = 0; step < options.maxSearchSteps && bestError > options.tolerance; ++step)
    {
        Real ratio = 0;
        for (int phase = 0; phase < kPhases; ++phase)
        {
            const Vec3 shift = (Real(phase) * Vec3(0.8191725134, 0.6710436067, 0.5497004779))
                                   .array()
                                   .unaryExpr([](Real x) { return x - std::floor(x); });
            TriMesh mesh = surfaceNets(f, bounds, cell, shift);
            if (!isClosedManifold(mesh))
                continue;
            ratio = Real(mesh.triangles.size()) / Real(options.targetTriangles);
            if (std::abs(ratio - 1) < bestError)
            {
                bestError = std::abs(ratio - 1);
                best = std::move(mesh);
            }
            break;
        }
        cell *= ratio > 0 ? std::sqrt(ratio) : Real(0.99);
    }
    if (best.triangles.empty())
        throw Error(name, "surface nets found no grid giving a closed 2-manifold");
    for (Vec3& p : best.vertices)
        p = projectToSurface(f, p);

    for (int round = 0; round < options.smoothingRounds; ++round)
    {
        relaxOnSurface(best, f, options.relaxSweepsPerRound);
        flipToDelaunay(best);
    }
    relaxOnSurface(best, f, options.relaxSweepsPerRound);
    return best;
}

} // namespace shatter::assets
