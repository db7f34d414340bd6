// The cooking library's public API: build the asset of a mesh (import → validation and repair → TetGen
// → exact node distances → surface distance grid → point order and sphere tree; TVCG 2013 §4.1-§4.4,
// §5.1) and keep it in a cache file keyed by content. Settings → build → result, like Jolt's
// Settings/Create()/Result: the build functions never throw; a bad mesh, a TetGen failure or a bad
// setting comes back in the result's error, naming the file and the problem.
#pragma once

#include "shatter/asset.h"
#include "shatter/math.h"
#include "shatter/mesh.h"
#include "shatter/progress.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace shatter
{

/// Validation and repair of the input mesh (the first build stage); a value out of range fails the build.
struct ImportSettings
{
    /// Remove degenerate and duplicate triangles, make the winding consistent and close holes; non-manifold,
    /// self-intersecting, non-finite or multi-piece meshes still fail. Default off.
    bool repair = false;
    /// Vertices closer than weldTolerance × (bounding-box diagonal) become one; in [0, 1e-3], default 1e-9.
    Real weldTolerance = 1e-9;
    /// Coordinates of larger magnitude are rejected as absurd; file units, > 0, default 1e6.
    Real maxAbsCoordinate = 1e6;
    /// A mesh whose bounding-box diagonal is smaller is rejected: Bullet's single-precision mass and
    /// inertia of so small a body underflow and its state turns NaN. File units (metres in scenes),
    /// in [0, maxAbsCoordinate), default 1e-4.
    Real minSize = 1e-4;
    /// Look for intersecting triangles, O(n log n); turn off only for meshes known to be clean. Default on.
    bool checkSelfIntersections = true;
};

/// TetGen quality and size bounds of the tet mesh (TVCG 2013 §4.2: "maximum radius-edge ratio between 1
/// and 2 and interior edges shorter than twice the longest surface edge").
struct TetrahedralizeSettings
{
    /// Maximum radius-edge ratio of the quality tets (TetGen -q); in [1, 2], default 1.5.
    Real maxRadiusEdgeRatio = 1.5;
    /// Tets are at most the volume of a regular tet with edge maxEdgeFactor × the longest surface edge;
    /// ≥ 0 (0: no bound), default 2.
    Real maxEdgeFactor = 2.0;
    /// Largest tet mesh to build: a surface expected to give more (about 2.3 tets per surface triangle, more
    /// for a finely meshed large volume) fails before TetGen runs, and so does TetGen output over it; ≥ 1,
    /// default 500,000.
    std::uint32_t maxTets = 500000;
};

/// Everything that configures an asset build. All but `threads`, `import.checkSelfIntersections` and the
/// size limits (none changes a built asset) are part of the cache's content key.
struct AssetSettings
{
    ImportSettings import;       ///< validation and repair of the input mesh
    TetrahedralizeSettings tets; ///< TetGen quality and size bounds
    Real gridCellFactor = 0.5; ///< surface distance grid cell = factor × mean surface edge; > 0, default 0.5
    Real gridBandCells = 3; ///< exact distances this many cells around the surface (TVCG 2013 §4.4); ≥ 1
    /// Largest surface distance grid (4 bytes a point): a finer one fails before any expensive stage;
    /// ≥ 1, default 2^27.
    std::uint64_t maxGridPoints = std::uint64_t(1) << 27;
    unsigned threads = 0; ///< worker threads for the build; 0 (default): all cores
};

/// What a build returns: the asset, or why there is none.
struct AssetBuildResult
{
    std::shared_ptr<const Asset> asset; ///< the built or loaded asset; null when the build failed
    std::string error;                  ///< "file: problem" when the build failed, else empty
    /// loadOrBuildAsset: why the cache file was (re)built ("no cache file yet", "cache unusable: …");
    /// empty when the cache was loaded, and always empty from buildAsset.
    std::string rebuildReason;
    /// What the import changed or noted, one sentence each (with ImportSettings::repair, the repairs);
    /// empty when the cache was loaded.
    std::vector<std::string> importNotes;

    bool ok() const { return asset != nullptr; } ///< true when `asset` is set (then `error` is empty)
};

/// Imports `meshFile` (OBJ, PLY, STL, OFF, glTF, anything assimp reads) and builds its asset, named by
/// the file's stem. Never throws; errors name the file and the problem.
AssetBuildResult buildAsset(const std::filesystem::path& meshFile, const AssetSettings& settings = {},
                            const ProgressCallback& progress = {});

/// Builds the asset of an in-memory mesh (procedural assets); `name` names it and its errors. Never throws.
AssetBuildResult buildAsset(TriMesh mesh, const std::string& name, const AssetSettings& settings = {},
                            const ProgressCallback& progress = {});

/// Loads `cacheFile` if it holds the asset of `meshFile`'s current bytes with `settings` (same content
/// key); otherwise, when it is missing, corrupt, of another format version or stale, builds the asset
/// and saves it there. Never throws; `rebuildReason` says why it built.
AssetBuildResult loadOrBuildAsset(const std::filesystem::path& meshFile,
                                  const std::filesystem::path& cacheFile, const AssetSettings& settings = {},
                                  const ProgressCallback& progress = {});

/// The content key of `meshFile` built with `settings`: a hash of the file's bytes, of the settings that
/// change the asset and of the cache format version; never of the path. Throws shatter::Error naming the file
/// when it cannot be read.
std::uint64_t assetContentKey(const std::filesystem::path& meshFile, const AssetSettings& settings = {});

/// The cache file for `meshFile` in `cacheDir`: an existing `*-<key>.shatter` there (the same bytes under
/// another name or folder), else `<stem>-<key>.shatter`, with the content key as 16 hex digits. A changed
/// byte or setting gives a new key, so a stale file is never picked. Throws shatter::Error naming the mesh
/// when it cannot be read.
std::filesystem::path assetCacheFile(const std::filesystem::path& meshFile,
                                     const std::filesystem::path& cacheDir,
                                     const AssetSettings& settings = {});

// Export for content pipelines (Blender, Houdini, engines): a fragment's closed surface as a glTF 2.0
// or OBJ file through assimp's exporter, with the crack faces as their own material.

/// File formats of exportMesh.
enum class MeshFormat : std::uint8_t
{
    Gltf, ///< glTF 2.0, a .gltf file with its .bin buffer beside it
    Obj,  ///< Wavefront OBJ with its .mtl beside it
};

/// Texture coordinates (u, v) of one triangle's three corners.
using TriangleUvs = std::array<Eigen::Vector2f, 3>;

/// Writes `mesh` (a fragment's closed surface, material frame, m) to `file` as one node at `pose`,
/// with two primitives: the original surface (material "surface") and the triangles whose `crack` flag
/// is set (material "crack"; `crack` empty: none). Flat per-face normals; texture coordinates from `uvs`
/// (one entry per triangle; empty: none). Throws shatter::Error naming the file for an empty or
/// malformed mesh, a `crack` or `uvs` of the wrong length, or a failed write.
void exportMesh(const TriMesh& mesh, std::span<const std::uint8_t> crack, const Eigen::Isometry3d& pose,
                const std::filesystem::path& file, MeshFormat format, std::span<const TriangleUvs> uvs = {});

/// Texture coordinates for exportMesh of `surface`, a surface of one of `asset`'s fragments (material
/// frame) with its crack flags (empty: none). A face of the original surface takes the input mesh's
/// coordinates, interpolated in the input triangle it lies in, when the asset was cooked from a file
/// that has them (OBJ `vt`, PLY, glTF, ... as assimp reads them); crack faces, and all faces otherwise,
/// a planar projection along the face's dominant axis in units of the asset's size. Throws
/// shatter::Error for a `crack` of the wrong length or indices out of range.
std::vector<TriangleUvs> fragmentUvs(const Asset& asset, const TriMesh& surface,
                                     std::span<const std::uint8_t> crack);

} // namespace shatter
