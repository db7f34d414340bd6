#include "mesh_loader.h"

#include "mesh_import.h"
#include "object_state.h"
#include "shatter/error.h"

#include <chrono>
#include <utility>

namespace shatter::demo
{

BackgroundJobs::~BackgroundJobs()
{
    wait();
}

void BackgroundJobs::wait()
{
    if (worker.joinable())
        worker.join();
}

std::string BackgroundJobs::stage() const
{
    std::lock_guard lock(mutex);
    return currentStage;
}

std::string BackgroundJobs::what() const
{
    std::lock_guard lock(mutex);
    return currentWhat;
}

void BackgroundJobs::report(std::string_view stage, double fraction)
{
    {
        std::lock_guard lock(mutex);
        currentStage = stage;
    }
    progress.store(fraction);
}

void BackgroundJobs::warn(std::string_view message)
{
    std::lock_guard lock(mutex);
    warnings.emplace_back(message);
}

std::vector<std::string> BackgroundJobs::takeWarnings()
{
    std::lock_guard lock(mutex);
    return std::exchange(warnings, {});
}

void BackgroundJobs::reportAssetsThroughJobs(scenes::RunSettings& options)
{
    options.assetProgress = [this](std::string_view stage, double fraction)
    {
        report(stage, fraction);
    };
    options.assetWarning = [this](std::string_view message)
    {
        warn(message);
    };
}

void BackgroundJobs::launch(std::string what, std::function<void(JobResult&)> work)
{
    wait();
    {
        std::lock_guard lock(mutex);
        currentWhat = what;
        currentStage = "starting";
    }
    progress.store(0);
    running.store(true);
    worker = std::thread(
        [this, what = std::move(what), work = std::move(work)]
        {
            JobResult result;
            result.what = what;
            const auto start = std::chrono::steady_clock::now();
            try
            {
                work(result);
            }
            catch (const std::exception& e)
            {
                result.error = e.what();
                result.world.reset();
                result.object.reset();
            }
            result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::lock_guard lock(mutex);
            finished = std::move(result);
            running.store(false);
        });
}

bool BackgroundJobs::startScene(scenes::Scene scene, scenes::RunSettings options, std::string what)
{
    if (busy())
        return false;
    launch(std::move(what),
           [this, scene = std::move(scene), options = std::move(options)](JobResult& out) mutable
           {
               reportAssetsThroughJobs(options);
               report("building assets and world", 0);
               out.world = std::make_unique<scenes::SceneWorld>(scene, options);
               // Later asset builds (user meshes added to this world) report through the jobs too.
               report("done", 1);
           });
    return true;
}

bool BackgroundJobs::startMesh(const std::filesystem::path& file, scenes::SceneObject object,
                               scenes::RunSettings options, double bottomY)
{
    if (busy())
        return false;
    launch("mesh " + file.filename().string(),
           [this, file, object = std::move(object), options = std::move(options),
            bottomY](JobResult& out) mutable
           {
               report("validating " + file.filename().string(), 0);
               ImportReport importReport;
               importMesh(file, ImportSettings{}, &importReport); // throws MeshError naming the defect
               reportAssetsThroughJobs(options);
               // A world with just this object builds the asset into the scene library's per-process
               // cache, so adding it to the running world afterwards is immediate.
               scenes::Scene probe;
               probe.name = "mesh probe";
               probe.ground.present = false;
               probe.objects.push_back(object);
               scenes::SceneWorld builder(probe, options);
               // Now the size is known: centre it and put its lowest point at bottomY.
               fracture::FractureSystem& system = builder.fracture();
               const Aabb box = system.state(system.objects().front()).asset().surface.bounds();
               const Eigen::Matrix3d r = object.placement.linear();
               Aabb turned;
               for (int corner = 0; corner < 8; ++corner)
                   turned.grow(r * Vec3(corner & 1 ? box.max.x() : box.min.x(),
                                        corner & 2 ? box.max.y() : box.min.y(),
                                        corner & 4 ? box.max.z() : box.min.z()));
               object.placement.translation() =
                   Vec3(-turned.center().x(), bottomY - turned.min.y(), -turned.center().z());
               out.object = object;
               report("done", 1);
           });
    return true;
}

std::optional<JobResult> BackgroundJobs::take()
{
    if (busy())
        return std::nullopt;
    std::lock_guard lock(mutex);
    std::optional<JobResult> out = std::move(finished);
    finished.reset();
    if (out && worker.joinable())
        worker.join();
    return out;
}

} // namespace shatter::demo
