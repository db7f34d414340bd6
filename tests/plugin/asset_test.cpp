// Asset build and cache file: exact node distances, cache round trip, and clear errors for corrupt,
// truncated, wrong-version and mismatched cache files.
#include "test_meshes.h"
#include "test_paths.h"

#include "asset.h"
#include "asset_build.h"
#include "binary_io.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
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
    const Asset asset = buildAsset(test::icosphere(subdivisions, radius), "sphere");
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
    const Asset asset = buildAsset(subdividedBox(half, 6), "box");
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
    const Asset asset = buildAsset(test::icosphere(2, 0.5), "sphere");
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
    buildAsset(test::icosphere(2), "sphere", {},
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
    const Asset asset = buildAsset(test::boxWithCavity(outer, inner), "hollow box");
    const Real expected = 8 * (outer.prod() - inner.prod());
    EXPECT_NEAR(asset.tetMesh.totalVolume(), expected, 1e-12);
}

TEST(Asset, BadOptionsAreErrors)
{
    AssetSettings options;
    options.gridCellFactor = 0;
    EXPECT_THROW(buildAsset(test::icosphere(1), "sphere", options), Error);
    options = {};
    options.tets.maxRadiusEdgeRatio = 3;
    EXPECT_THROW(buildAsset(test::icosphere(1), "sphere", options), Error);
}

class AssetCache : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = test::scratchDir("asset_cache");
        asset = buildAsset(test::icosphere(2, 0.5), "sphere");
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

TEST_F(AssetCache, LoadOrBuildRebuildsStaleAndCorruptCaches)
{
    const std::filesystem::path mesh = dir / "ball.obj";
    {
        std::ofstream obj(mesh);
        const TriMesh sphere = test::icosphere(2, 0.25);
        for (const Vec3& v : sphere.vertices)
            obj << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
        for (const Triangle& t : sphere.triangles)
            obj << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
    }
    const std::filesystem::path cache = dir / "ball.shatter";
    std::string why;
    const Asset first = loadOrBuildAsset(mesh, cache, {}, {}, &why);
    EXPECT_EQ(why, "no cache file yet");
    loadOrBuildAsset(mesh, cache, {}, {}, &why);
    EXPECT_EQ(why, "") << "an up-to-date cache is loaded, not rebuilt";

    AssetSettings other;
    other.gridCellFactor = 0.7;
    loadOrBuildAsset(mesh, cache, other, {}, &why);
    EXPECT_NE(why.find("another mesh or other options"), std::string::npos);

    std::vector<std::byte> cacheBytes = readFileBytes(cache.string());
    cacheBytes.resize(cacheBytes.size() / 2);
    writeFileBytes(cache.string(), cacheBytes);
    const Asset rebuilt = loadOrBuildAsset(mesh, cache, other, {}, &why);
    EXPECT_NE(why.find("truncated"), std::string::npos) << why;
    EXPECT_EQ(rebuilt.tetMesh.tets, first.tetMesh.tets);
    EXPECT_NO_THROW(Asset::load(cache));
}

} // namespace
} // namespace shatter
