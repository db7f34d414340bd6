// Reproducible OBJ output for the procedural assets.
#pragma once

#include "shatter/mesh.h"

#include <filesystem>
#include <string>
#include <vector>

namespace shatter::assets
{

/// Rounds every coordinate to the micrometre grid the OBJ files store, so that what the generator
/// validates and tetrahedralizes is exactly what it writes, and turns -0 into 0.
void quantize(TriMesh& mesh);

/// Writes `# comment` lines, then `v x y z` (%.6f, metres) and `f a b c` (1-based) lines, with '\n'
/// line ends whatever the platform. Throws shatter::Error naming the file when it cannot be written.
void writeObj(const TriMesh& mesh, const std::filesystem::path& path,
              const std::vector<std::string>& comments);

} // namespace shatter::assets
