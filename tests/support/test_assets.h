// The assets tests and benchmarks share, built once per build tree (through the public, content-keyed
// cache of shatter/cook.h) and once per process.
#pragma once

#include "asset_data.h"
#include "shatter/cook.h"

#include <filesystem>
#include <memory>
#include <string>

namespace shatter::test
{

/// The asset of the mesh file `mesh`, loaded from or built into the build tree's test_assets/ under
/// assetCacheFile's content-keyed name (loadOrBuildAsset: a stale or corrupt cache is rebuilt), so the
/// many processes ctest starts do not each rebuild the piggy bank. `settings.threads` defaults to 1
/// here because ctest runs test processes side by side. Throws shatter::Error with the build's error
/// (the test fails, never skips).
std::shared_ptr<const Asset> cachedMeshAsset(const std::filesystem::path& mesh,
                                             const AssetSettings& settings);
std::shared_ptr<const Asset> cachedMeshAsset(const std::filesystem::path& mesh);

/// The named test asset:
///  - "box" (1 × 0.7 × 0.5 half extents, faces split 10 × 10, max tet edge factor 0.7),
///    "cube" (half extent 0.5, 8 × 8, factor 1) and "sphere" (icosphere of frequency 3, factor 1):
///    crafted shapes, built in the process on first use;
///  - otherwise the procedural mesh assets/meshes/<name>.obj ("plate", "piggy_bank", "brick", "shelf",
///    "ball"), through cachedMeshAsset.
/// Thread-safe. Throws shatter::Error (the test fails, never skips) for an unknown name or a missing mesh.
std::shared_ptr<const Asset> sharedAsset(const std::string& name);

} // namespace shatter::test
