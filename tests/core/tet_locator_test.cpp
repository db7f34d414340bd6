// TetLocator against a scan of every tet: same answer inside and outside, barycentric coordinates
// that reproduce the point, deterministic answers on shared faces, safe from several threads.
#include "fracture_fixtures.h"
#include "test_meshes.h"

#include "shatter/error.h"
#include "tet_locator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <thread>

namespace shatter::test
{
namespace
{

#if defined(SHATTER_ENABLE_ASSERTS) || !defined(NDEBUG)
constexpr int kScanPoints = 500; // sanitizer / debug builds
#else
constexpr int kScanPoints = 3000;
#endif

const TetMesh& sphereMesh()
{
    static const std::shared_ptr<const Asset> asset = buildTestAsset(icosphere(3), "sphere", 1.0);
    return asset->tetMesh;
}

/// The lowest-index tet whose smallest barycentric coordinate is largest, if ≥ −tolerance.
Index scanAllTets(const TetMesh& mesh, const TetLocator& locator, const Vec3& p, Real tolerance)
{
    Index best = kInvalidIndex;
    Real bestValue = -std::numeric_limits<Real>::infinity();
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const Real m = locator.barycentric(t, p).minCoeff();
        if (m > bestValue)
        {
            bestValue = m;
            best = t;
        }
    }
    return bestValue >= -tolerance ? best : kInvalidIndex;
}

TEST(TetLocator, RejectsBadOptions)
{
    TetLocatorSettings options;
    options.cellFactor = 0;
    EXPECT_THROW(TetLocator(sphereMesh(), options), Error);
    options = {};
    options.tolerance = -1;
    EXPECT_THROW(TetLocator(sphereMesh(), options), Error);
    options.tolerance = 0.5;
    EXPECT_THROW(TetLocator(sphereMesh(), options), Error);
}

TEST(TetLocator, EmptyMeshFindsNothing)
{
    const TetLocator locator;
    EXPECT_FALSE(locator.locate(Vec3::Zero()).found());
}

TEST(TetLocator, FindsEveryTetFromItsCentroid)
{
    const TetMesh& mesh = sphereMesh();
    const TetLocator locator(mesh);
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        Vec3 c = Vec3::Zero();
        for (Index n : mesh.tets[t])
            c += mesh.nodes[n] / 4;
        const TetLocation where = locator.locate(c);
        ASSERT_EQ(where.tet, t);
        EXPECT_NEAR(where.bary.sum(), 1.0, 1e-12);
        EXPECT_NEAR(where.bary.minCoeff(), 0.25, 1e-9);
    }
}

TEST(TetLocator, AgreesWithAScanOfAllTets)
{
    const TetMesh& mesh = sphereMesh();
    const TetLocator locator(mesh);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<Real> u(-1.2, 1.2);
    Index inside = 0;
    for (int i = 0; i < kScanPoints; ++i)
    {
        const Vec3 p(u(rng), u(rng), u(rng));
        const TetLocation where = locator.locate(p);
        const Index expected = scanAllTets(mesh, locator, p, TetLocatorSettings{}.tolerance);
        ASSERT_EQ(where.found(), expected != kInvalidIndex) << p.transpose();
        if (!where.found())
            continue;
        ++inside;
        // Strictly inside points have one answer; near a face either neighbour is fine.
        if (locator.barycentric(expected, p).minCoeff() > 1e-9)
        {
            EXPECT_EQ(where.tet, expected);
        }
        EXPECT_GE(where.bary.minCoeff(), -TetLocatorSettings{}.tolerance);
        Vec3 back = Vec3::Zero();
        for (int k = 0; k < 4; ++k)
            back += where.bary[k] * mesh.nodes[mesh.tets[where.tet][k]];
        EXPECT_LT((back - p).norm(), 1e-12) << p.transpose();
    }
    EXPECT_GT(inside, Index(kScanPoints / 4));
}

// Every point that some tet accepts within the tolerance is found, also where that tolerance reaches
// beyond the object's surface and the tet's own cells: a point just outside each face of each tet,
// within a large tolerance (and just beyond it, where only a neighbour may take it).
TEST(TetLocator, FindsPointsWithinALargeTolerance)
{
    const TetMesh& mesh = sphereMesh();
    TetLocatorSettings options;
    options.tolerance = 0.05;
    const TetLocator locator(mesh, options);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<Real> outside(-0.06, -0.001), share(0.1, 1);
    Index beyondSurface = 0;
    for (int i = 0; i < kScanPoints; ++i)
    {
        const Index t = Index(rng() % mesh.tetCount());
        // Barycentric coordinates with the one of vertex k negative: p lies beyond the face opposite k.
        const int k = int(rng() % 4);
        Bary b(share(rng), share(rng), share(rng), share(rng));
        b[k] = 0;
        const Real beyond = outside(rng);
        b *= (1 - beyond) / b.sum();
        b[k] = beyond;
        Vec3 p = Vec3::Zero();
        for (int j = 0; j < 4; ++j)
            p += b[j] * mesh.nodes[mesh.tets[t][j]];
        const Index expected = scanAllTets(mesh, locator, p, options.tolerance);
        const TetLocation where = locator.locate(p);
        ASSERT_EQ(where.found(), expected != kInvalidIndex) << "tet " << t << " at " << b.transpose();
        if (where.found())
        {
            EXPECT_GE(where.bary.minCoeff(), -options.tolerance);
        }
        beyondSurface += where.found() && scanAllTets(mesh, locator, p, 0) == kInvalidIndex;
    }
    EXPECT_GT(beyondSurface, Index(kScanPoints / 200)); // the case the enlarged cells exist for
}

TEST(TetLocator, SharedFacesGetADeterministicAnswer)
{
    const TetMesh& mesh = sphereMesh();
    const TetLocator locator(mesh);
    std::map<std::array<Index, 3>, std::vector<Index>> faceTets;
    for (Index t = 0; t < mesh.tetCount(); ++t)
        for (const auto& f : kTetFaces)
        {
            std::array<Index, 3> key{mesh.tets[t][f[0]], mesh.tets[t][f[1]], mesh.tets[t][f[2]]};
            std::sort(key.begin(), key.end());
            faceTets[key].push_back(t);
        }
    Index shared = 0;
    for (const auto& [face, tets] : faceTets)
    {
        const Vec3 c = (mesh.nodes[face[0]] + mesh.nodes[face[1]] + mesh.nodes[face[2]]) / 3;
        const TetLocation a = locator.locate(c);
        ASSERT_TRUE(a.found());
        EXPECT_EQ(locator.locate(c).tet, a.tet);
        if (tets.size() == 2)
        {
            ++shared;
            EXPECT_TRUE(a.tet == tets[0] || a.tet == tets[1]);
        }
    }
    EXPECT_GT(shared, 1000u);
}

TEST(TetLocator, PointsOutsideTheObjectAreNotFound)
{
    const TetLocator locator(sphereMesh());
    EXPECT_FALSE(locator.locate(Vec3(0, 0, 1.01)).found());
    EXPECT_FALSE(locator.locate(Vec3(5, 5, 5)).found());
    EXPECT_FALSE(locator.locate(Vec3(0.95, 0.95, 0)).found());
    const Real nan = std::numeric_limits<Real>::quiet_NaN();
    EXPECT_FALSE(locator.locate(Vec3(nan, 0, 0)).found());
    EXPECT_TRUE(locator.locate(Vec3(0, 0, 0.5)).found());
}

TEST(TetLocator, NodesFindAnIncidentTet)
{
    const TetMesh& mesh = sphereMesh();
    const TetLocator locator(mesh);
    for (Index n = 0; n < mesh.nodeCount(); ++n)
    {
        const TetLocation where = locator.locate(mesh.nodes[n]);
        ASSERT_TRUE(where.found()) << "node " << n;
        const Tet& tet = mesh.tets[where.tet];
        EXPECT_NE(std::find(tet.begin(), tet.end(), n), tet.end()) << "node " << n;
    }
}

TEST(TetLocator, ConcurrentQueriesAgree)
{
    const TetMesh& mesh = sphereMesh();
    const TetLocator locator(mesh);
    std::vector<Vec3> points;
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<Real> u(-1.1, 1.1);
    for (int i = 0; i < 20000; ++i)
        points.emplace_back(u(rng), u(rng), u(rng));
    std::vector<Index> serial;
    for (const Vec3& p : points)
        serial.push_back(locator.locate(p).tet);
    std::vector<std::vector<Index>> results(4);
    std::vector<std::thread> threads;
    for (auto& r : results)
        threads.emplace_back(
            [&]
            {
                for (const Vec3& p : points)
                    r.push_back(locator.locate(p).tet);
            });
    for (std::thread& t : threads)
        t.join();
    for (const auto& r : results)
        EXPECT_EQ(r, serial);
}

TEST(TetLocator, CellListsStaySmall)
{
    const TetLocator locator(sphereMesh());
    std::printf("cell %.4f, dims %u x %u x %u, %.1f tets per non-empty cell (max %u)\n", locator.cellSize(),
                locator.dimensions()[0], locator.dimensions()[1], locator.dimensions()[2],
                locator.meanCellTets(), locator.maxCellTets());
    EXPECT_LT(locator.meanCellTets(), 60);
}

} // namespace
} // namespace shatter::test
