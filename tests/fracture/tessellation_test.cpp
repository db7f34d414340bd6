// Tessellation (CVD §5) → FractureResult + fragment meshes, on the box, plate, brick and piggy bank
// with random nearest-site labellings (Euclidean and a higher-dimensional metric): ObjectState::apply
// accepts the result, volumes add up, every fragment surface is closed, 2-manifold, outward, without
// degenerate triangles or NaN, random points lie in exactly one fragment, the
// Euclidean crack is exact where the canonical schemes are, results are deterministic, repeated
// fracture keeps all of it, and a stress run of random fractures (200 per asset with
// SHATTER_LONG_TESTS=1).
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_env.h"
#include "voronoi_labels.h"

#include "object_state.h"
#include "shatter/error.h"
#include "tessellation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace shatter::test
{
namespace
{

using fracture::tessellate;
using fracture::TessellationSettings;
using fracture::TessellationStats;

// Every check of one result on `state` (before apply), then apply. Returns the problems found.
void checkAndApply(ObjectState& state, const FractureResult& result, const TessellationStats& stats,
                   const std::string& what)
{
    const FragmentId parent = result.parent;
    Real parentVolume = 0;
    if (parent == 0)
        parentVolume = state.asset().tetMesh.totalVolume();
    else
        parentVolume = state.fragmentMesh(parent)->surface.signedVolume();
    ASSERT_EQ(result.meshes.size(), result.fragments.size()) << what;
    Real sum = 0;
    for (std::size_t f = 0; f < result.meshes.size(); ++f)
    {
        const SurfaceCheck c = checkFragmentSurface(result.meshes[f]->surface);
        EXPECT_TRUE(c.problem.empty()) << what << ": fragment " << result.fragments[f] << ": " << c.problem;
        ASSERT_EQ(result.meshes[f]->crack.size(), result.meshes[f]->surface.triangles.size());
        sum += c.volume;
        EXPECT_NEAR(stats.mass[f].volume, c.volume, 1e-12 * parentVolume);
    }
    EXPECT_NEAR(sum, parentVolume, 1e-9 * parentVolume) << what;
    EXPECT_NO_THROW(state.apply(result)) << what;
}

// Random points of the parent lie in exactly one fragment (winding number ≈ 1).
void checkPartition(const ObjectState& state, const FractureResult& result, const std::vector<Vec3>& points,
                    const std::string& what)
{
    std::vector<Aabb> boxes;
    for (const auto& m : result.meshes)
        boxes.push_back(m->surface.bounds());
    int bad = 0;
    for (const Vec3& p : points)
    {
        int inside = 0;
        for (std::size_t f = 0; f < result.meshes.size(); ++f)
        {
            if (boxes[f].distance(p) > 0)
                continue;
            const Real w = windingNumber(result.meshes[f]->surface, p);
            EXPECT_TRUE(std::abs(w) < 1e-6 || std::abs(w - 1) < 1e-6) << what << ": winding " << w;
            inside += w > 0.5;
        }
        bad += inside != 1;
    }
    EXPECT_EQ(bad, 0) << what << ": points not in exactly one fragment";
    (void)state;
}

// Uniform random points of the parent's region: tets by volume, barycentric uniform; points of the
// parent found by the state's own classification.
std::vector<Vec3> randomPoints(const ObjectState& state, FragmentId parent, int count, std::mt19937& rng)
{
    const TetMesh& mesh = state.asset().tetMesh;
    std::vector<Real> cumulative;
    Real total = 0;
    for (Index t = 0; t < mesh.tetCount(); ++t)
        cumulative.push_back(total += mesh.tetVolume(t));
    std::uniform_real_distribution<Real> u(0, 1);
    std::vector<Vec3> points;
    while (int(points.size()) < count)
    {
        const Index t = Index(std::lower_bound(cumulative.begin(), cumulative.end(), u(rng) * total) -
                              cumulative.begin());
        Real b[4];
        Real s = 0;
        for (Real& x : b)
            s += x = -std::log(std::max(u(rng), 1e-300));
        Vec3 p = Vec3::Zero();
        for (int k = 0; k < 4; ++k)
            p += b[k] / s * mesh.nodes[mesh.tets[std::min<Index>(t, mesh.tetCount() - 1)][k]];
        if (state.fragmentAt(p) == parent)
            points.push_back(p);
    }
    return points;
}

struct Case
{
    std::string asset;
    int sites;
    int extraDimensions;
};

class Tessellation : public testing::TestWithParam<Case>
{
};

TEST_P(Tessellation, AppliesPartitionsAndClosesSurfaces)
{
    const Case c = GetParam();
    auto asset = sharedAsset(c.asset);
    ObjectState state(asset);
    std::mt19937 rng(1234 + c.sites);
    const auto labels = nearestSiteLabelling(state, 0, c.sites, rng, c.extraDimensions, 0.3);
    TessellationStats stats;
    const FractureResult result = tessellate(state, labels, &stats);
    std::printf("[tess] %s sites=%d dim=%d: %zu fragments, %u region tets, schemes %u/%u/%u/%u, lowered %u, "
                "raised dip %u margin %u (passes %u), constrained %u singular %u, %u triangles, %.2f ms\n",
                c.asset.c_str(), c.sites, 3 + c.extraDimensions, result.fragments.size(), stats.regionTets,
                stats.schemes[0], stats.schemes[1], stats.schemes[2], stats.schemes[3],
                stats.loweredOwnValues, stats.raisedDipValues, stats.raisedMarginValues, stats.adjustPasses,
                stats.constrainedVertices, stats.singularVertices, stats.triangles, stats.milliseconds);
    EXPECT_TRUE(stats.adjustConverged);
    EXPECT_GE(result.fragments.size(), 2u);
    const std::vector<Vec3> points = randomPoints(state, 0, c.sites == 8 ? 10'000 : 2'000, rng);
    checkAndApply(state, result, stats, c.asset);
    checkPartition(state, result, points, c.asset);
    // The collision state agrees with the meshes at the sample points (records = exact argmin).
    int disagree = 0;
    for (const Vec3& p : points)
    {
        const FragmentId f = state.fragmentAt(p);
        const auto& mesh = result.meshes[f - result.fragments[0]]->surface;
        disagree += windingNumber(mesh, p) < 0.5;
    }
    EXPECT_LE(disagree, int(points.size() / 1000)) << "collision state vs meshes";
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    for (const char* a : {"box", "plate", "brick", "piggy_bank"})
        for (int s : {2, 8, 27})
            out.push_back({a, s, 0});
    out.push_back({"piggy_bank", 8, 1});
    out.push_back({"box", 27, 2});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Assets, Tessellation, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& i)
                         {
                             return i.param.asset + "_" + std::to_string(i.param.sites) + "_dim" +
                                    std::to_string(3 + i.param.extraDimensions);
                         });

// Flooding (CVD §3.3) can label a node with a site that is not its nearest: relabel some boundary
// nodes of the cells to a neighbour's site; the own values are lowered and everything still holds.
TEST(TessellationFlooding, NonNearestLabelsAreRepaired)
{
    auto asset = sharedAsset("brick");
    ObjectState state(asset);
    std::mt19937 rng(31);
    auto labels = nearestSiteLabelling(state, 0, 12, rng);
    const TetMesh& mesh = asset->tetMesh;
    std::vector<Index> entry(mesh.nodeCount(), kInvalidIndex);
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
        entry[labels.nodes[i]] = Index(i);
    const auto original = labels.labels;
    int changed = 0;
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
    {
        const Index n = labels.nodes[i];
        for (Index j = mesh.neighborOffsets[n]; j < mesh.neighborOffsets[n + 1]; ++j)
            if (original[entry[mesh.neighbors[j]]] != original[i] && rng() % 4 == 0)
            {
                labels.labels[i] = original[entry[mesh.neighbors[j]]];
                ++changed;
                break;
            }
    }
    TessellationStats stats;
    const FractureResult result = tessellate(state, labels, &stats);
    std::printf(
        "[tess] flooding: %d labels changed, %u own values lowered, %u dip raises, %u margin raises\n",
        changed, stats.loweredOwnValues, stats.raisedDipValues, stats.raisedMarginValues);
    EXPECT_GT(changed, 0);
    EXPECT_GT(stats.loweredOwnValues, 0u);
    const std::vector<Vec3> points = randomPoints(state, 0, 3000, rng);
    checkAndApply(state, result, stats, "brick flooding");
    checkPartition(state, result, points, "brick flooding");
}

// With squared Euclidean distances the recorded functions differ by exactly the bisector functions, so
// every fracture vertex lies on the bisector planes of its sites wherever no value was adjusted.
TEST(TessellationExact, EuclideanCrackOnBisectorPlanes)
{
    auto asset = sharedAsset("box");
    ObjectState state(asset);
    std::mt19937 rng(7);
    const auto labels = nearestSiteLabelling(state, 0, 8, rng);
    TessellationSettings options;
    options.squaredDistances = true;
    TessellationStats stats;
    const FractureResult result = tessellate(state, labels, &stats, options);
    const Real diag = asset->surface.bounds().extent().norm();
    auto site = [&](std::uint32_t s)
    {
        return Vec3(labels.siteCoords[3 * s], labels.siteCoords[3 * s + 1], labels.siteCoords[3 * s + 2]);
    };
    std::vector<std::uint32_t> nodeSite(asset->tetMesh.nodeCount());
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
        nodeSite[labels.nodes[i]] = labels.labels[i];
    // An edge is "unadjusted" when the recorded values of both sites at both nodes are still the
    // squared site distances; there the crossing must lie on the bisector plane.
    std::map<std::pair<Index, Index>, std::pair<const CutTetRecord*, std::array<int, 2>>> edgeRecord;
    for (const CutTetRecord& r : result.cutTets)
        for (const auto& le : kTetEdges)
        {
            Index a = asset->tetMesh.tets[r.tet][le[0]], b = asset->tetMesh.tets[r.tet][le[1]];
            std::array<int, 2> local{le[0], le[1]};
            if (a > b)
            {
                std::swap(a, b);
                std::swap(local[0], local[1]);
            }
            edgeRecord.emplace(std::make_pair(a, b), std::make_pair(&r, local));
        }
    int unadjusted = 0, onBisector = 0;
    for (const CutEdge& e : result.cutEdges)
    {
        const auto& [rec, local] = edgeRecord.at({e.node0, e.node1});
        const Vec3 p0 = asset->tetMesh.nodes[e.node0], p1 = asset->tetMesh.nodes[e.node1];
        const std::uint32_t sa = nodeSite[e.node0], sb = nodeSite[e.node1];
        bool untouched = true;
        for (int i = 0; i < rec->count; ++i)
        {
            // Which site is slot i? The fragment of node0 / node1.
            std::uint32_t s =
                rec->fragments[i] == e.fragment0 ? sa : (rec->fragments[i] == e.fragment1 ? sb : 0xffffffffu);
            if (s == 0xffffffffu)
                continue;
            for (int k = 0; k < 2; ++k)
            {
                const Vec3 x = k == 0 ? p0 : p1;
                const Real expected = (x - site(s)).squaredNorm();
                untouched &=
                    std::abs(rec->values[i][local[k]] - expected) <= 1e-14 * std::max(Real(1), expected);
            }
        }
        if (!untouched)
            continue;
        ++unadjusted;
        const Vec3 x = (1 - e.t) * p0 + e.t * p1;
        onBisector += std::abs((x - site(sa)).norm() - (x - site(sb)).norm()) < 1e-9 * diag;
    }
    std::printf("[tess] bisector: %d of %zu cut edges unadjusted, %d of those on the bisector; raised dip %u "
                "margin %u\n",
                unadjusted, result.cutEdges.size(), onBisector, stats.raisedDipValues,
                stats.raisedMarginValues);
    EXPECT_EQ(onBisector, unadjusted);
    EXPECT_GT(unadjusted, int(result.cutEdges.size()) / 2);
    checkAndApply(state, result, stats, "box squared");
}

bool sameResult(const FractureResult& a, const FractureResult& b)
{
    if (a.fragments != b.fragments || a.nodeFragments != b.nodeFragments ||
        a.cutTets.size() != b.cutTets.size() || a.cutEdges.size() != b.cutEdges.size() ||
        a.meshes.size() != b.meshes.size())
        return false;
    for (std::size_t i = 0; i < a.cutTets.size(); ++i)
        if (a.cutTets[i].tet != b.cutTets[i].tet || a.cutTets[i].fragments != b.cutTets[i].fragments ||
            a.cutTets[i].values != b.cutTets[i].values)
            return false;
    for (std::size_t i = 0; i < a.cutEdges.size(); ++i)
        if (a.cutEdges[i].t != b.cutEdges[i].t || a.cutEdges[i].node0 != b.cutEdges[i].node0)
            return false;
    for (std::size_t f = 0; f < a.meshes.size(); ++f)
        if (a.meshes[f]->surface.vertices != b.meshes[f]->surface.vertices ||
            a.meshes[f]->surface.triangles != b.meshes[f]->surface.triangles ||
            a.meshes[f]->crack != b.meshes[f]->crack)
            return false;
    return true;
}

TEST(TessellationDeterminism, SameResultForAnyThreadCount)
{
    auto asset = sharedAsset("piggy_bank");
    ObjectState state(asset);
    std::mt19937 rng(99);
    const auto labels = nearestSiteLabelling(state, 0, 27, rng);
    TessellationSettings one, four;
    one.threads = 1;
    four.threads = 4;
    four.parallelCutTets = 0; // split even a small event between the workers
    const FractureResult a = tessellate(state, labels, nullptr, one);
    const FractureResult b = tessellate(state, labels, nullptr, four);
    const FractureResult c = tessellate(state, labels, nullptr, four);
    EXPECT_TRUE(sameResult(a, b));
    EXPECT_TRUE(sameResult(b, c));
}

// The per-tet work runs on oneTBB in fixed chunks merged in order: two and three workers (an uneven
// split of the chunks) give the single-threaded result bit for bit, also with many small cells.
TEST(TessellationDeterminism, UnevenThreadCountsOnThePlate)
{
    auto asset = sharedAsset("plate");
    ObjectState state(asset);
    std::mt19937 rng(31);
    const auto labels = nearestSiteLabelling(state, 0, 64, rng);
    TessellationSettings one, two, three;
    one.threads = 1;
    two.threads = 2;
    three.threads = 3;
    two.parallelCutTets = three.parallelCutTets = 0; // split even a small event between the workers
    const FractureResult a = tessellate(state, labels, nullptr, one);
    EXPECT_GE(a.fragments.size(), 2u);
    EXPECT_TRUE(sameResult(a, tessellate(state, labels, nullptr, two)));
    EXPECT_TRUE(sameResult(a, tessellate(state, labels, nullptr, three)));
}

// Three consecutive fractures of the largest fragment.
void repeated(const std::string& name, int extraDimensions)
{
    auto asset = sharedAsset(name);
    ObjectState state(asset);
    std::mt19937 rng(5);
    FragmentId parent = 0;
    for (int event = 0; event < 3; ++event)
    {
        const std::string what = name + " event " + std::to_string(event);
        const auto labels = nearestSiteLabelling(state, parent, 6, rng, extraDimensions, 0.3);
        TessellationStats stats;
        const FractureResult result = tessellate(state, labels, &stats);
        std::printf(
            "[tess] %s: %zu fragments, precut tets %u, slivers %u, constrained %u singular %u welded %u, "
            "%.2f ms\n",
            what.c_str(), result.fragments.size(), stats.precutTets, stats.slivers, stats.constrainedVertices,
            stats.singularVertices, stats.weldedVertices, stats.milliseconds);
        const std::vector<Vec3> points = randomPoints(state, parent, 3000, rng);
        checkAndApply(state, result, stats, what);
        checkPartition(state, result, points, what);
        EXPECT_EQ(checkSphereForest(state.sphereForest()), "") << what;
        Real best = -1;
        for (std::size_t f = 0; f < result.fragments.size(); ++f)
            if (stats.mass[f].volume > best)
            {
                best = stats.mass[f].volume;
                parent = result.fragments[f];
            }
        if (testing::Test::HasFailure())
            return;
    }
}

TEST(TessellationRepeated, ThreeFracturesOfTheLargestFragment)
{
    repeated("box", 0);
    repeated("piggy_bank", 0);
    repeated("brick", 1);
}

// A new triple line (g_i = g_j = g_k) crossing an earlier crack plane (g_a = g_b) inside an earlier-cut
// tet is a corner with five crack functions. Its vertex key must hold all of them: a key of four would
// depend on the piece that saw the corner and name two points at once (the triple lines {i, j, k} and
// {i, j, l} through the same earlier crack), so neighbouring faces would meet the corner under
// different keys and leave an open edge. The brick, 31 then 27 sites on the largest fragment, is a
// case that breaks with truncated keys (docs/algorithms.md, "Known issue (tessellation): fixed").
TEST(TessellationRepeated, TripleLinesThroughAnEarlierCrackStayDistinct)
{
    auto asset = sharedAsset("brick");
    ObjectState state(asset);
    std::mt19937 rng(4), pointRng(17);
    FragmentId parent = 0;
    for (int event = 0; event < 2; ++event)
    {
        const std::string what = "brick event " + std::to_string(event);
        const int sites = std::uniform_int_distribution<int>(2, 32)(rng);
        const auto labels = nearestSiteLabelling(state, parent, sites, rng);
        TessellationStats stats;
        TessellationSettings one, four;
        one.threads = 1;
        four.threads = 4;
        four.parallelCutTets = 0;
        const FractureResult result = tessellate(state, labels, &stats, one);
        EXPECT_TRUE(sameResult(result, tessellate(state, labels, nullptr, four))) << what;
        std::printf(
            "[tess] %s: %d sites, %zu fragments, precut tets %u, constrained %u singular %u welded %u\n",
            what.c_str(), sites, result.fragments.size(), stats.precutTets, stats.constrainedVertices,
            stats.singularVertices, stats.weldedVertices);
        const std::vector<Vec3> points = randomPoints(state, parent, 3000, pointRng);
        checkAndApply(state, result, stats, what);
        checkPartition(state, result, points, what);
        EXPECT_EQ(stats.singularVertices, 0u) << what;
        EXPECT_EQ(stats.weldedVertices, 0u) << what;
        Real best = -1;
        for (std::size_t f = 0; f < result.fragments.size(); ++f)
            if (stats.mass[f].volume > best)
            {
                best = stats.mass[f].volume;
                parent = result.fragments[f];
            }
        if (testing::Test::HasFailure())
            return;
    }
}

// Random fractures (fresh object each, 2..32 sites, Euclidean or 4-D metric).
TEST(TessellationStress, RandomFractures)
{
    const int count = longTests() ? 200 : 12;
    for (const char* name : {"piggy_bank", "plate", "brick"})
    {
        auto asset = sharedAsset(name);
        std::mt19937 rng(2024);
        const auto start = std::chrono::steady_clock::now();
        double tessMs = 0;
        Index constrained = 0, raised = 0;
        for (int i = 0; i < count; ++i)
        {
            ObjectState state(asset);
            const int sites = std::uniform_int_distribution<int>(2, 32)(rng);
            const auto labels = nearestSiteLabelling(state, 0, sites, rng, i % 3 == 0 ? 1 : 0, 0.3);
            TessellationStats stats;
            FractureResult result;
            try
            {
                result = tessellate(state, labels, &stats);
            }
            catch (const Error& e)
            {
                // A labelling whose sites all fell into one connected piece does not split.
                EXPECT_NE(std::string(e.what()).find("does not split"), std::string::npos) << e.what();
                continue;
            }
            tessMs += stats.milliseconds;
            constrained += stats.constrainedVertices;
            raised += stats.raisedDipValues + stats.raisedMarginValues;
            for (std::size_t f = 0; f < result.meshes.size(); ++f)
            {
                const SurfaceCheck c = checkFragmentSurface(result.meshes[f]->surface);
                ASSERT_TRUE(c.problem.empty()) << name << " #" << i << " fragment " << f << ": " << c.problem;
            }
        }
        std::printf("[tess] stress %s: %d fractures, %.1f ms tessellation total (%.2f ms each), %.1f s wall, "
                    "constrained %u, raised %u\n",
                    name, count, tessMs, tessMs / count,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                    constrained, raised);
    }
}

TEST(TessellationInput, BadLabellingThrows)
{
    auto asset = sharedAsset("box");
    ObjectState state(asset);
    std::mt19937 rng(1);
    auto labels = nearestSiteLabelling(state, 0, 4, rng);
    auto wrongParent = labels;
    wrongParent.parent = 3;
    EXPECT_THROW(tessellate(state, wrongParent), Error);
    auto badLabel = labels;
    badLabel.labels[0] = 99;
    EXPECT_THROW(tessellate(state, badLabel), Error);
    auto missing = labels;
    missing.nodes.pop_back();
    missing.labels.pop_back();
    missing.nodeCoords.resize(missing.nodes.size() * 3);
    EXPECT_THROW(tessellate(state, missing), Error);
    TessellationSettings bad;
    bad.edgeMargin = 0.7;
    EXPECT_THROW(tessellate(state, labels, nullptr, bad), Error);
}

} // namespace
} // namespace shatter::test
