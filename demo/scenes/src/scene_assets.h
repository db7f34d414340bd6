// Assets of scene objects: mesh file → Asset through the public cooking API (shatter/cook.h) with a
// content-keyed cache file per mesh, kept in memory per process so that every object, reset and
// SceneWorld shares one immutable Asset.
#pragma once

#include "shatter/asset.h"
#include "shatter/fracture_system.h"
#include "shatter/progress.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

namespace shatter::scenes
{

/// Told when an existing cache file is unusable and rebuilt; the message names the file and the reason.
using AssetWarning = std::function<void(std::string_view message)>;

/// The directory of asset cache files: `requested` if not empty, else $SHATTER_ASSET_CACHE, else the
/// build tree's scene_assets/.
std::filesystem::path assetCacheDirectory(const std::filesystem::path& requested);

/// The asset of `mesh`, loaded from (or built into) `cacheDir`/<stem>-<content key>.shatter (see
/// assetCacheFile: the key hashes the mesh's bytes and the build settings, never its path, so a moved,
/// renamed or shipped mesh finds its prebuilt cache). Thread-safe. Throws shatter::Error naming the mesh
/// and the problem when the build fails. A cache file that exists but cannot be used is rebuilt, and
/// `warning` told so with the file and the reason.
std::shared_ptr<const Asset> sceneAsset(const std::filesystem::path& mesh,
                                        const std::filesystem::path& cacheDir,
                                        const ProgressCallback& progress = {},
                                        const AssetWarning& warning = {});

/// sceneAsset() with fracture's per-asset precomputation for an object of `material` in a FractureSystem
/// with `settings` (fracture_precompute.h: modal basis, the criterion bound's data, interior embedding,
/// convexity, the trained fracture degree model). A cache that lacks it gets it once: computed, added
/// to the asset, and the cache file saved again, so later runs load it instead of computing it (the
/// degree model's training takes seconds to half a minute per asset and material; `progress` reports
/// it as stages "degree model: …" with the training's own fraction). Thread-safe.
std::shared_ptr<const Asset>
fracturableSceneAsset(const std::filesystem::path& mesh, const std::filesystem::path& cacheDir,
                      const fracture::Material& material, const fracture::FractureSystemSettings& settings,
                      const ProgressCallback& progress = {}, const AssetWarning& warning = {});

} // namespace shatter::scenes
