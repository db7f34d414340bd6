// shatter_soak: runs a scene over and over (one SceneWorld, the scene respawned every round) for a number of
// internal steps and checks what a long session needs: no body turns non-finite, nothing falls through
// the ground, and memory stays flat (the peak resident size at the end against the peak after the
// baseline step). So that the peak measures what the program holds rather than how glibc's allocator
// lays it out, big blocks are mapped on their own (a fixed mmap threshold) and freed memory goes back to
// the OS between rounds, as a game does at a level change (--glibc-defaults does neither; docs/fuzzing.md,
// "Soak"). scripts/soak.sh and the test soak run it at full length, the fracture jobs inline (--workers 0).
//   shatter_soak [SCENE] [--steps N] [--baseline-step M] [--max-growth F] [--lowest Y] [--seed S] [--json
//   FILE]
#include "shatter/error.h"
#include "shatter/scenes/scene_world.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>

namespace
{

using namespace shatter::scenes;

double peakResidentMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024; // Linux reports KiB
}

double residentMiB()
{
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r"))
    {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// What the program holds from the allocator (glibc's count over all arenas): flat over rounds while
// the resident size grows means fragmentation, growing means a leak.
double allocatedMiB()
{
    const struct mallinfo2 info = mallinfo2();
    return double(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

struct SoakResult
{
    long steps = 0;
    int rounds = 0;
    long fractureEvents = 0;
    long failedEvents = 0;
    long bodylessFragments = 0;
    long nonFiniteBodies = 0;
    long nonFiniteLowest = 0; ///< steps whose lowest body height was not a number
    double lowestBodyY = std::numeric_limits<double>::infinity();
    long lowestStep = 0;        ///< the step (counted over all rounds) of lowestBodyY
    int lowestRound = 0;        ///< the round of lowestBodyY
    double baselinePeakMiB = 0; ///< peak resident size once the baseline step was done
    double finalPeakMiB = 0;
};

int run(int argc, char** argv)
{
    CLI::App app{"shatter_soak: run a scene over and over and check state and memory"};
    std::string sceneArgument = std::string(SHATTER_SOAK_SCENE), json, roundsCsv;
    long steps = 20000, baselineStep = 2000;
    double maxGrowth = 1.1, lowestAllowed = -0.05;
    bool glibcDefaults = false;
    std::uint64_t seed = 1;
    int workers = -1;
    app.add_option("scene", sceneArgument, "Scene file or shipped scene (default: the soak scene)");
    app.add_option("--steps", steps, "Internal steps in all")->check(CLI::Range(1L, 100000000L));
    app.add_option("--baseline-step", baselineStep, "Step after which the memory baseline is taken")
        ->check(CLI::Range(1L, 100000000L));
    app.add_option("--max-growth", maxGrowth, "Largest final / baseline peak resident size")
        ->check(CLI::Range(1.0, 100.0));
    app.add_option("--lowest", lowestAllowed, "Lowest allowed body height above the ground, m")
        ->check(CLI::Range(-100.0, 0.0));
    app.add_option("--seed", seed, "Fracture seed of the world (the run is reproducible with it)");
    app.add_option("--workers", workers,
                   "Fracture worker threads (0: jobs run inline, so the peak memory does not depend on "
                   "timing); default: the scene's")
        ->check(CLI::Range(-1, 256))
        ->multi_option_policy(
            CLI::MultiOptionPolicy::TakeLast); // scripts/soak.sh sets 0, a user may override
    app.add_option("--json", json, "Write the result as JSON");
    app.add_flag(
        "--glibc-defaults", glibcDefaults,
        "Leave glibc's allocator as it is: a sliding mmap threshold, freed memory kept between rounds");
    app.add_option("--rounds", roundsCsv,
                   "Write a CSV line per round: lowest body, the heap's peak in it, resident and peak memory "
                   "at its end");
    CLI11_PARSE(app, argc, argv);
    // glibc raises its mmap threshold to the size of each mapped block freed (up to 32 MiB), after which
    // the fracture jobs' big buffers come from the heap of the thread that made them and stay there
    // when freed: one round of the full soak then held 58 MiB more than its heap's peak.
    if (!glibcDefaults)
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (baselineStep >= steps)
    {
        std::fprintf(stderr, "shatter_soak: error: --baseline-step (%ld) must be below --steps (%ld)\n",
                     baselineStep, steps);
        return 2;
    }

    const Scene scene = loadScene(resolveScenePath(sceneArgument));
    const long roundSteps = std::max(1L, std::lround(scene.duration / scene.timeStep));
    SoakResult result;
    const double groundHeight = scene.ground.height;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> rounds(nullptr, &std::fclose);
    if (!roundsCsv.empty())
    {
        rounds.reset(std::fopen(roundsCsv.c_str(), "w"));
        if (!rounds)
            throw shatter::Error(roundsCsv, "cannot write the rounds file");
        std::fprintf(rounds.get(), "round,steps,fracture_events,lowest_body_above_ground,start_allocated_mib,"
                                   "heap_peak_mib,resident_mib,peak_mib\n");
    }
    // One world for the whole run, as in a game session: each round puts the scene's objects back
    // (SceneWorld::respawn) in the same Bullet world and FractureSystem, so whatever those keep from
    // round to round shows as growth. Object ids keep increasing, and with them the fracture seeds.
    RunSettings options;
    options.seed = seed;
    options.workers = workers;
    options.historyLimit = int(roundSteps);
    SceneWorld world(scene, options);
    while (result.steps < steps)
    {
        double roundLowest = std::numeric_limits<double>::infinity();
        double roundHeapPeak = 0;
        long roundEvents = 0;
        if (result.rounds > 0)
        {
            world.respawn();
            if (!glibcDefaults)
                releaseFreedMemory(); // a level change
        }
        const double startAllocated = allocatedMiB();
        for (long i = 0; i < roundSteps && result.steps < steps; ++i)
        {
            const StepStats& s = world.step();
            ++result.steps;
            result.fractureEvents += s.fractureEvents;
            roundEvents += s.fractureEvents;
            roundLowest = std::min(roundLowest, s.lowestBodyY - groundHeight);
            result.failedEvents += s.failedEvents;
            result.bodylessFragments += s.bodylessFragments;
            result.nonFiniteBodies += s.nonFiniteBodies;
            if (std::isfinite(s.lowestBodyY))
            {
                if (s.lowestBodyY - groundHeight < result.lowestBodyY)
                {
                    result.lowestBodyY = s.lowestBodyY - groundHeight;
                    result.lowestStep = result.steps;
                    result.lowestRound = result.rounds;
                }
            }
            else
                ++result.nonFiniteLowest;
            if (result.steps == baselineStep)
                result.baselinePeakMiB = peakResidentMiB();
            if (rounds)
                roundHeapPeak = std::max(roundHeapPeak, allocatedMiB());
        }
        if (rounds)
        {
            std::fprintf(rounds.get(), "%d,%ld,%ld,%.5f,%.1f,%.1f,%.1f,%.1f\n", result.rounds, result.steps,
                         roundEvents, roundLowest, startAllocated, roundHeapPeak, residentMiB(),
                         peakResidentMiB());
            std::fflush(rounds.get()); // a long soak can be watched, and a crash keeps its rounds
        }
        ++result.rounds;
    }
    result.finalPeakMiB = peakResidentMiB();
    const double growth = result.finalPeakMiB / result.baselinePeakMiB;

    std::printf(
        "soak: %ld steps in %d rounds of %s, %ld fracture events (%ld failed, %ld bodyless fragments), "
        "%ld non-finite bodies, lowest body %.4f m (step %ld, round %d), peak memory %.1f MiB after step "
        "%ld and %.1f MiB "
        "at the end (x%.3f)\n",
        result.steps, result.rounds, scene.name.c_str(), result.fractureEvents, result.failedEvents,
        result.bodylessFragments, result.nonFiniteBodies, result.lowestBodyY, result.lowestStep,
        result.lowestRound, result.baselinePeakMiB, baselineStep, result.finalPeakMiB, growth);
    if (!json.empty())
    {
        const nlohmann::json out = {{"scene", scene.name},
                                    {"steps", result.steps},
                                    {"rounds", result.rounds},
                                    {"fracture_events", result.fractureEvents},
                                    {"failed_events", result.failedEvents},
                                    {"bodyless_fragments", result.bodylessFragments},
                                    {"non_finite_bodies", result.nonFiniteBodies},
                                    {"lowest_body_above_ground", result.lowestBodyY},
                                    {"lowest_body_step", result.lowestStep},
                                    {"lowest_body_round", result.lowestRound},
                                    {"seed", seed},
                                    {"baseline_step", baselineStep},
                                    {"baseline_peak_mib", result.baselinePeakMiB},
                                    {"final_peak_mib", result.finalPeakMiB},
                                    {"memory_growth", growth}};
        std::ofstream(json) << out.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) << '\n';
    }

    int failures = 0;
    auto check = [&](bool ok, const char* what)
    {
        if (!ok)
        {
            std::fprintf(stderr, "shatter_soak: FAILED: %s\n", what);
            ++failures;
        }
    };
    check(result.nonFiniteBodies == 0 && result.nonFiniteLowest == 0, "a body turned non-finite");
    check(result.lowestBodyY >= lowestAllowed, "a body fell below the allowed height");
    check(growth <= maxGrowth, "peak memory grew more than --max-growth");
    check(result.fractureEvents > 0, "nothing broke: the soak did not exercise fracture");
    return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    try
    {
        return run(argc, argv);
    }
    catch (const shatter::Error& error)
    {
        std::fprintf(stderr, "shatter_soak: error: %s\n", error.what());
        return 1;
    }
}
