// Hole patch refinement and fairing, steps 3 and 4 of hole filling (the essay is at the top of
// mesh_hole_fill.cpp).
#include "mesh_hole_patch.h"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include <algorithm>
#include <map>
#include <numbers>
#include <unordered_map>

namespace shatter::detail
{

namespace
{

constexpr Real kSplitFactor = std::numbers::sqrt2_v<Real>; // Liepa's density factor α
constexpr int kMaxRefinePasses = 30;
constexpr int kMaxFlipRounds = 50;
constexpr std::size_t kMaxPatchTriangles = 200000;

// Delaunay flips of the patch's interior edges (both sides in the patch), never creating an edge
// the mesh or patch already has, nor a fold.
void relax(const TriMesh& mesh, const EdgeTable& edges, std::vector<Triangle>& patch)
{
    std::unordered_map<std::uint64_t, Index> owner; // directed patch edge -> patch triangle
    for (Index t = 0; t < patch.size(); ++t)
        for (int k = 0; k < 3; ++k)
            owner[directedEdge(patch[t][k], patch[t][(k + 1) % 3])] = t;
    auto exists = [&](Index a, Index b)
    {
        return owner.count(directedEdge(a, b)) || owner.count(directedEdge(b, a)) ||
               edges.find(a, b) != kInvalidIndex;
    };
    for (int round = 0; round < kMaxFlipRounds; ++round)
    {
        bool flipped = false;
        for (Index t = 0; t < patch.size(); ++t)
            for (int k = 0; k < 3; ++k)
            {
                const Index a = patch[t][k];
                const Index b = patch[t][(k + 1) % 3];
                const Index c = patch[t][(k + 2) % 3];
                const auto twin = owner.find(directedEdge(b, a));
                if (a > b || twin == owner.end())
                    continue;
                const Index u = twin->second;
                const Triangle& other = patch[u];
                const Index d = other[0] != a && other[0] != b   ? other[0]
                                : other[1] != a && other[1] != b ? other[1]
                                                                 : other[2];
                const Vec3 &pa = mesh.vertices[a], &pb = mesh.vertices[b], &pc = mesh.vertices[c],
                           &pd = mesh.vertices[d];
                if (angleAt(pc, pa, pb) + angleAt(pd, pa, pb) <= std::numbers::pi_v<Real> + 1e-9 ||
                    exists(c, d))
                    continue;
                // (a, b, c) + (b, a, d) become (d, b, c) + (c, a, d); both must face the old way.
                const Vec3 before = (pb - pa).cross(pc - pa) + (pa - pb).cross(pd - pb);
                if ((pb - pd).cross(pc - pd).dot(before) <= 0 || (pa - pc).cross(pd - pc).dot(before) <= 0)
                    continue;
                for (const Triangle& old : {patch[t], patch[u]})
                    for (int i = 0; i < 3; ++i)
                        owner.erase(directedEdge(old[i], old[(i + 1) % 3]));
                patch[t] = {d, b, c};
                patch[u] = {c, a, d};
                for (Index s : {t, u})
                    for (int i = 0; i < 3; ++i)
                        owner[directedEdge(patch[s][i], patch[s][(i + 1) % 3])] = s;
                flipped = true;
                break; // patch[t] changed under us
            }
        if (!flipped)
            return;
    }
}

} // namespace

// Liepa's refinement: split a triangle while its centroid is farther (by alpha) from each corner
// than both the target edge length sigma there and at the corner; sigma of a new vertex is the
// mean of the triangle's.
void refinePatch(TriMesh& mesh, const EdgeTable& edges, const std::vector<Index>& polygon,
                 std::vector<Triangle>& patch, std::vector<Index>& added)
{
    std::unordered_map<Index, Real> sigma;
    const std::size_t m = polygon.size();
    for (std::size_t i = 0; i < m; ++i)
    {
        const Vec3& p = mesh.vertices[polygon[i]];
        sigma[polygon[i]] = Real(0.5) * ((p - mesh.vertices[polygon[(i + m - 1) % m]]).norm() +
                                         (mesh.vertices[polygon[(i + 1) % m]] - p).norm());
    }
    relax(mesh, edges, patch);
    for (int pass = 0; pass < kMaxRefinePasses && patch.size() < kMaxPatchTriangles; ++pass)
    {
        bool split = false;
        const std::size_t count = patch.size();
        for (std::size_t t = 0; t < count; ++t)
        {
            const Triangle tri = patch[t];
            const Vec3 centroid =
                (mesh.vertices[tri[0]] + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]) / Real(3);
            const Real target = (sigma[tri[0]] + sigma[tri[1]] + sigma[tri[2]]) / Real(3);
            bool dense = true;
            for (Index v : tri)
            {
                const Real distance = kSplitFactor * (centroid - mesh.vertices[v]).norm();
                dense = dense && distance > target && distance > sigma[v];
            }
            if (!dense)
                continue;
            const Index c = Index(mesh.vertices.size());
            mesh.vertices.push_back(centroid);
            sigma[c] = target;
            added.push_back(c);
            patch[t] = {tri[0], tri[1], c};
            patch.push_back({tri[1], tri[2], c});
            patch.push_back({tri[2], tri[0], c});
            split = true;
        }
        if (!split)
            break;
        relax(mesh, edges, patch);
    }
}

void fairVertices(TriMesh& mesh, const std::vector<Index>& added)
{
    if (added.empty())
        return;
    const Index n = Index(mesh.vertices.size());
    std::vector<std::vector<Index>> ring(n);
    for (const Triangle& tri : mesh.triangles)
        for (int k = 0; k < 3; ++k)
            ring[tri[k]].push_back(tri[(k + 1) % 3]), ring[tri[(k + 1) % 3]].push_back(tri[k]);
    for (std::vector<Index>& r : ring)
    {
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
    }
    std::vector<Index> unknown(n, kInvalidIndex);
    for (Index i = 0; i < added.size(); ++i)
        unknown[added[i]] = i;

    const Index count = Index(added.size());
    std::vector<Eigen::Triplet<Real>> entries;
    Eigen::Matrix<Real, Eigen::Dynamic, 3> rhs = Eigen::Matrix<Real, Eigen::Dynamic, 3>::Zero(count, 3);
    for (Index row = 0; row < count; ++row)
    {
        const Index i = added[row];
        std::map<Index, Real> coefficients; // bilaplacian(i) = sum_j L(j) / |N(i)| - L(i)
        auto addLaplacian = [&](Index j, Real scale)
        {
            for (Index k : ring[j])
                coefficients[k] += scale / Real(ring[j].size());
            coefficients[j] -= scale;
        };
        for (Index j : ring[i])
            addLaplacian(j, Real(1) / Real(ring[i].size()));
        addLaplacian(i, -1);
        for (const auto& [k, value] : coefficients)
        {
            if (unknown[k] != kInvalidIndex)
                entries.emplace_back(row, unknown[k], value);
            else
                rhs.row(row) -= value * mesh.vertices[k].transpose();
        }
    }
    Eigen::SparseMatrix<Real> matrix(count, count);
    matrix.setFromTriplets(entries.begin(), entries.end());
    Eigen::SparseLU<Eigen::SparseMatrix<Real>> solver;
    solver.compute(matrix);
    if (solver.info() != Eigen::Success)
        return; // keep the refined, unfaired patch
    const Eigen::Matrix<Real, Eigen::Dynamic, 3> x = solver.solve(rhs);
    if (solver.info() != Eigen::Success || !x.allFinite())
        return;
    for (Index row = 0; row < count; ++row)
        mesh.vertices[added[row]] = x.row(row).transpose();
}

} // namespace shatter::detail
