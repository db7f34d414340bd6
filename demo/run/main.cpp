// shatter_run: runs a scene headless and writes its per-step statistics.
//   shatter_run SCENE [--steps N] [--csv stats.csv] [--json summary.json]
//               [--collision shatter|gimpact|hull] [--contacts adaptive|full|fixed8]
//               [--restructure 2013|2012|rebuild] [--seed S] [--no-fracture] [--workers N] [--threads N]
//               [--latency N] [--realtime] [--list]
// SCENE is a scene file or the name of a shipped scene (assets/scenes/NAME.json); anything else is an
// error that lists the shipped scenes. Errors (bad flags, unreadable or invalid scene files, failing
// assets) print one line and exit with a non-zero status.
#include "named_choices.h"
#include "progress_bar.h"

#include "shatter/error.h"
#include "shatter/scenes/scene_world.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

namespace
{

using namespace shatter::scenes;

std::string_view meshFormatName(shatter::MeshFormat format)
{
    return format == shatter::MeshFormat::Gltf ? "gltf" : "obj";
}

int run(int argc, char** argv)
{
    CLI::App app{"shatter_run: run a Shatter scene headless and write per-step statistics"};
    std::string sceneArgument, csv, json, cacheDir, exportDir, saveFile, restoreFile;
    shatter::MeshFormat exportFormat = shatter::MeshFormat::Gltf;
    int steps = -1;
    RunSettings options;
    bool noFracture = false, list = false;
    app.add_option("scene", sceneArgument, "Scene file, or the name of a shipped scene");
    app.add_flag("--list", list, "List the shipped scenes and exit");
    app.add_option("--steps", steps, "Internal steps to run (default: the scene's duration)")
        ->check(CLI::Range(0, 100000000));
    app.add_option("--csv", csv, "Per-step statistics (TVCG Tables 2-3 columns)");
    app.add_option("--json", json, "Run summary: means, maxima, state hash, penetration, lowest body");
    app.add_option("--collision", options.collision, "Fragment shapes")
        ->transform(shatter::cli::namedChoices({shatter::fracture::FragmentShapeKind::Fracturable,
                                                shatter::fracture::FragmentShapeKind::GImpact,
                                                shatter::fracture::FragmentShapeKind::ConvexHull},
                                               &collisionName));
    app.add_option("--contacts", options.contacts, "Contact selection")
        ->transform(shatter::cli::namedChoices(
            {shatter::ContactMode::Adaptive, shatter::ContactMode::Full, shatter::ContactMode::FixedBudget},
            &contactsName));
    app.add_option("--restructure", options.restructure,
                   "Sphere-tree update at fracture (rebuild: fresh trees)")
        ->transform(shatter::cli::namedChoices({shatter::RestructureMethod::Tvcg2013,
                                                shatter::RestructureMethod::Sca2012,
                                                shatter::RestructureMethod::Rebuild},
                                               &restructureName));
    app.add_option("--seed", options.seed, "Seed of the fracture patterns")
        ->check(CLI::Validator(
            [](const std::string& text) // an unsigned option would take -1 as 2^64 - 1
            { return text.find('-') == std::string::npos ? std::string() : "must not be negative"; },
            "UINT"));
    app.add_flag("--no-fracture", noFracture, "Nothing breaks");
    app.add_option("--export", exportDir,
                   "After the run, write every piece to this folder (one file each, at its world pose, crack "
                   "faces as their own material)");
    app.add_option("--export-format", exportFormat, "File format of --export")
        ->transform(shatter::cli::namedChoices({shatter::MeshFormat::Gltf, shatter::MeshFormat::Obj},
                                               &meshFormatName));
    app.add_option("--workers", options.workers,
                   "Fracture job threads (0: inline at submission; default: the scene's, else 1)")
        ->check(CLI::Range(0, 256));
    app.add_option("--threads", options.collisionThreads,
                   "Narrow-phase threads, the caller's included (0: all hardware threads; default 1)")
        ->check(CLI::Range(0, 256));
    app.add_option("--latency", options.latencySteps,
                   "Internal steps from an impact to its fragments (default: the scene's, else 1)")
        ->check(CLI::Range(0, 1000));
    app.add_flag("--realtime", options.realtime,
                 "Pace the steps to simulated time, as a game loop does (fracture jobs get the wall time "
                 "of their latency)");
    app.add_option("--save", saveFile,
                   "Write the run's state at its end to this file (continue it with --restore)");
    app.add_option("--restore", restoreFile,
                   "Start from a state written by --save with the same scene and options; --steps counts "
                   "the steps after it (default: the rest of the scene's duration)")
        ->check(CLI::ExistingFile);
    app.add_option("--asset-cache", cacheDir,
                   "Directory of built assets (default: $SHATTER_ASSET_CACHE or the build tree)");
    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& e)
    {
        return app.exit(e);
    }
    if (list)
    {
        for (const std::string& name : builtInSceneNames())
            std::printf("%s\n", name.c_str());
        return 0;
    }
    if (sceneArgument.empty())
    {
        std::fprintf(stderr, "shatter_run: error: no scene given (a scene file or one of --list)\n");
        return 2;
    }
    options.fracture = !noFracture;
    options.assetCacheDir = cacheDir;

    const Scene scene = loadScene(resolveScenePath(sceneArgument));
    shatter::cli::ProgressBar assetBar("assets   ");
    options.assetProgress = assetBar.callback();
    options.assetWarning = [&assetBar](std::string_view message)
    {
        assetBar.finish();
        std::fprintf(stderr, "shatter_run: warning: %.*s\n", int(message.size()), message.data());
    };
    SceneWorld world(scene, options);
    assetBar.finish();
    if (!restoreFile.empty())
        world.restore(std::filesystem::path(restoreFile));

    const int total =
        steps >= 0 ? steps : std::max(0, int(scene.duration / scene.timeStep + 0.5) - world.stepCount());
    shatter::cli::ProgressBar bar(scene.name);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < total; ++i)
    {
        if (options.realtime) // step i starts when the simulated clock says so, never earlier
            std::this_thread::sleep_until(start + std::chrono::duration<double>(i * scene.timeStep));
        const StepStats& s = world.step();
        char text[96];
        std::snprintf(text, sizeof text, "step %d/%d  %.2f ms  %ld fragments", i + 1, total, s.totalMs,
                      s.fragments);
        bar.update(double(i + 1) / total, text);
    }
    bar.finish();

    const RunSummary summary = world.summary();
    if (!saveFile.empty())
        world.save(std::filesystem::path(saveFile));
    if (!csv.empty())
        writeCsv(csv, world.history());
    if (!json.empty())
        writeSummaryJson(json, summary);
    if (!exportDir.empty())
    {
        const int files = exportFragments(world, exportDir, exportFormat);
        std::fprintf(stderr, "shatter_run: exported %d pieces to %s\n", files, exportDir.c_str());
    }
    std::printf("%s: %d steps (%.3f s) with %s collision: total %.3f ms/step (max %.3f), collision %.3f ms, "
                "%.0f contacts/step, %ld fragments, %ld fracture events, state %s\n",
                summary.scene.c_str(), summary.steps, summary.simulatedSeconds,
                std::string(collisionName(options.collision)).c_str(), summary.mean.totalMs,
                summary.max.totalMs, summary.mean.collisionMs, double(summary.mean.outputContacts),
                summary.finalFragments, summary.fractureEvents, summary.stateHash.c_str());
    if (summary.failedEvents > 0 || summary.bodylessFragments > 0)
        std::fprintf(stderr, "shatter_run: warning: %ld failed fracture events, %ld bodyless fragments\n",
                     summary.failedEvents, summary.bodylessFragments);
    if (summary.budgetLimitedPairs > 0)
        std::fprintf(
            stderr,
            "shatter_run: warning: the step contact budget (CollisionSettings::maxContactsPerStep) cut %ld "
            "pair evaluations: too many bodies overlap\n",
            summary.budgetLimitedPairs);
    if (summary.fragmentLimitImpacts > 0)
        std::fprintf(
            stderr,
            "shatter_run: warning: %ld impacts were not evaluated: their events could have passed the "
            "world's fragment limit (fracture max_world_fragments)\n",
            summary.fragmentLimitImpacts);
    if (summary.nonFiniteBodies > 0)
    {
        std::fprintf(stderr, "shatter_run: error: %ld bodies turned non-finite (taken out of the world)\n",
                     summary.nonFiniteBodies);
        return 3;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try
    {
        return run(argc, argv);
    }
    catch (const shatter::Error& e)
    {
        std::fprintf(stderr, "shatter_run: error: %s\n", e.what());
        return 1;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "shatter_run: error: %s\n", e.what());
        return 1;
    }
}
