// Paths of the source tree's assets and test data, for tests and benchmarks.
#pragma once

#include <filesystem>
#include <string>

namespace shatter::test
{

inline std::filesystem::path sourceDir() { return SHATTER_SOURCE_DIR; }
inline std::filesystem::path dataDir() { return sourceDir() / "tests" / "data"; }
inline std::filesystem::path meshDir() { return sourceDir() / "assets" / "meshes"; }
/// A fresh, empty scratch folder under the build tree, named after the calling test.
std::filesystem::path scratchDir(const std::string& name);

} // namespace shatter::test
