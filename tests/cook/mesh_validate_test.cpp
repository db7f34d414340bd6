// Validation checks on meshes built here.
#include "mesh_validate.h"

#include "mesh_test_shapes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>

namespace shatter
{
namespace
{

using test::cube;
using test::icosphere;

// Every procedural test mesh is a valid solid: checkMesh passes it unchanged.
TEST(MeshValidate, ProceduralMeshesPass)
{
    const std::pair<const char*, TriMesh> meshes[] = {
        {"icosphere", test::icosphere(3)},
        {"bumpy sphere", test::bumpySphere(4, 1, 0.3)},
        {"tetrahedron", test::tetrahedron(1)},
        {"box", test::box(Vec3(1, 2, 3))},
        {"box with cavity", test::boxWithCavity(Vec3(2, 2, 2), Vec3(1, 0.5, 1))},
        {"torus", test::torus(2, 0.5, 32, 16)},
        {"grid cube", test::gridCube(6)},
    };
    for (const auto& [name, mesh] : meshes)
    {
        ImportReport report;
        TriMesh checked;
        EXPECT_NO_THROW(checked = checkMesh(mesh, name, {}, &report)) << name;
        EXPECT_EQ(checked.triangles, mesh.triangles) << name;
        EXPECT_TRUE(report.notes.empty()) << name << ": " << ::testing::PrintToString(report.notes);
    }
}

TEST(MeshValidate, TrianglesSharingAVertexMayStillIntersect)
{
    TriMesh mesh;
    mesh.vertices = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 2, 0), Vec3(0.5, 0.5, -1), Vec3(1, 0.5, 1)};
    mesh.triangles = {{0, 1, 2}, {0, 3, 4}}; // the second pierces the first away from vertex 0
    EXPECT_EQ(findSelfIntersections(mesh).count, 1u);
    mesh.vertices[3] = Vec3(0.5, 0.5, 0.1); // now wholly above
    EXPECT_EQ(findSelfIntersections(mesh).count, 0u);
    mesh.vertices[3] = Vec3(1, 0.5, 0); // coplanar, inside the first triangle's corner
    mesh.vertices[4] = Vec3(0.5, 1, 0);
    EXPECT_EQ(findSelfIntersections(mesh).count, 1u);

    mesh.vertices = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 2, 0), Vec3(1, 0.5, 0)};
    mesh.triangles = {{0, 1, 2}, {1, 0, 3}}; // folded flat onto each other over edge 0-1
    EXPECT_EQ(findSelfIntersections(mesh).count, 1u);
    mesh.vertices[3] = Vec3(1, -0.5, 0); // unfolded: only the edge is shared
    EXPECT_EQ(findSelfIntersections(mesh).count, 0u);
    mesh.vertices[3] = Vec3(1, 0.5, 0.5); // bent, not folded
    EXPECT_EQ(findSelfIntersections(mesh).count, 0u);
}

// O(n log n), not O(n^2): four times the triangles must cost well under 16 times the time (the
// ratio, unlike a time, holds on any machine and in the sanitizer build).
TEST(MeshValidate, SelfIntersectionTestScalesToTwentyThousandTriangles)
{
    auto fastest = [](const TriMesh& mesh)
    {
        double best = 1e300;
        for (int run = 0; run < 3; ++run)
        {
            const auto start = std::chrono::steady_clock::now();
            EXPECT_FALSE(findSelfIntersections(mesh));
            best = std::min(best,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return best;
    };
    TriMesh sphere = icosphere(5);
    ASSERT_EQ(sphere.triangles.size(), 20480u);
    const double small = fastest(icosphere(4));
    const double large = fastest(sphere);
    EXPECT_LT(large, 10 * small) << small << " s for 5120 triangles, " << large << " s for 20480";
    EXPECT_NO_THROW(checkMesh(sphere, "icosphere"));

    sphere.vertices[0] = -1.2 * sphere.vertices[0]; // pulled through the far side
    const MeshDefect defect = findSelfIntersections(sphere);
    EXPECT_GT(defect.count, 0u);
    EXPECT_NE(defect.detail.find("intersect"), std::string::npos);
}

// Flat faces are where near-coplanar neighbours meet: rotated and rounded to float32 (as an STL
// file would store it) they must not look intersecting.
TEST(MeshValidate, FlatRegionsAreNotFalseIntersections)
{
    TriMesh mesh = test::gridCube(12);
    const Mat3 rotation = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    for (Vec3& p : mesh.vertices)
        p = (rotation * p).cast<float>().cast<Real>();
    EXPECT_FALSE(findSelfIntersections(mesh)) << findSelfIntersections(mesh).detail;
    EXPECT_NEAR(checkMesh(mesh, "rotated grid cube").signedVolume(), 8, 1e-5);
}

TEST(MeshValidate, InMemoryMeshesAreCheckedToo)
{
    TriMesh mesh = cube(Vec3::Zero(), 1);
    mesh.triangles[3][1] = 42;
    try
    {
        checkMesh(mesh, "procedural brick");
        FAIL();
    }
    catch (const MeshError& e)
    {
        EXPECT_EQ(e.meshProblem(), MeshProblem::BadIndices);
        EXPECT_EQ(e.source(), "procedural brick");
    }
    ImportSettings bad;
    bad.weldTolerance = -1;
    EXPECT_THROW(checkMesh(cube(Vec3::Zero(), 1), "brick", bad), Error);
}

TEST(MeshValidate, WindingNumberAndShellNesting)
{
    const TriMesh box = cube(Vec3::Zero(), 1);
    std::vector<Index> all(box.triangles.size());
    std::iota(all.begin(), all.end(), Index(0));
    EXPECT_NEAR(windingNumber(box, all, Vec3(0.2, -0.3, 0.9)), 1, 1e-12);
    EXPECT_NEAR(windingNumber(box, all, Vec3(1.5, 0, 0)), 0, 1e-12);
    EXPECT_NEAR(windingNumber(cube(Vec3::Zero(), 1, true), all, Vec3::Zero()), -1, 1e-12);

    // Outer cube, a cavity, a piece loose in the cavity, and a separate cube beside them.
    TriMesh mesh = test::combine(test::combine(cube(Vec3::Zero(), 3), cube(Vec3::Zero(), 2, true)),
                                 test::combine(cube(Vec3::Zero(), 1), cube(Vec3(5, 0, 0), 1)));
    const std::vector<Shell> shells = findShells(mesh, EdgeTable(mesh));
    ASSERT_EQ(shells.size(), 4u);
    const Index depths[] = {0, 1, 2, 0};
    const Real volumes[] = {216, -64, 8, 8};
    for (int s = 0; s < 4; ++s)
    {
        EXPECT_EQ(shells[s].depth, depths[s]);
        EXPECT_NEAR(shells[s].volume, volumes[s], 1e-12);
        EXPECT_EQ(shells[s].triangles.front(), Index(12 * s));
    }
}

} // namespace
} // namespace shatter
