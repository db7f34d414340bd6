// Repair: removing bad triangles, reorienting, welding and closing holes.
#include "mesh_repair.h"

#include "mesh_test_shapes.h"

#include <gtest/gtest.h>

#include <numbers>
#include <optional>

namespace shatter
{
namespace
{

using test::badMesh;
using test::cube;
using test::goodMesh;
using test::hasNote;

// --- repair --------------------------------------------------------------------------------------------

TEST(MeshRepair, RepairClosesTheHolesOfAScannedSphere)
{
    const TriMesh closed = importMesh(goodMesh("scanned_sphere.ply"));
    ImportSettings options;
    options.repair = true;
    ImportReport report;
    const TriMesh repaired = importMesh(goodMesh("scanned_sphere_holes.ply"), options, &report);
    EXPECT_EQ(report.holesClosed, 4u);
    EXPECT_TRUE(hasNote(report, "closed 4 holes")) << ::testing::PrintToString(report.notes);

    // Closed, manifold, oriented, not self-intersecting: it passes validation without repair.
    const EdgeTable edges(repaired);
    EXPECT_FALSE(findBoundaryEdges(repaired, edges));
    EXPECT_FALSE(findNonManifoldEdges(repaired, edges));
    EXPECT_FALSE(findNonManifoldVertices(repaired, edges));
    EXPECT_FALSE(findSelfIntersections(repaired));
    EXPECT_NO_THROW(checkMesh(repaired, "repaired sphere"));
    EXPECT_NEAR(repaired.signedVolume(), closed.signedVolume(), 2e-3 * closed.signedVolume());

    // The patches' edges match the surrounding edge lengths.
    Real meanEdge = 0;
    for (Index t = 0; t < closed.triangles.size(); ++t)
        meanEdge +=
            (closed.vertices[closed.triangles[t][1]] - closed.vertices[closed.triangles[t][0]]).norm();
    meanEdge /= Real(closed.triangles.size());
    const Index original = Index(repaired.triangles.size()) - report.addedTriangles;
    for (Index t = original; t < repaired.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k)
        {
            const Triangle& tri = repaired.triangles[t];
            const Real length = (repaired.vertices[tri[(k + 1) % 3]] - repaired.vertices[tri[k]]).norm();
            EXPECT_LT(length, 2.5 * meanEdge) << "patch triangle " << t;
            EXPECT_GT(length, 0.3 * meanEdge) << "patch triangle " << t;
        }

    const TriMesh again = importMesh(goodMesh("scanned_sphere_holes.ply"), options);
    EXPECT_EQ(again.vertices, repaired.vertices);
    EXPECT_EQ(again.triangles, repaired.triangles);
}

TEST(MeshRepair, RepairFixesWhatItMay)
{
    ImportSettings options;
    options.repair = true;
    ImportReport report;
    EXPECT_NEAR(importMesh(badMesh("open_box.obj"), options, &report).signedVolume(), 8, 1e-12);
    EXPECT_TRUE(hasNote(report, "closed 1 hole (2 triangles, 0 new vertices)"))
        << ::testing::PrintToString(report.notes);
    EXPECT_NEAR(importMesh(badMesh("inconsistent_orientation.obj"), options, &report).signedVolume(), 8,
                1e-12);
    EXPECT_TRUE(hasNote(report, "flipping 1 triangle")) << ::testing::PrintToString(report.notes);
    EXPECT_EQ(importMesh(badMesh("duplicate_triangles.obj"), options, &report).triangles.size(), 12u);
    EXPECT_EQ(report.removedTriangles, 1u);

    // A zero-area cap (a vertex on its neighbour's edge): split the neighbour, then drop the cap.
    TriMesh capped = cube(Vec3::Zero(), 1);
    capped.vertices.push_back(Vec3(-1, 0, -1)); // on edge 0-2 of the bottom face
    capped.triangles[0] = {0, 8, 3};
    capped.triangles.push_back({8, 2, 3});
    capped.triangles.push_back({0, 2, 8});
    const TriMesh uncapped = checkMesh(capped, "capped cube", options, &report);
    EXPECT_NEAR(uncapped.signedVolume(), 8, 1e-12);
    EXPECT_EQ(report.removedTriangles, 1u);
}

TEST(MeshRepair, WeldingMergesOnlyWithinTolerance)
{
    // A vertex 1e-12 away merges, one 1e-6 away stays (box diagonal ~3.5).
    TriMesh split = cube(Vec3::Zero(), 1);
    split.vertices.push_back(split.vertices[7] + Vec3(1e-12, 0, 0));
    split.triangles[11][1] = 8; // {1, 7, 5} -> {1, 8, 5}
    ImportReport report;
    EXPECT_EQ(checkMesh(split, "welded", {}, &report).vertices.size(), 8u);
    EXPECT_EQ(report.weldedVertices, 1u);
    split.vertices[8] = split.vertices[7] + Vec3(1e-6, 0, 0);
    EXPECT_THROW(checkMesh(split, "unwelded"), MeshError);
}

TEST(MeshRepair, OrientationFollowsTheMajority)
{
    TriMesh mesh = cube(Vec3::Zero(), 1);
    flipTriangles(mesh, {2, 7});
    EXPECT_EQ(orientConsistently(mesh), std::optional<Index>(2));
    EXPECT_NEAR(mesh.signedVolume(), 8, 1e-12);
    flipTriangles(mesh, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    EXPECT_EQ(orientConsistently(mesh), std::optional<Index>(0));
}

// The ends of an open tube are planar loops: their lids must stay flat (a 24-gon prism's volume
// exactly), refined to the tube's edge length.
TEST(MeshRepair, PlanarHolesGetFlatLids)
{
    constexpr Index kSegments = 24;
    TriMesh tube;
    for (Index ring = 0; ring < 5; ++ring)
        for (Index i = 0; i < kSegments; ++i)
        {
            const Real angle = 2 * std::numbers::pi_v<Real> * Real(i) / kSegments;
            tube.vertices.emplace_back(std::cos(angle), std::sin(angle), 0.5 * Real(ring));
        }
    for (Index ring = 0; ring < 4; ++ring)
        for (Index i = 0; i < kSegments; ++i)
        {
            const Index a = ring * kSegments + i;
            const Index b = ring * kSegments + (i + 1) % kSegments;
            tube.triangles.push_back({a, b, b + kSegments});
            tube.triangles.push_back({a, b + kSegments, a + kSegments});
        }
    ImportSettings options;
    options.repair = true;
    ImportReport report;
    const TriMesh closed = checkMesh(tube, "tube", options, &report);
    const Real prism = 2 * Real(kSegments) / 2 * std::sin(2 * std::numbers::pi_v<Real> / kSegments);
    EXPECT_NEAR(closed.signedVolume(), prism, 1e-9);
    EXPECT_EQ(report.holesClosed, 2u);
    EXPECT_GT(report.addedTriangles, 2 * (kSegments - 2)); // refined beyond the bare ear clipping
    for (Index v = Index(tube.vertices.size()); v < closed.vertices.size(); ++v) // new vertices: on a lid
        EXPECT_TRUE(std::abs(closed.vertices[v].z()) < 1e-12 || std::abs(closed.vertices[v].z() - 2) < 1e-12);
}

} // namespace
} // namespace shatter
