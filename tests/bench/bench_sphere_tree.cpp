// Benchmarks of the fracturable sphere forest and Algorithm 1 (TVCG §5-§7).
//
//  - Query: plate resting on the ground (sunk 1 % of its thickness) and the two halves of the piggy
//    bank touching along their crack, in Adaptive and Full mode; counters are per query.
//  - Update: the 27-site Voronoi split of the piggy bank applied to the forest (TVCG §6.2-6.3),
//    against applying the same event with RestructureMethod::Rebuild, which gives the same fragments
//    the same points and builds each one's tree afresh (TVCG Fig. 15's full recomputation). Both start
//    from the same forest and event, check them the same way and end with forests the queries can use.
//    Every round times one of each, back to back and each warm (after an untimed run of its own), so
//    that both see the same minutes of a machine whose speed drifts: `update_speedup` = median
//    rebuild time / median update time over the rounds.
//    BM_OrderAndBuildFragmentTrees times the rebuild's core alone (buildPointShell, i.e.
//    orderByMaxDistance and buildSphereTree, over each fragment's points).
//  - Resolution (TVCG §7.2): the paper times the queries of a fracturing sphere's simulation at ~2.5K
//    and ~10K surface triangles. Here the sphere is cut into octants that rest against each other and
//    on the ground (sunk 1 % of its radius), and one run queries every octant against every other
//    and against the ground; the interior sampling is the same at both resolutions, as in the
//    paper (interior_nodes reports what TetGen made of it): `resolution_cost_ratio` = time at 10K /
//    time at 2.5K, per contact mode, the two timed alternately in the same loop.
//    `touching_cost_ratio` is the same for the unbroken sphere barely touching the ground (sunk
//    0.1 %), the worst case.
// SHATTER_BENCH_SMOKE=1 (set by ctest) uses small spheres and fewer sites so the run takes seconds.
#include "object_state.h"
#include "sphere_tree_query.h"

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

/// One query of fragment f against `field` with a fresh budget m, as a pair's first step makes it.
template <class Field>
QueryStats queryOnce(const SphereForest& forest, FragmentId f, const Field& field, ContactMode mode,
                     Real tolerance, QueryScratch& scratch, std::vector<Contact>& out)
{
    QueryStats stats;
    out.clear();
    Index budget = kInitialContactBudget;
    collide(forest, f, kIdentity, field, QuerySettings{mode, TraversalOrder::MaxDistance, tolerance}, budget,
            scratch, out, &stats);
    benchmark::DoNotOptimize(out.data());
    return stats;
}

/// Runs collide() in the benchmark loop and reports the last query's counters.
template <class Field>
void runQuery(benchmark::State& state, const SphereForest& forest, FragmentId f, const Field& field,
              ContactMode mode, Real tolerance)
{
    QueryScratch scratch;
    std::vector<Contact> out;
    QueryStats stats;
    for (auto _ : state)
        stats = queryOnce(forest, f, field, mode, tolerance, scratch, out);
    state.counters["visited_nodes"] = stats.visitedNodes;
    state.counters["inside_tests"] = stats.insideTests;
    state.counters["sphere_tests"] = stats.sphereTests;
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
    state.counters["locator_cell_tets"] = p.state.locator().meanCellTets();
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

/// The core of a rebuild: a fresh max-distance order and tree for every new fragment, over its points.
void orderAndBuildAll(const SphereForest& after, const FractureResult& result)
{
    std::vector<std::vector<Vec3>> points(result.fragments.size());
    for (Index p = 0; p < after.pointCount(); ++p)
        points[after.pointFragment(p) - result.fragments.front()].push_back(after.tree().points[p]);
    for (const std::vector<Vec3>& fragment : points)
        if (!fragment.empty())
            benchmark::DoNotOptimize(buildPointShell(fragment).nodes.data());
}

void BM_OrderAndBuildFragmentTrees(benchmark::State& state)
{
    const PiggyVoronoi& p = piggyVoronoi();
    for (auto _ : state)
        orderAndBuildAll(p.after, p.result);
    state.counters["fragments"] = double(p.result.fragments.size());
}
BENCHMARK(BM_OrderAndBuildFragmentTrees)->Unit(benchmark::kMillisecond);

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void BM_ForestUpdate(benchmark::State& state)
{
    const PiggyVoronoi& p = piggyVoronoi();
    const RestructureMethod method = RestructureMethod(state.range(0));
    // One forest object for all rounds: copy-assigning the unbroken forest into it keeps its arrays'
    // capacity, so neither method pays for growing them after the first round.
    SphereForest forest;
    // Seconds for one apply to `forest`, which the caller has reset to the unbroken forest.
    auto timeApply = [&](RestructureMethod m, ForestUpdateReport* report)
    {
        const Clock::time_point start = Clock::now();
        forest.apply(p.result, p.asset->tetMesh, m, report);
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    // Each timed apply follows an untimed one of the same method on the same event, so that both
    // methods are timed warm (caches and branch predictors trained on the event, as when a benchmark
    // repeats one operation): the other method's run in between would otherwise leave the second
    // method cold (docs/algorithms.md, "Measurements").
    auto timedApply = [&](RestructureMethod m, ForestUpdateReport* report)
    {
        forest = p.forest;
        forest.apply(p.result, p.asset->tetMesh, m);
        forest = p.forest;
        return timeApply(m, report);
    };
    // The same apply with every cache emptied first, by sweeping a buffer twice the size of the
    // host's last-level cache (32 MiB here), as when a fracture event comes after a physics step
    // that touched everything else. Not the goal's figure: a report of how much of the update's
    // speed comes from its data being in cache (the rebuild's hardly depends on it).
    std::vector<char> sweep(64 << 20, 1);
    auto coldApply = [&](RestructureMethod m)
    {
        forest = p.forest;
        for (std::size_t i = 0; i < sweep.size(); i += 64)
            ++sweep[i];
        benchmark::ClobberMemory();
        return timeApply(m, nullptr);
    };
    std::vector<double> update, rebuild, updateCold, rebuildCold;
    ForestUpdateReport report;
    for (auto _ : state)
    {
        rebuild.push_back(timedApply(RestructureMethod::Rebuild, nullptr));
        update.push_back(timedApply(method, &report));
        state.SetIterationTime(update.back());
        rebuildCold.push_back(coldApply(RestructureMethod::Rebuild));
        updateCold.push_back(coldApply(method));
    }
    state.counters["fragments"] = double(p.result.fragments.size());
    state.counters["parent_points"] = report.parentPoints;
    state.counters["inserted_points"] = report.insertedPoints;
    state.counters["copies"] = report.copies;
    state.counters["splitting_nodes"] = report.splittingNodes;
    state.counters["nearest_parents"] = report.nearestParents;
    state.counters["update_ms"] = 1e3 * median(update);
    state.counters["rebuild_ms"] = 1e3 * median(rebuild);
    state.counters["update_speedup"] = median(rebuild) / median(update);
    state.counters["update_cold_ms"] = 1e3 * median(updateCold);
    state.counters["rebuild_cold_ms"] = 1e3 * median(rebuildCold);
    state.counters["update_speedup_cold"] = median(rebuildCold) / median(updateCold);
}
// The reported time is the update's (manual time). A round costs six applies, so the rounds are
// counted rather than timed. 200 rounds (about 15 s per method) ride out the host's short bursts of
// contention, which slow the short update more than the long rebuild (the update's scattered nodes
// miss the caches when evicted, the rebuild works on a few hundred points at a time); they cannot
// ride out slow phases that last minutes. The spread this leaves: docs/algorithms.md, "Measurements".
BENCHMARK(BM_ForestUpdate)
    ->Arg(int(RestructureMethod::Tvcg2013))
    ->Arg(int(RestructureMethod::Sca2012))
    ->ArgName("method")
    ->UseManualTime()
    ->Iterations(test::benchSmokeMode() ? 3 : 200)
    ->Unit(benchmark::kMillisecond);

// ---- Culling after the update vs after a rebuild (TVCG §7.3, Fig. 15) ------------------------------

/// The 27-piece piggy bank after the event, once updated (TVCG 2013) and once with fresh trees: every
/// ordered pair of live fragments, in place and so touching along their cracks, is one adaptive query,
/// as in a step right after the event. Fig. 15's claim is that the fast update culls about as well as a
/// recomputation; `visited_vs_rebuild` and `time_vs_rebuild` say how close.
struct PiggyPieces
{
    std::shared_ptr<const Asset> asset = test::cachedMeshAsset("piggy_bank.obj");
    ObjectState updated{asset, ObjectStateSettings{}};
    ObjectState rebuilt{asset, []
                        {
                            ObjectStateSettings s;
                            s.restructure = RestructureMethod::Rebuild;
                            return s;
                        }()};

    PiggyPieces()
    {
        const PiggyVoronoi& p = piggyVoronoi();
        updated.apply(p.result);
        rebuilt.apply(p.result);
    }
};

const PiggyPieces& piggyPieces()
{
    static const PiggyPieces p;
    return p;
}

void BM_QueriesAfterFracture(benchmark::State& state)
{
    const PiggyPieces& p = piggyPieces();
    QueryScratch scratch;
    std::vector<Contact> out;
    std::vector<double> updated, rebuilt;
    QueryStats u, r;
    for (auto _ : state)
    {
        Clock::time_point start = Clock::now();
        r = test::queryAllFragmentPairs(p.rebuilt, scratch, out);
        rebuilt.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        start = Clock::now();
        u = test::queryAllFragmentPairs(p.updated, scratch, out);
        updated.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        state.SetIterationTime(updated.back());
    }
    state.counters["visited_nodes"] = u.visitedNodes;
    state.counters["contacts"] = u.contacts;
    state.counters["visited_vs_rebuild"] = double(u.visitedNodes) / double(r.visitedNodes);
    state.counters["contacts_vs_rebuild"] = double(u.contacts) / double(r.contacts);
    state.counters["time_vs_rebuild"] = median(updated) / median(rebuilt);
}
BENCHMARK(BM_QueriesAfterFracture)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- Resolution: the same sphere at ~2.5K and ~10K surface triangles ----------------------------

/// The TVCG §7.2 sphere, fractured and at rest: three plane cuts through (almost) the centre split it
/// into octants, which touch each other along their cracks, and the whole sphere rests on the ground
/// sunk 1 % of its radius. One "query" of the benchmark is every ordered pair of octants plus every
/// octant against the ground, the set of narrow-phase queries a step of the paper's fracture
/// simulation makes once the pieces have settled. The same cuts at both resolutions.
struct FracturedSphere
{
    std::shared_ptr<const Asset> asset;
    std::unique_ptr<ObjectState> state;
    std::vector<FragmentId> octants;
    test::PlaneField ground;
    // The unbroken sphere barely touching the ground, for BM_SphereTouchingGround.
    std::unique_ptr<SphereForest> unbroken;
    test::PlaneField touchingGround;
};

/// Frequency f gives 20 f² triangles (11 → 2420, 22 → 9680). The tet size bound (a multiple of the
/// mean surface edge) scales with f, so the interior sampling stays fixed while the surface gets
/// finer, as in §7.2; 1.1 gives the paper's reference sphere, about 3.8K interior nodes for 2.4K
/// triangles (TVCG: 2.5K and 4K), and about 4.0K at 9.7K triangles.
const FracturedSphere& fracturedSphere(int fine)
{
    static FracturedSphere spheres[2];
    FracturedSphere& s = spheres[fine];
    if (!s.asset)
    {
        const int base = test::benchSmokeMode() ? 4 : 11;
        const int frequency = fine ? 2 * base : base;
        s.asset = test::buildTestAsset(test::geodesicSphere(frequency, 1), "sphere", 1.1 * frequency / base);
        s.state = std::make_unique<ObjectState>(s.asset);
        test::AnalyticFracture fixture(s.asset->tetMesh, s.asset->surface);
        fixture.setBuildMeshes(false);
        // Offsets keep the planes off the nodes TetGen may place on the axes.
        for (const Plane& plane :
             {Plane{Vec3::UnitX(), 0.0123}, Plane{Vec3::UnitY(), -0.0171}, Plane{Vec3::UnitZ(), 0.0093}})
            for (const FractureResult& r : fixture.cutAll(plane))
                s.state->apply(r);
        s.octants = s.state->liveFragments();
        s.ground = {Vec3::UnitY(), -1 + 0.01};
        s.unbroken = std::make_unique<SphereForest>(*s.asset);
        s.touchingGround = {Vec3::UnitY(), -1 + 0.001};
    }
    return s;
}

/// Every query of one benchmark "step" on sphere s (see FracturedSphere), summing their counters.
QueryStats queryFracturedSphere(const FracturedSphere& s, ContactMode mode, QueryScratch& scratch,
                                std::vector<Contact>& out)
{
    const Real tolerance = defaultContactTolerance(s.asset->radius());
    QueryStats total;
    auto query = [&](FragmentId f, const auto& field)
    {
        const QueryStats stats = queryOnce(s.state->sphereForest(), f, field, mode, tolerance, scratch, out);
        total.visitedNodes += stats.visitedNodes;
        total.insideTests += stats.insideTests;
        total.contacts += stats.contacts;
        total.collidingPoints += stats.collidingPoints;
    };
    for (const FragmentId f : s.octants)
    {
        for (const FragmentId g : s.octants)
            if (g != f)
                query(f, FragmentFieldView(*s.state, g));
        query(f, s.ground);
    }
    return total;
}

/// Runs `work(sphere)` on the coarse and the fine sphere back to back in every round, so that both see
/// the same machine state, and reports `ratioName` = the median over the rounds of fine time / coarse
/// time, with the median times and the fine/coarse counters of the last round. Single rounds range
/// from about 1.13 to 1.30 (10th to 90th percentile of 200) as the host's neighbours come and go; the
/// median of paired rounds ignores the rounds a burst hit, where a ratio of summed times follows them
/// (1.19-1.29 over eleven runs). What still differs between runs, about ±0.02, comes from where each
/// process's arrays land in memory, which more rounds do not average out.
template <class Work>
void compareResolutions(benchmark::State& state, const char* ratioName, Work&& work)
{
    const FracturedSphere* spheres[2] = {&fracturedSphere(0), &fracturedSphere(1)};
    std::vector<double> seconds[2], ratios;
    QueryStats last[2];
    for (auto _ : state)
    {
        for (int fine = 0; fine < 2; ++fine)
        {
            const Clock::time_point start = Clock::now();
            last[fine] = work(*spheres[fine]);
            seconds[fine].push_back(std::chrono::duration<double>(Clock::now() - start).count());
        }
        ratios.push_back(seconds[1].back() / seconds[0].back());
    }
    const char* tag[2] = {"coarse_", "fine_"};
    for (int fine = 0; fine < 2; ++fine)
    {
        const std::string t = tag[fine];
        state.counters[t + "ms"] = 1e3 * median(seconds[fine]);
        state.counters[t + "visited_nodes"] = last[fine].visitedNodes;
        state.counters[t + "colliding_points"] = last[fine].collidingPoints;
        state.counters[t + "contacts"] = last[fine].contacts;
        state.counters[t + "triangles"] = double(spheres[fine]->asset->surface.triangles.size());
        state.counters[t + "interior_nodes"] = double(spheres[fine]->asset->tetMesh.nodeCount() -
                                                      spheres[fine]->asset->tetMesh.surfaceNodeCount);
    }
    state.counters[ratioName] = median(ratios);
}

void BM_SphereResolution(benchmark::State& state)
{
    const ContactMode mode = ContactMode(state.range(0));
    QueryScratch scratch;
    std::vector<Contact> out;
    compareResolutions(state, "resolution_cost_ratio",
                       [&](const FracturedSphere& s) { return queryFracturedSphere(s, mode, scratch, out); });
    state.counters["fragments"] = double(fracturedSphere(0).octants.size());
}
BENCHMARK(BM_SphereResolution)
    ->Arg(int(ContactMode::Adaptive))
    ->Arg(int(ContactMode::FixedBudget))
    ->Arg(int(ContactMode::Full))
    ->ArgName("mode")
    ->Iterations(test::benchSmokeMode() ? 3 : 200)
    ->Unit(benchmark::kMillisecond);

/// The whole, unbroken sphere barely touching the ground (sunk 0.1 % of its radius, inside ε): the
/// worst case for resolution, since the few points within ε of a point contact are found only at
/// the finest levels, and their number grows with the surface density. Reported, with its own
/// ratio counter, next to the paper's setting above.
void BM_SphereTouchingGround(benchmark::State& state)
{
    QueryScratch scratch;
    std::vector<Contact> out;
    compareResolutions(state, "touching_cost_ratio",
                       [&](const FracturedSphere& s)
                       {
                           return queryOnce(*s.unbroken, 0, s.touchingGround, ContactMode::Adaptive,
                                            defaultContactTolerance(s.asset->radius()), scratch, out);
                       });
}
BENCHMARK(BM_SphereTouchingGround);

} // namespace

BENCHMARK_MAIN();
