// The definition of Asset, internal to Shatter (the public shatter/asset.h only declares it): everything
// precomputed for one input mesh (TVCG 2013 §4.1, §4.4, §5.1), immutable after build, cached on disk as a
// versioned, checksummed binary file and shared by every instance of the object.
#pragma once

#include "distance_grid.h"
#include "shatter/asset.h"
#include "shatter/mesh.h"
#include "sphere_tree.h"
#include "tet_locator.h"
#include "tet_mesh.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shatter
{

class ReadOnlyFile;

/// Data a higher layer precomputes per asset and keeps in its cache file (e.g. fracture's modal basis
/// or trained degree model). Opaque to the core: the writer versions and validates its own bytes.
/// A loaded asset does not hold its sections' bytes: each is parsed once by its reader, so holding them
/// too would double their memory; they are read back from the cache file when asked for.
struct AssetSection
{
    std::string name;             ///< unique within an asset; names what the data depends on
    std::vector<std::byte> bytes; ///< the writer's serialisation, when held in memory (not `file`)
    /// The cache file the asset was loaded from, held open, when the bytes are not held in memory:
    /// they are `fileSize` bytes at `fileOffset`, whose quickHash64 at load was `fileChecksum`.
    std::shared_ptr<const ReadOnlyFile> file;
    std::uint64_t fileOffset = 0;
    std::uint64_t fileSize = 0;
    std::uint64_t fileChecksum = 0;

    std::uint64_t size() const { return file ? fileSize : bytes.size(); } ///< in bytes
    /// The bytes, read back from the cache file when not held in memory. Throws shatter::Error naming
    /// the file when they cannot be read or are no longer what was loaded.
    std::vector<std::byte> read() const;
    /// The first `count` bytes (all of them when fewer): a probe of the writer's header (its version),
    /// not checked against the hash taken at load as read() is.
    std::vector<std::byte> readFirst(std::uint64_t count) const;
};

/// The precomputed, immutable data of one fracturable object, in its material frame.
struct Asset
{
    /// Cache format version; bump whenever the layout or the meaning of a field changes.
    static constexpr std::uint32_t kFormatVersion = kAssetFormatVersion;

    std::string name; ///< the source mesh's file stem, or the name given to buildAsset()
    /// Content key: hash of the input mesh's bytes (or, built in memory, its arrays), the build
    /// settings and the format version; never of a path, so a moved or copied mesh keeps its key.
    std::uint64_t sourceHash = 0;

    TriMesh surface;              ///< closed, outward oriented, 2-manifold (cavities face inward)
    TetMesh tetMesh;              ///< conforming tets; nodes [0, surface.vertices.size()) = surface vertices
    SurfaceTetFaces surfaceFaces; ///< the tet face under each surface triangle
    std::vector<Real> nodeDistance;  ///< exact distance from each tet node to the surface (TVCG §4.1)
    std::vector<Vec3> nodeDirection; ///< unit direction from each node toward its closest surface point
    DistanceGrid surfaceGrid;        ///< exact signed distances in a band around the surface (TVCG §4.4)
    std::vector<Index> pointOrder;   ///< maximum-distance order of all tet nodes (TVCG §5.1)
    SphereTree sphereTree; ///< the initial fracturable sphere tree over all nodes (TVCG §5.1, §6.1)
    /// Point location in tetMesh with the default options, shared by every ObjectState of this asset
    /// (rebuilt on load, not stored in the cache; null for an asset assembled by hand).
    std::shared_ptr<const TetLocator> locator;
    /// Other layers' precomputed data, saved and loaded with the cache file; names unique.
    std::vector<AssetSection> sections;

    Index pointCount() const { return tetMesh.nodeCount(); } ///< surface vertices + interior nodes (Table 1)
    Real radius() const;                                     ///< half the bounding box diagonal
    /// The section named `name`, or null.
    const AssetSection* findSection(std::string_view name) const;
    /// The bytes of the section named `name` (AssetSection::read), or nothing when there is none.
    std::optional<std::vector<std::byte>> readSection(std::string_view name) const;
    /// Adds the section, replacing one of the same name.
    void setSection(AssetSection section);
    void setSection(std::string name, std::vector<std::byte> bytes); ///< a section held in memory

    /// Writes the cache file (atomically). Throws shatter::Error naming the file.
    void save(const std::filesystem::path& cacheFile) const;
    /// Reads a cache file. A missing, truncated, corrupt or wrong-version file throws shatter::Error
    /// naming the file and the problem.
    static Asset load(const std::filesystem::path& cacheFile);
};

/// A cache file's bytes around `payload`: the header (magic, format version, payload size, checksum)
/// then the payload. What Asset::save writes; the cache fuzzer wraps its inputs with it.
std::vector<std::byte> assetFileBytes(std::span<const std::byte> payload);

} // namespace shatter
