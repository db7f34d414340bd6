// Long work off the render loop: building a scene's assets and world, validating and building a user
// mesh. One job at a time; the UI shows its stage and a progress bar, and the demo keeps drawing.
#pragma once

#include "shatter/scenes/scene.h"
#include "shatter/scenes/scene_world.h"

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace shatter::demo
{

/// What a finished job hands back to the main thread.
struct JobResult
{
    std::string what;                          ///< "scene plates", "mesh bunny.obj"
    std::unique_ptr<scenes::SceneWorld> world; ///< scene jobs
    std::optional<scenes::SceneObject> object; ///< mesh jobs: ready to add (its asset is built and cached)
    std::string error;                         ///< non-empty on failure (the exception's message)
    double seconds = 0;
};

class BackgroundJobs
{
public:
    BackgroundJobs() = default;
    ~BackgroundJobs();
    BackgroundJobs(const BackgroundJobs&) = delete;
    BackgroundJobs& operator=(const BackgroundJobs&) = delete;

    bool busy() const { return running.load(); }
    /// Stage and overall fraction of the running job (for the progress bar).
    std::string stage() const;
    double fraction() const { return progress.load(); }
    std::string what() const;

    /// Builds a SceneWorld for `scene` (assets through the cache, with progress). False if busy.
    bool startScene(scenes::Scene scene, scenes::RunSettings options, std::string what);
    /// Imports and validates `file`, then builds its asset into the scene library's cache, so that
    /// SceneWorld::addObject with `object` is immediate. The object is centred over the origin with its
    /// lowest point at `bottomY` (its rotation kept). False if busy.
    bool startMesh(const std::filesystem::path& file, scenes::SceneObject object, scenes::RunSettings options,
                   double bottomY);

    /// The finished job's result, once (main thread).
    std::optional<JobResult> take();
    /// The asset warnings (rebuilt caches) reported since the last call, oldest first.
    std::vector<std::string> takeWarnings();
    /// Blocks until the running job (if any) has finished.
    void wait();

private:
    void launch(std::string what, std::function<void(JobResult&)> work);
    void report(std::string_view stage, double fraction);
    void warn(std::string_view message);
    /// Points the options' asset progress and warnings at this object (the world keeps them for later
    /// asset builds, so they must not point into one job).
    void reportAssetsThroughJobs(scenes::RunSettings& options);

    std::thread worker;
    std::atomic<bool> running{false};
    std::atomic<double> progress{0};
    mutable std::mutex mutex;
    std::string currentStage, currentWhat;
    std::optional<JobResult> finished;
    std::vector<std::string> warnings;
};

} // namespace shatter::demo
