// The shared test assets: crafted shapes built in the process, mesh files through the content-keyed
// cache in the build tree (shatter/cook.h's assetCacheFile and loadOrBuildAsset).
#include "test_assets.h"

#include "fracture_fixtures.h"
#include "shatter/error.h"
#include "test_meshes.h"
#include "test_paths.h"

#include <filesystem>
#include <map>
#include <mutex>

namespace shatter::test
{

std::shared_ptr<const Asset> cachedMeshAsset(const std::filesystem::path& mesh, const AssetSettings& settings)
{
    const std::filesystem::path dir = std::filesystem::path(SHATTER_BINARY_DIR) / "test_assets";
    std::filesystem::create_directories(dir);
    AssetBuildResult built = loadOrBuildAsset(mesh, assetCacheFile(mesh, dir, settings), settings);
    if (!built.ok())
        throw Error("test asset", built.error);
    return std::move(built.asset);
}

std::shared_ptr<const Asset> cachedMeshAsset(const std::filesystem::path& mesh)
{
    AssetSettings settings;
    settings.threads = 1; // ctest runs test processes side by side
    return cachedMeshAsset(mesh, settings);
}

std::shared_ptr<const Asset> sharedAsset(const std::string& name)
{
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Asset>> cache;
    const std::lock_guard lock(mutex);
    std::shared_ptr<const Asset>& asset = cache[name];
    if (asset)
        return asset;
    if (name == "box")
        asset = buildTestAsset(subdividedBox(Vec3(1.0, 0.7, 0.5), 10), "box", 0.7);
    else if (name == "cube")
        asset = buildTestAsset(subdividedBox(Vec3(0.5, 0.5, 0.5), 8), "cube", 1.0);
    else if (name == "sphere")
        asset = buildTestAsset(icosphere(3), "sphere", 1.0);
    else
    {
        const std::filesystem::path mesh = meshDir() / (name + ".obj");
        if (!std::filesystem::exists(mesh))
            throw Error(mesh.string(), "test asset is missing");
        asset = cachedMeshAsset(mesh);
    }
    return asset;
}

} // namespace shatter::test
