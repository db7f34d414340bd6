// The narrow phase of a recorded pile on 1 and 2 threads (ParallelCollisionDispatcher).
//
// A shipped scene runs as shipped (fracture on, one narrow-phase thread) until its pile has formed; then
// the world's dispatcher processes the same overlapping pairs again and again, alternating rounds of
// 1 and 2 threads so that both see the same machine load. Wall time, since the point is the threads.
// Counters: the pairs and contacts of the pile, ms per narrow phase on 1 and 2 threads (medians over
// the rounds) and `thread_speedup_2` = ms_1 / ms_2. The pile is drop_piggies' at 1.5 s (the piggy banks
// broken and lying in a heap) and plates' at 1 s; SHATTER_BENCH_SMOKE=1 (ctest) takes bricks at 0.2 s.
#include "shatter/collision.h"
#include "shatter/scenes/scene_world.h"

#include "test_env.h"

#include <benchmark/benchmark.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace shatter;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void scenePile(benchmark::State& state, const std::string& scene, double seconds)
{
    const bool smoke = test::benchSmokeMode();
    scenes::SceneWorld world(scenes::loadScene(scenes::builtInScenePath(smoke ? "bricks" : scene)));
    const int steps = int((smoke ? 0.2 : seconds) / world.scene().timeStep + 0.5);
    for (int s = 0; s < steps; ++s)
        world.step();
    btDiscreteDynamicsWorld& bullet = world.world();
    auto& dispatcher = dynamic_cast<ParallelCollisionDispatcher&>(*bullet.getDispatcher());
    btOverlappingPairCache* pairs = bullet.getBroadphase()->getOverlappingPairCache();

    const int perRound = smoke ? 1 : 5;
    std::vector<double> ms[2];
    for (auto _ : state)
        for (int t = 0; t < 2; ++t)
        {
            dispatcher.setThreads(t + 1);
            const auto start = Clock::now();
            for (int r = 0; r < perRound; ++r)
                dispatcher.dispatchAllCollisionPairs(pairs, bullet.getDispatchInfo(), &dispatcher);
            ms[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count() /
                            perRound);
        }
    long contacts = 0;
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        contacts += dispatcher.getManifoldByIndexInternal(m)->getNumContacts();
    state.counters["pairs"] = double(pairs->getNumOverlappingPairs());
    state.counters["manifolds"] = double(dispatcher.getNumManifolds());
    state.counters["contacts"] = double(contacts);
    state.counters["bodies"] = double(bullet.getNumCollisionObjects());
    dispatcher.setThreads(0);
    state.counters["threads_available"] = double(dispatcher.threads());
    dispatcher.setThreads(1);
    state.counters["ms_1"] = median(ms[0]);
    state.counters["ms_2"] = median(ms[1]);
    state.counters["thread_speedup_2"] = median(ms[1]) > 0 ? median(ms[0]) / median(ms[1]) : 0;
}

void BM_DropPiggiesPile(benchmark::State& state)
{
    scenePile(state, "drop_piggies", 1.5);
}
void BM_PlatesPile(benchmark::State& state)
{
    scenePile(state, "plates", 1.0);
}
BENCHMARK(BM_DropPiggiesPile)->Unit(benchmark::kMillisecond)->Iterations(15);
BENCHMARK(BM_PlatesPile)->Unit(benchmark::kMillisecond)->Iterations(15);

} // namespace

BENCHMARK_MAIN();
