// Benchmarks of the discrete CVD (CVD §3.3) and the degree search (§3.1, §3.3).
//
//  - Cvd: Lloyd's method with flooding on the whole plate and piggy bank for N = 8, 27, 64 sites,
//    from energy-weighted seeds of a Gaussian impact bump (Euclidean metric; the piggy bank also in
//    its interior embedding, CVD §3.2). Counters: Lloyd iterations, ms per CVD, ms per iteration,
//    and `iteration_vs_bruteforce` = time of one Lloyd iteration / time of one brute-force nearest-
//    site assignment of the same nodes and sites, measured in the same process (the paper's "finding
//    the closest site for each node", which flooding replaces).
//  - Plan: planFracture end to end on the plate at three energy scales: degree N, trials, total CVD
//    iterations (≈ 2 log₂ N CVDs, the cost CVD §4 learns away).
// SHATTER_BENCH_SMOKE=1 (set by ctest) caps the Lloyd iterations so the run takes a few seconds.
#include "cvd.h"
#include "fracture_degree.h"
#include "interior_embedding.h"
#include "seeding.h"

#include "fracture_fixtures.h"
#include "test_env.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <string>

namespace
{

using namespace shatter;
using namespace shatter::fracture;
using Clock = std::chrono::steady_clock;

/// One asset with what every benchmark on it needs, built once.
struct Subject
{
    std::shared_ptr<const Asset> asset;
    FragmentRegion region;
    std::vector<Real> positions; ///< 3 per node
    Vec3 impact;                 ///< centre of the synthetic energy bump
    Real sigma = 0;
    std::unique_ptr<InteriorEmbedding> embedding;
};

const Subject& subject(const std::string& name)
{
    static std::map<std::string, std::unique_ptr<Subject>> cache;
    auto& slot = cache[name];
    if (slot)
        return *slot;
    slot = std::make_unique<Subject>();
    Subject& s = *slot;
    s.asset = test::loadTestAsset(name + ".obj");
    s.region = wholeMeshRegion(s.asset->tetMesh);
    for (const Vec3& p : s.asset->tetMesh.nodes)
        s.positions.insert(s.positions.end(), {p.x(), p.y(), p.z()});
    // Impact near the rim of the plate / on the piggy bank's flank; σ ≈ a quarter of the radius.
    s.impact = name == "plate" ? Vec3(0.1, 0.01, 0.0) : Vec3(0.0, 0.07, 0.06);
    s.sigma = 0.25 * s.asset->radius();
    s.embedding = std::make_unique<InteriorEmbedding>(computeInteriorEmbedding(*s.asset));
    return s;
}

/// Gaussian bump of strain energy (J per node), with a faint uniform background.
StrainEnergy bump(const Subject& s, Real scale)
{
    const TetMesh& mesh = s.asset->tetMesh;
    StrainEnergy e;
    for (Index n = 0; n < mesh.nodeCount(); ++n)
    {
        const Real density =
            scale * (1e-3 + std::exp(-(mesh.nodes[n] - s.impact).squaredNorm() / (2 * s.sigma * s.sigma)));
        e.nodes.push_back(n);
        e.perNode.push_back(density * s.region.nodeVolumes[n]);
        e.total += e.perNode.back();
    }
    return e;
}

CvdSettings benchSettings()
{
    CvdSettings settings;
    if (test::benchSmokeMode())
        settings.maxIterations = 5;
    return settings;
}

void runCvd(benchmark::State& state, const std::string& name, bool interior)
{
    const Subject& s = subject(name);
    const Index sites = Index(state.range(0));
    const std::vector<Real> weights = nodeWeights(s.asset->tetMesh, s.region, bump(s, 1), Material{});
    const int dimension = interior ? s.embedding->dimension : 3;
    const std::vector<Real> coords =
        gatherRegionCoords(s.region, interior ? s.embedding->coords : s.positions, dimension);
    const std::vector<Real> initial = seedSites(coords, dimension, weights, sites, 1);

    // Baseline: one brute-force nearest-site assignment of every node (fastest of five, the machine
    // is shared).
    double bruteMs = std::numeric_limits<double>::infinity();
    for (int r = 0; r < 5; ++r)
    {
        const auto b0 = Clock::now();
        const std::vector<std::uint32_t> nearest = nearestSiteLabels(coords, dimension, initial);
        bruteMs = std::min(bruteMs, std::chrono::duration<double, std::milli>(Clock::now() - b0).count());
        benchmark::DoNotOptimize(nearest.data());
    }

    CvdStats stats;
    for (auto _ : state)
    {
        const VoronoiLabelling l =
            computeCvd(s.region, weights, coords, dimension, initial, benchSettings(), &stats);
        benchmark::DoNotOptimize(l.labels.data());
    }
    state.counters["nodes"] = s.region.nodeCount();
    state.counters["dimension"] = dimension;
    state.counters["iterations"] = stats.iterations;
    state.counters["converged"] = stats.converged ? 1 : 0;
    state.counters["cvd_ms"] = stats.milliseconds;
    state.counters["ms_per_iteration"] = stats.milliseconds / stats.iterations;
    state.counters["iteration_vs_bruteforce"] = stats.milliseconds / stats.iterations / bruteMs;
}

void BM_CvdPlate(benchmark::State& state)
{
    runCvd(state, "plate", false);
}
void BM_CvdPiggyBank(benchmark::State& state)
{
    runCvd(state, "piggy_bank", false);
}
void BM_CvdPiggyBankInterior(benchmark::State& state)
{
    runCvd(state, "piggy_bank", true);
}
BENCHMARK(BM_CvdPlate)->Arg(8)->Arg(27)->Arg(64)->ArgName("sites")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvdPiggyBank)->Arg(8)->Arg(27)->Arg(64)->ArgName("sites")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvdPiggyBankInterior)->Arg(8)->Arg(27)->Arg(64)->ArgName("sites")->Unit(benchmark::kMillisecond);

void BM_PlanFracturePlate(benchmark::State& state)
{
    const Subject& s = subject("plate");
    // γ at 1/scale of the unbroken plate's energy under the unit bump: E_1/γ = scale.
    const std::vector<Real> unitWeights = nodeWeights(s.asset->tetMesh, s.region, bump(s, 1), Material{});
    Material material;
    material.toughness = wholeEnergy(s.positions, 3, unitWeights) / Real(state.range(0));
    PlanSettings settings;
    settings.cvd = benchSettings();
    const StrainEnergy energy = bump(s, 1);
    PlanStats stats;
    for (auto _ : state)
    {
        const auto l =
            planFracture(*s.asset, s.region, energy, s.positions, 3, material, 1, &stats, settings);
        benchmark::DoNotOptimize(l.has_value());
    }
    state.counters["degree"] = stats.degree;
    state.counters["trials"] = Real(stats.trials.size());
    state.counters["cvd_iterations"] = stats.cvdIterations;
    state.counters["plan_ms"] = stats.milliseconds;
}
BENCHMARK(BM_PlanFracturePlate)
    ->Arg(4)
    ->Arg(32)
    ->Arg(256)
    ->ArgName("energy_over_gamma")
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
