// Tessellation (CVD §5) on the plate and the piggy bank: milliseconds per tessellate() for 8, 27 and
// 64 nearest-site Euclidean sites, single-threaded and with all cores (the ratio is reported as
// `thread_speedup`), and ObjectState::apply of the result. SHATTER_BENCH_SMOKE=1 (ctest) runs the
// smallest case briefly.
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_env.h"
#include "voronoi_labels.h"

#include "object_state.h"
#include "parallel.h"
#include "tessellation.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>

namespace shatter
{
namespace
{

std::shared_ptr<const Asset> asset(const std::string& name)
{
    return test::sharedAsset(name);
}

const char* kAssets[] = {"plate", "piggy_bank"};

// args: asset index, sites, threads (0: all cores)
void BM_Tessellate(benchmark::State& bm)
{
    const std::string name = kAssets[bm.range(0)];
    ObjectState state(asset(name));
    std::mt19937 rng(17);
    const auto labels = test::nearestSiteLabelling(state, 0, int(bm.range(1)), rng);
    fracture::TessellationSettings options;
    options.threads = unsigned(bm.range(2));
    fracture::TessellationStats stats;
    for (auto _ : bm)
    {
        FractureResult result = fracture::tessellate(state, labels, &stats, options);
        benchmark::DoNotOptimize(result);
    }
    bm.counters["fragments"] = double(stats.mass.size());
    bm.counters["triangles"] = double(stats.triangles);
    bm.counters["raised"] = double(stats.raisedDipValues + stats.raisedMarginValues);
    bm.counters["constrained"] = double(stats.constrainedVertices);
    bm.counters["threads"] = double(resolveThreadCount(options.threads));
    bm.SetLabel(name);
}

void BM_Apply(benchmark::State& bm)
{
    const std::string name = kAssets[bm.range(0)];
    ObjectState pristine(asset(name));
    std::mt19937 rng(17);
    const auto labels = test::nearestSiteLabelling(pristine, 0, int(bm.range(1)), rng);
    const FractureResult result = fracture::tessellate(pristine, labels);
    for (auto _ : bm)
    {
        bm.PauseTiming();
        ObjectState state = pristine;
        bm.ResumeTiming();
        state.apply(result);
        benchmark::ClobberMemory();
    }
    bm.SetLabel(name);
}

// Single- vs multi-threaded ratio in the same process (a ratio of two runs on one machine and load
// means something; absolute times across machines do not).
void BM_ThreadSpeedup(benchmark::State& bm)
{
    const std::string name = kAssets[bm.range(0)];
    ObjectState state(asset(name));
    std::mt19937 rng(17);
    const auto labels = test::nearestSiteLabelling(state, 0, int(bm.range(1)), rng);
    auto time = [&](unsigned threads)
    {
        fracture::TessellationSettings options;
        options.threads = threads;
        double best = 1e30;
        for (int i = 0; i < (test::benchSmokeMode() ? 1 : 5); ++i)
        {
            const auto start = std::chrono::steady_clock::now();
            benchmark::DoNotOptimize(fracture::tessellate(state, labels, nullptr, options));
            best = std::min(
                best,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        return best;
    };
    double one = 0, all = 0;
    for (auto _ : bm)
    {
        one = time(1);
        all = time(0);
    }
    bm.counters["single_ms"] = one;
    bm.counters["multi_ms"] = all;
    bm.counters["thread_speedup"] = one / all;
    bm.SetLabel(name);
}

void tessellateArgs(benchmark::internal::Benchmark* b)
{
    if (test::benchSmokeMode())
    {
        b->Args({0, 8, 1});
        return;
    }
    for (int a = 0; a < 2; ++a)
        for (int sites : {8, 27, 64})
            for (int threads : {1, 0})
                b->Args({a, sites, threads});
}

void applyArgs(benchmark::internal::Benchmark* b)
{
    if (test::benchSmokeMode())
    {
        b->Args({0, 8});
        return;
    }
    for (int a = 0; a < 2; ++a)
        for (int sites : {8, 27, 64})
            b->Args({a, sites});
}

BENCHMARK(BM_Tessellate)->Apply(tessellateArgs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Apply)->Apply(applyArgs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreadSpeedup)->Apply(applyArgs)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
} // namespace shatter

BENCHMARK_MAIN();
