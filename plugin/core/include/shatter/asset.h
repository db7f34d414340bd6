// The runtime side of a fracturable object's asset, for a game that ships prebuilt cache files and does
// not link the cooking library: load and save a cache file, summarise an asset, and create the runtime
// state of one placed object. Asset and ObjectState stay opaque here (their definitions are internal);
// a game passes the shared pointers on to the Bullet glue.
#pragma once

#include "shatter/math.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace shatter
{

/// Everything precomputed for one input mesh (tet mesh, exact node distances, surface distance grid,
/// sphere tree; TVCG 2013 §4.1, §4.4, §5.1). Immutable once built and shared by every object made from
/// it.
struct Asset;
/// The runtime state of one placed object and all its fragments (distance field, fragment list,
/// sphere trees; TVCG 2013 §4-6). Mutated only at fracture events, between simulation steps.
class ObjectState;

/// Version of the asset cache file format this build reads and writes; a file of another version is
/// rejected by loadAsset and rebuilt by loadOrBuildAsset (shatter/cook.h).
inline constexpr std::uint32_t kAssetFormatVersion = 2;

/// Reads an asset cache file (load time, not a per-step path). Throws shatter::Error naming the file
/// and the problem for a missing, truncated, corrupt, wrong-version or inconsistent file; never returns
/// a partly valid asset.
std::shared_ptr<const Asset> loadAsset(const std::filesystem::path& cacheFile);

/// Writes `asset` to `cacheFile` atomically (a reader never sees half a file). Throws shatter::Error
/// naming the file when it cannot be written.
void saveAsset(const Asset& asset, const std::filesystem::path& cacheFile);

/// A summary of an asset, for tools and logs.
struct AssetInfo
{
    std::string name;           ///< the source mesh's file stem, or the given name
    Index surfaceVertices = 0;  ///< vertices of the closed surface mesh
    Index surfaceTriangles = 0; ///< triangles of the closed surface mesh
    Index tetNodes = 0;         ///< surface vertices + interior nodes (TVCG 2013 §4.2)
    Index tets = 0;             ///< tetrahedra of the conforming tet mesh
    Real radius = 0;            ///< half the bounding box diagonal, model units
    Aabb bounds;                ///< bounding box of the surface, material frame
    std::uint32_t formatVersion = kAssetFormatVersion; ///< cache format version it was read or built with
    std::uint64_t contentKey = 0; ///< hash of the mesh file's bytes, the build settings and the version
};

/// The summary of `asset`. Never throws.
AssetInfo assetInfo(const Asset& asset);

/// The runtime state of one placed object made from `asset` (fragment 0 is the whole object), with
/// the default settings. Throws shatter::Error for a null or inconsistent asset.
std::shared_ptr<ObjectState> makeObjectState(std::shared_ptr<const Asset> asset);

} // namespace shatter
