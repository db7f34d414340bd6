// The assets tests and benchmarks share, built once per build tree and once per process.
#pragma once

#include "asset.h"
#include "asset_build.h"

#include <memory>
#include <string>

namespace shatter::test
{

/// The named test asset:
///  - "box" (1 × 0.7 × 0.5 half extents, faces split 10 × 10, max tet edge factor 0.7),
///    "cube" (half extent 0.5, 8 × 8, factor 1) and "sphere" (icosphere of frequency 3, factor 1):
///    crafted shapes, built in the process on first use;
///  - otherwise the procedural mesh assets/meshes/<name>.obj ("plate", "piggy_bank", "brick", "shelf",
///    "ball"), loaded from <build>/test_assets/<name>.shatter-asset or built and cached there
///    (loadOrBuildAsset: a stale or corrupt cache is rebuilt), so the many test processes ctest starts
///    do not each rebuild the piggy bank.
/// Thread-safe. Throws shatter::Error (the test fails, never skips) for an unknown name or a missing mesh.
std::shared_ptr<const Asset> sharedAsset(const std::string& name);

} // namespace shatter::test
