// Fracturable sphere forest (TVCG §6.2-6.3 and SCA'12 §5.2): after consecutive random fractures every
// tree is a valid sphere tree of exactly its fragment's points, updates touch only the parent's tree,
// new crack points hang where Fig. 8 puts them, bad results are rejected without changes, and the
// result is deterministic.
#include "sphere_forest.h"

#include "shatter/error.h"

#include "fracture_fixtures.h"
#include "sphere_tree_fixtures.h"
#include "test_meshes.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace shatter
{
namespace
{

using test::AnalyticFracture;

/// A tree's content, for "did this tree change?": (point, radius) of every node, breadth first.
std::vector<std::pair<Index, Real>> snapshot(const SphereForest& forest, FragmentId f)
{
    std::vector<std::pair<Index, Real>> out;
    std::vector<Index> queue{forest.root(f)};
    for (std::size_t i = 0; i < queue.size(); ++i)
    {
        const SphereNode& node = forest.tree().nodes[queue[i]];
        out.emplace_back(node.point, node.radius);
        for (Index c : forest.tree().children(queue[i]))
            queue.push_back(c);
    }
    return out;
}

/// Brute force: the nodes of fragment f's tree in `before` whose subtree holds points that `after`
/// tags with different fragments (the splitting nodes of TVCG §6.2).
Index nodesSpanningFragments(const SphereForest& before, FragmentId f, const SphereForest& after)
{
    const SphereTree& tree = before.tree();
    std::vector<Index> order{before.root(f)};
    for (std::size_t i = 0; i < order.size(); ++i)
        for (const Index c : tree.children(order[i]))
            order.push_back(c);
    std::vector<std::set<FragmentId>> fragments(tree.nodeCount());
    Index spanning = 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it)
    {
        std::set<FragmentId>& here = fragments[*it];
        here.insert(after.pointFragment(tree.nodes[*it].point));
        for (const Index c : tree.children(*it))
            here.insert(fragments[c].begin(), fragments[c].end());
        spanning += here.size() > 1;
    }
    return spanning;
}

/// Everything checkSphereForest cannot know: the forest agrees with the fixture's partition.
void expectMatchesFixture(const SphereForest& forest, const AnalyticFracture& fixture,
                          const std::string& where)
{
    SCOPED_TRACE(where);
    ASSERT_EQ(checkSphereForest(forest), "");
    ASSERT_EQ(forest.fragmentCount(), fixture.fragmentCount());
    for (FragmentId f = 0; f < forest.fragmentCount(); ++f)
        ASSERT_EQ(forest.alive(f), fixture.alive(f)) << "fragment " << f;
    for (Index n = 0; n < forest.tetNodeCount(); ++n)
        ASSERT_EQ(forest.pointFragment(n), fixture.nodeFragment(n)) << "tet node " << n;
    // Each point in exactly one tree, the tree of its fragment; every crack point reachable there.
    std::vector<int> seen(forest.pointCount(), 0);
    for (FragmentId f : fixture.liveFragments())
        for (Index p : test::treePoints(forest, f))
        {
            ++seen[p];
            ASSERT_EQ(forest.pointFragment(p), f) << "point " << p;
        }
    for (Index p = 0; p < forest.pointCount(); ++p)
        ASSERT_EQ(seen[p], 1) << "point " << p << " is in " << seen[p] << " trees";
}

/// Crack points lie on their fragment (in its closure): the tag is the right side.
void expectCrackPointsOnTheirFragments(const SphereForest& forest, const AnalyticFracture& fixture,
                                       Real tolerance)
{
    for (Index p = forest.tetNodeCount(); p < forest.pointCount(); ++p)
    {
        const Real d =
            fixture.distanceToFragment(forest.tree().points[p], forest.pointFragment(p), tolerance);
        ASSERT_LE(d, tolerance) << "crack point " << p << " lies " << d << " from its fragment "
                                << forest.pointFragment(p);
    }
}

/// Ten consecutive random fractures of the largest fragment: plane cuts and 3-site Voronoi splits.
std::vector<FractureResult> fractureTenTimes(AnalyticFracture& fixture, const Asset& asset,
                                             std::mt19937_64& rng)
{
    std::vector<FractureResult> events;
    const Aabb box = asset.surface.bounds();
    for (int event = 0; event < 10; ++event)
    {
        const FragmentId parent = fixture.largestFragment();
        if (event % 2 == 1)
        {
            events.push_back(test::randomVoronoiSplit(fixture, asset.tetMesh, parent, 3, rng));
            continue;
        }
        for (int attempt = 0;; ++attempt)
        {
            if (attempt == 100)
                throw Error("fractureTenTimes", "no plane splits the largest fragment");
            if (std::optional<FractureResult> r = fixture.cutWithPlane(parent, test::randomPlane(box, rng)))
            {
                events.push_back(std::move(*r));
                break;
            }
        }
    }
    return events;
}

struct Scenario
{
    const char* mesh;
    RestructureMethod method;
};

const char* methodName(RestructureMethod method)
{
    switch (method)
    {
    case RestructureMethod::Tvcg2013:
        return "Tvcg2013";
    case RestructureMethod::Sca2012:
        return "Sca2012";
    case RestructureMethod::Rebuild:
        return "Rebuild";
    }
    return "?";
}

void PrintTo(const Scenario& s, std::ostream* os)
{
    *os << s.mesh << " " << methodName(s.method);
}

/// A rebuilt tree is a max-distance tree (§5.1): its second point is the one farthest from its first,
/// so the root's first child other than its own copy lies on the root's sphere.
void expectMaxDistanceRoot(const SphereForest& forest, FragmentId f)
{
    const SphereTree& tree = forest.tree();
    const SphereNode& root = tree.nodes[forest.root(f)];
    if (root.firstChild == kInvalidIndex)
        return;
    const Index second = tree.nodes[root.firstChild].nextSibling;
    ASSERT_NE(second, kInvalidIndex) << "fragment " << f;
    EXPECT_NEAR((tree.center(second) - tree.center(forest.root(f))).norm(), root.radius, 1e-12)
        << "fragment " << f;
}

class TenFractures : public testing::TestWithParam<Scenario>
{
};

TEST_P(TenFractures, EveryTreeStaysValidAndOwnsExactlyItsFragment)
{
    const Scenario scenario = GetParam();
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset(scenario.mesh);
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    SphereForest forest(*asset);
    expectMatchesFixture(forest, fixture, "unbroken");
    // The fixture applies each split as it makes it, so the events come out in a valid sequence.
    std::mt19937_64 rng(20130611);
    const std::vector<FractureResult> events = fractureTenTimes(fixture, *asset, rng);
    Index inserted = 0, copies = 0, removed = 0, reparented = 0;
    for (std::size_t e = 0; e < events.size(); ++e)
    {
        const FractureResult& r = events[e];
        // The trees of the other live fragments must not change.
        std::map<FragmentId, std::vector<std::pair<Index, Real>>> others;
        for (FragmentId f = 0; f < forest.fragmentCount(); ++f)
            if (forest.alive(f) && f != r.parent)
                others[f] = snapshot(forest, f);
        std::set<Index> parentPointSet;
        for (const auto& [point, radius] : snapshot(forest, r.parent))
            parentPointSet.insert(point);
        const std::size_t parentPoints = parentPointSet.size();
        const SphereForest before = forest;
        ForestUpdateReport report;
        forest.apply(r, asset->tetMesh, scenario.method, &report);
        EXPECT_EQ(report.parentPoints, parentPoints);
        if (scenario.method == RestructureMethod::Tvcg2013)
        {
            EXPECT_EQ(report.splittingNodes, nodesSpanningFragments(before, r.parent, forest))
                << "event " << e;
        }
        EXPECT_EQ(report.insertedPoints, 2 * r.cutEdges.size());
        for (const auto& [f, content] : others)
            ASSERT_EQ(snapshot(forest, f), content) << "event " << e << " changed fragment " << f;
        if (scenario.method == RestructureMethod::Rebuild)
            for (const FragmentId f : r.fragments)
                if (forest.root(f) != kInvalidIndex)
                    expectMaxDistanceRoot(forest, f);
        inserted += report.insertedPoints;
        copies += report.copies;
        removed += report.removed;
        reparented += report.reparented;
        ASSERT_EQ(checkSphereForest(forest), "") << "after event " << e;
    }
    expectMatchesFixture(forest, fixture, "after ten fractures");
    expectCrackPointsOnTheirFragments(forest, fixture, 1e-9 * asset->radius());
    EXPECT_GT(inserted, 0u);
    if (scenario.method == RestructureMethod::Tvcg2013)
    {
        EXPECT_GT(copies, 0u);
        EXPECT_GT(removed, 0u);
        EXPECT_EQ(reparented, 0u);
    }
    else if (scenario.method == RestructureMethod::Sca2012)
    {
        EXPECT_GT(reparented, 0u);
        EXPECT_EQ(copies + removed, 0u);
    }
    else
    {
        EXPECT_EQ(copies + removed + reparented, 0u);
    }
    std::cout << "[ forest   ] " << scenario.mesh << " " << methodName(scenario.method) << ": "
              << forest.tree().roots.size() << " live trees, " << forest.pointCount() << " points ("
              << inserted << " crack points), " << forest.nodeCount() << " nodes (" << forest.freeNodeCount()
              << " free), copies " << copies << ", removed " << removed << ", re-parented " << reparented
              << "\n";
}

INSTANTIATE_TEST_SUITE_P(Meshes, TenFractures,
                         testing::Values(Scenario{"piggy_bank.obj", RestructureMethod::Tvcg2013},
                                         Scenario{"piggy_bank.obj", RestructureMethod::Sca2012},
                                         Scenario{"piggy_bank.obj", RestructureMethod::Rebuild},
                                         Scenario{"plate.obj", RestructureMethod::Tvcg2013},
                                         Scenario{"plate.obj", RestructureMethod::Sca2012},
                                         Scenario{"plate.obj", RestructureMethod::Rebuild}),
                         [](const testing::TestParamInfo<Scenario>& info)
                         {
                             std::string name = info.param.mesh;
                             name = name.substr(0, name.find('.'));
                             return name + "_" + methodName(info.param.method);
                         });

std::shared_ptr<const Asset> smallBall()
{
    static const std::shared_ptr<const Asset> asset = test::buildTestAsset(test::icosphere(2), "ball");
    return asset;
}

TEST(SphereForest, StartsAsTheAssetTree)
{
    const std::shared_ptr<const Asset> asset = smallBall();
    const SphereForest forest(*asset);
    EXPECT_EQ(checkSphereForest(forest), "");
    EXPECT_EQ(forest.fragmentCount(), 1u);
    EXPECT_TRUE(forest.alive(0));
    EXPECT_EQ(forest.root(0), asset->sphereTree.roots[0]);
    EXPECT_EQ(forest.pointCount(), asset->tetMesh.nodeCount());
    EXPECT_EQ(forest.tetNodeCount(), asset->tetMesh.nodeCount());
    // The same spheres in fewer nodes: each point's highest sphere is the asset's, the own-copy tails
    // below leaf points are gone.
    const SphereTree& tree = forest.tree();
    EXPECT_LT(forest.nodeCount(), asset->sphereTree.nodeCount());
    for (Index p = 0; p < forest.pointCount(); ++p)
        ASSERT_EQ(tree.nodes[tree.pointNode[p]].radius,
                  asset->sphereTree.nodes[asset->sphereTree.pointNode[p]].radius)
            << "point " << p;
    SphereTree twoRoots = asset->sphereTree;
    twoRoots.roots.push_back(twoRoots.roots[0]);
    EXPECT_THROW(SphereForest{twoRoots}, Error);
}

TEST(SphereForest, RejectsMalformedResultsWithoutChanges)
{
    const std::shared_ptr<const Asset> asset = smallBall();
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    SphereForest forest(*asset);
    const FractureResult first = *fixture.cutWithPlane(0, Plane{Vec3(1, 0.2, 0.1).normalized(), 0.05});
    const FractureResult second = *fixture.cutWithPlane(1, Plane{Vec3(0.1, 1, 0.3).normalized(), -0.1});
    forest.apply(first, asset->tetMesh);
    const auto before = snapshot(forest, 1);
    const Index nodes = forest.nodeCount(), points = forest.pointCount();

    std::vector<std::pair<const char*, FractureResult>> bad;
    bad.emplace_back("dead parent", second);
    bad.back().second.parent = 0;
    bad.emplace_back("ids not next in line", second);
    bad.back().second.fragments = {5, 6};
    bad.emplace_back("a node without label", second);
    bad.back().second.nodes.pop_back();
    bad.back().second.nodeFragments.pop_back();
    bad.emplace_back("a node of another fragment", second);
    for (Index n = 0; n < forest.tetNodeCount(); ++n)
        if (forest.pointFragment(n) == 2)
        {
            bad.back().second.nodes.push_back(n);
            bad.back().second.nodeFragments.push_back(3);
            break;
        }
    bad.emplace_back("an unknown label", second);
    bad.back().second.nodeFragments[0] = 7;
    bad.emplace_back("a cut edge outside (0, 1)", second);
    bad.back().second.cutEdges.at(0).t = 1.5;
    bad.emplace_back("a cut edge with one fragment", second);
    bad.back().second.cutEdges.at(0).fragment1 = bad.back().second.cutEdges.at(0).fragment0;
    bad.emplace_back("a record of a missing tet", second);
    bad.back().second.cutTets.at(0).tet = asset->tetMesh.tetCount();
    for (const auto& [what, result] : bad)
    {
        EXPECT_THROW(forest.apply(result, asset->tetMesh), Error) << what;
        ASSERT_EQ(forest.nodeCount(), nodes) << what;
        ASSERT_EQ(forest.pointCount(), points) << what;
        ASSERT_EQ(forest.fragmentCount(), 3u) << what;
        ASSERT_EQ(snapshot(forest, 1), before) << what;
    }
    forest.apply(second, asset->tetMesh);
    EXPECT_EQ(checkSphereForest(forest), "");
}

/// TVCG Fig. 8: a new point hangs under its edge endpoint, at an instance whose sphere is larger than
/// its distance (or the highest instance); SCA'12 always uses the highest instance.
TEST(SphereForest, NewPointsHangUnderTheirEdgeEndpoint)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    for (const RestructureMethod method : {RestructureMethod::Tvcg2013, RestructureMethod::Sca2012})
    {
        AnalyticFracture fixture(asset->tetMesh, asset->surface);
        SphereForest forest(*asset);
        const Vec3 c = asset->surface.bounds().center();
        const FractureResult r = *fixture.cutWithPlane(0, Plane{Vec3(1, 0, 0.3).normalized(), c.x() + 1e-3});
        ForestUpdateReport report;
        forest.apply(r, asset->tetMesh, method, &report);
        EXPECT_EQ(report.nearestParents, 0u);
        Index belowHighest = 0;
        for (Index p = forest.tetNodeCount(); p < forest.pointCount(); ++p)
        {
            const SphereTree& tree = forest.tree();
            const Index parent = tree.nodes[tree.pointNode[p]].parent;
            const Index anchor = tree.nodes[parent].point;
            const CrackPoint& cp = forest.crackPoint(p);
            ASSERT_TRUE(anchor == cp.node0 || anchor == cp.node1);
            ASSERT_EQ(forest.pointFragment(anchor), forest.pointFragment(p));
            const Real d = (tree.points[p] - tree.points[anchor]).norm();
            const bool highest = tree.pointNode[anchor] == parent;
            if (method == RestructureMethod::Sca2012)
            {
                ASSERT_TRUE(highest);
            }
            else
            {
                ASSERT_TRUE(highest || tree.nodes[parent].radius > d);
            }
            belowHighest += !highest;
        }
        if (method == RestructureMethod::Tvcg2013)
        {
            EXPECT_GT(belowHighest, 0u) << "Fig. 8 should place some points below the highest instance";
        }
    }
}

// Crack points whose edge has no endpoint in their fragment: an edge crossed twice (both endpoints in
// one fragment, a point of the other on it) anchors at a node of its fragment found by search, and a
// fragment that got no tet node at all builds its tree from its crack points alone.
TEST(SphereForest, CrackPointsAwayFromTheirFragmentsNodesStillGetValidTrees)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    for (const RestructureMethod method :
         {RestructureMethod::Tvcg2013, RestructureMethod::Sca2012, RestructureMethod::Rebuild})
    {
        AnalyticFracture fixture(asset->tetMesh, asset->surface);
        const Vec3 c = asset->surface.bounds().center();
        FractureResult r = *fixture.cutWithPlane(0, Plane{Vec3(1, 0, 0.3).normalized(), c.x() + 1e-3});
        ASSERT_EQ(r.fragments.size(), 2u);
        const FragmentId a = r.fragments[0], b = r.fragments[1], nodeless = b + 1;
        r.fragments.push_back(nodeless);
        std::map<Index, FragmentId> label;
        for (std::size_t i = 0; i < r.nodes.size(); ++i)
            label[r.nodes[i]] = r.nodeFragments[i];
        // Every third cut edge puts its second point into the fragment without nodes.
        for (std::size_t i = 0; i < r.cutEdges.size(); i += 3)
            r.cutEdges[i].fragment1 = nodeless;
        // Edges inside fragment a with a point of b on them: crossed twice.
        Index crossedTwice = 0;
        for (const Edge& e : asset->tetMesh.edges)
            if (label.at(e[0]) == a && label.at(e[1]) == a && crossedTwice < 20 && (e[0] + e[1]) % 7 == 0)
            {
                r.cutEdges.push_back({e[0], e[1], 0.5, a, b});
                ++crossedTwice;
            }
        ASSERT_GT(crossedTwice, 0u);

        SphereForest forest(*asset);
        ForestUpdateReport report;
        forest.apply(r, asset->tetMesh, method, &report);
        ASSERT_EQ(checkSphereForest(forest), "");
        if (method != RestructureMethod::Rebuild) // a rebuild needs no anchors
        {
            EXPECT_GE(report.nearestParents, crossedTwice);
        }
        ASSERT_TRUE(forest.alive(nodeless));
        ASSERT_NE(forest.root(nodeless), kInvalidIndex);
        std::vector<int> seen(forest.pointCount(), 0);
        for (const FragmentId f : {a, b, nodeless})
            for (const Index p : test::treePoints(forest, f))
            {
                ++seen[p];
                ASSERT_EQ(forest.pointFragment(p), f) << "point " << p;
            }
        for (Index p = 0; p < forest.pointCount(); ++p)
            ASSERT_EQ(seen[p], 1) << "point " << p << " is in " << seen[p] << " trees";
        EXPECT_EQ(test::treePoints(forest, nodeless).size(), (r.cutEdges.size() - crossedTwice + 2) / 3);
    }
}

TEST(SphereForest, UpdatesAreDeterministic)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    std::mt19937_64 rng(7);
    const std::vector<FractureResult> events = fractureTenTimes(fixture, *asset, rng);
    for (const RestructureMethod method :
         {RestructureMethod::Tvcg2013, RestructureMethod::Sca2012, RestructureMethod::Rebuild})
    {
        SphereForest a(*asset), b(*asset);
        for (const FractureResult& r : events)
        {
            a.apply(r, asset->tetMesh, method);
            b.apply(r, asset->tetMesh, method);
        }
        ASSERT_EQ(a.nodeCount(), b.nodeCount());
        for (Index v = 0; v < a.nodeCount(); ++v)
        {
            const SphereNode &x = a.tree().nodes[v], &y = b.tree().nodes[v];
            ASSERT_TRUE(x.point == y.point && x.parent == y.parent && x.firstChild == y.firstChild &&
                        x.nextSibling == y.nextSibling && x.radius == y.radius)
                << "node " << v;
        }
        ASSERT_EQ(a.tree().points, b.tree().points);
    }
}

} // namespace
} // namespace shatter
