// Deformation models per fracture event (CVD §3.3) on the plate and the piggy bank:
//  - fem_factorise: assembling K and its sparse Cholesky factorisation (once per object / fragment);
//  - fem_solve: one event on a factorised region (load, inertia relief, back-substitution, energy);
//  - modal_precompute: the k = 20 lowest elastic modes (Spectra shift-invert; once per object / fragment);
//  - modal_event: one event on a precomputed basis (projection, modal response, energy);
//    counter modal_speedup = fem_solve time / modal_event time, both measured in this process;
//  - interior_embedding: the interior-distance embedding of the asset (CVD §3.2; once per asset).
// The impact is three contact forces near the top of the object. SHATTER_BENCH_SMOKE=1 (ctest) only
// checks that everything runs, in a few seconds: the plate only (the piggy bank's factorisation alone
// takes seconds), 6 modes, one precompute iteration. Assets are cached under the build folder.
#include "test_assets.h"
#include "test_env.h"
#include "test_paths.h"

#include "fem_deformation.h"
#include "interior_embedding.h"
#include "modal_deformation.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shatter::fracture
{
namespace
{

int modeCount()
{
    return test::benchSmokeMode() ? 6 : 20;
}

Material glass()
{
    Material m;
    m.density = 2500;
    m.youngsModulus = 7e10;
    m.poissonRatio = 0.22;
    return m;
}

struct Scene
{
    std::shared_ptr<const Asset> asset;
    std::vector<Index> tets;
    std::vector<ImpactForce> forces;
    FemDeformation fem;
    ModalDeformation modal;
    Real femSolveSeconds = 0; ///< baseline for modal_speedup: median of a few FEM events

    explicit Scene(const std::string& stem)
        : modal(DeformationSettings{DeformationModel::Modal, 1.5, modeCount()})
    {
        asset = test::cachedMeshAsset(test::meshDir() / (stem + ".obj"), AssetSettings{});
        tets = allTets(*asset);
        // Three contacts around the highest surface vertex, pushing down.
        const TriMesh& surface = asset->surface;
        const auto top = std::max_element(surface.vertices.begin(), surface.vertices.end(),
                                          [](const Vec3& a, const Vec3& b) { return a.y() < b.y(); });
        const Real spread = 2 * asset->tetMesh.meanEdgeLength();
        for (const Vec3& offset : {Vec3(0, 0, 0), Vec3(spread, 0, 0), Vec3(0, 0, spread)})
            forces.push_back({*top + offset, Vec3(0.1, -1, 0.05) * 2e3});

        fem.prepare(*asset, tets, glass());
        std::vector<Real> times;
        for (int i = 0; i < 5; ++i)
        {
            const auto start = std::chrono::steady_clock::now();
            benchmark::DoNotOptimize(fem.compute(*asset, tets, glass(), forces));
            times.push_back(std::chrono::duration<Real>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(times.begin(), times.end());
        femSolveSeconds = times[times.size() / 2];
    }
};

Scene& scene(const std::string& stem)
{
    static std::map<std::string, std::unique_ptr<Scene>> scenes;
    auto& slot = scenes[stem];
    if (!slot)
        slot = std::make_unique<Scene>(stem);
    return *slot;
}

void setCounters(benchmark::State& state, const Scene& s)
{
    state.counters["tets"] = Real(s.asset->tetMesh.tetCount());
    state.counters["nodes"] = Real(s.asset->tetMesh.nodeCount());
}

void femFactorise(benchmark::State& state, const std::string& stem)
{
    Scene& s = scene(stem);
    for (auto _ : state)
    {
        FemDeformation fem;
        fem.prepare(*s.asset, s.tets, glass());
        benchmark::DoNotOptimize(fem.cachedRegions());
    }
    setCounters(state, s);
}

void femSolve(benchmark::State& state, const std::string& stem)
{
    Scene& s = scene(stem);
    for (auto _ : state)
        benchmark::DoNotOptimize(s.fem.compute(*s.asset, s.tets, glass(), s.forces));
    setCounters(state, s);
}

void modalPrecompute(benchmark::State& state, const std::string& stem)
{
    Scene& s = scene(stem);
    for (auto _ : state)
    {
        ModalDeformation modal(DeformationSettings{DeformationModel::Modal, 1.5, modeCount()});
        modal.prepare(*s.asset, s.tets, glass());
        benchmark::DoNotOptimize(modal.cachedRegions());
    }
    setCounters(state, s);
    state.counters["modes"] = modeCount();
}

void modalEvent(benchmark::State& state, const std::string& stem)
{
    Scene& s = scene(stem);
    s.modal.prepare(*s.asset, s.tets, glass());
    const StrainEnergy fem = s.fem.compute(*s.asset, s.tets, glass(), s.forces);
    Real modalTotal = 0;
    const auto start = std::chrono::steady_clock::now();
    std::int64_t events = 0;
    for (auto _ : state)
    {
        const StrainEnergy e = s.modal.compute(*s.asset, s.tets, glass(), s.forces);
        modalTotal = e.total;
        ++events;
    }
    const Real perEvent =
        std::chrono::duration<Real>(std::chrono::steady_clock::now() - start).count() / Real(events);
    setCounters(state, s);
    state.counters["modes"] = modeCount();
    state.counters["fem_solve_ms"] = 1e3 * s.femSolveSeconds;
    state.counters["modal_speedup"] = s.femSolveSeconds / perEvent;
    state.counters["energy_ratio"] = modalTotal / fem.total; // modal / FEM strain energy of this impact
}

void interiorEmbedding(benchmark::State& state, const std::string& stem)
{
    Scene& s = scene(stem);
    for (auto _ : state)
        benchmark::DoNotOptimize(computeInteriorEmbedding(*s.asset));
    setCounters(state, s);
}

void registerAll()
{
    const std::vector<std::string> stems = test::benchSmokeMode()
                                               ? std::vector<std::string>{"plate"}
                                               : std::vector<std::string>{"plate", "piggy_bank"};
    for (const std::string& stem : stems)
    {
        benchmark::RegisterBenchmark(("fem_factorise/" + stem).c_str(), femFactorise, stem)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("fem_solve/" + stem).c_str(), femSolve, stem)
            ->Unit(benchmark::kMillisecond);
        auto* precompute =
            benchmark::RegisterBenchmark(("modal_precompute/" + stem).c_str(), modalPrecompute, stem)
                ->Unit(benchmark::kMillisecond);
        if (test::benchSmokeMode())
            precompute->Iterations(1);
        benchmark::RegisterBenchmark(("modal_event/" + stem).c_str(), modalEvent, stem)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("interior_embedding/" + stem).c_str(), interiorEmbedding, stem)
            ->Unit(benchmark::kMillisecond);
    }
}

} // namespace
} // namespace shatter::fracture

int main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    shatter::fracture::registerAll();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
