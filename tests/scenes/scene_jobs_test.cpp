// Fracture jobs in whole scenes (FractureSystemSettings::workers, latencySteps):
//  - every shipped scene gives bitwise the same state hash and per-step counts with 0, 1, 2 and 4 worker
//    threads at the same latency, and with 1, 2 and 4 narrow-phase threads (RunSettings::
//    collisionThreads): results never depend on which thread ran a job or a pair, or when it finished.
//    The run is a prefix: the workers = 0 run goes until the first completed fracture event's fragments
//    have been ready for a few steps (every breaking scene must have one), the others run as many steps;
//    SHATTER_LONG_TESTS=1 runs the scenes' full durations;
//  - latencySteps = 0 with workers = 0 and 1 is the synchronous system: the same run, every event in its
//    impact step;
//  - with latency L every event reports L, and shatter_run's columns carry the job timings.
#include "../support/test_env.h"
#include "shatter/scenes/scene_world.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace shatter::scenes
{
namespace
{

using test::longTests; // SHATTER_LONG_TESTS=1: the whole scenes

struct SceneRun
{
    std::string hash;
    std::vector<StepStats> history;
    long events = 0;
};

SceneRun run(const Scene& scene, int workers, int latency, int steps, int collisionThreads = 1)
{
    RunSettings options;
    options.workers = workers;
    options.collisionThreads = collisionThreads;
    options.latencySteps = latency;
    SceneWorld world(scene, options);
    SceneRun r;
    for (int i = 0; i < steps; ++i)
        r.events += world.step().fractureEvents;
    r.hash = world.stateHash();
    r.history = world.history();
    return r;
}

// Steps until `margin` steps after the first step with a fracture event (all steps if none happens), with
// workers = 0: the prefix the other worker counts repeat.
SceneRun prefixRun(const Scene& scene, int latency, int margin, int& steps)
{
    RunSettings options;
    options.workers = 0;
    options.latencySteps = latency;
    SceneWorld world(scene, options);
    const int full = int(scene.duration / scene.timeStep + 0.5);
    SceneRun r;
    int firstEvent = -1;
    for (steps = 0; steps < full; ++steps)
    {
        if (!longTests() && firstEvent >= 0 && steps >= firstEvent + margin)
            break;
        const StepStats& s = world.step();
        r.events += s.fractureEvents;
        if (s.fractureEvents > 0 && firstEvent < 0)
            firstEvent = steps;
    }
    r.hash = world.stateHash();
    r.history = world.history();
    return r;
}

void expectSameRun(const SceneRun& a, const SceneRun& b, const std::string& what)
{
    EXPECT_EQ(a.hash, b.hash) << what;
    EXPECT_EQ(a.events, b.events) << what;
    ASSERT_EQ(a.history.size(), b.history.size()) << what;
    for (std::size_t i = 0; i < a.history.size(); ++i)
    {
        EXPECT_EQ(a.history[i].fractureEvents, b.history[i].fractureEvents) << what << ", step " << i;
        EXPECT_EQ(a.history[i].fragments, b.history[i].fragments) << what << ", step " << i;
        EXPECT_EQ(a.history[i].outputContacts, b.history[i].outputContacts) << what << ", step " << i;
        EXPECT_EQ(a.history[i].fractureLatencySteps, b.history[i].fractureLatencySteps)
            << what << ", step " << i;
    }
}

struct SceneCase
{
    const char* name;
    bool breaks; ///< the scene has fracture events (test_ball_events only pushes and bounces)
};

class SceneJobs : public testing::TestWithParam<SceneCase>
{
};

TEST_P(SceneJobs, SameStateWithAnyNumberOfWorkers)
{
    const SceneCase& c = GetParam();
    const Scene scene = loadScene(builtInScenePath(c.name));
    const int latency = 1;
    int steps = 0;
    const SceneRun inline0 = prefixRun(scene, latency, scene.fracture.fragmentReadySteps + 4, steps);
    if (c.breaks)
    {
        EXPECT_GT(inline0.events, 0) << c.name << ": no fracture event in " << steps << " steps";
    }
    std::printf("[jobs] %s: %d steps, %ld events%s\n", c.name, steps, inline0.events,
                longTests() ? "" : " (SHATTER_LONG_TESTS=1 runs the whole scene)");
    // The narrow phase's thread count changes with the workers' (ParallelCollisionDispatcher): neither
    // may change the run.
    for (int workers : {1, 2, 4})
        expectSameRun(inline0, run(scene, workers, latency, steps, workers),
                      std::string(c.name) + " with " + std::to_string(workers) +
                          " workers and narrow-phase threads");
}

INSTANTIATE_TEST_SUITE_P(Shipped, SceneJobs,
                         testing::Values(SceneCase{"piggy_bank", true}, SceneCase{"bricks", true},
                                         SceneCase{"plates", true}, SceneCase{"drop_piggies", true},
                                         SceneCase{"test_brick_drop", true},
                                         SceneCase{"test_ball_events", false}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SceneJobs, EveryShippedSceneIsCovered)
{
    std::vector<std::string> covered = {"piggy_bank",   "bricks",          "plates",
                                        "drop_piggies", "test_brick_drop", "test_ball_events"};
    std::vector<std::string> shipped = builtInSceneNames();
    std::sort(covered.begin(), covered.end());
    std::sort(shipped.begin(), shipped.end());
    EXPECT_EQ(shipped, covered) << "add the new scene to SceneJobs above";
}

// latencySteps = 0 is the synchronous system: with the FEM model (no bound on the simulation thread) and
// fragments ready at once, 25 steps of bricks give the same run inline and with a worker, every event in
// its impact step.
TEST(SceneJobs, LatencyZeroIsTheSynchronousRunWithAnyWorkers)
{
    Scene scene = loadScene(builtInScenePath("bricks"));
    scene.fracture.deformation = fracture::DeformationModel::Fem;
    scene.fracture.fragmentReadySteps = 0;
    const SceneRun inline0 = run(scene, 0, 0, 25);
    EXPECT_GT(inline0.events, 5);
    for (const StepStats& s : inline0.history)
        EXPECT_EQ(s.fractureLatencySteps, 0);
    expectSameRun(inline0, run(scene, 1, 0, 25), "bricks, latency 0, one worker");
}

TEST(SceneJobs, EventsHaveTheConfiguredLatencyAndTheirCostIsReported)
{
    const Scene scene = loadScene(builtInScenePath("test_brick_drop"));
    const int latency = 3;
    const SceneRun r = run(scene, 1, latency, 20);
    ASSERT_GT(r.events, 0);
    double jobMs = 0;
    for (const StepStats& s : r.history)
    {
        if (s.fractureEvents > 0)
        {
            EXPECT_EQ(s.fractureLatencySteps, latency) << "step " << s.step;
        }
        EXPECT_GE(s.fractureMainMs, 0);
        EXPECT_GE(s.fractureWaitMs, 0);
        EXPECT_LE(s.fractureWaitMs, s.fractureMainMs + 1e-9);
        jobMs += s.fractureJobMs;
    }
    EXPECT_GT(jobMs, 0) << "no job time reported";
    const nlohmann::json summary = nlohmann::json::parse(summaryJson(summarize(r.history)));
    for (const char* key :
         {"fracture_main_ms", "fracture_job_ms", "fracture_wait_ms", "fracture_latency_steps"})
    {
        EXPECT_TRUE(summary["max"].contains(key)) << key;
        EXPECT_TRUE(summary["mean"].contains(key)) << key;
    }
    EXPECT_EQ(summary["max"]["fracture_latency_steps"].get<int>(), latency);
}

} // namespace
} // namespace shatter::scenes
