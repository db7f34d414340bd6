// Benchmark of a fracture event's plan stage (criterion, degree and CVD; planFracture) with the degree
// search of CVD §3.3 against the example-based degree of CVD §4 (DegreeMode::Model: projection, RBF
// network, one CVD), on drops of the plate and the piggy bank with the pipeline's default settings and
// metric. Each asset's model is trained once at start-up on a reduced example set (16 orientations, one
// repeat; 4 orientations under SHATTER_BENCH_SMOKE=1) — the accuracy is degree_model_test's business,
// here only the cost counts. The impacts are held-out drops at the training heights of E_D(N = 1) / γ
// ≈ 12 and 120. Counters: degree N, CVDs run, plan_ms (last iteration), predict_us (the model's
// projection and network alone).
#include "degree_training.h"

#include "test_assets.h"
#include "test_env.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace
{

using namespace shatter;
using namespace shatter::fracture;

struct Subject
{
    std::shared_ptr<const Asset> asset;
    Material material;
    FragmentRegion region;
    MetricCoordinates coords;
    std::shared_ptr<const DegreeModel> model;
    DegreeExamples examples;
    FracturePipeline pipeline;
};

Subject& subject(const std::string& name)
{
    static std::map<std::string, std::unique_ptr<Subject>> cache;
    auto& slot = cache[name];
    if (slot)
        return *slot;
    slot = std::make_unique<Subject>();
    Subject& s = *slot;
    s.asset = test::sharedAsset(name);
    s.material = glass();
    if (name == "piggy_bank")
    {
        s.material.density = 2000;
        s.material.toughness = 1e-10;
    }
    s.region = wholeMeshRegion(s.asset->tetMesh);
    s.coords = pipelineMetricCoordinates(s.asset, s.material, s.pipeline.settings());
    DegreeTrainingSettings training;
    training.orientations = test::benchSmokeMode() ? 4 : 16;
    training.repeats = 1;
    s.model = std::make_shared<const DegreeModel>(
        trainDegreeModel(s.asset, s.material, s.pipeline.settings(), training, {}, nullptr, &s.examples));
    return s;
}

// state.range(0): 0 = search, 1 = model; state.range(1): index of the training height (2 or 4).
void runPlan(benchmark::State& state, const std::string& name)
{
    Subject& s = subject(name);
    const bool model = state.range(0) == 1;
    const Real height = s.examples.heights.at(std::size_t(state.range(1)));
    const std::vector<DropImpact> impacts = dropImpacts(*s.asset, s.material, 8, 4242, 1.0 / 120, 9.81);
    std::vector<StrainEnergy> energies;
    for (const DropImpact& impact : impacts)
    {
        ImpactForce force = impact.unitForce;
        force.force *= std::sqrt(height);
        energies.push_back(s.pipeline.deformationModel().compute(*s.asset, allTets(*s.asset), s.material,
                                                                 std::span(&force, 1)));
    }
    PlanSettings settings = s.pipeline.settings().plan;
    settings.mode = model ? DegreeMode::Model : DegreeMode::Search;
    settings.model = s.model;
    PlanStats stats;
    std::size_t next = 0;
    double cvds = 0, degree = 0;
    for (auto _ : state)
    {
        const StrainEnergy& energy = energies[next++ % energies.size()];
        const auto l = planFracture(*s.asset, s.region, energy, s.coords.coords, s.coords.dimension,
                                    s.material, 1, &stats, settings);
        benchmark::DoNotOptimize(l.has_value());
        cvds += Real(stats.trials.size());
        degree += Real(stats.degree);
    }
    // The model's projection and network alone, on the last impact.
    const std::vector<Real> weights = nodeWeights(s.asset->tetMesh, s.region, energies.back(), s.material);
    const Real ratio = stats.wholeEnergy / s.material.toughness;
    constexpr int kPredictions = 100;
    const auto start = std::chrono::steady_clock::now();
    Real sink = 0;
    for (int i = 0; i < kPredictions; ++i)
        sink += s.model->predict(weights, ratio);
    benchmark::DoNotOptimize(sink);
    const double predictUs =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
        kPredictions;
    const double iterations = double(state.iterations());
    state.counters["nodes"] = s.region.nodeCount();
    state.counters["energy_over_gamma"] = ratio;
    state.counters["degree"] = degree / iterations;
    state.counters["cvds"] = cvds / iterations;
    state.counters["plan_ms"] = stats.milliseconds;
    state.counters["predict_us"] = predictUs;
    state.counters["components"] = s.model->components;
    state.counters["centres"] = s.model->centreCount;
}

void BM_PlanPlate(benchmark::State& state)
{
    runPlan(state, "plate");
}
void BM_PlanPiggyBank(benchmark::State& state)
{
    runPlan(state, "piggy_bank");
}
BENCHMARK(BM_PlanPlate)
    ->ArgsProduct({{0, 1}, {2, 4}})
    ->ArgNames({"model", "height"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanPiggyBank)
    ->ArgsProduct({{0, 1}, {2, 4}})
    ->ArgNames({"model", "height"})
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
