#include "scene_assets.h"
#include "asset_build.h"

#include "shatter/error.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

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

std::shared_ptr<const Asset> sceneAsset(const std::filesystem::path& mesh,
                                        const std::filesystem::path& cacheDir,
                                        const ProgressCallback& progress)
{
    static std::mutex mutex;
    static std::map<std::filesystem::path, std::shared_ptr<const Asset>> loaded;
    const std::filesystem::path key = std::filesystem::weakly_canonical(mesh);
    const std::lock_guard lock(mutex);
    std::shared_ptr<const Asset>& asset = loaded[key];
    if (asset)
        return asset;
    std::error_code ec;
    std::filesystem::create_directories(cacheDir, ec);
    if (ec)
        throw Error(cacheDir.string(), "cannot create the asset cache directory: " + ec.message());
    // Two meshes with one stem (e.g. user meshes in different folders) get different cache files.
    std::ostringstream name;
    name << key.stem().string() << '-' << std::hex << (std::hash<std::string>{}(key.string()) & 0xffffffffu)
         << ".shatter-asset";
    asset = std::make_shared<const Asset>(
        loadOrBuildAsset(mesh, cacheDir / name.str(), AssetSettings{}, progress));
    return asset;
}

} // namespace shatter::scenes
