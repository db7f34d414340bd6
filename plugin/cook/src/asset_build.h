// Asset build, the throwing internal layer under the public shatter/cook.h (whose functions wrap these
// and turn shatter::Error into AssetBuildResult::error): mesh → validated surface → TetGen tets → exact
// node distances → surface distance grid → maximum-distance point order and sphere tree (TVCG 2013
// §4.1, §4.2, §4.4, §5.1). In-tree code that wants an Asset value or an exception uses these.
#pragma once

#include "asset_data.h"
#include "mesh_import.h"
#include "shatter/cook.h"
#include "shatter/progress.h"
#include "tetrahedralize.h"

#include <filesystem>
#include <string>
#include <vector>

namespace shatter
{

/// Builds an asset from an in-memory mesh: validate (and repair, if asked) → TetGen → exact node
/// distances → surface distance grid → point ordering and sphere tree. Throws shatter::Error (a
/// MeshError for a bad mesh) naming `name` and the problem.
Asset cookAsset(TriMesh mesh, const std::string& name, const AssetSettings& settings = {},
                const ProgressCallback& progress = {});
/// Imports a mesh file (anything assimp reads) and builds the asset from it; its content key is
/// assetContentKey(meshFile, settings). `notes` (optional) receives what the import changed or noted
/// (ImportReport::notes: the repairs, ignored vertices). Throws shatter::Error naming the file.
Asset cookAssetFile(const std::filesystem::path& meshFile, const AssetSettings& settings = {},
                    const ProgressCallback& progress = {}, std::vector<std::string>* notes = nullptr);

/// Loads `cacheFile` if it is valid and holds the content key of `meshFile` with `settings` (then the
/// asset takes `meshFile`'s stem as its name, since the key ignores names); otherwise builds the asset,
/// saves it and returns it. `why` (optional) receives the reason for a rebuild, empty after a load;
/// `notes` (optional) the import's notes of a build (see cookAssetFile), empty after a load. Throws
/// shatter::Error when the build or the save fails.
Asset loadOrCookAsset(const std::filesystem::path& meshFile, const std::filesystem::path& cacheFile,
                      const AssetSettings& settings = {}, const ProgressCallback& progress = {},
                      std::string* why = nullptr, std::vector<std::string>* notes = nullptr);

} // namespace shatter
