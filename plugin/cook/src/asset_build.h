// Asset build (the cooking library): mesh → validated surface → TetGen tets → exact node distances →
// surface distance grid → maximum-distance point order and sphere tree (TVCG §4.1, §4.4, §5.1).
#pragma once

#include "asset.h"
#include "mesh_import.h"
#include "tetrahedralize.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace shatter
{

/// Settings of Asset::build; checked there.
struct AssetSettings
{
    ImportSettings import;       ///< validation and repair of the input mesh
    TetrahedralizeSettings tets; ///< TetGen quality and size bounds
    Real gridCellFactor = 0.5;   ///< surface distance grid cell = factor × mean surface edge length
    Real gridBandCells = 3;      ///< the grid stores exact distances this many cells around the surface
    unsigned threads = 0;        ///< worker threads for the build (0: all cores)
};

/// Builds an asset from an in-memory mesh: validate (and repair, if asked) → TetGen → exact node
/// distances → surface distance grid → point ordering and sphere tree. Throws shatter::Error.
Asset buildAsset(TriMesh mesh, const std::string& name, const AssetSettings& options = {},
                 const ProgressCallback& progress = {});
/// Imports a mesh file (anything assimp reads) and builds the asset from it.
Asset buildAssetFromFile(const std::filesystem::path& meshFile, const AssetSettings& options = {},
                         const ProgressCallback& progress = {});
/// The fingerprint buildAssetFromFile gives `meshFile` with `options`, to tell a stale cache.
std::uint64_t assetFingerprint(const std::filesystem::path& meshFile, const AssetSettings& options);

/// Loads `cacheFile` if it is valid and was built from `meshFile` with `options`; otherwise builds the
/// asset, saves it and returns it. `why` (optional) receives the reason for a rebuild.
Asset loadOrBuildAsset(const std::filesystem::path& meshFile, const std::filesystem::path& cacheFile,
                       const AssetSettings& options = {}, const ProgressCallback& progress = {},
                       std::string* why = nullptr);

} // namespace shatter
