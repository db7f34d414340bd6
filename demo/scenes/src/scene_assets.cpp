// Scene assets: the cache directory and the per-process table of loaded assets over the public,
// content-keyed loadOrBuildAsset.
#include "scene_assets.h"

#include "fracture_precompute.h"
#include "shatter/cook.h"
#include "shatter/error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace shatter::scenes
{

std::filesystem::path assetCacheDirectory(const std::filesystem::path& requested)
{
    if (!requested.empty())
        return requested;
    if (const char* dir = std::getenv("SHATTER_ASSET_CACHE"); dir && *dir)
        return dir;
    return SHATTER_SCENES_CACHE_DIR;
}

namespace
{

std::mutex tableMutex;
std::map<std::filesystem::path, std::shared_ptr<const Asset>> loaded; // by canonical mesh path

// An exclusive advisory lock on `file` (created if missing) while it lives: serialises the fracture
// precomputation of one cache file between processes (ctest runs scene tests side by side; without it
// each would train the same degree model, and the last to save would drop the others' sections). A
// file that cannot be opened locks nothing: the precomputation then only risks doing work twice.
class FileLock
{
public:
    explicit FileLock(const std::filesystem::path& file) : fd(::open(file.c_str(), O_CREAT | O_RDWR, 0644))
    {
        if (fd >= 0)
            while (::flock(fd, LOCK_EX) != 0 && errno == EINTR)
            {
            }
    }
    ~FileLock()
    {
        if (fd >= 0)
            ::close(fd); // releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd = -1;
};

} // namespace

std::shared_ptr<const Asset> sceneAsset(const std::filesystem::path& mesh,
                                        const std::filesystem::path& cacheDir,
                                        const ProgressCallback& progress, const AssetWarning& warning)
{
    const std::filesystem::path key = std::filesystem::weakly_canonical(mesh);
    const std::lock_guard lock(tableMutex);
    std::shared_ptr<const Asset>& asset = loaded[key];
    if (asset)
        return asset;
    std::error_code ec;
    std::filesystem::create_directories(cacheDir, ec);
    if (ec)
        throw Error(cacheDir.string(), "cannot create the asset cache directory: " + ec.message());
    // The file name carries the content key, so two meshes with one stem (user meshes in different
    // folders) get different files, and the same bytes under another path or name share one.
    const AssetSettings settings;
    const std::filesystem::path file = assetCacheFile(mesh, cacheDir, settings);
    const bool existed = std::filesystem::exists(file, ec);
    AssetBuildResult built = loadOrBuildAsset(mesh, file, settings, progress);
    if (!built.ok())
        throw Error("scene asset", built.error);
    if (warning && existed && !built.rebuildReason.empty())
        warning("rebuilt the asset cache " + file.string() + " (" + built.rebuildReason + ")");
    asset = std::move(built.asset);
    return asset;
}

std::shared_ptr<const Asset>
fracturableSceneAsset(const std::filesystem::path& mesh, const std::filesystem::path& cacheDir,
                      const fracture::Material& material, const fracture::FractureSystemSettings& settings,
                      const ProgressCallback& progress, const AssetWarning& warning)
{
    const std::shared_ptr<const Asset> asset = sceneAsset(mesh, cacheDir, progress, warning);
    // The pipeline settings FractureSystem builds from its settings.
    fracture::PipelineSettings pipeline;
    pipeline.deformation.model = settings.deformation;
    pipeline.metric = settings.metric;
    const std::lock_guard lock(tableMutex);
    std::shared_ptr<const Asset>& current = loaded[std::filesystem::weakly_canonical(mesh)];
    if (!current)
        current = asset;
    fracture::PrecomputeSettings precompute;
    if (progress)
        precompute.trainingProgress = [&progress](std::string_view stage, double fraction)
        {
            progress("degree model: " + std::string(stage), fraction);
        };
    if (fracture::hasFracturePrecompute(*current, material, pipeline, precompute))
        return current;
    const std::filesystem::path file = assetCacheFile(mesh, cacheDir, AssetSettings{});
    const FileLock fileLock(file.string() + ".lock");
    // Another process may have added the sections (or others) since this one loaded the file.
    auto extended = std::make_shared<Asset>(*current);
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec))
    {
        try
        {
            Asset onDisk = Asset::load(file);
            if (onDisk.sourceHash == current->sourceHash)
                for (AssetSection& section : onDisk.sections)
                    extended->setSection(std::move(section));
        }
        catch (const Error& error)
        {
            // Unreadable (changed since it was loaded above): rewritten below from the asset in memory.
            if (warning)
                warning("rewrote the asset cache " + file.string() + " (" + error.what() + ")");
        }
    }
    if (!fracture::hasFracturePrecompute(*extended, material, pipeline, precompute))
    {
        fracture::addFracturePrecompute(*extended, material, pipeline, {}, precompute);
        extended->save(file);
    }
    current = std::move(extended);
    return current;
}

} // namespace shatter::scenes
