// Mesh repair steps: welding, vertex and triangle removal, cap splitting, consistent orientation.
// Hole filling lives in mesh_hole_fill.cpp.
#include "mesh_repair.h"

#include "mesh_validate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace shatter
{

namespace
{

using Cell = std::array<std::int64_t, 3>;

struct CellHash
{
    std::size_t operator()(const Cell& c) const noexcept
    {
        std::uint64_t h = 1469598103934665603ull;
        for (std::int64_t x : c)
            h = (h ^ std::uint64_t(x)) * 1099511628211ull;
        return std::size_t(h);
    }
};

} // namespace

Index weldVertices(TriMesh& mesh, Real tolerance)
{
    const Index n = Index(mesh.vertices.size());
    std::vector<Index> target(n);
    if (tolerance > 0)
    {
        // Uniform grid with cells no smaller than the tolerance: a vertex's partners lie in the 27
        // cells around it. Each cell holds only representatives, which are more than `tolerance`
        // apart, so lookups stay O(1). Only lookups touch the hash map, so the result does not
        // depend on its iteration order.
        const Aabb box = mesh.bounds();
        const Real cell = std::max(tolerance, Real(1e-12) * box.extent().maxCoeff());
        std::unordered_map<Cell, std::vector<Index>, CellHash> grid;
        for (Index i = 0; i < n; ++i)
        {
            const Vec3& p = mesh.vertices[i];
            const Vec3 scaled = (p - box.min) / cell;
            const Cell c{std::int64_t(std::floor(scaled.x())), std::int64_t(std::floor(scaled.y())),
                         std::int64_t(std::floor(scaled.z()))};
            Index best = kInvalidIndex;
            for (std::int64_t dx = -1; dx <= 1; ++dx)
                for (std::int64_t dy = -1; dy <= 1; ++dy)
                    for (std::int64_t dz = -1; dz <= 1; ++dz)
                    {
                        const auto found = grid.find(Cell{c[0] + dx, c[1] + dy, c[2] + dz});
                        if (found == grid.end())
                            continue;
                        for (Index r : found->second)
                            if (r < best && (mesh.vertices[r] - p).norm() <= tolerance)
                                best = r;
                    }
            target[i] = best == kInvalidIndex ? i : best;
            if (best == kInvalidIndex)
                grid[c].push_back(i);
        }
    }
    else
    {
        // Bit patterns order every double, NaN included; +0 and -0 are the same point.
        std::map<std::array<std::uint64_t, 3>, Index> seen;
        for (Index i = 0; i < n; ++i)
        {
            std::array<std::uint64_t, 3> key{};
            for (int k = 0; k < 3; ++k)
                key[k] =
                    std::bit_cast<std::uint64_t>(mesh.vertices[i][k] == 0 ? Real(0) : mesh.vertices[i][k]);
            target[i] = seen.try_emplace(key, i).first->second;
        }
    }
    Index merged = 0;
    for (Index i = 0; i < n; ++i)
        merged += target[i] != i ? 1 : 0;
    for (Triangle& tri : mesh.triangles)
        for (Index& v : tri)
            v = target[v];
    removeUnusedVertices(mesh);
    return merged;
}

Index removeUnusedVertices(TriMesh& mesh)
{
    std::vector<Index> newIndex(mesh.vertices.size(), kInvalidIndex);
    for (const Triangle& tri : mesh.triangles)
        for (Index v : tri)
            newIndex[v] = 0;
    Index kept = 0;
    for (Index v = 0; v < mesh.vertices.size(); ++v)
    {
        if (newIndex[v] == kInvalidIndex)
            continue;
        newIndex[v] = kept;
        mesh.vertices[kept++] = mesh.vertices[v];
    }
    const Index removed = Index(mesh.vertices.size()) - kept;
    mesh.vertices.resize(kept);
    for (Triangle& tri : mesh.triangles)
        for (Index& v : tri)
            v = newIndex[v];
    return removed;
}

void renumberByFirstUse(TriMesh& mesh)
{
    std::vector<Index> newIndex(mesh.vertices.size(), kInvalidIndex);
    std::vector<Vec3> vertices;
    vertices.reserve(mesh.vertices.size());
    for (Triangle& tri : mesh.triangles)
        for (Index& v : tri)
        {
            if (newIndex[v] == kInvalidIndex)
            {
                newIndex[v] = Index(vertices.size());
                vertices.push_back(mesh.vertices[v]);
            }
            v = newIndex[v];
        }
    mesh.vertices = std::move(vertices);
}

void removeTriangles(TriMesh& mesh, std::vector<Index> triangles)
{
    std::vector<bool> remove(mesh.triangles.size(), false);
    for (Index t : triangles)
        remove[t] = true;
    Index kept = 0;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        if (!remove[t])
            mesh.triangles[kept++] = mesh.triangles[t];
    mesh.triangles.resize(kept);
}

Index splitCapNeighbours(TriMesh& mesh)
{
    Index splits = 0;
    // A split can expose another cap's neighbour, so a few rounds; each round splits every
    // neighbour at most once, against a fresh edge table.
    for (int round = 0; round < 8; ++round)
    {
        std::vector<Index> degenerate;
        findDegenerateTriangles(mesh, &degenerate);
        if (degenerate.empty())
            break;
        const EdgeTable edges(mesh);
        std::vector<bool> touched(mesh.triangles.size(), false);
        for (Index t : degenerate)
            touched[t] = true;
        Index roundSplits = 0;
        for (Index t : degenerate)
        {
            const Triangle tri = mesh.triangles[t];
            if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0])
                continue;
            int k = 0; // corner starting the longest edge; the opposite corner is the middle vertex
            Real longest = -1;
            for (int i = 0; i < 3; ++i)
            {
                const Real length = (mesh.vertices[tri[(i + 1) % 3]] - mesh.vertices[tri[i]]).squaredNorm();
                if (length > longest)
                {
                    longest = length;
                    k = i;
                }
            }
            const Index e = edges.cornerEdge[3 * t + Index(k)];
            if (edges.valence(e) != 2)
                continue;
            const EdgeTable::HalfEdge& h0 = edges.halfEdges[edges.offsets[e]];
            const EdgeTable::HalfEdge& h1 = edges.halfEdges[edges.offsets[e] + 1];
            const Index u = h0.triangle == t ? h1.triangle : h0.triangle;
            const Index from = h0.triangle == t ? h1.from : h0.from;
            if (u == t || touched[u])
                continue;
            const Triangle other = mesh.triangles[u];
            const int j = other[0] == from ? 0 : other[1] == from ? 1 : 2;
            const Index x = other[j];
            const Index y = other[(j + 1) % 3];
            const Index d = other[(j + 2) % 3];
            const Index middle = tri[(k + 2) % 3];
            mesh.triangles[u] = {x, middle, d};
            mesh.triangles.push_back({middle, y, d});
            touched[u] = true;
            ++roundSplits;
        }
        splits += roundSplits;
        if (roundSplits == 0)
            break;
    }
    return splits;
}

std::optional<Index> orientConsistently(TriMesh& mesh)
{
    const EdgeTable edges(mesh);
    for (Index e = 0; e < edges.edgeCount(); ++e)
        if (edges.valence(e) > 2)
            return std::nullopt;

    // Breadth-first over each component: a neighbour across a two-triangle edge must traverse the
    // edge the other way round. flip: -1 unvisited, 0 keep, 1 flip.
    const Index n = Index(mesh.triangles.size());
    std::vector<signed char> flip(n, -1);
    std::vector<Index> component;
    for (Index seed = 0; seed < n; ++seed)
    {
        if (flip[seed] >= 0)
            continue;
        component.assign(1, seed);
        flip[seed] = 0;
        for (std::size_t next = 0; next < component.size(); ++next)
        {
            const Index t = component[next];
            for (Index k = 0; k < 3; ++k)
            {
                const Index e = edges.cornerEdge[3 * t + k];
                if (edges.valence(e) != 2)
                    continue;
                const EdgeTable::HalfEdge& h0 = edges.halfEdges[edges.offsets[e]];
                const EdgeTable::HalfEdge& h1 = edges.halfEdges[edges.offsets[e] + 1];
                if (h0.triangle == h1.triangle)
                    continue;
                const Index other = h0.triangle == t ? h1.triangle : h0.triangle;
                const signed char wanted = static_cast<signed char>(flip[t] ^ (h0.from == h1.from ? 1 : 0));
                if (flip[other] < 0)
                {
                    flip[other] = wanted;
                    component.push_back(other);
                }
                else if (flip[other] != wanted)
                    return std::nullopt; // not orientable
            }
        }
        // Keep the majority's winding: one stray triangle is flipped, not the rest of the mesh.
        std::size_t flipped = 0;
        for (Index t : component)
            flipped += std::size_t(flip[t]);
        if (2 * flipped > component.size())
            for (Index t : component)
                flip[t] = static_cast<signed char>(1 - flip[t]);
    }
    std::vector<Index> toFlip;
    for (Index t = 0; t < n; ++t)
        if (flip[t] == 1)
            toFlip.push_back(t);
    flipTriangles(mesh, toFlip);
    return Index(toFlip.size());
}

void flipTriangles(TriMesh& mesh, const std::vector<Index>& triangles)
{
    for (Index t : triangles)
        std::swap(mesh.triangles[t][1], mesh.triangles[t][2]);
}

} // namespace shatter
