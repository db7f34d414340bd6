// Scene assets: the cache directory and the per-process table of loaded assets over the public,
// content-keyed loadOrBuildAsset.
#include "scene_assets.h"

#include "fracture_precompute.h"
#include "shatter/cook.h"
#include "shatter/error.h"

#include <cstdlib>
#include <map>
#include <mutex>

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

} // namespace

std::shared_ptr<const Asset> sceneAsset(const std::filesystem::path& mesh,
                                        const std::filesystem::path& cacheDir,
                                        const ProgressCallback& progress)
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
    AssetBuildResult built =
        loadOrBuildAsset(mesh, assetCacheFile(mesh, cacheDir, settings), settings, progress);
    if (!built.ok())
        throw Error("scene asset", built.error);
    asset = std::move(built.asset);
    return asset;
}

std::shared_ptr<const Asset> fracturableSceneAsset(const std::filesystem::path& mesh,
                                                   const std::filesystem::path& cacheDir,
                                                   const fracture::Material& material,
                                                   const fracture::FractureSystemSettings& settings,
                                                   const ProgressCallback& progress)
{
    const std::shared_ptr<const Asset> asset = sceneAsset(mesh, cacheDir, progress);
    // The pipeline settings FractureSystem builds from its settings.
    fracture::PipelineSettings pipeline;
    pipeline.deformation.model = settings.deformation;
    pipeline.metric = settings.metric;
    const std::lock_guard lock(tableMutex);
    std::shared_ptr<const Asset>& current = loaded[std::filesystem::weakly_canonical(mesh)];
    if (!current)
        current = asset;
    if (fracture::hasFracturePrecompute(*current, material, pipeline))
        return current;
    auto extended = std::make_shared<Asset>(*current);
    fracture::addFracturePrecompute(*extended, material, pipeline);
    extended->save(assetCacheFile(mesh, cacheDir, AssetSettings{}));
    current = std::move(extended);
    return current;
}

} // namespace shatter::scenes
