// Fragment distance field on the piggy bank (TVCG §4, Table 1's "update" column): nanoseconds per
// insideTest / penetration / sphereTest / point location on the piggy bank broken into ~27 fragments
// (a 27-site Voronoi split), and the time of ObjectState::apply for that fracture next to recomputing
// from scratch the exact distance of every node to the surface of its new fragment:
//  - update_speedup (goal ≥ 20): brute force over the fragment's surface triangles, i.e. its crack
//    triangles plus the original surface triangles with a vertex in the fragment;
//  - update_speedup_bvh: a BVH per new fragment over the same triangles, build included.
// Both give the exact fragment distance for these partitions (AnalyticFracture::exactDistance).
// ObjectState::apply also splits the sphere trees (TVCG §6), which the recompute baseline does not do, so
// the ratios use apply minus the sphere-forest part (timed alone on the same fracture, forest_update_ms):
// the distance field and grid update. apply_speedup is the same baseline over the whole of apply.
// The update is timed in steady state (warm buffers, update_ms); cold_update_ms is the first run on fresh
// buffers; brute_force_ms and bvh_recompute_ms are the two recomputes the speedups divide.
// SHATTER_BENCH_SMOKE=1 (ctest) only checks that it runs. The asset is cached under the build folder.
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_env.h"
#include "test_paths.h"

#include "object_state.h"
#include "sphere_forest.h"
#include "triangle_bvh.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace shatter
{
namespace
{

struct Scene
{
    std::shared_ptr<const Asset> asset;
    std::unique_ptr<test::AnalyticFracture> fixture;
    FractureResult fracture;               // the 27-site Voronoi split of the whole object
    std::unique_ptr<ObjectState> pristine; // before the fracture
    std::unique_ptr<ObjectState> broken;   // after it
    std::vector<Vec3> points;              // uniform in the bounds grown by 10 %
    std::vector<FragmentId> pointFragments;
    std::vector<std::pair<Vec3, FragmentId>> insidePoints; // with the fragment holding them
    struct Sphere
    {
        Vec3 center;
        Real radius;
        FragmentId fragment;
    };
    std::vector<Sphere> spheres;
    std::vector<std::vector<std::array<Vec3, 3>>> surfaceTriangles; // per fragment id: crack + original

    Scene()
    {
        // SHATTER_BENCH_MESH=<file> benchmarks another mesh instead.
        const char* other = std::getenv("SHATTER_BENCH_MESH");
        const std::filesystem::path mesh =
            other ? std::filesystem::path(other) : test::meshDir() / "piggy_bank.obj";
        asset = test::cachedMeshAsset(mesh, AssetSettings{}); // throws if the mesh is missing
        fixture = std::make_unique<test::AnalyticFracture>(asset->tetMesh, asset->surface);
        pristine = std::make_unique<ObjectState>(asset);
        std::mt19937_64 rng(27);
        fracture = test::randomVoronoiSplit(*fixture, asset->tetMesh, 0, 27, rng);
        broken = std::make_unique<ObjectState>(*pristine);
        broken->apply(fracture);

        Aabb bounds;
        for (const Vec3& p : asset->tetMesh.nodes)
            bounds.grow(p);
        const Real diagonal = bounds.extent().norm();
        std::uniform_real_distribution<Real> u(0, 1);
        const std::vector<FragmentId> live = broken->liveFragments();
        while (points.size() < 4096 || insidePoints.size() < 4096)
        {
            const Vec3 p = bounds.min - 0.05 * bounds.extent() +
                           1.1 * bounds.extent().cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
            const FragmentId f = broken->fragmentAt(p);
            if (points.size() < 4096)
            {
                points.push_back(p);
                pointFragments.push_back(live[std::size_t(u(rng) * Real(live.size())) % live.size()]);
            }
            if (f != kNoFragment && insidePoints.size() < 4096)
                insidePoints.emplace_back(p, f);
        }
        for (int i = 0; i < 4096; ++i)
            spheres.push_back({points[std::size_t(i)], diagonal * std::pow(Real(10), -2.5 + 2 * u(rng)),
                               live[std::size_t(u(rng) * Real(live.size())) % live.size()]});

        surfaceTriangles.resize(broken->fragmentCount());
        for (FragmentId f : live)
            surfaceTriangles[f] = fixture->crackTriangles(f);
        for (const Triangle& tri : asset->surface.triangles)
        {
            // Surface vertices are the first tet nodes; a triangle goes to every fragment at its corners.
            std::array<FragmentId, 3> owners;
            for (int k = 0; k < 3; ++k)
                owners[k] = broken->field().node(tri[k]).fragment;
            for (int k = 0; k < 3; ++k)
                if (std::find(owners.begin(), owners.begin() + k, owners[k]) == owners.begin() + k)
                    surfaceTriangles[owners[k]].push_back({asset->surface.vertices[tri[0]],
                                                           asset->surface.vertices[tri[1]],
                                                           asset->surface.vertices[tri[2]]});
        }
    }
};

const Scene& scene()
{
    static const Scene instance;
    return instance;
}

void BM_InsideTest(benchmark::State& state)
{
    const Scene& s = scene();
    std::size_t i = 0;
    for (auto _ : state)
    {
        const std::size_t k = i++ % s.points.size();
        benchmark::DoNotOptimize(s.broken->insideTest(s.points[k], s.pointFragments[k]));
    }
    state.counters["fragments"] = Real(s.broken->liveFragments().size());
}
BENCHMARK(BM_InsideTest);

void BM_Penetration(benchmark::State& state)
{
    const Scene& s = scene();
    std::size_t i = 0;
    for (auto _ : state)
    {
        const auto& [p, f] = s.insidePoints[i++ % s.insidePoints.size()];
        benchmark::DoNotOptimize(s.broken->penetration(p, f));
    }
}
BENCHMARK(BM_Penetration);

void BM_SphereTest(benchmark::State& state)
{
    const Scene& s = scene();
    std::size_t i = 0;
    for (auto _ : state)
    {
        const Scene::Sphere& q = s.spheres[i++ % s.spheres.size()];
        benchmark::DoNotOptimize(s.broken->sphereTest(q.center, q.radius, q.fragment));
    }
}
BENCHMARK(BM_SphereTest);

void BM_Locate(benchmark::State& state)
{
    const Scene& s = scene();
    std::size_t i = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(s.broken->locate(s.points[i++ % s.points.size()]));
}
BENCHMARK(BM_Locate);

/// Seconds to recompute, from scratch and exactly, the distance of every node of the parent to the
/// surface of its new fragment, by brute force over the fragment's surface triangles.
double bruteForceSeconds(const Scene& s)
{
    const auto start = std::chrono::steady_clock::now();
    Real checksum = 0;
    for (std::size_t i = 0; i < s.fracture.nodes.size(); ++i)
    {
        const Vec3& x = s.asset->tetMesh.nodes[s.fracture.nodes[i]];
        Real best = std::numeric_limits<Real>::infinity();
        for (const auto& tri : s.surfaceTriangles[s.fracture.nodeFragments[i]])
            best =
                std::min(best, (closestPointOnTriangle(x, tri[0], tri[1], tri[2]).point - x).squaredNorm());
        checksum += best;
    }
    benchmark::DoNotOptimize(checksum);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The same with a BVH per new fragment, built here (part of "from scratch").
double bvhSeconds(const Scene& s)
{
    const auto start = std::chrono::steady_clock::now();
    std::vector<TriangleBvh> trees(s.surfaceTriangles.size());
    for (FragmentId f : s.fracture.fragments)
    {
        TriMesh mesh;
        for (const auto& tri : s.surfaceTriangles[f])
        {
            const Index v = Index(mesh.vertices.size());
            mesh.vertices.insert(mesh.vertices.end(), tri.begin(), tri.end());
            mesh.triangles.push_back({v, v + 1, v + 2});
        }
        trees[f] = TriangleBvh(mesh);
    }
    Real checksum = 0;
    for (std::size_t i = 0; i < s.fracture.nodes.size(); ++i)
        checksum += trees[s.fracture.nodeFragments[i]]
                        .closestPoint(s.asset->tetMesh.nodes[s.fracture.nodes[i]])
                        .distance;
    benchmark::DoNotOptimize(checksum);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BM_ExactRecomputeBruteForce(benchmark::State& state)
{
    const Scene& s = scene();
    for (auto _ : state)
        state.SetIterationTime(bruteForceSeconds(s));
    std::size_t triangles = 0;
    for (const auto& t : s.surfaceTriangles)
        triangles += t.size();
    state.counters["nodes"] = Real(s.fracture.nodes.size());
    state.counters["fragment_triangles"] = Real(triangles);
}
BENCHMARK(BM_ExactRecomputeBruteForce)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(test::benchSmokeMode() ? 1 : 3);

void BM_ExactRecomputeBvh(benchmark::State& state)
{
    const Scene& s = scene();
    for (auto _ : state)
        state.SetIterationTime(bvhSeconds(s));
}
BENCHMARK(BM_ExactRecomputeBvh)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(test::benchSmokeMode() ? 1 : 5);

void BM_FractureUpdate(benchmark::State& state)
{
    const Scene& s = scene();
    // Each iteration restores the unbroken state by copy-assignment (not timed), which keeps the
    // buffers' capacity: the timing is the steady state of a program that has fractured before. The
    // first iteration, on fresh buffers, also pays first-touch page faults (counter cold_update_ms).
    ObjectState copy = *s.pristine;
    double total = 0, cold = 0;
    FieldUpdateReport report;
    for (auto _ : state)
    {
        copy = *s.pristine;
        const auto start = std::chrono::steady_clock::now();
        copy.apply(s.fracture, &report);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        state.SetIterationTime(seconds);
        total += seconds;
        if (cold == 0)
            cold = seconds;
    }
    const double update = total / double(state.iterations());
    // The sphere-forest share of apply, timed the same way on a copy of the unbroken forest.
    double forestTotal = 0;
    const int forestRuns = test::benchSmokeMode() ? 1 : 20;
    for (int i = 0; i < forestRuns; ++i)
    {
        SphereForest forest = s.pristine->sphereForest();
        const auto start = std::chrono::steady_clock::now();
        forest.apply(s.fracture, s.asset->tetMesh, RestructureMethod::Tvcg2013);
        forestTotal += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const double forestUpdate = forestTotal / forestRuns;
    state.counters["cold_update_ms"] = cold * 1e3;
    state.counters["forest_update_ms"] = forestUpdate * 1e3;
    const double baseline = bruteForceSeconds(s);
    const double bvh = bvhSeconds(s);
    const double fieldUpdate = std::max(update - forestUpdate, 1e-9);
    state.counters["update_speedup"] = baseline / fieldUpdate;
    state.counters["apply_speedup"] = baseline / update;
    state.counters["update_speedup_bvh"] = bvh / fieldUpdate;
    state.counters["new_fragments"] = Real(s.fracture.fragments.size());
    state.counters["cut_tets"] = Real(s.fracture.cutTets.size());
    state.counters["front_updates"] = Real(report.updates);
    state.counters["front_steps"] = Real(report.steps);
    // The times the speedups divide: counters, not printing, so that stdout stays the benchmark report.
    state.counters["update_ms"] = update * 1e3;
    state.counters["brute_force_ms"] = baseline * 1e3;
    state.counters["bvh_recompute_ms"] = bvh * 1e3;
}
BENCHMARK(BM_FractureUpdate)->UseManualTime()->Unit(benchmark::kMillisecond);

} // namespace
} // namespace shatter

BENCHMARK_MAIN();
