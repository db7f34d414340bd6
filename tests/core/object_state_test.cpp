// ObjectState's contract (construction, validation of FractureResults, thread-safe queries) and the
// crack geometry helpers it builds on. The accuracy of the field against exact partitions is in
// fragment_field_test.cpp.
#include "fracture_fixtures.h"

#include "crack_geometry.h"
#include "object_state.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

namespace shatter::test
{
namespace
{

// ---- Crack geometry helpers ----

TEST(CrackGeometry, ClippedHalvesOfATetAddUpToIt)
{
    const TetCorners c = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    ConvexPolytope tet, scratch;
    makeTetPolytope(c, tet);
    EXPECT_NEAR(tet.volume(), 1.0 / 6, 1e-15);
    std::mt19937_64 rng(4);
    std::normal_distribution<Real> g;
    for (int i = 0; i < 200; ++i)
    {
        const Vec3 n = Vec3(g(rng), g(rng), g(rng)).normalized();
        const Plane plane{n, n.dot(Vec3(0.25, 0.25, 0.25) + 0.2 * Vec3(g(rng), g(rng), g(rng)))};
        ConvexPolytope below = tet, above = tet;
        clipPolytope(below, plane, 7, 1e-12, scratch);
        clipPolytope(above, Plane{-plane.normal, -plane.offset}, 8, 1e-12, scratch);
        EXPECT_NEAR(below.volume() + above.volume(), 1.0 / 6, 1e-12);
        EXPECT_NEAR(below.taggedArea(7), above.taggedArea(8), 1e-12);
        for (const Vec3& p : below.corners)
            EXPECT_LE(plane.signedDistance(p), 1e-12);
    }
}

// tetHalves is a shortcut for two tetRegion calls: it must give their boxes and flags bit for bit, also
// for planes through corners and edges (the cases whose section is built from corners).
TEST(CrackGeometry, TetHalvesAreTheTwoTetRegionsBitForBit)
{
    const TetCorners c = {Vec3(0.1, 0, 0), Vec3(1, 0.2, 0), Vec3(0, 1, 0.1), Vec3(0.2, 0.1, 1)};
    const Real tolerance = clipTolerance(c);
    std::mt19937_64 rng(11);
    std::normal_distribution<Real> g;
    std::uniform_int_distribution<int> corner(0, 3);
    TetRegionScratch scratch;
    int checked = 0, fallbacks = 0, missing = 0;
    for (int i = 0; i < 2000; ++i)
    {
        const Vec3 n = Vec3(g(rng), g(rng), g(rng)).normalized();
        Vec3 through = Vec3(0.3, 0.3, 0.3) + 0.3 * Vec3(g(rng), g(rng), g(rng));
        if (i % 4 == 1)
            through = c[std::size_t(corner(rng))]; // through a corner
        if (i % 4 == 2)
            through = 0.5 * (c[std::size_t(corner(rng))] + c[std::size_t(corner(rng))]); // an edge
        const Plane plane{n, n.dot(through)};
        const Plane opposite{-plane.normal, -plane.offset};
        Aabb below, above;
        bool bounding = false;
        if (!tetHalves(c, plane, tolerance, 1e-10, below, above, bounding, scratch))
        {
            ++fallbacks;
            continue;
        }
        std::array<std::uint8_t, 1> flagBelow{}, flagAbove{};
        const Aabb expectBelow = tetRegion(c, std::span(&plane, 1), tolerance, 1e-10, flagBelow, scratch);
        const Aabb expectAbove = tetRegion(c, std::span(&opposite, 1), tolerance, 1e-10, flagAbove, scratch);
        missing += expectBelow.empty() || expectAbove.empty();
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_EQ(below.min[a], expectBelow.min[a]) << "plane " << i;
            EXPECT_EQ(below.max[a], expectBelow.max[a]) << "plane " << i;
            EXPECT_EQ(above.min[a], expectAbove.min[a]) << "plane " << i;
            EXPECT_EQ(above.max[a], expectAbove.max[a]) << "plane " << i;
        }
        EXPECT_EQ(bounding, flagBelow[0] != 0) << "plane " << i;
        EXPECT_EQ(bounding, flagAbove[0] != 0) << "plane " << i;
        ++checked;
    }
    EXPECT_GT(checked, 1500);  // the shortcut covers most planes
    EXPECT_GT(missing, 100);   // including planes that miss the tet (one side empty)
    EXPECT_LT(fallbacks, 500); // only sections with corners on the plane and crossings fall back
}

TEST(CrackGeometry, CrackPlaneSeparatesThePieces)
{
    const TetCorners c = {Vec3(0.1, 0, 0), Vec3(1, 0.2, 0), Vec3(0, 1, 0.1), Vec3(0.2, 0.1, 1)};
    const Vec3 s0(0.2, 0.2, 0.2), s1(0.6, 0.3, 0.4);
    std::array<Real, 4> g0, g1;
    for (int k = 0; k < 4; ++k)
    {
        g0[k] = (c[k] - s0).squaredNorm();
        g1[k] = (c[k] - s1).squaredNorm();
    }
    Plane plane;
    ASSERT_EQ(crackPlane(c, g0, g1, true, plane), CrackPlaneKind::Plane);
    // The bisector of s0 and s1, pointing from s0's cell into s1's.
    EXPECT_NEAR(plane.normal.dot((s1 - s0).normalized()), 1, 1e-12);
    EXPECT_NEAR(plane.signedDistance(0.5 * (s0 + s1)), 0, 1e-12);
    const Bary b = barycentric(c, Vec3(0.3, 0.3, 0.3));
    EXPECT_NEAR(b.sum(), 1, 1e-12);
    const std::array<std::array<Real, 4>, 4> values = {g0, g1, {}, {}};
    EXPECT_EQ(argminCrackFunction(values, 2, b), plane.signedDistance(Vec3(0.3, 0.3, 0.3)) <= 0 ? 0 : 1);
    EXPECT_EQ(crackPlane(c, g0, g0, true, plane), CrackPlaneKind::Always);
    EXPECT_EQ(crackPlane(c, g0, g0, false, plane), CrackPlaneKind::Never);
}

// ---- ObjectState ----

std::shared_ptr<const Asset> smallBox()
{
    static const std::shared_ptr<const Asset> asset =
        buildTestAsset(subdividedBox(Vec3(1.0, 0.7, 0.5), 10), "box", 0.7);
    return asset;
}

/// A fingerprint of everything apply() may change.
std::vector<Real> snapshot(const ObjectState& state)
{
    std::vector<Real> v{Real(state.fragmentCount()), Real(state.field().recordCount())};
    for (const FieldNode& n : state.field().nodeSamples())
    {
        v.push_back(n.distance);
        v.push_back(Real(n.fragment));
    }
    const SphereForest& forest = state.sphereForest();
    v.push_back(Real(forest.fragmentCount()));
    v.push_back(Real(forest.nodeCount()));
    for (Index p = 0; p < forest.pointCount(); ++p)
        v.push_back(Real(forest.pointFragment(p)));
    return v;
}

TEST(ObjectState, StartsAsOneFragmentWithTheAssetDistances)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    const ObjectState state(asset);
    EXPECT_EQ(state.fragmentCount(), 1u);
    EXPECT_TRUE(state.alive(0));
    EXPECT_FALSE(state.alive(1));
    for (Index i = 0; i < asset->tetMesh.nodeCount(); ++i)
        EXPECT_DOUBLE_EQ(state.field().node(i).distance, asset->nodeDistance[i]);
    const Vec3 inside(0.3, 0.1, 0.05);
    EXPECT_TRUE(state.insideTest(inside, 0));
    EXPECT_FALSE(state.insideTest(Vec3(1.5, 0, 0), 0));
    EXPECT_EQ(state.fragmentAt(Vec3(0, 2, 0)), kNoFragment);
    const Penetration pen = state.penetration(inside, 0);
    EXPECT_NEAR(pen.depth, 0.45, 0.02); // the box's half height is 0.5
    EXPECT_GT(pen.normal.z(), 0.9);
    EXPECT_TRUE(state.sphereTest(Vec3(1.05, 0, 0), 0.1, 0));
    EXPECT_FALSE(state.sphereTest(Vec3(2, 0, 0), 0.1, 0));
    EXPECT_FALSE(state.sphereTest(Vec3(2, 0, 0), 0.1, 7)); // no such fragment
    EXPECT_THROW(ObjectState(nullptr), Error);
}

TEST(ObjectState, InstancesOfAnAssetShareItsLocatorUnlessTheirSettingsDiffer)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    ASSERT_TRUE(asset->locator);
    const ObjectState a(asset), b(asset);
    EXPECT_EQ(&a.locator(), asset->locator.get());
    EXPECT_EQ(&b.locator(), asset->locator.get());

    ObjectStateSettings finer;
    finer.locator.cellFactor = 0.25;
    const ObjectState c(asset, finer);
    EXPECT_NE(&c.locator(), asset->locator.get());
    EXPECT_LT(c.locator().cellSize(), a.locator().cellSize());
    // Either grid answers the same.
    const Vec3 inside(0.3, 0.1, 0.05);
    EXPECT_EQ(c.locate(inside).tet, a.locate(inside).tet);

    // An asset assembled without a locator still works: the state builds its own.
    auto bare = std::make_shared<Asset>(*asset);
    bare->locator.reset();
    const ObjectState d(std::const_pointer_cast<const Asset>(bare));
    EXPECT_EQ(d.locate(inside).tet, a.locate(inside).tet);
}

TEST(ObjectState, RejectsMalformedResultsAndStaysUnchanged)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    std::mt19937_64 rng(21);
    const FractureResult good = randomVoronoiSplit(fixture, asset->tetMesh, 0, 3, rng);
    ASSERT_GE(good.cutTets.size(), 1u);
    const std::vector<Real> before = snapshot(state);

    auto expectRejected = [&](const FractureResult& bad, const char* what)
    {
        EXPECT_THROW(state.apply(bad), Error) << what;
        EXPECT_EQ(snapshot(state), before) << what;
    };
    FractureResult r = good;
    r.parent = 5;
    expectRejected(r, "parent that does not exist");
    r = good;
    r.fragments[0] = 7;
    expectRejected(r, "ids that are not the next free ones");
    r = good;
    r.fragments.resize(1);
    expectRejected(r, "a single new fragment");
    r = good;
    r.nodes.pop_back();
    r.nodeFragments.pop_back();
    expectRejected(r, "a missing node");
    r = good;
    r.nodes[1] = r.nodes[0];
    expectRejected(r, "a node listed twice");
    r = good;
    r.nodeFragments[0] = 0;
    expectRejected(r, "a node labelled with the parent");
    r = good;
    r.cutTets[0].fragments[0] = 1000;
    expectRejected(r, "a record naming an unknown fragment");
    r = good;
    r.cutTets[0].count = 5;
    expectRejected(r, "a record with five pieces");
    r = good;
    std::swap(r.cutTets[0].values[0], r.cutTets[0].values[1]);
    expectRejected(r, "a record contradicting the node labels");
    r = good;
    r.cutTets.push_back(r.cutTets[0]);
    expectRejected(r, "two records for one tet");
    r = good;
    r.cutTets[0].values[0][0] = std::numeric_limits<Real>::quiet_NaN();
    expectRejected(r, "a non-finite value");
    r = good;
    r.cutTets.erase(r.cutTets.begin());
    expectRejected(r, "a cut tet without its record");
    r = good;
    r.cutEdges.push_back({3, 2, 0.5, r.fragments[0], r.fragments[1]});
    expectRejected(r, "an unordered cut edge");

    state.apply(good);
    EXPECT_EQ(state.fragmentCount(), 1 + good.fragments.size());
    EXPECT_FALSE(state.alive(0));
    EXPECT_THROW(state.apply(good), Error); // the parent is gone now
}

TEST(ObjectState, ApplyKeepsFieldGridAndSphereTreesInStep)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    ASSERT_EQ(state.sphereForest().root(0), state.sphereForest().tree().roots.at(0));
    std::mt19937_64 rng(5);
    for (int event = 0; event < 3; ++event)
    {
        const FragmentId parent = fixture.largestFragment();
        const FractureResult r = randomVoronoiSplit(fixture, asset->tetMesh, parent, 3, rng);
        ForestUpdateReport forestReport;
        state.apply(r, nullptr, &forestReport);
        EXPECT_EQ(forestReport.insertedPoints, 2 * r.cutEdges.size());
        const SphereForest& forest = state.sphereForest();
        EXPECT_EQ(checkSphereForest(forest), "");
        EXPECT_EQ(forest.fragmentCount(), state.fragmentCount());
        for (FragmentId f = 0; f < state.fragmentCount(); ++f)
            EXPECT_EQ(forest.alive(f), state.alive(f)) << "fragment " << f;
        // Every tet node is in the sphere tree of the fragment the field gives it.
        for (Index n = 0; n < asset->tetMesh.nodeCount(); ++n)
            ASSERT_EQ(forest.pointFragment(n), state.field().node(n).fragment) << "node " << n;
        // Each live fragment's bounds are its region's, recomputed from the field tet by tet: the whole
        // tet where it holds all of it, else its piece cut by the piece's planes.
        const TetMesh& mesh = asset->tetMesh;
        const Real slack = 1e-9 * asset->surface.bounds().extent().norm();
        for (FragmentId f = 0; f < state.fragmentCount(); ++f)
        {
            if (!state.alive(f))
                continue;
            Aabb expected;
            TetRegionScratch scratch;
            for (Index t = 0; t < mesh.tetCount(); ++t)
            {
                RegionRef region;
                if (!state.field().findRegion(t, f, region))
                    continue;
                const TetCorners c = mesh.corners(t);
                Aabb box;
                if (region.record != kInvalidIndex)
                {
                    const auto planes =
                        state.field().planes(state.field().record(region.record), region.slot);
                    std::vector<std::uint8_t> bounding(planes.size());
                    box = tetRegion(c, planes, clipTolerance(c), 0, bounding, scratch);
                }
                if (box.empty())
                    for (const Vec3& x : c)
                        box.grow(x);
                expected.grow(box);
            }
            const Aabb& bounds = state.fragment(f).bounds;
            for (int a = 0; a < 3; ++a)
            {
                EXPECT_NEAR(bounds.min[a], expected.min[a], slack) << "fragment " << f << " axis " << a;
                EXPECT_NEAR(bounds.max[a], expected.max[a], slack) << "fragment " << f << " axis " << a;
            }
        }
    }
}

TEST(ObjectState, ConcurrentQueriesAgreeWithSerialOnes)
{
    const std::shared_ptr<const Asset> asset = smallBox();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    std::mt19937_64 rng(8);
    state.apply(randomVoronoiSplit(fixture, asset->tetMesh, 0, 6, rng));
    const std::vector<FragmentId> live = state.liveFragments();
    std::uniform_real_distribution<Real> u(-1.1, 1.1);
    struct Query
    {
        Vec3 p;
        Real r;
        FragmentId f;
    };
    std::vector<Query> queries;
    for (int i = 0; i < 20000; ++i)
        queries.push_back({Vec3(u(rng), u(rng), u(rng)), 0.1 * std::abs(u(rng)), live[i % live.size()]});
    auto run = [&](std::vector<Real>& out)
    {
        for (const Query& q : queries)
        {
            const Penetration pen = state.penetration(q.p, q.f);
            out.push_back(state.insideTest(q.p, q.f) + 2 * state.sphereTest(q.p, q.r, q.f) + pen.depth);
        }
    };
    std::vector<Real> serial;
    run(serial);
    std::vector<std::vector<Real>> results(4);
    std::vector<std::thread> threads;
    for (auto& r : results)
        threads.emplace_back([&] { run(r); });
    for (std::thread& t : threads)
        t.join();
    for (const auto& r : results)
        EXPECT_EQ(r, serial);
}

} // namespace
} // namespace shatter::test
