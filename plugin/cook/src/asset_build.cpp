// The asset build: import → validate (→ repair) → TetGen → exact node distances → surface distance grid
// → maximum-distance ordering and sphere tree (TVCG 2013 §4.1-§4.4, §5.1). Each stage reports progress
// with its share of the total. Also the content-keyed cache (loadOrCookAsset, assetCacheFile) and the
// never-throwing public entry points of shatter/cook.h, which wrap the throwing internal ones.
#include "asset_build.h"

#include "mesh_import.h"
#include "surface_uv.h"

#include "binary_io.h"
#include "max_distance_order.h"
#include "parallel.h"
#include "signed_distance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <future>
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
    if (options.maxGridPoints < 1)
        throw Error(name, "AssetSettings::maxGridPoints must be >= 1");
    if (options.tets.maxTets < 1)
        throw Error(name, "TetrahedralizeSettings::maxTets must be >= 1");
}

DistanceGridSettings gridSettings(const AssetSettings& options)
{
    DistanceGridSettings grid;
    grid.cellFactor = options.gridCellFactor;
    grid.bandCells = options.gridBandCells;
    grid.threads = options.threads;
    grid.maxPoints = std::size_t(options.maxGridPoints);
    return grid;
}

std::string withSeparators(double value)
{
    std::string digits = std::to_string(static_cast<unsigned long long>(std::llround(value)));
    for (std::ptrdiff_t i = std::ptrdiff_t(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(std::size_t(i), ",");
    return digits;
}

// The two stages that grow with the mesh's fineness (TetGen's time and memory, the grid's memory) are
// sized before either runs (checkGridSize, checkTetCount), so that a mesh too fine for the limits fails
// in seconds, not after minutes and gigabytes, and the message names the setting and the command-line
// option that change it.
void checkGridSize(const SignedDistanceField& field, const AssetSettings& options, const std::string& name)
{
    DistanceGridSettings grid = gridSettings(options);
    auto gridPointsAt = [&](Real cellFactor)
    {
        grid.cellFactor = cellFactor;
        Real points = 0;
        DistanceGrid::layout(field, grid, points);
        return points;
    };
    const Real gridPoints = gridPointsAt(options.gridCellFactor);
    if (gridPoints > Real(options.maxGridPoints))
    {
        // The smallest factor (to 3 digits, rounded up) whose grid fits; the band and margin are whole
        // cells, so some limits fit no factor.
        const Real limit = Real(options.maxGridPoints);
        Real low = options.gridCellFactor, high = low;
        for (int i = 0; i < 64 && gridPointsAt(high) > limit; ++i)
            high *= 2;
        std::string advice = "raise the limit (shatter_asset build --max-grid-points)";
        if (gridPointsAt(high) <= limit)
        {
            for (int i = 0; i < 50; ++i)
                (gridPointsAt(0.5 * (low + high)) > limit ? low : high) = 0.5 * (low + high);
            const Real step = std::pow(Real(10), std::floor(std::log10(high)) - 2);
            char factor[32];
            std::snprintf(factor, sizeof factor, "%.3g", std::ceil(high / step) * step);
            advice = std::string("raise the cell factor to ") + factor +
                     " (shatter_asset build --cell-factor " + factor +
                     ") or the limit (--max-grid-points), or simplify the mesh";
        }
        throw Error(name, "the surface distance grid would have " + withSeparators(gridPoints) +
                              " points (cells of gridCellFactor × the mean surface edge), more than "
                              "AssetSettings::maxGridPoints (" +
                              withSeparators(limit) + "): " + advice);
    }
}

void checkTetCount(const TetCountEstimate& tets, Index surfaceTriangles, const AssetSettings& options,
                   const std::string& name)
{
    if (tets.total() > Real(options.tets.maxTets))
    {
        // The triangle count that meets the limit: the volume term grows as triangles^1.5, since the
        // longest edge, which sets TetGen's volume bound, shrinks as 1 / sqrt(triangles).
        const Real triangles = Real(surfaceTriangles);
        Real low = 0, high = triangles;
        for (int i = 0; i < 60; ++i)
        {
            const Real n = 0.5 * (low + high);
            const Real expected =
                tets.bySurface * n / triangles + tets.byVolume * std::pow(n / triangles, 1.5);
            (expected > Real(options.tets.maxTets) ? high : low) = n;
        }
        throw Error(
            name,
            "about " + withSeparators(tets.total()) + " tetrahedra expected (" + withSeparators(triangles) +
                " surface triangles and the volume they enclose), more than "
                "TetrahedralizeSettings::maxTets (" +
                withSeparators(Real(options.tets.maxTets)) + "): simplify the mesh to about " +
                withSeparators(low) + " triangles, or raise the limit (shatter_asset build --max-tets " +
                std::to_string(static_cast<unsigned long long>(std::ceil(tets.total() * 1.2))) + ")");
    }
}

// TetGen has no progress hook: with a progress callback it runs on its own thread while this one
// reports the time spent against the time expected for the estimated tet count (never past 95 %).
TetMesh tetrahedralizeReporting(const TriMesh& surface, const std::string& name,
                                const TetrahedralizeSettings& options, Real expectedTets,
                                const ProgressCallback& progress)
{
    if (!progress)
        return tetrahedralize(surface, name, options);
    constexpr double kTetsPerSecond = 50000; // TetGen on the shipped meshes, one core
    const double expected = std::max(0.1, expectedTets / kTetsPerSecond);
    std::future<TetMesh> result =
        std::async(std::launch::async, [&] { return tetrahedralize(surface, name, options); });
    const auto start = std::chrono::steady_clock::now();
    while (result.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready)
    {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        report(progress, kTetrahedralize, std::min(0.95, elapsed / expected));
    }
    return result.get();
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
    const SignedDistanceField field(asset.surface, name);
    checkGridSize(field, options, name);
    const TetCountEstimate expectedTets = estimateTetCount(asset.surface, options.tets);
    checkTetCount(expectedTets, Index(asset.surface.triangles.size()), options, name);

    report(progress, kTetrahedralize);
    asset.tetMesh =
        tetrahedralizeReporting(asset.surface, name, options.tets, expectedTets.total(), progress);
    asset.surfaceFaces = mapSurfaceToTets(asset.surface, asset.tetMesh, name);

    report(progress, kNodeDistances);
    computeNodeDistances(asset, field, options.threads);

    asset.surfaceGrid = DistanceGrid::build(field, gridSettings(options),
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
    const std::string name = meshFile.stem().string();
    Asset asset;
    try
    {
        asset = cookAsset(std::move(mesh), name, options, progress);
    }
    catch (const Error& error) // the stages name the asset; a user of a file wants the file's name
    {
        if (error.source() != name)
            throw;
        throw Error(meshFile.string(), error.problem());
    }
    asset.sourceHash = assetContentKey(meshFile, options);
    setSurfaceUvs(asset, readTexturedTriangles(meshFile));
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
