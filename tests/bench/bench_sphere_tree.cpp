// Benchmarks of the fracturable sphere forest and Algorithm 1 (TVCG §5-§7).
//
//  - Query: plate resting on the ground (sunk 1 % of its thickness) and the two halves of the piggy
//    bank touching along their crack, in Adaptive and Full mode; counters are per query.
//  - Update: the 27-site Voronoi split of the piggy bank applied to the forest (TVCG §6.2-6.3),
//    against rebuilding a fresh tree for every fragment (orderByMaxDistance + buildSphereTree over
//    its points), measured in the same process: `update_speedup` = rebuild time / update time.
//  - Resolution (TVCG §7.2): a sphere resting on the ground, sunk 0.1 % of its radius (within ε), at
//    ~2.5K and ~10K surface triangles, the TetGen size bound scaled so the interior spacing stays
//    about the same (interior_nodes reports what TetGen made of it): `resolution_cost_ratio` = query
//    time at 10K / query time at 2.5K, per contact mode (reported by the 10K runs).
// SHATTER_BENCH_SMOKE=1 (set by ctest) uses small spheres and fewer sites so the run takes seconds.
#include "shatter/max_distance_order.h"
#include "shatter/object_state.h"
#include "shatter/sphere_tree_query.h"

#include "fracture_fixtures.h"
#include "sphere_tree_fixtures.h"
#include "test_env.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

namespace
{

using namespace shatter;
using Clock = std::chrono::steady_clock;

const Eigen::Isometry3d kIdentity = Eigen::Isometry3d::Identity();

/// Runs collide() in the benchmark loop and reports the last query's counters.
template <class Field>
void runQuery(benchmark::State& state, const SphereForest& forest, FragmentId f, const Field& field,
              ContactMode mode, Real tolerance)
{
    QueryScratch scratch;
    std::vector<Contact> out;
    QueryStats stats;
    for (auto _ : state)
    {
        out.clear();
        Index budget = kInitialContactBudget;
        collide(forest, f, kIdentity, field, QueryOptions{mode, TraversalOrder::MaxDistance, tolerance},
                budget, scratch, out, &stats);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["visited_nodes"] = stats.visitedNodes;
    state.counters["inside_tests"] = stats.insideTests;
    state.counters["contacts"] = stats.contacts;
    state.counters["colliding_points"] = stats.collidingPoints;
}

// ---- Plate on the ground -------------------------------------------------------------------------

struct Plate
{
    std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    SphereForest forest{*asset};
    test::PlaneField ground{Vec3::UnitY(),
                            asset->surface.bounds().min.y() + 0.01 * asset->surface.bounds().extent().y()};
};

const Plate& plate()
{
    static const Plate p;
    return p;
}

void BM_PlateOnGround(benchmark::State& state)
{
    const Plate& p = plate();
    runQuery(state, p.forest, 0, p.ground, ContactMode(state.range(0)),
             defaultContactTolerance(p.asset->radius()));
}
BENCHMARK(BM_PlateOnGround)->Arg(int(ContactMode::Adaptive))->Arg(int(ContactMode::Full))->ArgName("full");

// ---- Piggy bank halves touching along their crack ------------------------------------------------

struct PiggyHalves
{
    std::shared_ptr<const Asset> asset = test::cachedMeshAsset("piggy_bank.obj");
    ObjectState state{asset};
    SphereForest forest{*asset};

    PiggyHalves()
    {
        test::AnalyticFracture fixture(asset->tetMesh, asset->surface);
        const Vec3 c = asset->surface.bounds().center();
        const FractureResult r =
            *fixture.cutWithPlane(0, Plane{Vec3(1, 0.1, 0.05).normalized(), c.x() + 1e-4});
        state.apply(r);
        forest.apply(r, asset->tetMesh);
    }
};

const PiggyHalves& piggyHalves()
{
    static const PiggyHalves p;
    return p;
}

void BM_FragmentOnFragment(benchmark::State& state)
{
    const PiggyHalves& p = piggyHalves();
    runQuery(state, p.forest, 1, FragmentFieldView(p.state, 2), ContactMode(state.range(0)),
             defaultContactTolerance(p.asset->radius()));
}
BENCHMARK(BM_FragmentOnFragment)
    ->Arg(int(ContactMode::Adaptive))
    ->Arg(int(ContactMode::Full))
    ->ArgName("full");

// ---- Update at a 27-fragment fracture vs rebuilding every fragment's tree ------------------------

struct PiggyVoronoi
{
    std::shared_ptr<const Asset> asset = test::cachedMeshAsset("piggy_bank.obj");
    SphereForest forest{*asset};
    FractureResult result;
    SphereForest after; // the forest after the event, whose fragments the baseline rebuilds

    PiggyVoronoi()
    {
        test::AnalyticFracture fixture(asset->tetMesh, asset->surface);
        std::mt19937_64 rng(27);
        result = test::randomVoronoiSplit(fixture, asset->tetMesh, 0, test::benchSmokeMode() ? 8 : 27, rng);
        after = forest;
        after.apply(result, asset->tetMesh);
    }
};

const PiggyVoronoi& piggyVoronoi()
{
    static const PiggyVoronoi p;
    return p;
}

/// The baseline: a fresh max-distance order and tree for every new fragment, over its points.
void rebuildAll(const SphereForest& after, const FractureResult& result)
{
    std::vector<std::vector<Vec3>> points(result.fragments.size());
    for (Index p = 0; p < after.pointCount(); ++p)
        points[after.pointFragment(p) - result.fragments.front()].push_back(after.tree().points[p]);
    for (const std::vector<Vec3>& fragment : points)
    {
        if (fragment.empty())
            continue;
        const std::vector<Index> order = orderByMaxDistance(fragment);
        benchmark::DoNotOptimize(buildSphereTree(fragment, order).nodes.data());
    }
}

double rebuildSeconds()
{
    static const double seconds = []
    {
        const PiggyVoronoi& p = piggyVoronoi();
        std::vector<double> runs;
        for (int i = 0; i < (test::benchSmokeMode() ? 1 : 5); ++i)
        {
            const Clock::time_point start = Clock::now();
            rebuildAll(p.after, p.result);
            runs.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        }
        std::sort(runs.begin(), runs.end());
        return runs[runs.size() / 2];
    }();
    return seconds;
}

void BM_RebuildFragmentTrees(benchmark::State& state)
{
    const PiggyVoronoi& p = piggyVoronoi();
    for (auto _ : state)
        rebuildAll(p.after, p.result);
    state.counters["fragments"] = double(p.result.fragments.size());
}
BENCHMARK(BM_RebuildFragmentTrees)->Unit(benchmark::kMillisecond);

void BM_ForestUpdate(benchmark::State& state)
{
    const PiggyVoronoi& p = piggyVoronoi();
    const RestructureMethod method = RestructureMethod(state.range(0));
    double seconds = 0;
    ForestUpdateReport report;
    for (auto _ : state)
    {
        state.PauseTiming();
        SphereForest forest = p.forest;
        state.ResumeTiming();
        const Clock::time_point start = Clock::now();
        forest.apply(p.result, p.asset->tetMesh, method, &report);
        seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
    state.counters["fragments"] = double(p.result.fragments.size());
    state.counters["subtree_nodes"] = report.subtreeNodes;
    state.counters["inserted_points"] = report.insertedPoints;
    state.counters["copies"] = report.copies;
    state.counters["splitting_nodes"] = report.splittingNodes;
    state.counters["nearest_parents"] = report.nearestParents;
    state.counters["update_speedup"] = rebuildSeconds() / (seconds / double(state.iterations()));
}
BENCHMARK(BM_ForestUpdate)
    ->Arg(int(RestructureMethod::Tvcg2013))
    ->Arg(int(RestructureMethod::Sca2012))
    ->ArgName("sca2012")
    ->Unit(benchmark::kMillisecond);

// ---- Resolution: the same sphere at ~2.5K and ~10K surface triangles ----------------------------

struct SphereOnGround
{
    std::shared_ptr<const Asset> asset;
    std::unique_ptr<SphereForest> forest;
    test::PlaneField ground;
};

/// Frequency f gives 20 f² triangles (11 → 2420, 22 → 9680); the tet size bound scales with f so the
/// interior spacing stays the same while the surface gets finer.
const SphereOnGround& sphereOnGround(int fine)
{
    static SphereOnGround spheres[2];
    SphereOnGround& s = spheres[fine];
    if (!s.asset)
    {
        const int base = test::benchSmokeMode() ? 4 : 11;
        const int frequency = fine ? 2 * base : base;
        s.asset = test::buildTestAsset(test::geodesicSphere(frequency, 1), "sphere", 2.0 * frequency / base);
        s.forest = std::make_unique<SphereForest>(*s.asset);
        s.ground = {Vec3::UnitY(), -1 + 0.001};
    }
    return s;
}

/// Per-query seconds of the coarse sphere, per contact mode, for the fine run's ratio.
double coarseQuerySeconds[3] = {0, 0, 0};

void BM_SphereResolution(benchmark::State& state)
{
    const int fine = int(state.range(0));
    const ContactMode mode = ContactMode(state.range(1));
    const SphereOnGround& s = sphereOnGround(fine);
    const Clock::time_point start = Clock::now();
    runQuery(state, *s.forest, 0, s.ground, mode, defaultContactTolerance(s.asset->radius()));
    const double perQuery =
        std::chrono::duration<double>(Clock::now() - start).count() / double(state.iterations());
    state.counters["triangles"] = double(s.asset->surface.triangles.size());
    state.counters["interior_nodes"] =
        double(s.asset->tetMesh.nodeCount() - s.asset->tetMesh.surfaceNodeCount);
    if (!fine)
        coarseQuerySeconds[int(mode)] = perQuery;
    else if (coarseQuerySeconds[int(mode)] > 0)
        state.counters["resolution_cost_ratio"] = perQuery / coarseQuerySeconds[int(mode)];
}
BENCHMARK(BM_SphereResolution)
    ->ArgsProduct({{0, 1},
                   {int(ContactMode::Adaptive), int(ContactMode::FixedBudget), int(ContactMode::Full)}})
    ->ArgNames({"fine", "mode"});

} // namespace

BENCHMARK_MAIN();
