// Asset: everything precomputed for one input mesh (DESIGN.md §2), immutable after build, cached on
// disk as a versioned, checksummed binary file and shared by every instance of the object.
#pragma once

#include "shatter/distance_grid.h"
#include "shatter/mesh.h"
#include "shatter/mesh_import.h"
#include "shatter/progress.h"
#include "shatter/sphere_tree.h"
#include "shatter/tet_locator.h"
#include "shatter/tet_mesh.h"
#include "shatter/tetrahedralize.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace shatter
{

/// Settings of Asset::build; checked there.
struct AssetOptions
{
    ImportOptions import;       ///< validation and repair of the input mesh
    TetrahedralizeOptions tets; ///< TetGen quality and size bounds
    Real gridCellFactor = 0.5;  ///< surface distance grid cell = factor × mean surface edge length
    Real gridBandCells = 3;     ///< the grid stores exact distances this many cells around the surface
    unsigned threads = 0;       ///< worker threads for the build (0: all cores)
};

/// The precomputed, immutable data of one fracturable object, in its material frame.
struct Asset
{
    /// Cache format version; bump whenever the layout or the meaning of a field changes.
    static constexpr std::uint32_t kFormatVersion = 1;

    std::string name;             ///< the source mesh's file stem, or the name given to build()
    std::uint64_t sourceHash = 0; ///< fingerprint of the input mesh and the options it was built with

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

    Index pointCount() const { return tetMesh.nodeCount(); } ///< surface vertices + interior nodes (Table 1)
    Real radius() const;                                     ///< half the bounding box diagonal

    /// Builds an asset from an in-memory mesh: validate (and repair, if asked) → TetGen → exact node
    /// distances → surface distance grid → point ordering and sphere tree. Throws shatter::Error.
    static Asset build(TriMesh mesh, const std::string& name, const AssetOptions& options = {},
                       const ProgressCallback& progress = {});
    /// Imports a mesh file (anything assimp reads) and builds the asset from it.
    static Asset fromMesh(const std::filesystem::path& meshFile, const AssetOptions& options = {},
                          const ProgressCallback& progress = {});

    /// Writes the cache file (atomically). Throws shatter::Error naming the file.
    void save(const std::filesystem::path& cacheFile) const;
    /// Reads a cache file. A missing, truncated, corrupt or wrong-version file throws shatter::Error
    /// naming the file and the problem.
    static Asset load(const std::filesystem::path& cacheFile);

    /// The fingerprint build() would give `meshFile` with `options`, to tell a stale cache.
    static std::uint64_t fingerprint(const std::filesystem::path& meshFile, const AssetOptions& options);
};

/// Loads `cacheFile` if it is valid and was built from `meshFile` with `options`; otherwise builds the
/// asset, saves it and returns it. `why` (optional) receives the reason for a rebuild.
Asset loadOrBuildAsset(const std::filesystem::path& meshFile, const std::filesystem::path& cacheFile,
                       const AssetOptions& options = {}, const ProgressCallback& progress = {},
                       std::string* why = nullptr);

} // namespace shatter
