// Asset build and cache file: exact node distances, cache round trip, and clear errors for corrupt,
// truncated, wrong-version and mismatched cache files. Then the public API (shatter/asset.h,
// shatter/cook.h): results instead of exceptions from the build, error texts that name the file, and
// the content-keyed cache (a moved or renamed mesh reuses its cache file, a changed byte or setting
// never does).
#include "test_meshes.h"
#include "test_paths.h"

#include "asset_build.h"
#include "asset_data.h"
#include "binary_io.h"
#include "object_state.h"
#include "shatter/asset.h"
#include "shatter/cook.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numbers>

namespace shatter
{
namespace
{

// A box whose faces are split into n × n quads, so TetGen gets interior nodes to place.
TriMesh subdividedBox(const Vec3& half, int n)
{
    TriMesh mesh;
    std::map<std::array<long, 3>, Index> index;
    auto vertex = [&](const Vec3& p)
    {
        const std::array<long, 3> key = {std::lround(p.x() * 1e6), std::lround(p.y() * 1e6),
                                         std::lround(p.z() * 1e6)};
        auto [it, inserted] = index.emplace(key, Index(mesh.vertices.size()));
        if (inserted)
            mesh.vertices.push_back(p);
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
        for (int side = -1; side <= 1; side += 2)
        {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            auto at = [&](int i, int j)
            {
                Vec3 p;
                p[axis] = side * half[axis];
                p[u] = half[u] * (-1 + 2.0 * i / n);
                p[v] = half[v] * (-1 + 2.0 * j / n);
                return vertex(p);
            };
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                {
                    const Index a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
                    if (side > 0)
                    {
                        mesh.triangles.push_back({a, b, c});
                        mesh.triangles.push_back({a, c, d});
                    }
                    else
                    {
                        mesh.triangles.push_back({a, c, b});
                        mesh.triangles.push_back({a, d, c});
                    }
                }
        }
    return mesh;
}

TEST(Asset, SphereNodeDistancesMatchAnalytic)
{
    const Real radius = 1;
    const int subdivisions = 3;
    const Asset asset = cookAsset(test::icosphere(subdivisions, radius), "sphere");
    ASSERT_GT(asset.pointCount(), asset.surface.vertices.size()) << "expected interior nodes";
    // Tessellation error: the flat faces sit inside the sphere by at most r(1 − cos θ), θ the
    // angle from a face's centre to its corners; bounded here by the longest edge's sagitta.
    Real longest = 0;
    for (const Triangle& t : asset.surface.triangles)
        for (int k = 0; k < 3; ++k)
            longest = std::max(
                longest, (asset.surface.vertices[t[k]] - asset.surface.vertices[t[(k + 1) % 3]]).norm());
    const Real tessellationError = radius - std::sqrt(radius * radius - longest * longest / 3);
    for (Index i = 0; i < asset.pointCount(); ++i)
    {
        const Vec3& p = asset.tetMesh.nodes[i];
        const Real analytic = radius - p.norm();
        EXPECT_NEAR(asset.nodeDistance[i], analytic, tessellationError + 1e-12) << "node " << i;
        EXPECT_NEAR(asset.nodeDirection[i].norm(), 1, 1e-9);
        if (p.norm() > 1e-3)
        {
            EXPECT_GT(asset.nodeDirection[i].dot(p.normalized()), 0.9) << "node " << i;
        }
    }
}

TEST(Asset, BoxNodeDistancesAreExact)
{
    const Vec3 half(0.5, 0.3, 0.2);
    const Asset asset = cookAsset(subdividedBox(half, 6), "box");
    ASSERT_GT(asset.pointCount(), asset.surface.vertices.size()) << "expected interior nodes";
    for (Index i = 0; i < asset.pointCount(); ++i)
    {
        const Real analytic = -test::boxSignedDistance(asset.tetMesh.nodes[i], half);
        EXPECT_NEAR(asset.nodeDistance[i], analytic, 1e-12) << "node " << i;
    }
    EXPECT_NEAR(asset.tetMesh.totalVolume(), 8 * half.x() * half.y() * half.z(), 1e-12);
}

TEST(Asset, StructureIsConsistent)
{
    const Asset asset = cookAsset(test::icosphere(2, 0.5), "sphere");
    EXPECT_EQ(asset.tetMesh.surfaceNodeCount, asset.surface.vertices.size());
    for (Index i = 0; i < asset.surface.vertices.size(); ++i)
        EXPECT_EQ(asset.tetMesh.nodes[i], asset.surface.vertices[i]);
    for (Index t = 0; t < asset.tetMesh.tetCount(); ++t)
        EXPECT_GT(asset.tetMesh.tetVolume(t), 0);
    EXPECT_NEAR(asset.tetMesh.totalVolume(), asset.surface.signedVolume(), 1e-12);
    EXPECT_EQ(asset.pointOrder.size(), asset.pointCount());
    EXPECT_EQ(asset.sphereTree.pointCount(), asset.pointCount());
    EXPECT_EQ(checkSphereTree(asset.sphereTree), "");
    EXPECT_FALSE(asset.surfaceGrid.empty());
}

TEST(Asset, ProgressIsMonotonicAndCompletes)
{
    std::vector<double> fractions;
    std::vector<std::string> stages;
    cookAsset(test::icosphere(2), "sphere", {},
              [&](std::string_view stage, double fraction)
              {
                  fractions.push_back(fraction);
                  if (stages.empty() || stages.back() != stage)
                      stages.emplace_back(stage);
              });
    ASSERT_FALSE(fractions.empty());
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_EQ(fractions.back(), 1.0);
    EXPECT_GE(stages.size(), 5u);
}

TEST(Asset, CavityStaysEmpty)
{
    const Vec3 outer(0.5, 0.5, 0.5), inner(0.3, 0.3, 0.3);
    const Asset asset = cookAsset(test::boxWithCavity(outer, inner), "hollow box");
    const Real expected = 8 * (outer.prod() - inner.prod());
    EXPECT_NEAR(asset.tetMesh.totalVolume(), expected, 1e-12);
}

TEST(Asset, BadOptionsAreErrors)
{
    AssetSettings options;
    options.gridCellFactor = 0;
    EXPECT_THROW(cookAsset(test::icosphere(1), "sphere", options), Error);
    options = {};
    options.tets.maxRadiusEdgeRatio = 3;
    EXPECT_THROW(cookAsset(test::icosphere(1), "sphere", options), Error);
}

// A mesh too fine for the size limits fails before TetGen runs (no "tetrahedralizing" stage), with a
// message naming the setting and the shatter_asset option that changes it; the file's name leads.
TEST(Asset, TooFineForTheSizeLimitsFailsBeforeTetGen)
{
    struct Case
    {
        const char* what;
        std::function<void(AssetSettings&)> limit;
        const char* expected;
    };
    const Case cases[] = {
        {"tet limit", [](AssetSettings& s) { s.tets.maxTets = 100; }, "shatter_asset build --max-tets "},
        {"grid limit", [](AssetSettings& s) { s.maxGridPoints = 5000; },
         "shatter_asset build --cell-factor "},
        {"grid limit no factor meets", [](AssetSettings& s) { s.maxGridPoints = 100; }, "--max-grid-points"},
    };
    const std::filesystem::path brick = std::filesystem::path(SHATTER_SOURCE_DIR) / "assets/meshes/brick.obj";
    for (const Case& c : cases)
    {
        AssetSettings settings;
        c.limit(settings);
        bool tetgenRan = false;
        const AssetBuildResult result =
            buildAsset(brick, settings,
                       [&](std::string_view stage, double) { tetgenRan |= stage == "tetrahedralizing"; });
        EXPECT_FALSE(result.ok()) << c.what;
        EXPECT_FALSE(tetgenRan) << c.what;
        EXPECT_NE(result.error.find(c.expected), std::string::npos) << c.what << ": " << result.error;
        EXPECT_EQ(result.error.rfind(brick.string() + ": ", 0), 0u) << result.error;
    }
    // Within the limits the same mesh builds, and TetGen's stage reports progress.
    AssetSettings settings;
    double lastTetGenFraction = -1;
    const AssetBuildResult result = buildAsset(brick, settings,
                                               [&](std::string_view stage, double f)
                                               {
                                                   if (stage == "tetrahedralizing")
                                                       lastTetGenFraction = f;
                                               });
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_GE(lastTetGenFraction, 0.0);
    EXPECT_LE(result.asset->tetMesh.tets.size(), settings.tets.maxTets);
}

class AssetCache : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = test::scratchDir("asset_cache");
        asset = cookAsset(test::icosphere(2, 0.5), "sphere");
        file = dir / "sphere.shatter";
        asset.save(file);
        bytes = readFileBytes(file.string());
    }
    void writeBytes(const std::vector<std::byte>& b) const { writeFileBytes(file.string(), b); }
    // Loads and returns the error message, failing the test if loading succeeds.
    std::string loadError() const
    {
        try
        {
            Asset::load(file);
        }
        catch (const Error& error)
        {
            EXPECT_EQ(error.source(), file.string());
            return error.problem();
        }
        ADD_FAILURE() << "loading succeeded";
        return {};
    }

    std::filesystem::path dir, file;
    Asset asset;
    std::vector<std::byte> bytes;
};

TEST_F(AssetCache, RoundTripIsExact)
{
    const Asset loaded = Asset::load(file);
    EXPECT_EQ(loaded.name, asset.name);
    EXPECT_EQ(loaded.sourceHash, asset.sourceHash);
    EXPECT_EQ(loaded.surface.vertices, asset.surface.vertices);
    EXPECT_EQ(loaded.surface.triangles, asset.surface.triangles);
    EXPECT_EQ(loaded.tetMesh.nodes, asset.tetMesh.nodes);
    EXPECT_EQ(loaded.tetMesh.tets, asset.tetMesh.tets);
    EXPECT_EQ(loaded.tetMesh.edges, asset.tetMesh.edges);
    EXPECT_EQ(loaded.nodeDistance, asset.nodeDistance);
    EXPECT_EQ(loaded.nodeDirection, asset.nodeDirection);
    EXPECT_EQ(loaded.surfaceGrid.values, asset.surfaceGrid.values);
    EXPECT_EQ(loaded.pointOrder, asset.pointOrder);
    EXPECT_EQ(loaded.sphereTree.nodes.size(), asset.sphereTree.nodes.size());
    EXPECT_EQ(checkSphereTree(loaded.sphereTree), "");
}

TEST_F(AssetCache, CorruptByteIsDetected)
{
    bytes[bytes.size() / 2] ^= std::byte{0x5a};
    writeBytes(bytes);
    EXPECT_NE(loadError().find("checksum"), std::string::npos);
}

TEST_F(AssetCache, TruncatedFileIsDetected)
{
    // erase, not resize: shrinking through resize() makes GCC 12 at -O3 with sanitizers warn about the
    // growth path it cannot rule out (-Wstringop-overflow).
    ASSERT_GT(bytes.size(), 200u);
    bytes.erase(bytes.end() - 100, bytes.end());
    writeBytes(bytes);
    EXPECT_NE(loadError().find("truncated"), std::string::npos);
    bytes.erase(bytes.begin() + 10, bytes.end());
    writeBytes(bytes);
    EXPECT_NE(loadError().find("not a Shatter asset"), std::string::npos);
}

TEST_F(AssetCache, WrongVersionIsDetected)
{
    const std::uint32_t other = Asset::kFormatVersion + 7;
    std::memcpy(bytes.data() + 8, &other, sizeof(other));
    writeBytes(bytes);
    const std::string problem = loadError();
    EXPECT_NE(problem.find("version " + std::to_string(other)), std::string::npos) << problem;
}

TEST_F(AssetCache, WrongMagicAndMissingFileAreDetected)
{
    bytes[0] = std::byte{'X'};
    writeBytes(bytes);
    EXPECT_NE(loadError().find("magic"), std::string::npos);
    std::filesystem::remove(file);
    EXPECT_NE(loadError().find("no such file"), std::string::npos);
}

TEST_F(AssetCache, BadIndexWithValidChecksumIsDetected)
{
    // A file whose checksum is right but whose content is not (a bug or a hand-made file).
    Asset broken = asset;
    broken.tetMesh.tets[3][2] = Index(broken.tetMesh.nodes.size() + 5);
    broken.save(file);
    EXPECT_NE(loadError().find("tetrahedron 3"), std::string::npos);
}

// Each structural invariant broken in turn, with the checksum recomputed (save() writes a valid one): a
// clear rejection naming the file (loadError checks the source), never a crash, a hang or a silent load.
TEST_F(AssetCache, BrokenStructureWithValidChecksumIsRejected)
{
    const SphereTree& tree = asset.sphereTree;
    const Index root = tree.roots.at(0);
    const Index first = tree.nodes[root].firstChild;
    ASSERT_NE(first, kInvalidIndex);
    const Index second = tree.nodes[first].nextSibling;
    ASSERT_NE(second, kInvalidIndex) << "the test needs a root with two children";
    Index last = first;
    while (tree.nodes[last].nextSibling != kInvalidIndex)
        last = tree.nodes[last].nextSibling;
    constexpr Real nan = std::numeric_limits<Real>::quiet_NaN();

    struct Case
    {
        const char* what;
        std::function<void(Asset&)> corrupt;
        const char* expected; // in the error's problem text
    };
    const Case cases[] = {
        {"root out of range", [&](Asset& a) { a.sphereTree.roots[0] = kInvalidIndex; }, "root"},
        {"root past the end", [&](Asset& a) { a.sphereTree.roots[0] = a.sphereTree.nodeCount() + 3; },
         "root"},
        {"sibling cycle", [&](Asset& a) { a.sphereTree.nodes[last].nextSibling = first; }, "reached twice"},
        {"child links back to the root", [&](Asset& a) { a.sphereTree.nodes[first].firstChild = root; },
         "reached twice"},
        {"16 zeroed bytes in a node",
         [&](Asset& a) { std::memset(static_cast<void*>(&a.sphereTree.nodes[second]), 0, 16); }, "node"},
        {"orphan subtree",
         [&](Asset& a)
         {
             a.sphereTree.nodes[first].nextSibling = a.sphereTree.nodes[second].nextSibling;
             --a.sphereTree.nodes[root].childCount;
         },
         "is not reachable"},
        {"orphan point (in no tree)",
         [&](Asset& a)
         {
             const Index point = Index(a.tetMesh.nodes.size()); // a new node no tet and no tree uses
             a.tetMesh.nodes.push_back(Vec3(0.01, 0.02, 0.03));
             a.nodeDistance.push_back(0.1);
             a.nodeDirection.push_back(Vec3::UnitX());
             a.pointOrder.push_back(point);
             a.sphereTree.pointNode.push_back(kInvalidIndex);
         },
         "is in no tree"},
        {"point table names another node",
         [&](Asset& a) { a.sphereTree.pointNode[a.sphereTree.nodes[second].point] = root; }, "pointNode"},
        {"NaN radius", [&](Asset& a) { a.sphereTree.nodes[root].radius = nan; }, "finite and >= 0"},
        {"negative radius", [&](Asset& a) { a.sphereTree.nodes[first].radius = -1; }, "finite and >= 0"},
        {"child outside its parent", [&](Asset& a) { a.sphereTree.nodes[root].radius *= 0.5; },
         "from ancestor"},
        {"point table count", [&](Asset& a) { a.sphereTree.pointNode.pop_back(); }, "pointNode has"},
        {"node distance count", [&](Asset& a) { a.nodeDistance.pop_back(); }, "node distances"},
        {"NaN node position", [&](Asset& a) { a.tetMesh.nodes[7].x() = nan; }, "tet node 7"},
        {"NaN node distance", [&](Asset& a) { a.nodeDistance[3] = nan; }, "tet node 3"},
        {"infinite surface vertex",
         [&](Asset& a) { a.surface.vertices[2].y() = std::numeric_limits<Real>::infinity(); },
         "surface vertex 2"},
        {"flat tetrahedron", [&](Asset& a) { a.tetMesh.tets[5][3] = a.tetMesh.tets[5][0]; }, "no volume"},
    };
    for (const Case& c : cases)
    {
        Asset broken = asset;
        c.corrupt(broken);
        broken.save(file);
        const std::string problem = loadError();
        EXPECT_NE(problem.find(c.expected), std::string::npos) << c.what << ": " << problem;
    }
    // And the unbroken asset still loads.
    asset.save(file);
    EXPECT_NO_THROW(Asset::load(file));
}

TEST_F(AssetCache, SectionsRoundTripAndReplaceByName)
{
    Asset withSections = asset;
    const std::vector<std::byte> first{std::byte{1}, std::byte{2}, std::byte{3}};
    withSections.setSection("modal", first);
    withSections.setSection("degree", {});
    withSections.setSection("modal", {std::byte{9}}); // replaces, does not append
    ASSERT_EQ(withSections.sections.size(), 2u);
    withSections.save(file);
    const Asset loaded = Asset::load(file);
    ASSERT_EQ(loaded.sections.size(), 2u);
    ASSERT_NE(loaded.findSection("modal"), nullptr);
    EXPECT_EQ(loaded.readSection("modal"), std::vector<std::byte>{std::byte{9}});
    EXPECT_EQ(loaded.findSection("modal")->size(), 1u);
    ASSERT_NE(loaded.findSection("degree"), nullptr);
    EXPECT_TRUE(loaded.readSection("degree")->empty());
    EXPECT_EQ(loaded.findSection("missing"), nullptr);
    EXPECT_FALSE(loaded.readSection("missing").has_value());
}

// A loaded asset leaves its sections in the file and reads them when asked: what it reads is the file
// as loaded, whether the cache is since replaced (as writers do, by rename), re-saved or edited in place.
TEST_F(AssetCache, LoadedSectionsAreReadBackFromTheFileAsLoaded)
{
    Asset withSection = asset;
    const std::vector<std::byte> modal(1000, std::byte{7});
    withSection.setSection("modal", modal);
    withSection.save(file);
    const Asset loaded = Asset::load(file);
    ASSERT_NE(loaded.findSection("modal"), nullptr);
    EXPECT_TRUE(loaded.findSection("modal")->bytes.empty()); // not held in memory
    EXPECT_EQ(loaded.findSection("modal")->readFirst(4), std::vector<std::byte>(4, std::byte{7}));
    EXPECT_EQ(loaded.findSection("modal")->readFirst(5000), modal); // all of it when shorter

    withSection.setSection("modal", std::vector<std::byte>(1000, std::byte{8}));
    withSection.save(file); // replaces the file by rename
    EXPECT_EQ(loaded.readSection("modal"), modal);
    loaded.save(file); // reads its sections back from the file it was loaded from
    EXPECT_EQ(Asset::load(file).readSection("modal"), modal);

    // Edited in place (not how Shatter writes): the section no longer matches its checksum at load.
    const Asset again = Asset::load(file);
    {
        std::fstream edit(file, std::ios::binary | std::ios::in | std::ios::out);
        edit.seekp(-10, std::ios::end); // inside the section, the payload's last bytes
        edit.put(char(1));
    }
    try
    {
        again.readSection("modal");
        ADD_FAILURE() << "an edited section was read";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find(file.string()), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("section 'modal' changed"), std::string::npos)
            << error.what();
    }
}

TEST_F(AssetCache, DuplicateSectionWithValidChecksumIsDetected)
{
    Asset broken = asset;
    AssetSection modal;
    modal.name = "modal";
    broken.sections.push_back(modal);
    broken.sections.push_back(modal); // bypasses setSection, as a hand-made file could
    broken.save(file);
    EXPECT_NE(loadError().find("section 'modal' appears twice"), std::string::npos);
}

// Writes the icosphere as an OBJ file, the input of the file-based build and cache tests.
void writeBall(const std::filesystem::path& file)
{
    std::ofstream obj(file);
    const TriMesh sphere = test::icosphere(2, 0.25);
    for (const Vec3& v : sphere.vertices)
        obj << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
    for (const Triangle& t : sphere.triangles)
        obj << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
}

TEST_F(AssetCache, LoadOrBuildRebuildsStaleAndCorruptCaches)
{
    const std::filesystem::path mesh = dir / "ball.obj";
    writeBall(mesh);
    const std::filesystem::path cache = dir / "ball.shatter";
    const AssetBuildResult first = loadOrBuildAsset(mesh, cache);
    ASSERT_TRUE(first.ok()) << first.error;
    EXPECT_EQ(first.rebuildReason, "no cache file yet");
    EXPECT_EQ(loadOrBuildAsset(mesh, cache).rebuildReason, "")
        << "an up-to-date cache is loaded, not rebuilt";

    AssetSettings other;
    other.gridCellFactor = 0.7;
    EXPECT_NE(loadOrBuildAsset(mesh, cache, other).rebuildReason.find("another mesh or other options"),
              std::string::npos);

    std::vector<std::byte> cacheBytes = readFileBytes(cache.string());
    cacheBytes.resize(cacheBytes.size() / 2);
    writeFileBytes(cache.string(), cacheBytes);
    const AssetBuildResult rebuilt = loadOrBuildAsset(mesh, cache, other);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.error;
    EXPECT_NE(rebuilt.rebuildReason.find("truncated"), std::string::npos) << rebuilt.rebuildReason;
    EXPECT_EQ(rebuilt.asset->tetMesh.tets, first.asset->tetMesh.tets);
    EXPECT_NO_THROW(Asset::load(cache));
}

TEST_F(AssetCache, PublicLoadAssetReadsAGoodFileAndNamesACorruptOne)
{
    const std::shared_ptr<const Asset> loaded = loadAsset(file);
    ASSERT_NE(loaded, nullptr);
    const AssetInfo info = assetInfo(*loaded);
    EXPECT_EQ(info.name, "sphere");
    EXPECT_EQ(info.surfaceVertices, asset.surface.vertices.size());
    EXPECT_EQ(info.surfaceTriangles, asset.surface.triangles.size());
    EXPECT_EQ(info.tetNodes, asset.pointCount());
    EXPECT_EQ(info.tets, asset.tetMesh.tets.size());
    EXPECT_EQ(info.radius, asset.radius());
    EXPECT_EQ(info.bounds.min, asset.surface.bounds().min);
    EXPECT_EQ(info.bounds.max, asset.surface.bounds().max);
    EXPECT_EQ(info.formatVersion, kAssetFormatVersion);
    EXPECT_EQ(info.contentKey, asset.sourceHash);

    // saveAsset writes what loadAsset reads back.
    const std::filesystem::path copy = dir / "copy.shatter";
    saveAsset(*loaded, copy);
    EXPECT_EQ(readFileBytes(copy.string()), bytes);

    bytes[bytes.size() / 2] ^= std::byte{0x5a};
    writeBytes(bytes);
    try
    {
        loadAsset(file);
        ADD_FAILURE() << "a corrupt file loaded";
    }
    catch (const Error& error)
    {
        EXPECT_EQ(error.source(), file.string());
        EXPECT_EQ(std::string(error.what()), file.string() + ": asset file is corrupt (checksum mismatch)");
    }
}

TEST_F(AssetCache, PublicMakeObjectState)
{
    const std::shared_ptr<ObjectState> state = makeObjectState(loadAsset(file));
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(state->fragmentCount(), 1u);
    EXPECT_EQ(state->asset().tetMesh.tets, asset.tetMesh.tets);
    try
    {
        makeObjectState(nullptr);
        ADD_FAILURE() << "makeObjectState accepted a null asset";
    }
    catch (const Error& error)
    {
        EXPECT_EQ(std::string(error.what()), "makeObjectState: needs an asset, got a null pointer");
    }
}

TEST(AssetBuild, PublicBuildReturnsErrorsInsteadOfThrowing)
{
    const std::filesystem::path openBox = test::sourceDir() / "tests/data/bad/open_box.obj";
    AssetBuildResult result;
    ASSERT_NO_THROW(result = buildAsset(openBox));
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.asset, nullptr);
    EXPECT_EQ(result.error.rfind(openBox.string() + ": ", 0), 0u) << result.error;

    const std::filesystem::path missing = test::scratchDir("asset_build_errors") / "missing.obj";
    ASSERT_NO_THROW(result = buildAsset(missing));
    EXPECT_FALSE(result.ok());
    EXPECT_NE(result.error.find("missing.obj"), std::string::npos) << result.error;

    AssetSettings bad;
    bad.gridCellFactor = 0;
    ASSERT_NO_THROW(result = buildAsset(test::icosphere(1), "little sphere", bad));
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.error, "little sphere: AssetSettings::gridCellFactor must be > 0");
    bad = {};
    bad.tets.maxRadiusEdgeRatio = 3;
    const std::filesystem::path noCache = missing.parent_path() / "open_box.shatter";
    ASSERT_NO_THROW(result = loadOrBuildAsset(openBox, noCache, bad));
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.error.rfind(openBox.string() + ": ", 0), 0u) << result.error;
    EXPECT_FALSE(std::filesystem::exists(noCache)) << "a failed build leaves no cache file";

    result = buildAsset(test::icosphere(1), "little sphere");
    ASSERT_TRUE(result.ok()) << result.error;
    EXPECT_EQ(result.error, "");
    EXPECT_EQ(assetInfo(*result.asset).name, "little sphere");
}

// The cache is keyed by content (TVCG 2013 §4's precomputation depends on the mesh and the settings
// only): the same bytes under another name or folder find the cache file, other bytes or settings a new
// one. Reuse is checked twice: no rebuild reason, and the file's modification time is unchanged.
TEST(AssetBuild, ContentKeyedCacheSurvivesRenamesAndMoves)
{
    const std::filesystem::path root = test::scratchDir("asset_content_key");
    const std::filesystem::path cacheDir = root / "cache";
    std::filesystem::create_directories(cacheDir);
    std::filesystem::create_directories(root / "a");
    std::filesystem::create_directories(root / "b");
    const std::filesystem::path mesh = root / "a" / "ball.obj";
    writeBall(mesh);

    const std::filesystem::path cache = assetCacheFile(mesh, cacheDir);
    char key[17];
    std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(assetContentKey(mesh)));
    EXPECT_EQ(cache, cacheDir / (std::string("ball-") + key + ".shatter"));
    const AssetBuildResult first = loadOrBuildAsset(mesh, cache);
    ASSERT_TRUE(first.ok()) << first.error;
    EXPECT_EQ(first.rebuildReason, "no cache file yet");
    EXPECT_EQ(assetInfo(*first.asset).contentKey, assetContentKey(mesh));
    const auto written = std::filesystem::last_write_time(cache);

    // Moved to another folder, same name: the same file name.
    const std::filesystem::path moved = root / "b" / "ball.obj";
    std::filesystem::rename(mesh, moved);
    EXPECT_EQ(assetCacheFile(moved, cacheDir), cache);
    const AssetBuildResult afterMove = loadOrBuildAsset(moved, assetCacheFile(moved, cacheDir));
    ASSERT_TRUE(afterMove.ok()) << afterMove.error;
    EXPECT_EQ(afterMove.rebuildReason, "") << "a moved mesh rebuilt its cache";

    // Copied under another name: the lookup by key finds the existing file.
    const std::filesystem::path renamed = root / "a" / "marble.obj";
    std::filesystem::copy_file(moved, renamed);
    EXPECT_EQ(assetCacheFile(renamed, cacheDir), cache);
    const AssetBuildResult afterRename = loadOrBuildAsset(renamed, assetCacheFile(renamed, cacheDir));
    ASSERT_TRUE(afterRename.ok()) << afterRename.error;
    EXPECT_EQ(afterRename.rebuildReason, "") << "a renamed mesh rebuilt its cache";
    EXPECT_EQ(afterRename.asset->name, "marble") << "the asset takes the name of the mesh it was asked for";
    EXPECT_EQ(afterRename.asset->tetMesh.tets, first.asset->tetMesh.tets);
    EXPECT_EQ(std::filesystem::last_write_time(cache), written) << "the cache file was rewritten";
}

TEST(AssetBuild, ContentKeyedCacheRebuildsForOtherBytesOrSettings)
{
    const std::filesystem::path root = test::scratchDir("asset_content_key_stale");
    const std::filesystem::path cacheDir = root / "cache";
    std::filesystem::create_directories(cacheDir);
    const std::filesystem::path mesh = root / "ball.obj";
    writeBall(mesh);
    const std::filesystem::path cache = assetCacheFile(mesh, cacheDir);
    ASSERT_TRUE(loadOrBuildAsset(mesh, cache).ok());

    // Another setting: another key, so another file, built afresh.
    AssetSettings other;
    other.tets.maxRadiusEdgeRatio = 1.8;
    const std::filesystem::path otherCache = assetCacheFile(mesh, cacheDir, other);
    EXPECT_NE(otherCache, cache);
    const AssetBuildResult withOther = loadOrBuildAsset(mesh, otherCache, other);
    ASSERT_TRUE(withOther.ok()) << withOther.error;
    EXPECT_EQ(withOther.rebuildReason, "no cache file yet");
    // The thread count does not change the asset, so it is not part of the key.
    AssetSettings threads;
    threads.threads = 1;
    EXPECT_EQ(assetCacheFile(mesh, cacheDir, threads), cache);

    // One more byte in the mesh file (a comment the importer ignores): another key, never the stale file.
    const std::uint64_t before = assetContentKey(mesh);
    std::ofstream(mesh, std::ios::app) << "# edited\n";
    EXPECT_NE(assetContentKey(mesh), before);
    const std::filesystem::path editedCache = assetCacheFile(mesh, cacheDir);
    EXPECT_NE(editedCache, cache);
    const AssetBuildResult edited = loadOrBuildAsset(mesh, editedCache);
    ASSERT_TRUE(edited.ok()) << edited.error;
    EXPECT_EQ(edited.rebuildReason, "no cache file yet");
    // Asked explicitly for the old file, loadOrBuildAsset sees the stale key and rebuilds it.
    const AssetBuildResult stale = loadOrBuildAsset(mesh, cache);
    ASSERT_TRUE(stale.ok()) << stale.error;
    EXPECT_NE(stale.rebuildReason.find("another mesh or other options"), std::string::npos);
}

} // namespace
} // namespace shatter
