// Interior-distance embedding (CVD §3.2) and the metric coordinates of the CVD (§3.4): on the hollow
// piggy bank, embedded distances follow interior geodesics (Dijkstra over tet edges, the reference)
// where Euclidean distances cut through the cavity; on a convex box they rank like Euclidean
// distances; the warp and the embedding/warp consistency check of metricCoordinates.
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_paths.h"

#include "interior_embedding.h"
#include "metric.h"
#include "shatter/error.h"
#include "tet_locator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <queue>
#include <random>

namespace shatter::fracture
{
namespace
{

const Asset& cachedAsset(const std::string& stem)
{
    static std::map<std::string, std::shared_ptr<const Asset>> assets;
    auto& slot = assets[stem];
    if (!slot)
        slot = test::cachedMeshAsset(test::meshDir() / (stem + ".obj"));
    return *slot;
}

/// Reference interior distance: shortest paths over the tet edges.
std::vector<Real> geodesics(const TetMesh& mesh, Index source)
{
    std::vector<Real> dist(mesh.nodeCount(), std::numeric_limits<Real>::infinity());
    using Item = std::pair<Real, Index>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    dist[source] = 0;
    queue.emplace(0, source);
    while (!queue.empty())
    {
        const auto [d, v] = queue.top();
        queue.pop();
        if (d > dist[v])
            continue;
        for (Index k = mesh.neighborOffsets[v]; k < mesh.neighborOffsets[v + 1]; ++k)
        {
            const Index w = mesh.neighbors[k];
            const Real candidate = d + (mesh.nodes[w] - mesh.nodes[v]).norm();
            if (candidate < dist[w])
            {
                dist[w] = candidate;
                queue.emplace(candidate, w);
            }
        }
    }
    return dist;
}

Real embeddedDistance(const InteriorEmbedding& e, Index a, Index b)
{
    Real sum = 0;
    for (int c = 0; c < e.dimension; ++c)
    {
        const Real d = e.coords[std::size_t(a) * std::size_t(e.dimension) + std::size_t(c)] -
                       e.coords[std::size_t(b) * std::size_t(e.dimension) + std::size_t(c)];
        sum += d * d;
    }
    return std::sqrt(sum);
}

std::vector<Real> ranks(const std::vector<Real>& values)
{
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<Real> rank(values.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        rank[order[i]] = Real(i);
    return rank;
}

Real spearman(const std::vector<Real>& a, const std::vector<Real>& b)
{
    const std::vector<Real> ra = ranks(a), rb = ranks(b);
    const Real n = Real(a.size()), mean = (n - 1) / 2;
    Real cov = 0, va = 0, vb = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        cov += (ra[i] - mean) * (rb[i] - mean);
        va += (ra[i] - mean) * (ra[i] - mean);
        vb += (rb[i] - mean) * (rb[i] - mean);
    }
    return cov / std::sqrt(va * vb);
}

// The piggy bank is hollow (two shells): a straight segment between two points of the wall often
// crosses the cavity, while the interior path goes round through the wall. For such pairs the
// embedded distance must track the geodesic much better than the Euclidean distance does.
TEST(InteriorEmbedding, PiggyBankFollowsInteriorPaths)
{
    const Asset& asset = cachedAsset("piggy_bank");
    const TetMesh& mesh = asset.tetMesh;
    const auto start = std::chrono::steady_clock::now();
    const InteriorEmbedding embedding = computeInteriorEmbedding(asset);
    const Real seconds = std::chrono::duration<Real>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(embedding.dimension, 16);
    ASSERT_EQ(embedding.coords.size(), std::size_t(16) * mesh.nodeCount());
    for (Real c : embedding.coords)
        ASSERT_TRUE(std::isfinite(c));

    const TetLocator locator(mesh);
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<Index> pick(0, mesh.nodeCount() - 1);
    Real embeddedError = 0, euclideanError = 0, insideEmbeddedError = 0, meanRatio = 0;
    int leaving = 0, inside = 0;
    for (int source = 0; source < 24; ++source)
    {
        const Index a = pick(rng);
        const std::vector<Real> geo = geodesics(mesh, a);
        for (int target = 0; target < 60; ++target)
        {
            const Index b = pick(rng);
            const Vec3 pa = mesh.nodes[a], pb = mesh.nodes[b];
            if (geo[b] < 5 * mesh.meanEdgeLength())
                continue;
            bool leaves = false;
            for (int s = 1; s < 40 && !leaves; ++s)
                leaves = !locator.locate(pa + (pb - pa) * (Real(s) / 40)).found();
            const Real embedded = embeddedDistance(embedding, a, b) / geo[b];
            const Real euclidean = (pb - pa).norm() / geo[b];
            if (leaves)
            {
                ++leaving;
                embeddedError += std::abs(embedded - 1);
                meanRatio += embedded;
                euclideanError += std::abs(euclidean - 1);
            }
            else
            {
                ++inside;
                insideEmbeddedError += std::abs(embedded - 1);
            }
        }
    }
    ASSERT_GT(leaving, 100);
    embeddedError /= leaving;
    euclideanError /= leaving;
    meanRatio /= leaving;
    insideEmbeddedError /= std::max(inside, 1);
    std::printf(
        "piggy bank: %u nodes, embedding built in %.3f s; %d pairs leaving the object: mean "
        "|d/geodesic - 1| embedded %.3f (mean ratio %.3f), Euclidean %.3f; %d pairs inside: embedded %.3f\n",
        mesh.nodeCount(), seconds, leaving, embeddedError, meanRatio, euclideanError, inside,
        insideEmbeddedError);
    EXPECT_LT(embeddedError, 0.75 * euclideanError); // measured 0.08 vs 0.13
    EXPECT_NEAR(meanRatio, 1, 0.05);
    EXPECT_LT(seconds, 5.0); // goal < 2 s in Release; slack for loaded CI machines
}

// On a convex box interior and Euclidean distances agree: the embedding ranks pairs as 3-D does.
TEST(InteriorEmbedding, ConvexBoxRanksLikeEuclidean)
{
    const auto asset = test::buildTestAsset(test::subdividedBox(Vec3(1.0, 0.7, 0.5), 10), "box", 0.7);
    const TetMesh& mesh = asset->tetMesh;
    const InteriorEmbedding embedding = computeInteriorEmbedding(*asset);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<Index> pick(0, mesh.nodeCount() - 1);
    std::vector<Real> embedded, euclidean;
    for (int i = 0; i < 4000; ++i)
    {
        const Index a = pick(rng), b = pick(rng);
        embedded.push_back(embeddedDistance(embedding, a, b));
        euclidean.push_back((mesh.nodes[a] - mesh.nodes[b]).norm());
    }
    const Real rho = spearman(embedded, euclidean);
    std::printf("box: %u nodes, Spearman rank correlation embedded vs Euclidean %.4f\n", mesh.nodeCount(),
                rho);
    EXPECT_GT(rho, 0.9);

    // Deterministic, and in model units: the median embedded / geodesic ratio beyond a few edges is 1.
    const InteriorEmbedding again = computeInteriorEmbedding(*asset);
    EXPECT_EQ(again.coords, embedding.coords);
    std::vector<Real> ratio;
    for (int source = 0; source < 8; ++source)
    {
        const Index a = pick(rng);
        const std::vector<Real> geo = geodesics(mesh, a);
        for (Index b = 0; b < mesh.nodeCount(); ++b)
            if (geo[b] > 3 * mesh.meanEdgeLength())
                ratio.push_back(embeddedDistance(embedding, a, b) / geo[b]);
    }
    std::nth_element(ratio.begin(), ratio.begin() + std::ptrdiff_t(ratio.size() / 2), ratio.end());
    EXPECT_NEAR(ratio[ratio.size() / 2], 1, 0.05);

    // Appended positions add three dimensions.
    EmbeddingSettings options;
    options.dimension = 8;
    options.positionWeight = 0.5;
    const InteriorEmbedding withPositions = computeInteriorEmbedding(*asset, options);
    ASSERT_EQ(withPositions.dimension, 11);
    EXPECT_DOUBLE_EQ(withPositions.coords[11 * 5 + 9], 0.5 * mesh.nodes[5].y());
}

TEST(InteriorEmbedding, BadOptionsThrowNamingTheField)
{
    const auto asset = test::buildTestAsset(test::subdividedBox(Vec3(1.0, 0.7, 0.5), 3), "small box", 2.0);
    auto expectField = [&](const EmbeddingSettings& options, const std::string& field)
    {
        try
        {
            computeInteriorEmbedding(*asset, options);
            ADD_FAILURE() << "no error for " << field;
        }
        catch (const Error& e)
        {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    EmbeddingSettings options;
    options.dimension = 0;
    expectField(options, "dimension");
    options = {};
    options.landmarkCount = options.dimension;
    expectField(options, "landmarkCount");
    options = {};
    options.positionWeight = -1;
    expectField(options, "positionWeight");
    options = {};
    options.warp.linear = Mat3::Zero();
    expectField(options, "warp.linear");
}

TEST(MetricCoordinates, WarpAndEmbeddingConsistency)
{
    const auto asset = test::buildTestAsset(test::subdividedBox(Vec3(1.0, 0.7, 0.5), 3), "small box", 2.0);
    const TetMesh& mesh = asset->tetMesh;

    const MetricCoordinates plain = metricCoordinates(*asset, nullptr, MetricWarp{});
    ASSERT_EQ(plain.dimension, 3);
    for (Index n = 0; n < mesh.nodeCount(); ++n)
        for (int a = 0; a < 3; ++a)
            EXPECT_EQ(plain.coords[3 * n + Index(a)], mesh.nodes[n][a]);

    // Anisotropy (CVD Fig. 6) and a wave across x (CVD Fig. 7).
    MetricWarp warp;
    warp.linear = Vec3(0.5, 1, 1).asDiagonal();
    warp.waveAmplitude = 0.05;
    warp.waveLength = 0.4;
    warp.waveDirection = Vec3(2, 0, 0);
    warp.wavePhaseDirection = Vec3(0, 0, 1);
    const MetricCoordinates warped = metricCoordinates(*asset, nullptr, warp);
    for (Index n = 0; n < mesh.nodeCount(); ++n)
    {
        const Vec3 p = mesh.nodes[n];
        const Vec3 expected(0.5 * p.x() + 0.05 * std::sin(2 * std::numbers::pi * p.z() / 0.4), p.y(), p.z());
        for (int a = 0; a < 3; ++a)
            EXPECT_NEAR(warped.coords[3 * n + Index(a)], expected[a], 1e-15);
    }

    // An embedding carries its warp: using it with another one is an error.
    EmbeddingSettings options;
    options.dimension = 8;
    options.landmarkCount = 24;
    options.warp = warp;
    const InteriorEmbedding embedding = computeInteriorEmbedding(*asset, options);
    const MetricCoordinates interior = metricCoordinates(*asset, &embedding, warp);
    EXPECT_EQ(interior.dimension, 8);
    EXPECT_EQ(interior.coords, embedding.coords);
    EXPECT_THROW(metricCoordinates(*asset, &embedding, MetricWarp{}), Error);
    InteriorEmbedding truncated = embedding;
    truncated.coords.pop_back();
    EXPECT_THROW(metricCoordinates(*asset, &truncated, warp), Error);
}

} // namespace
} // namespace shatter::fracture
