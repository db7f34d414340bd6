// Point shells: the "sphere tree" S(B) of a non-fracturable shape, so that Algorithm 1
// can also run the other way round, S(B) against a fragment's D(A).
//
// TVCG §5.1 builds the tree over points in maximum-distance order, whose every prefix is a
// close-to-uniform sampling. We use that order twice: each shape first produces a dense candidate set
// on its surface (about four times the shell size: exact area-uniform grids for the primitives,
// vertices plus area-uniform random points for meshes, ray casts for GJK shapes), and the shell keeps
// the first `count` candidates of their max-distance order. Farthest-point selection picks corners and
// tips first and then fills the largest gaps, so the shell is well spread even where the candidates
// are not evenly dense, and a box's corners or a cone's apex are always in it.
#include "shape_field_detail.h"

#include "max_distance_order.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace shatter::detail
{

namespace
{

// Candidates per shell point: dense enough that farthest-point selection finds a near-uniform subset.
constexpr Index kOversampling = 4;

} // namespace

std::vector<Vec3> fibonacciSphere(Index count)
{
    std::vector<Vec3> points;
    points.reserve(count);
    const Real golden = std::numbers::pi * (3 - std::sqrt(Real(5)));
    for (Index i = 0; i < count; ++i)
    {
        const Real z = 1 - (2 * Real(i) + 1) / Real(count);
        const Real rho = std::sqrt(std::max(Real(0), 1 - z * z));
        const Real phi = golden * Real(i);
        points.emplace_back(rho * std::cos(phi), rho * std::sin(phi), z);
    }
    return points;
}

std::vector<Vec3> shellCandidates(const SphereField& f, Index count)
{
    std::vector<Vec3> points = fibonacciSphere(count * kOversampling);
    for (Vec3& p : points)
        p *= f.radius;
    return points;
}

std::vector<Vec3> shellCandidates(const BoxField& f, Index count)
{
    // A grid on each face with one spacing for all faces (area-uniform), edges and corners included.
    const Vec3& h = f.half;
    const Real area = 8 * (h.x() * h.y() + h.y() * h.z() + h.z() * h.x());
    const Real spacing = std::sqrt(area / Real(count * kOversampling));
    std::vector<Vec3> points;
    for (int axis = 0; axis < 3; ++axis)
    {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        const int nu = std::max(1, int(std::ceil(2 * h[u] / spacing)));
        const int nv = std::max(1, int(std::ceil(2 * h[v] / spacing)));
        for (int side = -1; side <= 1; side += 2)
            for (int i = 0; i <= nu; ++i)
                for (int j = 0; j <= nv; ++j)
                {
                    Vec3 p;
                    p[axis] = side * h[axis];
                    p[u] = -h[u] + 2 * h[u] * Real(i) / Real(nu);
                    p[v] = -h[v] + 2 * h[v] * Real(j) / Real(nv);
                    points.push_back(p);
                }
    }
    return points;
}

std::vector<Vec3> shellCandidates(const CapsuleField& f, Index count)
{
    // Cylinder rings and two Fibonacci hemispheres, both at the same areal density.
    const Real r = f.radius, hh = f.halfHeight;
    const Real sideArea = 2 * std::numbers::pi * r * 2 * hh;
    const Real capArea = 4 * std::numbers::pi * r * r;
    const Real density = Real(count * kOversampling) / (sideArea + capArea);
    const int a = f.axis, u = (a + 1) % 3, v = (a + 2) % 3;
    std::vector<Vec3> points;
    const Index capPoints = std::max<Index>(2, Index(std::lround(density * capArea)));
    for (const Vec3& d : fibonacciSphere(capPoints))
    {
        Vec3 p = Vec3::Zero();
        p[u] = r * d.x();
        p[v] = r * d.y();
        p[a] = r * d.z() + (d.z() >= 0 ? hh : -hh);
        points.push_back(p);
    }
    if (hh > 0)
    {
        const Real spacing = 1 / std::sqrt(density);
        const int around = std::max(3, int(std::ceil(2 * std::numbers::pi * r / spacing)));
        const int along = std::max(1, int(std::ceil(2 * hh / spacing)));
        for (int i = 0; i <= along; ++i)
            for (int j = 0; j < around; ++j)
            {
                const Real phi = 2 * std::numbers::pi * (Real(j) + Real(0.5) * Real(i % 2)) / Real(around);
                Vec3 p = Vec3::Zero();
                p[u] = r * std::cos(phi);
                p[v] = r * std::sin(phi);
                p[a] = -hh + 2 * hh * Real(i) / Real(along);
                points.push_back(p);
            }
    }
    return points;
}

std::vector<Vec3> shellCandidates(const ConvexField& f, Index count)
{
    // Rays from an interior point: directions from a Fibonacci sphere stretched by the bounding box,
    // so that elongated shapes are sampled about evenly; each ray meets the convex surface once.
    // Along a ray the signed distance is convex and increasing past the surface, so Newton's method
    // from outside converges from above without overshooting (one step on a flat face).
    std::vector<Vec3> points;
    const Vec3 stretch = f.boxHalf.cwiseMax(Vec3::Constant(Real(1e-3) * f.radius));
    const Real surfaceTolerance = Real(0.1) * f.tolerance;
    for (const Vec3& d : fibonacciSphere(count * kOversampling))
    {
        const Vec3 u = stretch.cwiseProduct(d).normalized();
        Real lo = 0;                                              // known inside (the interior point)
        Real hi = 2 * f.radius + (f.center - f.boxCenter).norm(); // known outside the bounding sphere
        Real t = hi;
        bool ok = false;
        for (int iteration = 0; iteration < 60; ++iteration)
        {
            Vec3 n;
            const Real dist = f.signedDistance(f.center + t * u, n);
            if (!std::isfinite(dist))
                break;
            if (std::abs(dist) <= surfaceTolerance || hi - lo <= surfaceTolerance)
            {
                ok = true;
                break;
            }
            (dist > 0 ? hi : lo) = t;
            // Newton inside the bracket, bisection when it would leave it (grazing rays).
            const Real slope = n.dot(u);
            const Real next = slope > Real(1e-6) ? t - dist / slope : lo - 1;
            t = next > lo && next < hi ? next : Real(0.5) * (lo + hi);
        }
        if (ok)
            points.push_back(f.center + t * u);
    }
    return points;
}

std::vector<Vec3> shellCandidates(const MeshField& f, Index count)
{
    // Vertices (where a mesh pokes out) plus area-uniform random points (deterministic seed). A huge
    // mesh contributes an even subset of its vertices: the shell keeps only `count` points anyway.
    const TriMesh& mesh = f.mesh;
    std::vector<Vec3> points;
    const std::size_t vertexBudget = std::size_t(count) * 16;
    const std::size_t stride = std::max<std::size_t>(1, mesh.vertices.size() / vertexBudget);
    for (std::size_t v = 0; v < mesh.vertices.size(); v += stride)
        points.push_back(mesh.vertices[v]);
    std::vector<Real> cumulative(mesh.triangles.size());
    Real total = 0;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        cumulative[t] = total += mesh.area(t);
    std::mt19937_64 rng(0x5eed5);
    std::uniform_real_distribution<Real> unit(0, 1);
    for (Index i = 0; i < count * kOversampling; ++i)
    {
        const Real pick = unit(rng) * total;
        const std::size_t t = std::min<std::size_t>(
            cumulative.size() - 1,
            std::size_t(std::lower_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin()));
        Real a = unit(rng), b = unit(rng);
        if (a + b > 1)
        {
            a = 1 - a;
            b = 1 - b;
        }
        const Triangle& tri = mesh.triangles[t];
        const Vec3& p0 = mesh.vertices[tri[0]];
        points.push_back(p0 + a * (mesh.vertices[tri[1]] - p0) + b * (mesh.vertices[tri[2]] - p0));
    }
    return points;
}

std::vector<Vec3> shellFeatures(const BoxField& f)
{
    std::vector<Vec3> corners;
    for (int k = 0; k < 8; ++k)
        corners.emplace_back((k & 1) ? f.half.x() : -f.half.x(), (k & 2) ? f.half.y() : -f.half.y(),
                             (k & 4) ? f.half.z() : -f.half.z());
    return corners;
}

std::vector<Vec3> shellFeatures(const CapsuleField& f)
{
    Vec3 tip = Vec3::Zero();
    tip[f.axis] = f.halfHeight + f.radius;
    return {tip, -tip};
}

std::unique_ptr<SphereForest> makeShell(const std::vector<Vec3>& candidates,
                                        const std::vector<Vec3>& features, Index count)
{
    // Exact duplicates (grid points shared by two faces, welded vertices met again) would only come
    // last in the order; drop them first.
    const auto less = [](const Vec3& a, const Vec3& b)
    {
        return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
    };
    const auto dedupe = [&](std::vector<Vec3> v)
    {
        std::sort(v.begin(), v.end(), less);
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    const std::vector<Vec3> unique = dedupe(candidates);
    if (unique.empty())
        throw Error("point shell", "the shape produced no surface samples");
    // Features first (as many as fit), then candidates in maximum-distance order, skipping those that
    // crowd a feature (closer than a third of the spacing the shell will have).
    std::vector<Vec3> chosen = dedupe(features);
    if (chosen.size() > count)
        chosen.resize(count);
    Aabb box;
    for (const Vec3& p : unique)
        box.grow(p);
    const Real halfDiagonal = Real(0.5) * box.extent().norm();
    const Real crowd = std::sqrt(4 * std::numbers::pi * halfDiagonal * halfDiagonal / Real(count)) / 3;
    const std::size_t featureCount = chosen.size();
    const std::vector<Index> order = orderByMaxDistance(unique);
    for (std::size_t i = 0; i < order.size() && chosen.size() < count; ++i)
    {
        const Vec3& p = unique[order[i]];
        bool crowded = false;
        for (std::size_t k = 0; k < featureCount && !crowded; ++k)
            crowded = (p - chosen[k]).norm() < crowd;
        if (!crowded)
            chosen.push_back(p);
    }
    return std::make_unique<SphereForest>(buildPointShell(chosen));
}

} // namespace shatter::detail
