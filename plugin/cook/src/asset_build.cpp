// The asset build: import → validate (→ repair) → TetGen → exact node distances → surface distance grid
// → maximum-distance ordering and sphere tree (TVCG 2013 §4.1-§4.4, §5.1). Each stage reports progress
// with its share of the total. Also the content-keyed cache (loadOrCookAsset, assetCacheFile) and the
// never-throwing public entry points of shatter/cook.h, which wrap the throwing internal ones.
#include "asset_build.h"

#include "mesh_import.h"

#include "binary_io.h"
#include "max_distance_order.h"
#include "parallel.h"
#include "signed_distance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <system_error>

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
    writer.value(options.import.maxAbsCoordinate); // minSize only accepts or rejects: not in the key
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

Asset cookAsset(TriMesh mesh, const std::string& name, const AssetSettings& options,
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

Asset cookAssetFile(const std::filesystem::path& meshFile, const AssetSettings& options,
                    const ProgressCallback& progress, std::vector<std::string>* notes)
{
    if (progress)
        progress("reading mesh", 0.0);
    ImportReport report;
    TriMesh mesh = importMesh(meshFile, options.import, &report);
    if (notes)
        *notes = std::move(report.notes);
    Asset asset = cookAsset(std::move(mesh), meshFile.stem().string(), options, progress);
    asset.sourceHash = assetContentKey(meshFile, options);
    return asset;
}

// The key hashes the bytes, not the parsed mesh: any change to the file, even one the importer
// ignores, gives a new key, which errs on the side of rebuilding.
std::uint64_t assetContentKey(const std::filesystem::path& meshFile, const AssetSettings& options)
{
    const std::vector<std::byte> bytes = readFileBytes(meshFile.string());
    return hashSettings(options, fnv1a64(bytes));
}

Asset loadOrCookAsset(const std::filesystem::path& meshFile, const std::filesystem::path& cacheFile,
                      const AssetSettings& options, const ProgressCallback& progress, std::string* why,
                      std::vector<std::string>* notes)
{
    std::string reason;
    if (!std::filesystem::exists(cacheFile))
        reason = "no cache file yet";
    else
    {
        try
        {
            Asset cached = Asset::load(cacheFile);
            if (cached.sourceHash == assetContentKey(meshFile, options))
            {
                // The key ignores names, so the file may have been built from a copy under another one.
                cached.name = meshFile.stem().string();
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
    Asset asset = cookAssetFile(meshFile, options, progress, notes);
    asset.save(cacheFile);
    if (why)
        *why = reason;
    return asset;
}

std::filesystem::path assetCacheFile(const std::filesystem::path& meshFile,
                                     const std::filesystem::path& cacheDir, const AssetSettings& settings)
{
    char key[17];
    std::snprintf(key, sizeof(key), "%016llx",
                  static_cast<unsigned long long>(assetContentKey(meshFile, settings)));
    const std::filesystem::path own = cacheDir / (meshFile.stem().string() + "-" + key + ".shatter");
    std::error_code ec;
    if (std::filesystem::is_regular_file(own, ec))
        return own;
    // The same bytes and settings under another name: the key says the file is this mesh's asset. The
    // smallest such name is taken so that the choice does not depend on the directory's order.
    const std::string suffix = std::string("-") + key + ".shatter";
    std::filesystem::path found;
    for (auto it = std::filesystem::directory_iterator(cacheDir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    {
        const std::string name = it->path().filename().string();
        if (name.size() > suffix.size() && name.ends_with(suffix) && it->is_regular_file(ec) &&
            (found.empty() || it->path() < found))
            found = it->path();
    }
    return found.empty() ? own : found;
}

namespace
{

// The public functions never throw: a shatter::Error already names its source; anything else (out of
// memory, a filesystem error) is prefixed with the file it happened on.
template <class Body>
AssetBuildResult capture(const std::string& source, Body&& body)
{
    AssetBuildResult result;
    try
    {
        result.asset = std::make_shared<const Asset>(body(result));
    }
    catch (const Error& error)
    {
        result.error = error.what();
    }
    catch (const std::exception& error)
    {
        result.error = source + ": " + error.what();
    }
    if (!result.asset && result.error.empty())
        result.error = source + ": the build failed";
    return result;
}

} // namespace

AssetBuildResult buildAsset(const std::filesystem::path& meshFile, const AssetSettings& settings,
                            const ProgressCallback& progress)
{
    return capture(meshFile.string(), [&](AssetBuildResult& result)
                   { return cookAssetFile(meshFile, settings, progress, &result.importNotes); });
}

AssetBuildResult buildAsset(TriMesh mesh, const std::string& name, const AssetSettings& settings,
                            const ProgressCallback& progress)
{
    return capture(name,
                   [&](AssetBuildResult&) { return cookAsset(std::move(mesh), name, settings, progress); });
}

AssetBuildResult loadOrBuildAsset(const std::filesystem::path& meshFile,
                                  const std::filesystem::path& cacheFile, const AssetSettings& settings,
                                  const ProgressCallback& progress)
{
    return capture(meshFile.string(),
                   [&](AssetBuildResult& result)
                   {
                       return loadOrCookAsset(meshFile, cacheFile, settings, progress, &result.rebuildReason,
                                              &result.importNotes);
                   });
}

} // namespace shatter
