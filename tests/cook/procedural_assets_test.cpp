// The committed procedural meshes (assets/meshes/*.obj, written by tools/make_assets) against what the
// asset pipeline needs and what TVCG Table 1 lists: each imports cleanly as stored (closed,
// 2-manifold, outward, no self-intersection, nothing to weld or flip), has a real-world size, and
// tetrahedralizes with the default settings into counts near Table 1's. That regenerating them
// reproduces the files byte for byte is the ctest procedural_assets_reproducible
// (tests/tools/make_assets.cmake).
#include "mesh_import.h"
#include "tetrahedralize.h"

#include "test_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <ostream>
#include <string>
#include <utility>

namespace shatter
{
namespace
{

struct ProceduralAsset
{
    const char* name;
    Index triangles;  ///< TVCG Table 1 (0: not in the table)
    Index tetrahedra; ///< TVCG Table 1 (0: not in the table)
    Index shells;     ///< 2 for the hollow piggy bank
    Index genus;      ///< handles summed over shells: 1 for the piggy bank's ring tail
    Vec3 minSize;     ///< bounding box, metres
    Vec3 maxSize;
    bool restsOnGround; ///< lowest point at y = 0 (the ball is centred instead)
};

std::ostream& operator<<(std::ostream& out, const ProceduralAsset& asset)
{
    return out << asset.name;
}

const ProceduralAsset kAssets[] = {
    {"piggy_bank", 9722, 20807, 2, 1, Vec3(0.15, 0.10, 0.09), Vec3(0.22, 0.18, 0.16), true},
    {"plate", 5392, 8617, 1, 0, Vec3(0.24, 0.012, 0.24), Vec3(0.28, 0.03, 0.28), true},
    {"brick", 468, 594, 1, 0, Vec3(0.2149, 0.0649, 0.1024), Vec3(0.2151, 0.0651, 0.1026), true},
    {"shelf", 4652, 10200, 1, 0, Vec3(1.1, 0.03, 0.27), Vec3(1.3, 0.4, 0.4), true},
    {"ball", 0, 0, 1, 0, Vec3(0.1, 0.1, 0.1), Vec3(0.12, 0.12, 0.12), false},
};

class ProceduralAssetTest : public testing::TestWithParam<ProceduralAsset>
{
protected:
    std::filesystem::path file() const { return test::meshDir() / (std::string(GetParam().name) + ".obj"); }
    TriMesh load(ImportReport& report) const { return importMesh(file(), {}, &report); }
};

// Counts the file's own "v" and "f" lines (the importer's reader splits vertices per corner).
std::pair<std::size_t, std::size_t> countObjLines(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::string line;
    std::size_t vertices = 0, faces = 0;
    while (std::getline(in, line))
    {
        vertices += line.starts_with("v ") ? 1 : 0;
        faces += line.starts_with("f ") ? 1 : 0;
    }
    return {vertices, faces};
}

TEST_P(ProceduralAssetTest, ImportsAsStored)
{
    ImportReport report;
    const TriMesh mesh = load(report);
    const auto [vertices, faces] = countObjLines(file());
    EXPECT_EQ(mesh.vertices.size(), vertices) << "coincident or unused vertices in the file";
    EXPECT_EQ(mesh.triangles.size(), faces);
    EXPECT_EQ(report.flippedTriangles, 0u) << "stored with a winding the importer had to fix";
    EXPECT_EQ(report.shells, GetParam().shells);
    EXPECT_EQ(report.cavities, GetParam().shells - 1);
    // A closed 2-manifold: V - E + F = 2 (shells - genus) with E = 3F / 2; catches a stray handle
    // or tunnel the generator's grid might have made.
    EXPECT_EQ(2 * mesh.vertices.size() + 4 * GetParam().genus, mesh.triangles.size() + 4 * GetParam().shells);
    EXPECT_GT(mesh.signedVolume(), 0);
}

TEST_P(ProceduralAssetTest, HasRealWorldSize)
{
    ImportReport report;
    const Aabb box = load(report).bounds();
    const Vec3 size = box.extent();
    for (int axis = 0; axis < 3; ++axis)
    {
        EXPECT_GE(size[axis], GetParam().minSize[axis]) << "axis " << axis;
        EXPECT_LE(size[axis], GetParam().maxSize[axis]) << "axis " << axis;
    }
    if (GetParam().restsOnGround)
        EXPECT_NEAR(box.min.y(), 0, 1e-9);
    else
        EXPECT_LT(box.center().norm(), 1e-6);
    EXPECT_LT(std::abs(box.center().x()), 0.01); // centred in x and z
    EXPECT_LT(std::abs(box.center().z()), 0.01);
}

TEST_P(ProceduralAssetTest, TetrahedralizesNearTable1)
{
    ImportReport report;
    const TriMesh mesh = load(report);
    const TetMesh tets = tetrahedralize(mesh, GetParam().name);
    EXPECT_EQ(tets.surfaceNodeCount, mesh.vertices.size());
    EXPECT_GT(tets.totalVolume(), 0);
    EXPECT_NEAR(tets.totalVolume(), mesh.signedVolume(), 1e-9 * mesh.signedVolume() + 1e-12);
    if (GetParam().triangles > 0)
    {
        const double triangles = double(mesh.triangles.size());
        EXPECT_NEAR(triangles / GetParam().triangles, 1.0, 0.15) << triangles << " triangles";
    }
    if (GetParam().tetrahedra > 0)
    {
        const double count = double(tets.tetCount());
        EXPECT_NEAR(count / GetParam().tetrahedra, 1.0, 0.25) << count << " tetrahedra";
    }
}

INSTANTIATE_TEST_SUITE_P(Assets, ProceduralAssetTest, testing::ValuesIn(kAssets),
                         [](const testing::TestParamInfo<ProceduralAsset>& info) { return info.param.name; });

} // namespace
} // namespace shatter
