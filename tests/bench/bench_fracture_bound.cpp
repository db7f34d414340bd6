// The cost of FracturePipeline::mightBreak (the criterion's bound, fracture_bound.h) against the full
// criterion it stands in for, on the brick, the plate and the piggy bank with glass() and the modal
// model (bases and bound data prepared first: the warm per-impact cost):
//  - BM_MightBreak: one call on a random 1-4 point impact (a pool of 256 cycled); counter rejected =
//    fraction of the pool the bound rejects (magnitudes log-uniform over E_D ∈ [1e-4, 1e2] γ);
//  - BM_Criterion: the same impacts through fracture() without the bound and with γ = ∞ (deformation,
//    metric coordinates, E_D(N = 1); no CVD): what a rejected impact costs without the bound.
// SHATTER_BENCH_SMOKE=1 (ctest): the brick only.
#include "bullet_world.h"
#include "test_env.h"

#include "fracture_pipeline.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace shatter::fracture
{
namespace
{

struct Scene
{
    std::shared_ptr<const Asset> asset;
    std::shared_ptr<ObjectState> state;
    Material material = glass();
    std::unique_ptr<FracturePipeline> pipeline;
    std::vector<std::vector<ImpactForce>> impacts;
    double rejected = 0;

    std::vector<ImpactForce> impact(Real magnitude, std::mt19937_64& rng) const
    {
        std::uniform_real_distribution<Real> u(0, 1);
        const TriMesh& surface = asset->surface;
        const Vec3 centre = surface.bounds().center();
        const Vec3 p = surface.vertices[std::size_t(u(rng) * Real(surface.vertices.size() - 1))];
        const Real spread = 0.05 * surface.bounds().extent().norm();
        const int count = 1 + int(u(rng) * 4);
        std::vector<ImpactForce> forces;
        for (int i = 0; i < count; ++i)
        {
            const Vec3 q = p + spread * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
            const Vec3 dir = (centre - q).normalized() + 0.9 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
            forces.push_back({q, magnitude / count * dir.normalized()});
        }
        return forces;
    }

    Real wholeEnergy(std::span<const ImpactForce> forces)
    {
        Material probe = material;
        probe.toughness = 1e300;
        FractureEventStats stats;
        pipeline->setUseBound(false);
        pipeline->fracture(*state, 0, probe, forces, 1, &stats);
        pipeline->setUseBound(true);
        return stats.plan.wholeEnergy;
    }

    explicit Scene(const std::string& stem)
    {
        asset = test::bulletAsset(stem + ".obj");
        state = std::make_shared<ObjectState>(asset);
        pipeline = std::make_unique<FracturePipeline>();
        pipeline->prepare(*state, material);
        std::mt19937_64 rng(1);
        const Real unit = wholeEnergy(impact(1, rng));
        const Real threshold = std::pow(material.toughness / unit, 1 / (2 * material.energyExponent));
        std::uniform_real_distribution<Real> logScale(-4, 2);
        for (int i = 0; i < 256; ++i)
            impacts.push_back(
                impact(threshold * std::pow(10, logScale(rng) / (2 * material.energyExponent)), rng));
        for (const auto& forces : impacts)
            rejected += pipeline->mightBreak(*state, 0, material, forces) ? 0 : 1;
        rejected /= Real(impacts.size());
    }
};

Scene& scene(const std::string& stem)
{
    static std::map<std::string, std::unique_ptr<Scene>> scenes;
    std::unique_ptr<Scene>& s = scenes[stem];
    if (!s)
        s = std::make_unique<Scene>(stem);
    return *s;
}

void BM_MightBreak(benchmark::State& bench, const std::string& stem)
{
    Scene& s = scene(stem);
    std::size_t i = 0;
    for (auto _ : bench)
    {
        const bool might = s.pipeline->mightBreak(*s.state, 0, s.material, s.impacts[i++ % s.impacts.size()]);
        benchmark::DoNotOptimize(might);
    }
    bench.counters["rejected"] = s.rejected;
    bench.counters["dofs"] = Real(3 * s.asset->tetMesh.nodeCount());
}

void BM_Criterion(benchmark::State& bench, const std::string& stem)
{
    Scene& s = scene(stem);
    std::size_t i = 0;
    for (auto _ : bench)
        benchmark::DoNotOptimize(s.wholeEnergy(s.impacts[i++ % s.impacts.size()]));
}

void registerAll()
{
    const std::vector<std::string> stems = test::benchSmokeMode()
                                               ? std::vector<std::string>{"brick"}
                                               : std::vector<std::string>{"brick", "plate", "piggy_bank"};
    for (const std::string& stem : stems)
    {
        benchmark::RegisterBenchmark(("BM_MightBreak/" + stem).c_str(), BM_MightBreak, stem)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_Criterion/" + stem).c_str(), BM_Criterion, stem)
            ->Unit(benchmark::kMicrosecond);
    }
}

} // namespace
} // namespace shatter::fracture

int main(int argc, char** argv)
{
    shatter::fracture::registerAll();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
