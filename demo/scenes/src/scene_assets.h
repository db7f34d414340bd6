// Assets of scene objects: mesh file → Asset through loadOrBuildAsset with a cache file per mesh, kept
// in memory per process so that every object, reset and SceneWorld shares one immutable Asset.
#pragma once

#include "asset.h"
#include "asset_build.h"

#include <filesystem>
#include <memory>

namespace shatter::scenes
{

/// The directory of asset cache files: `requested` if not empty, else $SHATTER_ASSET_CACHE, else the
/// build tree's scene_assets/.
std::filesystem::path assetCacheDirectory(const std::filesystem::path& requested);

/// The asset of `mesh`, loaded from (or built into) `cacheDir`/<stem>-<hash>.shatter-asset. Thread-safe.
std::shared_ptr<const Asset> sceneAsset(const std::filesystem::path& mesh,
                                        const std::filesystem::path& cacheDir,
                                        const ProgressCallback& progress = {});

} // namespace shatter::scenes
