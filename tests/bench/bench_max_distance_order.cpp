// Benchmarks of the maximum-distance order and the sphere-tree build (TVCG §5.1, §6.1).
//
// The paper's O(n²) ordering is the baseline: it runs first, in the same process, on a smaller set,
// and every later benchmark reports `speedup_vs_bruteforce` = (baseline time per n² × its own n²) /
// its own time, i.e. how much faster it is than the brute force extrapolated to the same size.
// SHATTER_BENCH_SMOKE=1 (set by ctest) shrinks every size so the whole run stays well under 10 s.
#include "max_distance_order.h"
#include "sphere_tree.h"

#include "test_env.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

namespace
{

using namespace shatter;
using Clock = std::chrono::steady_clock;

std::vector<Vec3> boxPoints(Index n)
{
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<Real> u(-1, 1);
    std::vector<Vec3> points(n);
    for (Vec3& p : points)
    {
        p = Vec3(u(rng), u(rng), u(rng));
    }
    return points;
}

/// Points on a sphere: every point is nearly antipodal to many others, the hard case for the
/// exact diameter.
std::vector<Vec3> spherePoints(Index n)
{
    std::mt19937_64 rng(2);
    std::normal_distribution<Real> g;
    std::vector<Vec3> points(n);
    for (Vec3& p : points)
    {
        p = Vec3(g(rng), g(rng), g(rng)).normalized();
    }
    return points;
}

/// TVCG §5.1 as written: O(n²) diameter, then O(n) per appended point.
std::vector<Index> bruteForceOrder(std::span<const Vec3> points)
{
    const Index n = Index(points.size());
    Index bi = 0;
    Index bj = 1;
    Real best = -1;
    for (Index i = 0; i < n; ++i)
    {
        for (Index j = i + 1; j < n; ++j)
        {
            const Real d2 = squaredDistance(points[i], points[j]);
            if (d2 > best)
            {
                best = d2;
                bi = i;
                bj = j;
            }
        }
    }
    std::vector<Real> nearest(n, std::numeric_limits<Real>::infinity());
    std::vector<Index> order = {bi, bj};
    for (Index c : order)
    {
        for (Index k = 0; k < n; ++k)
        {
            nearest[k] = std::min(nearest[k], squaredDistance(points[k], points[c]));
        }
    }
    nearest[bi] = nearest[bj] = -1;
    while (order.size() < n)
    {
        Index arg = 0;
        for (Index k = 1; k < n; ++k)
        {
            arg = nearest[k] > nearest[arg] ? k : arg;
        }
        order.push_back(arg);
        for (Index k = 0; k < n; ++k)
        {
            nearest[k] = std::min(nearest[k], squaredDistance(points[k], points[arg]));
        }
        nearest[arg] = -1;
    }
    return order;
}

double g_bruteSecondsPerPair = 0; ///< set by the baseline benchmark

/// Runs `work` under the benchmark loop, timing it, and reports throughput and the baseline ratio.
template <typename Work>
void measure(benchmark::State& state, Index n, Work&& work)
{
    double seconds = 0;
    for (auto _ : state)
    {
        const auto start = Clock::now();
        work();
        seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    const double perIteration = seconds / double(state.iterations());
    state.counters["points"] = n;
    state.counters["points_per_s"] =
        benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
    if (g_bruteSecondsPerPair > 0 && perIteration > 0)
    {
        state.counters["speedup_vs_bruteforce"] =
            g_bruteSecondsPerPair * double(n) * double(n) / perIteration;
    }
}

void bruteForceBaseline(benchmark::State& state)
{
    const Index n = Index(state.range(0));
    const std::vector<Vec3> points = boxPoints(n);
    double seconds = 0;
    for (auto _ : state)
    {
        const auto start = Clock::now();
        std::vector<Index> order = bruteForceOrder(points);
        benchmark::DoNotOptimize(order.data());
        seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    g_bruteSecondsPerPair = seconds / double(state.iterations()) / (double(n) * double(n));
    state.counters["points"] = n;
}

void orderBox(benchmark::State& state)
{
    const std::vector<Vec3> points = boxPoints(Index(state.range(0)));
    measure(state, Index(points.size()),
            [&]
            {
                std::vector<Index> order = orderByMaxDistance(points);
                benchmark::DoNotOptimize(order.data());
            });
}

void orderSphere(benchmark::State& state)
{
    const std::vector<Vec3> points = spherePoints(Index(state.range(0)));
    measure(state, Index(points.size()),
            [&]
            {
                std::vector<Index> order = orderByMaxDistance(points);
                benchmark::DoNotOptimize(order.data());
            });
}

void farthestPairSphere(benchmark::State& state)
{
    const std::vector<Vec3> points = spherePoints(Index(state.range(0)));
    measure(state, Index(points.size()), [&] { benchmark::DoNotOptimize(farthestPair(points)); });
}

/// The tree build alone, from a precomputed order (its speedup is still against the brute-force
/// ordering, the part of the paper's preprocessing that is O(n²)).
void buildTreeBox(benchmark::State& state)
{
    const std::vector<Vec3> points = boxPoints(Index(state.range(0)));
    const std::vector<Index> order = orderByMaxDistance(points);
    measure(state, Index(points.size()),
            [&]
            {
                SphereTree tree = buildSphereTree(points, order);
                benchmark::DoNotOptimize(tree.nodes.data());
            });
    state.counters["nodes"] = double(buildSphereTree(points, order).nodeCount());
}

/// Order plus tree: the whole preprocessing of a point shell.
void pointShellSphere(benchmark::State& state)
{
    const std::vector<Vec3> points = spherePoints(Index(state.range(0)));
    measure(state, Index(points.size()),
            [&]
            {
                SphereTree tree = buildPointShell(points);
                benchmark::DoNotOptimize(tree.nodes.data());
            });
}

} // namespace

int main(int argc, char** argv)
{
    const bool smoke = test::benchSmokeMode();
    const int64_t baseline = smoke ? 500 : 5000;
    const int64_t large = smoke ? 5000 : 100000;
    // Registration order is run order: the baseline must come first.
    benchmark::RegisterBenchmark("BruteForceOrder/box", bruteForceBaseline)
        ->Arg(baseline)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("OrderByMaxDistance/box", orderBox)
        ->Arg(baseline)
        ->Arg(large)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("OrderByMaxDistance/sphere", orderSphere)
        ->Arg(large)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("FarthestPair/sphere", farthestPairSphere)
        ->Arg(large)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BuildSphereTree/box", buildTreeBox)
        ->Arg(large)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("PointShell/sphere", pointShellSphere)
        ->Arg(large)
        ->Unit(benchmark::kMillisecond);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
    {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
