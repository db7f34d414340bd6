// TVCG Algorithm 1 with self-adapting contacts (§5.2) and max-distance traversal (§5.3): a plate
// resting on the ground (Fig. 5), two fragments touching along their crack, and the invariants
// (Full = brute force, Adaptive ⊆ Full, determinism, no allocation once warm).
#include "shatter/error.h"
#include "sphere_tree_query.h"

#include "object_state.h"

#include "fracture_fixtures.h"
#include "sphere_tree_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <numbers>
#include <random>

namespace shatter
{
namespace
{

using test::AnalyticFracture;

struct Result
{
    std::vector<Contact> contacts;
    QueryStats stats;
    Index budget = kInitialContactBudget;
};

template <class Field>
Result query(const SphereForest& forest, FragmentId f, const Eigen::Isometry3d& aToB, const Field& field,
             ContactMode mode, TraversalOrder order, Real tolerance, Index budget = kInitialContactBudget)
{
    static QueryScratch scratch;
    Result r;
    r.budget = budget;
    collide(forest, f, aToB, field, QuerySettings{mode, order, tolerance}, r.budget, scratch, r.contacts,
            &r.stats);
    return r;
}

std::vector<Index> pointsOf(const std::vector<Contact>& contacts)
{
    std::vector<Index> ids;
    for (const Contact& c : contacts)
        ids.push_back(c.point);
    std::sort(ids.begin(), ids.end());
    return ids;
}

/// The plate lies on the ground y = h, sunk by 1 % of its thickness (its extent along y, the up axis of
/// the asset): the meaningful scale for a plate resting flat. 1 % of the thickness is below ε = 0.2 %
/// of the radius, so no point is deeper than ε and the adaptive budget stays at 8.
struct PlateOnGround
{
    std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    SphereForest forest{*asset};
    Real tolerance = defaultContactTolerance(asset->radius());
    Real thickness = asset->surface.bounds().extent().y();

    test::PlaneField ground(Real sink) const
    {
        return {Vec3::UnitY(), asset->surface.bounds().min.y() + sink};
    }
};

TEST(SphereTreeQuery, PlateOnGroundNeedsFewWellSpreadContacts)
{
    const PlateOnGround plate;
    const test::PlaneField ground = plate.ground(0.01 * plate.thickness);
    const Eigen::Isometry3d identity = Eigen::Isometry3d::Identity();
    const Result full = query(plate.forest, 0, identity, ground, ContactMode::Full,
                              TraversalOrder::MaxDistance, plate.tolerance);
    const std::vector<Contact> brute =
        test::bruteForceContacts(plate.forest, 0, identity, ground, plate.tolerance);
    EXPECT_EQ(pointsOf(full.contacts), pointsOf(brute));
    EXPECT_EQ(full.stats.collidingPoints, brute.size());

    const Result adaptive = query(plate.forest, 0, identity, ground, ContactMode::Adaptive,
                                  TraversalOrder::MaxDistance, plate.tolerance);
    const Result fixed = query(plate.forest, 0, identity, ground, ContactMode::FixedBudget,
                               TraversalOrder::MaxDistance, plate.tolerance);
    EXPECT_LE(adaptive.contacts.size(), 8u);
    EXPECT_EQ(adaptive.budget, 8u);
    EXPECT_TRUE(adaptive.stats.earlyTermination);
    const Real footprint = test::contactHullArea(full.contacts, Vec3::UnitY());
    const Real covered = test::contactHullArea(adaptive.contacts, Vec3::UnitY());
    EXPECT_GE(covered, 0.5 * footprint);
    std::cout << "[ plate    ] contacts: adaptive " << adaptive.contacts.size() << ", full "
              << full.contacts.size() << " (brute force " << brute.size() << "); hull coverage "
              << covered / footprint << "; visited nodes: adaptive " << adaptive.stats.visitedNodes
              << ", fixed budget " << fixed.stats.visitedNodes << ", full " << full.stats.visitedNodes
              << "; inside tests: adaptive " << adaptive.stats.insideTests << ", full "
              << full.stats.insideTests << "\n";
}

/// Mean hull coverage (FixedBudget m contacts vs Full) of the two traversal orders over seeded random
/// resting poses of the plate's fragments: tilted by up to 0.15 rad, sunk by 0.5-10.5 % of the
/// thickness. Poses with fewer than 2m colliding points are skipped.
std::array<Real, 2> meanCoverage(const SphereForest& forest, const std::vector<FragmentId>& fragments,
                                 Index m, Real thickness, Real tolerance, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> u(0, 1);
    std::array<Real, 2> sum{0, 0};
    int poses = 0;
    for (int trial = 0; trial < 200; ++trial)
    {
        const FragmentId f = fragments[std::size_t(trial) % fragments.size()];
        const Real angle = 0.15 * u(rng), axis = 2 * std::numbers::pi * u(rng);
        Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
        pose.linear() = Eigen::AngleAxisd(angle, Vec3(std::cos(axis), 0, std::sin(axis))).toRotationMatrix();
        Real lowest = std::numeric_limits<Real>::infinity();
        for (const Index p : test::treePoints(forest, f))
            lowest = std::min(lowest, (pose * forest.tree().points[p]).y());
        const test::PlaneField ground{Vec3::UnitY(), lowest + thickness * (0.005 + 0.1 * u(rng))};
        const Vec3 up = pose.linear().transpose() * Vec3::UnitY(); // the ground normal in A's frame
        const Result full =
            query(forest, f, pose, ground, ContactMode::Full, TraversalOrder::MaxDistance, tolerance);
        const Real footprint = test::contactHullArea(full.contacts, up);
        if (full.contacts.size() < 2 * m || !(footprint > 0))
            continue;
        ++poses;
        for (int o = 0; o < 2; ++o)
        {
            const Result r =
                query(forest, f, pose, ground, ContactMode::FixedBudget,
                      o == 0 ? TraversalOrder::MaxDistance : TraversalOrder::BreadthFirst, tolerance, m);
            sum[std::size_t(o)] += test::contactHullArea(r.contacts, up) / footprint;
        }
    }
    EXPECT_GT(poses, 50);
    return {sum[0] / poses, sum[1] / poses};
}

/// TVCG §5.3 (and Fig. 6): with the same m, interleaving the children of colliding nodes spreads the
/// contacts wider than a plain FIFO where nodes have several new children, as after fracture (copies
/// gather children of a splitting node, crack points join their edge point). In the unbroken tree a
/// node has one new child on average, the two orders mostly visit the same points, and on the flat
/// resting pose they pick the same eight; there we only print the means.
TEST(SphereTreeQuery, MaxDistanceOrderSpreadsContactsWiderThanBreadthFirst)
{
    const PlateOnGround plate;
    const std::array<Real, 2> unbroken =
        meanCoverage(plate.forest, {0}, 8, plate.thickness, plate.tolerance, 2013);
    AnalyticFracture fixture(plate.asset->tetMesh, plate.asset->surface);
    SphereForest forest(*plate.asset);
    std::mt19937_64 rng(5);
    for (int event = 0; event < 6; ++event)
        forest.apply(
            test::randomVoronoiSplit(fixture, plate.asset->tetMesh, fixture.largestFragment(), 3, rng),
            plate.asset->tetMesh);
    const std::array<Real, 2> broken =
        meanCoverage(forest, fixture.liveFragments(), 8, plate.thickness, plate.tolerance, 2013);
    EXPECT_GT(broken[0], broken[1]);
    std::cout << "[ order    ] m = 8, mean hull coverage (max-distance / breadth-first): unbroken plate "
              << unbroken[0] << " / " << unbroken[1] << ", " << fixture.liveFragments().size()
              << " fragments after six Voronoi splits " << broken[0] << " / " << broken[1] << "\n";
}

/// Visited nodes of the queries between the live pieces of `state` (test::queryAllFragmentPairs).
Index visitedByAllPairs(const ObjectState& state)
{
    QueryScratch scratch;
    std::vector<Contact> out;
    return test::queryAllFragmentPairs(state, scratch, out).visitedNodes;
}

/// TVCG §7.3, Fig. 15: the fast update culls about as well as recomputing the fragments' trees; and
/// Fig. 17: better than SCA'12's naive restructuring. Three successive Voronoi splits of the plate,
/// applied by each method to its own state; the queries between the pieces visit a few per cent more
/// nodes after the 2013 update than with fresh trees, and more again after SCA'12's (figures in
/// docs/algorithms.md, "Measurements").
TEST(SphereTreeQuery, UpdatedTreesCullAlmostAsWellAsRebuiltOnes)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("plate.obj");
    ObjectStateSettings rebuild;
    rebuild.restructure = RestructureMethod::Rebuild;
    ObjectStateSettings sca;
    sca.restructure = RestructureMethod::Sca2012;
    ObjectState updated(asset), rebuilt(asset, rebuild), naive(asset, sca);
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    std::mt19937_64 rng(15);
    for (int event = 0; event < 3; ++event)
    {
        const FractureResult r =
            test::randomVoronoiSplit(fixture, asset->tetMesh, fixture.largestFragment(), 6, rng);
        updated.apply(r);
        rebuilt.apply(r);
        naive.apply(r);
    }
    const Index u = visitedByAllPairs(updated), f = visitedByAllPairs(rebuilt), n = visitedByAllPairs(naive);
    std::cout << "[ culling  ] " << fixture.liveFragments().size()
              << " plate pieces, visited nodes of all pair queries: 2013 update " << u << ", SCA'12 update "
              << n << ", fresh trees " << f << "\n";
    EXPECT_GT(f, 0u);
    EXPECT_LE(double(u), 1.1 * double(f));
    EXPECT_LE(u, n);
}

/// A tilted plate sunk 4ε at its lowest point: some colliding points are deeper than ε, some not.
TEST(SphereTreeQuery, AdaptiveBudgetGrowsWithDeepContacts)
{
    const PlateOnGround plate;
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() = Eigen::AngleAxisd(0.03, Vec3::UnitX()).toRotationMatrix();
    Real lowest = std::numeric_limits<Real>::infinity();
    for (const Vec3& p : plate.forest.tree().points)
        lowest = std::min(lowest, (pose * p).y());
    const test::PlaneField ground{Vec3::UnitY(), lowest + 4 * plate.tolerance};
    const Result full =
        query(plate.forest, 0, pose, ground, ContactMode::Full, TraversalOrder::MaxDistance, plate.tolerance);
    const Result adaptive = query(plate.forest, 0, pose, ground, ContactMode::Adaptive,
                                  TraversalOrder::MaxDistance, plate.tolerance);
    const Result fixed = query(plate.forest, 0, pose, ground, ContactMode::FixedBudget,
                               TraversalOrder::MaxDistance, plate.tolerance);
    ASSERT_EQ(fixed.contacts.size(), 8u);
    EXPECT_EQ(fixed.budget, 8u);
    EXPECT_LT(fixed.stats.visitedNodes, adaptive.stats.visitedNodes);
    ASSERT_GT(adaptive.contacts.size(), 8u);
    EXPECT_EQ(adaptive.budget, adaptive.contacts.size());
    Index deep = 0;
    for (const Contact& c : full.contacts)
        deep += c.depth < -plate.tolerance;
    EXPECT_LT(adaptive.contacts.size(), full.contacts.size());
    EXPECT_LE(adaptive.contacts.size(), deep + 8);
    for (std::size_t i = 0; i < adaptive.contacts.size(); ++i)
    {
        if (i < 8)
            EXPECT_EQ(adaptive.contacts[i].point, fixed.contacts[i].point); // the same traversal up to STOP
        else
            EXPECT_LT(adaptive.contacts[i].depth, -plate.tolerance); // afterwards only deeper than ε
    }
    std::cout << "[ deep     ] tilted, sunk 4ε: adaptive " << adaptive.contacts.size()
              << " contacts (budget 8 -> " << adaptive.budget << "), full " << full.contacts.size() << " ("
              << deep << " deeper than ε)\n";
}

/// Two halves of the piggy bank, in place, touching along their crack: parallel surfaces.
TEST(SphereTreeQuery, FragmentsTouchingAlongTheirCrackStopEarly)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("piggy_bank.obj");
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    SphereForest forest(*asset);
    const Vec3 c = asset->surface.bounds().center();
    const FractureResult r = *fixture.cutWithPlane(0, Plane{Vec3(1, 0.1, 0.05).normalized(), c.x() + 1e-4});
    state.apply(r);
    forest.apply(r, asset->tetMesh);
    const Real tolerance = defaultContactTolerance(asset->radius());
    const Eigen::Isometry3d identity = Eigen::Isometry3d::Identity();
    for (const auto& [a, b] : {std::pair<FragmentId, FragmentId>{1, 2}, {2, 1}})
    {
        const FragmentFieldView field(state, b);
        const Result adaptive =
            query(forest, a, identity, field, ContactMode::Adaptive, TraversalOrder::MaxDistance, tolerance);
        const Result full =
            query(forest, a, identity, field, ContactMode::Full, TraversalOrder::MaxDistance, tolerance);
        const Result fixed = query(forest, a, identity, field, ContactMode::FixedBudget,
                                   TraversalOrder::MaxDistance, tolerance);
        EXPECT_LE(adaptive.contacts.size(), kInitialContactBudget);
        EXPECT_EQ(adaptive.budget, kInitialContactBudget);
        EXPECT_TRUE(adaptive.stats.earlyTermination);
        for (const Contact& contact : adaptive.contacts)
            EXPECT_LT(std::abs(contact.depth), tolerance);
        EXPECT_LT(adaptive.stats.visitedNodes, full.stats.visitedNodes);
        EXPECT_GT(full.contacts.size(), 10 * adaptive.contacts.size());
        std::cout << "[ crack    ] fragment " << a << " on " << b << ": adaptive " << adaptive.contacts.size()
                  << " contacts, " << adaptive.stats.visitedNodes << " visited nodes, "
                  << adaptive.stats.insideTests << " inside tests; fixed budget " << fixed.stats.visitedNodes
                  << " visited nodes; full " << full.contacts.size() << " contacts, "
                  << full.stats.visitedNodes << " visited nodes, " << full.stats.insideTests
                  << " inside tests\n";
    }
}

Eigen::Isometry3d randomPose(std::mt19937_64& rng, const Vec3& from, const Vec3& to, Real spread)
{
    std::normal_distribution<Real> g;
    const Eigen::Quaterniond q = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized();
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() = q.toRotationMatrix();
    pose.translation() = to + spread * Vec3(g(rng), g(rng), g(rng)) - pose.linear() * from;
    return pose;
}

template <class Field>
void expectAlgorithmInvariants(const SphereForest& forest, FragmentId f, const Eigen::Isometry3d& pose,
                               const Field& field, Real tolerance)
{
    const std::vector<Contact> brute = test::bruteForceContacts(forest, f, pose, field, tolerance);
    for (const TraversalOrder order : {TraversalOrder::MaxDistance, TraversalOrder::BreadthFirst})
    {
        const Result full = query(forest, f, pose, field, ContactMode::Full, order, tolerance);
        ASSERT_EQ(pointsOf(full.contacts), pointsOf(brute));
        const Result adaptive = query(forest, f, pose, field, ContactMode::Adaptive, order, tolerance);
        const std::vector<Index> all = pointsOf(full.contacts), some = pointsOf(adaptive.contacts);
        ASSERT_TRUE(std::includes(all.begin(), all.end(), some.begin(), some.end()));
        ASSERT_EQ(std::adjacent_find(some.begin(), some.end()), some.end()) << "a point reported twice";
        ASSERT_LE(adaptive.stats.insideTests, adaptive.stats.visitedNodes);
        const Result again = query(forest, f, pose, field, ContactMode::Adaptive, order, tolerance);
        ASSERT_EQ(again.contacts.size(), adaptive.contacts.size());
        for (std::size_t i = 0; i < again.contacts.size(); ++i)
            ASSERT_TRUE(again.contacts[i].point == adaptive.contacts[i].point &&
                        again.contacts[i].depth == adaptive.contacts[i].depth &&
                        again.contacts[i].normal == adaptive.contacts[i].normal);
    }
}

TEST(SphereTreeQuery, FullIsBruteForceAndAdaptiveIsASubsetOnRandomPoses)
{
    const std::shared_ptr<const Asset> asset = test::cachedMeshAsset("piggy_bank.obj");
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    SphereForest forest(*asset);
    std::mt19937_64 rng(1234);
    for (int event = 0; event < 3; ++event)
    {
        const FractureResult r =
            test::randomVoronoiSplit(fixture, asset->tetMesh, fixture.largestFragment(), 3, rng);
        state.apply(r);
        forest.apply(r, asset->tetMesh);
    }
    const Real tolerance = defaultContactTolerance(asset->radius());
    const std::vector<FragmentId> live = fixture.liveFragments();
    Index colliding = 0;
    for (int trial = 0; trial < 12; ++trial)
    {
        const FragmentId a = live[std::size_t(trial) % live.size()];
        const FragmentId b = live[std::size_t(trial + 1) % live.size()];
        const Vec3 centerA = state.fragment(a).bounds.center();
        const Eigen::Isometry3d pose =
            randomPose(rng, centerA, state.fragment(b).bounds.center(), 0.2 * asset->radius());
        SCOPED_TRACE("trial " + std::to_string(trial));
        expectAlgorithmInvariants(forest, a, pose, FragmentFieldView(state, b), tolerance);
        const test::BallField ball{pose * centerA + Vec3(0.1, 0, 0) * asset->radius(), 0.4 * asset->radius()};
        expectAlgorithmInvariants(forest, a, pose, ball, tolerance);
        colliding += Index(test::bruteForceContacts(forest, a, pose, ball, tolerance).size());
    }
    EXPECT_GT(colliding, 0u);
}

TEST(SphereTreeQuery, NoAllocationOnceWarm)
{
    const PlateOnGround plate;
    const test::PlaneField ground = plate.ground(0.01 * plate.thickness);
    QueryScratch scratch;
    std::vector<Contact> out;
    out.reserve(plate.forest.pointCount());
    Index budget = kInitialContactBudget;
    const QuerySettings options{ContactMode::Full, TraversalOrder::MaxDistance, plate.tolerance};
    collide(plate.forest, 0, Eigen::Isometry3d::Identity(), ground, options, budget, scratch, out);
    const auto buffers = [&]
    {
        std::vector<const void*> b{scratch.points.data(), scratch.current.data(), scratch.next.data(),
                                   out.data()};
        std::sort(b.begin(), b.end());
        return b;
    };
    const std::vector<const void*> warm = buffers();
    for (int i = 0; i < 3; ++i)
    {
        out.clear();
        collide(plate.forest, 0, Eigen::Isometry3d::Identity(), ground, options, budget, scratch, out);
        EXPECT_EQ(buffers(), warm);
    }
}

// Query settings are validated once, before any query (collide() runs inside Bullet's dispatcher and
// only asserts them).
TEST(SphereTreeQuery, RejectsBadSettings)
{
    EXPECT_TRUE(querySettingsValid(QuerySettings{}, kInitialContactBudget));
    EXPECT_NO_THROW(checkQuerySettings(QuerySettings{}, kInitialContactBudget));
    EXPECT_FALSE(querySettingsValid(QuerySettings{.tolerance = -1}, kInitialContactBudget));
    EXPECT_THROW(checkQuerySettings(QuerySettings{.tolerance = -1}, kInitialContactBudget), Error);
    const Real nan = std::numeric_limits<Real>::quiet_NaN();
    EXPECT_FALSE(querySettingsValid(QuerySettings{.speculative = nan}, kInitialContactBudget));
    EXPECT_THROW(checkQuerySettings(QuerySettings{.speculative = nan}, kInitialContactBudget), Error);
    EXPECT_FALSE(querySettingsValid(QuerySettings{}, 0));
    EXPECT_THROW(checkQuerySettings(QuerySettings{}, 0), Error);
    EXPECT_TRUE(querySettingsValid(QuerySettings{.mode = ContactMode::Full}, 0)); // Full has no budget
    EXPECT_FALSE(querySettingsValid(QuerySettings{.contactLimit = 0}, kInitialContactBudget));
    EXPECT_THROW(checkQuerySettings(QuerySettings{.contactLimit = 0}, kInitialContactBudget), Error);
}

} // namespace
} // namespace shatter
