// buildAsset: import → validate (→ repair) → TetGen → exact node distances → surface distance grid
// → maximum-distance ordering and sphere tree. Each stage reports progress with its share of the total.
#include "asset_build.h"

#include "mesh_import.h"

#include "binary_io.h"
#include "max_distance_order.h"
#include "parallel.h"
#include "signed_distance.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

namespace
{

// Progress shares of the stages, measured on the piggy bank: meshing and the grid dominate.
struct Stage
{
    const char* name;
    double begin, end;
};
constexpr Stage kValidate{"validating mesh", 0.00, 0.10};
constexpr Stage kTetrahedralize{"tetrahedralizing", 0.10, 0.45};
constexpr Stage kNodeDistances{"node distances", 0.45, 0.55};
constexpr Stage kGrid{"distance grid", 0.55, 0.85};
constexpr Stage kOrdering{"point ordering", 0.85, 0.95};
constexpr Stage kTree{"sphere tree", 0.95, 1.00};

void report(const ProgressCallback& progress, const Stage& stage, double fraction = 0)
{
    if (progress)
        progress(stage.name, stage.begin + (stage.end - stage.begin) * std::clamp(fraction, 0.0, 1.0));
}

void checkSettings(const AssetSettings& options, const std::string& name)
{
    if (!(options.gridCellFactor > 0) || !std::isfinite(options.gridCellFactor))
        throw Error(name, "AssetSettings::gridCellFactor must be > 0");
    if (!(options.gridBandCells >= 1) || !std::isfinite(options.gridBandCells))
        throw Error(name, "AssetSettings::gridBandCells must be >= 1");
}

std::uint64_t hashSettings(const AssetSettings& options, std::uint64_t seed)
{
    BinaryWriter writer;
    writer.value(Asset::kFormatVersion);
    writer.value(options.import.repair);
    writer.value(options.import.weldTolerance);
    writer.value(options.import.maxAbsCoordinate);
    writer.value(options.tets.maxRadiusEdgeRatio);
    writer.value(options.tets.maxEdgeFactor);
    writer.value(options.gridCellFactor);
    writer.value(options.gridBandCells);
    return fnv1a64(writer.bytes(), seed);
}

std::uint64_t hashMesh(const TriMesh& mesh)
{
    BinaryWriter writer;
    writer.vec3s(mesh.vertices);
    writer.array(mesh.triangles);
    return fnv1a64(writer.bytes());
}

// Exact distance and outward direction at every tet node (TVCG §4.1: "we initialize the nodal
// information using an exact interior distance field"). Surface nodes get distance 0 and their
// angle-weighted vertex normal.
void computeNodeDistances(Asset& asset, const SignedDistanceField& field, unsigned threads)
{
    const TetMesh& tets = asset.tetMesh;
    asset.nodeDistance.assign(tets.nodeCount(), 0);
    asset.nodeDirection.assign(tets.nodeCount(), Vec3::Zero());
    parallelFor(tets.nodeCount(), threads,
                [&](std::size_t begin, std::size_t end)
                {
                    for (std::size_t i = begin; i < end; ++i)
                    {
                        if (i < tets.surfaceNodeCount)
                        {
                            asset.nodeDirection[i] = field.vertexNormal(Index(i));
                            continue;
                        }
                        const SignedDistance sd = field.signedDistance(tets.nodes[i]);
                        asset.nodeDistance[i] = std::max(Real(0), -sd.distance);
                        asset.nodeDirection[i] = sd.direction;
                    }
                });
}

} // namespace

Asset buildAsset(TriMesh mesh, const std::string& name, const AssetSettings& options,
                 const ProgressCallback& progress)
{
    checkSettings(options, name);
    Asset asset;
    asset.name = name;
    asset.sourceHash = hashSettings(options, hashMesh(mesh));

    report(progress, kValidate);
    asset.surface = checkMesh(std::move(mesh), name, options.import);

    report(progress, kTetrahedralize);
    asset.tetMesh = tetrahedralize(asset.surface, name, options.tets);
    asset.surfaceFaces = mapSurfaceToTets(asset.surface, asset.tetMesh, name);

    report(progress, kNodeDistances);
    const SignedDistanceField field(asset.surface, name);
    computeNodeDistances(asset, field, options.threads);

    DistanceGridSettings gridOptions;
    gridOptions.cellFactor = options.gridCellFactor;
    gridOptions.bandCells = options.gridBandCells;
    gridOptions.threads = options.threads;
    asset.surfaceGrid = DistanceGrid::build(field, gridOptions,
                                            [&](std::string_view, double f) { report(progress, kGrid, f); });

    report(progress, kOrdering);
    asset.pointOrder = orderByMaxDistance(asset.tetMesh.nodes);
    report(progress, kTree);
    asset.sphereTree = buildSphereTree(asset.tetMesh.nodes, asset.pointOrder);
    asset.locator = std::make_shared<const TetLocator>(asset.tetMesh);
    if (progress)
        progress("done", 1.0);
    return asset;
}

Asset buildAssetFromFile(const std::filesystem::path& meshFile, const AssetSettings& options,
                         const ProgressCallback& progress)
{
    if (progress)
        progress("reading mesh", 0.0);
    TriMesh mesh = importMesh(meshFile, options.import);
    Asset asset = buildAsset(std::move(mesh), meshFile.stem().string(), options, progress);
    asset.sourceHash = assetFingerprint(meshFile, options);
    return asset;
}

std::uint64_t assetFingerprint(const std::filesystem::path& meshFile, const AssetSettings& options)
{
    const std::vector<std::byte> bytes = readFileBytes(meshFile.string());
    return hashSettings(options, fnv1a64(bytes));
}

Asset loadOrBuildAsset(const std::filesystem::path& meshFile, const std::filesystem::path& cacheFile,
                       const AssetSettings& options, const ProgressCallback& progress, std::string* why)
{
    std::string reason;
    if (!std::filesystem::exists(cacheFile))
        reason = "no cache file yet";
    else
    {
        try
        {
            Asset cached = Asset::load(cacheFile);
            if (cached.sourceHash == assetFingerprint(meshFile, options))
            {
                if (why)
                    why->clear();
                return cached;
            }
            reason = "cache was built from another mesh or other options";
        }
        catch (const Error& error)
        {
            reason = std::string("cache unusable: ") + error.what();
        }
    }
    Asset asset = buildAssetFromFile(meshFile, options, progress);
    asset.save(cacheFile);
    if (why)
        *why = reason;
    return asset;
}

} // namespace shatter
