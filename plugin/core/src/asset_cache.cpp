// The asset cache file: a fixed header (magic, format version, payload size, FNV-1a checksum) and a
// payload of plain arrays. Loading checks the header, the checksum and every index, so a corrupt,
// truncated, wrong-version or hand-edited file is an error naming the file, never a crash later.
#include "asset_data.h"

#include "binary_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace shatter
{

namespace
{

const FileKind kAssetFile = {{'S', 'H', 'A', 'T', 'T', 'E', 'R', 'A'},
                             Asset::kFormatVersion,
                             "asset file",
                             "rebuild it with shatter_asset build"};
// Relative slack for "a sphere contains its descendants": the radii were computed from the same points.
constexpr Real kContainmentSlack = 1e-9;

void writePayload(const Asset& asset, BinaryWriter& w)
{
    w.string(asset.name);
    w.value(asset.sourceHash);
    w.vec3s(asset.surface.vertices);
    w.array(asset.surface.triangles);
    w.vec3s(asset.tetMesh.nodes);
    w.array(asset.tetMesh.tets);
    w.value(asset.tetMesh.surfaceNodeCount);
    w.array(asset.surfaceFaces.tet);
    w.array(asset.surfaceFaces.face);
    w.array(asset.nodeDistance);
    w.vec3s(asset.nodeDirection);
    const DistanceGrid& grid = asset.surfaceGrid;
    w.value(grid.dims);
    w.value(grid.origin.x());
    w.value(grid.origin.y());
    w.value(grid.origin.z());
    w.value(grid.cellSize);
    w.value(grid.bandWidth);
    w.array(grid.values);
    w.array(asset.pointOrder);
    w.array(asset.sphereTree.nodes);
    w.array(asset.sphereTree.roots);
    w.array(asset.sphereTree.pointNode);
    w.value<std::uint64_t>(asset.sections.size());
    for (const AssetSection& section : asset.sections)
    {
        w.string(section.name);
        w.array(section.read());
    }
}

template <class Array>
void checkIndices(const BinaryReader& r, const Array& values, std::size_t bound, const char* what)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        for (Index v : values[i])
            if (v >= bound)
                r.fail(std::string(what) + " " + std::to_string(i) + " refers to index " + std::to_string(v) +
                       " of " + std::to_string(bound));
}

/// Finite coordinates and distances, and tetrahedra of non-zero volume: later code divides by them.
void checkGeometry(const BinaryReader& r, const Asset& asset)
{
    for (std::size_t i = 0; i < asset.surface.vertices.size(); ++i)
        if (!asset.surface.vertices[i].allFinite())
            r.fail("surface vertex " + std::to_string(i) + " is not finite");
    const TetMesh& mesh = asset.tetMesh;
    for (std::size_t i = 0; i < mesh.nodes.size(); ++i)
        if (!mesh.nodes[i].allFinite() || !std::isfinite(asset.nodeDistance[i]) ||
            !asset.nodeDirection[i].allFinite())
            r.fail("tet node " + std::to_string(i) + " has a non-finite position, distance or direction");
    for (std::size_t i = 0; i < mesh.tets.size(); ++i)
    {
        const Tet& t = mesh.tets[i];
        const Vec3& a = mesh.nodes[t[0]];
        const Real volume = (mesh.nodes[t[1]] - a).cross(mesh.nodes[t[2]] - a).dot(mesh.nodes[t[3]] - a);
        if (!(std::abs(volume) > 0))
            r.fail("tetrahedron " + std::to_string(i) + " has no volume");
    }
}

void checkRange(const BinaryReader& r, const std::vector<Index>& values, std::size_t bound, const char* what)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] >= bound && values[i] != kInvalidIndex)
            r.fail(std::string(what) + " " + std::to_string(i) + " is out of range");
}

// `file` holds the payload at `payloadOffset`: the sections are left there, not copied (AssetSection).
Asset readPayload(BinaryReader& r, const std::shared_ptr<const ReadOnlyFile>& file,
                  std::uint64_t payloadOffset)
{
    Asset asset;
    asset.name = r.string();
    asset.sourceHash = r.value<std::uint64_t>();
    asset.surface.vertices = r.vec3s();
    asset.surface.triangles = r.array<Triangle>();
    asset.tetMesh.nodes = r.vec3s();
    asset.tetMesh.tets = r.array<Tet>();
    asset.tetMesh.surfaceNodeCount = r.value<Index>();
    asset.surfaceFaces.tet = r.array<Index>();
    asset.surfaceFaces.face = r.array<std::uint8_t>();
    asset.nodeDistance = r.array<Real>();
    asset.nodeDirection = r.vec3s();
    DistanceGrid& grid = asset.surfaceGrid;
    grid.dims = r.value<std::array<Index, 3>>();
    grid.origin.x() = r.value<Real>();
    grid.origin.y() = r.value<Real>();
    grid.origin.z() = r.value<Real>();
    grid.cellSize = r.value<Real>();
    grid.bandWidth = r.value<Real>();
    grid.values = r.array<float>();
    asset.pointOrder = r.array<Index>();
    asset.sphereTree.nodes = r.array<SphereNode>();
    asset.sphereTree.roots = r.array<Index>();
    asset.sphereTree.pointNode = r.array<Index>();
    const auto sectionCount = r.value<std::uint64_t>();
    if (sectionCount > r.remaining())
        r.fail("section count " + std::to_string(sectionCount) + " does not fit in the file");
    for (std::uint64_t i = 0; i < sectionCount; ++i)
    {
        AssetSection section;
        section.name = r.string();
        std::size_t offset = 0;
        const std::span<const std::byte> bytes = r.byteView(offset);
        section.file = file;
        section.fileOffset = payloadOffset + offset;
        section.fileSize = bytes.size();
        section.fileChecksum = quickHash64(bytes);
        if (asset.findSection(section.name))
            r.fail("section '" + section.name + "' appears twice");
        asset.sections.push_back(std::move(section));
    }
    if (r.remaining() != 0)
        r.fail(std::to_string(r.remaining()) + " unexpected bytes after the asset data");

    // Consistency of sizes and indices: everything later code indexes without checking.
    const std::size_t nodeCount = asset.tetMesh.nodes.size();
    const std::size_t surfaceVertices = asset.surface.vertices.size();
    if (asset.surface.triangles.empty() || asset.tetMesh.tets.empty())
        r.fail("the asset has no triangles or no tetrahedra");
    if (asset.tetMesh.surfaceNodeCount != surfaceVertices || surfaceVertices > nodeCount)
        r.fail("surface vertex count does not match the tet mesh");
    checkIndices(r, asset.surface.triangles, surfaceVertices, "surface triangle");
    checkIndices(r, asset.tetMesh.tets, nodeCount, "tetrahedron");
    if (asset.surfaceFaces.tet.size() != asset.surface.triangles.size() ||
        asset.surfaceFaces.face.size() != asset.surface.triangles.size())
        r.fail("surface-to-tet map has the wrong size");
    checkRange(r, asset.surfaceFaces.tet, asset.tetMesh.tets.size(), "surface-to-tet entry");
    for (std::uint8_t f : asset.surfaceFaces.face)
        if (f > 3)
            r.fail("surface-to-tet map has a face index above 3");
    if (asset.nodeDistance.size() != nodeCount || asset.nodeDirection.size() != nodeCount)
        r.fail("node distances have the wrong size");
    grid.validate(r.source());
    if (asset.pointOrder.size() != nodeCount)
        r.fail("point order has the wrong size");
    std::vector<bool> seen(nodeCount, false);
    for (Index p : asset.pointOrder)
    {
        if (p >= nodeCount || seen[p])
            r.fail("point order is not a permutation");
        seen[p] = true;
    }
    checkGeometry(r, asset);

    // The sphere tree's structure, not only its ranges: the forest installs it and fracture splits it
    // without further checks, so a cycle, an orphan or a sphere that misses its children must stop here.
    asset.sphereTree.points = asset.tetMesh.nodes;
    SphereTreeCheck treeCheck;
    const Aabb box = asset.surface.bounds(); // the tet nodes lie inside the surface
    treeCheck.tolerance =
        kContainmentSlack * (1 + std::max(box.min.cwiseAbs().maxCoeff(), box.max.cwiseAbs().maxCoeff()));
    treeCheck.closestParents = false;
    if (const std::string problem = checkSphereTree(asset.sphereTree, treeCheck); !problem.empty())
        r.fail("sphere tree: " + problem);
    return asset;
}

} // namespace

std::vector<std::byte> assetFileBytes(std::span<const std::byte> payload)
{
    return framedFileBytes(kAssetFile, payload);
}

void Asset::save(const std::filesystem::path& cacheFile) const
{
    BinaryWriter payload;
    writePayload(*this, payload);
    writeFileBytes(cacheFile.string(), assetFileBytes(payload.bytes()));
}

Asset Asset::load(const std::filesystem::path& cacheFile)
{
    const std::string source = cacheFile.string();
    const auto file = std::make_shared<const ReadOnlyFile>(source);
    std::vector<std::byte> bytes = file->read(0, file->size());
    const std::span<const std::byte> payload = framedPayload(bytes, kAssetFile, source);
    BinaryReader reader(payload, source);
    Asset asset = readPayload(reader, file, kFramedHeaderSize);
    // The locator takes about as much memory as the file: not both at once (loading's peak).
    std::vector<std::byte>().swap(bytes);
    asset.tetMesh.buildConnectivity();
    asset.locator = std::make_shared<const TetLocator>(asset.tetMesh);
    return asset;
}

} // namespace shatter
