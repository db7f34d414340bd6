// Signed distance and surface grid (TVCG §4.4) on a 20,480-triangle icosphere: nanoseconds per exact
// query through the BVH against a brute-force scan measured in the same run (counter bvh_speedup),
// the grid build, and a grid sample. SHATTER_BENCH_SMOKE=1 (ctest) only checks that it runs.
#include "distance_grid.h"
#include "signed_distance.h"

#include "test_env.h"
#include "test_meshes.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <random>

namespace shatter
{
namespace
{

struct Scene
{
    TriMesh mesh = test::icosphere(5); // 20,480 triangles, unit radius
    SignedDistanceField field{mesh};
    DistanceGrid grid = DistanceGrid::build(field);
    /// Query sets: [0] uniform in the box of half size 1.5 around the sphere (inner points near the
    /// centre are the worst case of any closest-point search: every triangle is almost as close as the
    /// closest); [1] near the surface, at radius 1 ± 0.05 σ, where collision queries happen.
    std::vector<Vec3> queries[2];

    Scene()
    {
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<Real> box(-1.5, 1.5);
        std::normal_distribution<Real> gauss;
        for (int i = 0; i < 1024; ++i)
        {
            queries[0].emplace_back(box(rng), box(rng), box(rng));
            const Vec3 direction = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
            queries[1].push_back((1 + 0.05 * gauss(rng)) * direction);
        }
    }
};

const Scene& scene()
{
    static const Scene instance;
    return instance;
}

// Nanoseconds per brute-force query of each set, from the baseline benchmark when it ran first.
double gBruteForceNs[2] = {0, 0};

template <class Query>
double nanosecondsPerQuery(const Query& query, const std::vector<Vec3>& queries, int count)
{
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i)
        benchmark::DoNotOptimize(query(queries[std::size_t(i) % queries.size()]));
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / count;
}

// Runs `query` over the query set of state.range(0) and returns nanoseconds per query.
template <class Query>
double runQueries(benchmark::State& state, const Query& query)
{
    const std::vector<Vec3>& queries = scene().queries[state.range(0)];
    std::size_t i = 0;
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state)
        benchmark::DoNotOptimize(query(queries[i++ % queries.size()]));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    return std::chrono::duration<double, std::nano>(elapsed).count() / double(state.iterations());
}

void BM_SignedDistanceBruteForce(benchmark::State& state)
{
    const Scene& s = scene();
    gBruteForceNs[state.range(0)] =
        runQueries(state, [&](const Vec3& p) { return s.field.signedDistanceBruteForce(p); });
    state.counters["triangles"] = double(s.mesh.triangles.size());
}
BENCHMARK(BM_SignedDistanceBruteForce)->ArgName("near")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_SignedDistanceBvh(benchmark::State& state)
{
    const Scene& s = scene();
    const double bvhNs = runQueries(state, [&](const Vec3& p) { return s.field.signedDistance(p); });
    double& bruteNs = gBruteForceNs[state.range(0)];
    if (bruteNs == 0) // the baseline was filtered out: measure it here
        bruteNs = nanosecondsPerQuery([&](const Vec3& p) { return s.field.signedDistanceBruteForce(p); },
                                      s.queries[state.range(0)], test::benchSmokeMode() ? 8 : 256);
    state.counters["bvh_ns"] = bvhNs;
    state.counters["brute_ns"] = bruteNs;
    state.counters["bvh_speedup"] = bruteNs / bvhNs;
    state.counters["bvh_depth"] = double(s.field.bvh().depth());
}
BENCHMARK(BM_SignedDistanceBvh)->ArgName("near")->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

void BM_DistanceGridBuild(benchmark::State& state)
{
    const Scene& s = scene();
    DistanceGridSettings options;
    options.threads = unsigned(state.range(0));
    std::size_t points = 0;
    for (auto _ : state)
    {
        const DistanceGrid grid = DistanceGrid::build(s.field, options);
        points = grid.pointCount();
        benchmark::DoNotOptimize(grid.values.data());
    }
    state.counters["points"] = double(points);
    state.counters["cell_size"] = s.grid.cellSize;
}
BENCHMARK(BM_DistanceGridBuild)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DistanceGridSample(benchmark::State& state)
{
    const Scene& s = scene();
    const std::vector<Vec3>& queries = s.queries[1];
    std::size_t i = 0;
    std::size_t valid = 0;
    for (auto _ : state)
    {
        const GridSample sample = s.grid.sample(queries[i++ % queries.size()]);
        valid += sample.valid;
        benchmark::DoNotOptimize(sample);
    }
    state.counters["valid_fraction"] = double(valid) / double(state.iterations());
}
BENCHMARK(BM_DistanceGridSample)->Unit(benchmark::kNanosecond);

} // namespace
} // namespace shatter

BENCHMARK_MAIN();
