// Texture coordinates of exported fragments (fragmentUvs): a box whose OBJ file gives each face its own
// UV mapping, linear in position (so interpolation must reproduce it exactly) and discontinuous across
// the box's edges (UV seams: the same corner has other coordinates on each face), cooked and cut.
#include "test_paths.h"

#include "asset_data.h"
#include "crack_geometry.h"
#include "fracture_fixtures.h"
#include "fragment_mesh.h"
#include "shatter/cook.h"
#include "shatter/error.h"
#include "surface_uv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace shatter::test
{
namespace
{

const Vec3 kHalf(0.1, 0.05, 0.04);

// The UV mapping of the box face with outward normal along +/- `axis`: the two other coordinates,
// scaled, shifted per face so that every face has its own coordinates.
Eigen::Vector2f faceUv(const Vec3& p, int axis, bool positive)
{
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;
    return Eigen::Vector2f(float(10 * p[a] + 3 * axis + (positive ? 1.5 : 0)), float(10 * p[b]));
}

// The box as an OBJ file, each face an n × n grid of quads with its own `vt` per corner (or none).
std::filesystem::path writeBox(const std::string& name, bool withUvs, int n = 4)
{
    const std::filesystem::path file = scratchDir(name) / "box.obj";
    std::ofstream obj(file);
    int vertices = 0;
    for (int axis = 0; axis < 3; ++axis)
        for (bool positive : {false, true})
        {
            const int a = (axis + 1) % 3, b = (axis + 2) % 3;
            const int first = vertices + 1;
            for (int j = 0; j <= n; ++j)
                for (int i = 0; i <= n; ++i)
                {
                    Vec3 p;
                    p[axis] = positive ? kHalf[axis] : -kHalf[axis];
                    p[a] = kHalf[a] * (2.0 * i / n - 1);
                    p[b] = kHalf[b] * (2.0 * j / n - 1);
                    obj << "v " << p.x() << ' ' << p.y() << ' ' << p.z() << '\n';
                    if (withUvs)
                    {
                        const Eigen::Vector2f uv = faceUv(p, axis, positive);
                        obj << "vt " << uv.x() << ' ' << uv.y() << '\n';
                    }
                    ++vertices;
                }
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i)
                {
                    int q[4] = {first + j * (n + 1) + i, first + j * (n + 1) + i + 1,
                                first + (j + 1) * (n + 1) + i + 1, first + (j + 1) * (n + 1) + i};
                    if (!positive) // (a, b, axis) is right-handed: reverse on the negative face
                        std::swap(q[1], q[3]);
                    for (const auto& tri :
                         {std::array<int, 3>{q[0], q[1], q[2]}, std::array<int, 3>{q[0], q[2], q[3]}})
                    {
                        obj << 'f';
                        for (int v : tri)
                        {
                            obj << ' ' << v;
                            if (withUvs)
                                obj << '/' << v;
                        }
                        obj << '\n';
                    }
                }
        }
    return file;
}

std::shared_ptr<const Asset> cook(const std::filesystem::path& file)
{
    AssetBuildResult built = buildAsset(file);
    EXPECT_TRUE(built.asset) << built.error;
    return built.asset;
}

// Every original-surface corner has its face's coordinates; crack corners finite, in [0, 1].
void expectFaceUvs(const TriMesh& surface, std::span<const std::uint8_t> crack,
                   std::span<const TriangleUvs> uvs, int& surfaceTriangles, int& crackTriangles)
{
    ASSERT_EQ(uvs.size(), surface.triangles.size());
    for (Index t = 0; t < surface.triangles.size(); ++t)
    {
        if (!crack.empty() && crack[t])
        {
            ++crackTriangles;
            for (const Eigen::Vector2f& uv : uvs[t])
                EXPECT_TRUE(uv.allFinite() && uv.minCoeff() >= 0 && uv.maxCoeff() <= 1) << uv.transpose();
            continue;
        }
        ++surfaceTriangles;
        const Vec3 n = surface.normal(t);
        int axis = 0;
        n.cwiseAbs().maxCoeff(&axis);
        for (int k = 0; k < 3; ++k)
        {
            const Vec3& p = surface.vertices[surface.triangles[t][k]];
            const Eigen::Vector2f expected = faceUv(p, axis, n[axis] > 0);
            EXPECT_LT((uvs[t][k] - expected).norm(), 1e-4)
                << "triangle " << t << " corner " << k << ": " << uvs[t][k].transpose() << " vs "
                << expected.transpose();
        }
    }
}

TEST(SurfaceUv, TheInputCoordinatesCarryOverToCutFragmentsAndCracksAreProjected)
{
    const std::shared_ptr<const Asset> asset = cook(writeBox("uv_box", true));
    ASSERT_TRUE(asset);
    EXPECT_EQ(surfaceUvs(*asset).size(), 6u * 4 * 4 * 2) << "the file's textured triangles, kept";

    int surfaceTriangles = 0, crackTriangles = 0;
    const std::vector<TriangleUvs> whole = fragmentUvs(*asset, asset->surface, {});
    expectFaceUvs(asset->surface, {}, whole, surfaceTriangles, crackTriangles);
    EXPECT_EQ(surfaceTriangles, int(asset->surface.triangles.size()));

    // Two cuts, oblique to every face: original-surface faces split inside the input's triangles.
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ASSERT_FALSE(fixture.cutAll(Plane{Vec3(1, 0.3, 0.2).normalized(), 0.013}).empty());
    ASSERT_FALSE(fixture.cutAll(Plane{Vec3(-0.2, 1, 0.5).normalized(), -0.007}).empty());
    const std::vector<FragmentId> live = fixture.liveFragments();
    ASSERT_GE(live.size(), 3u);
    surfaceTriangles = crackTriangles = 0;
    for (FragmentId f : live)
    {
        const FragmentMesh mesh = fixture.fragmentMesh(f);
        expectFaceUvs(mesh.surface, mesh.crack, fragmentUvs(*asset, mesh.surface, mesh.crack),
                      surfaceTriangles, crackTriangles);
    }
    EXPECT_GT(surfaceTriangles, 0);
    EXPECT_GT(crackTriangles, 0);

    // Wrong crack flags are an error naming the call.
    const std::vector<std::uint8_t> wrong(3, 0);
    EXPECT_THROW(fragmentUvs(*asset, asset->surface, wrong), Error);
}

TEST(SurfaceUv, AFileWithoutCoordinatesGetsAPlanarProjection)
{
    const std::shared_ptr<const Asset> asset = cook(writeBox("plain_box", false));
    ASSERT_TRUE(asset);
    EXPECT_EQ(asset->findSection("cook/surface uv"), nullptr);
    const std::vector<TriangleUvs> uvs = fragmentUvs(*asset, asset->surface, {});
    ASSERT_EQ(uvs.size(), asset->surface.triangles.size());
    const Aabb box = asset->surface.bounds();
    const Real size = box.extent().maxCoeff();
    for (Index t = 0; t < uvs.size(); ++t)
    {
        int axis = 0;
        asset->surface.normal(t).cwiseAbs().maxCoeff(&axis);
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int k = 0; k < 3; ++k)
        {
            const Vec3& p = asset->surface.vertices[asset->surface.triangles[t][k]];
            EXPECT_NEAR(uvs[t][k].x(), (p[a] - box.min[a]) / size, 1e-6);
            EXPECT_NEAR(uvs[t][k].y(), (p[b] - box.min[b]) / size, 1e-6);
        }
    }
}

} // namespace
} // namespace shatter::test
