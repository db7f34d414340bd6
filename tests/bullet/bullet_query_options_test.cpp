// The two query options the Bullet plugin's narrow phase relies on (sphere_tree_query.h): the
// speculative band (contacts up to ε + s away that do not count toward the budget m, TVCG §5.2) and
// the contact limit that bounds Adaptive's deep phase. Checked against the brute-force reference on
// the plate asset over an analytic ground plane.
#include "sphere_tree_fixtures.h"

#include "shatter/error.h"
#include "sphere_forest.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace shatter::test
{
namespace
{

struct Plate
{
    std::shared_ptr<const Asset> asset = cachedMeshAsset("plate.obj");
    SphereForest forest{*asset};
    Real radius = 0.5 * asset->surface.bounds().extent().norm();
    Real eps = defaultContactTolerance(radius);
};

Eigen::Isometry3d lifted(Real height)
{
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.translation() = Vec3(0, height, 0);
    return t;
}

TEST(QuerySettings, SpeculativeBandReportsApproachingPointsWithoutSpendingTheBudget)
{
    const Plate plate;
    const PlaneField ground; // y < 0
    // The plate hovers 3ε above the ground: nothing within ε, every bottom point within ε + 4ε.
    const Eigen::Isometry3d aToB = lifted(3 * plate.eps);
    QueryScratch scratch;
    std::vector<Contact> out;

    QuerySettings plain;
    plain.tolerance = plate.eps;
    Index budget = kInitialContactBudget;
    collide(plate.forest, 0, aToB, ground, plain, budget, scratch, out);
    EXPECT_TRUE(out.empty()); // without the band there is nothing to report

    QuerySettings speculative = plain;
    speculative.speculative = 4 * plate.eps;
    QueryStats stats;
    collide(plate.forest, 0, aToB, ground, speculative, budget, scratch, out, &stats);
    // Speculative contacts do not fill m, so the query never stops early and reports every point
    // within ε + s: exactly the brute-force set for that band.
    const std::vector<Contact> reference = bruteForceContacts(plate.forest, 0, aToB, ground, 5 * plate.eps);
    ASSERT_GT(reference.size(), std::size_t(kInitialContactBudget));
    EXPECT_EQ(out.size(), reference.size());
    EXPECT_FALSE(stats.earlyTermination);
    EXPECT_EQ(stats.collidingPoints, 0u);
    EXPECT_EQ(budget, kInitialContactBudget);
    for (const Contact& c : out)
    {
        EXPECT_GE(c.depth, plate.eps);
        EXPECT_LT(c.depth, 5 * plate.eps);
    }

    QuerySettings negative = plain;
    negative.speculative = -1;
    // Settings are validated once, before any query (collide() runs inside Bullet and only asserts).
    EXPECT_FALSE(querySettingsValid(negative, budget));
    EXPECT_THROW(checkQuerySettings(negative, budget), Error);
}

TEST(QuerySettings, ContactLimitBoundsTheDeepPhase)
{
    const Plate plate;
    const PlaneField ground;
    // Sunk by 3ε: every bottom point is deeper than ε, so Adaptive would take all of them.
    const Eigen::Isometry3d aToB = lifted(-3 * plate.eps);
    QueryScratch scratch;
    QuerySettings options;
    options.tolerance = plate.eps;

    std::vector<Contact> all;
    Index budget = kInitialContactBudget;
    collide(plate.forest, 0, aToB, ground, options, budget, scratch, all);
    ASSERT_GT(all.size(), std::size_t(40));

    options.contactLimit = 20;
    std::vector<Contact> limited;
    Index limitedBudget = kInitialContactBudget;
    QueryStats stats;
    collide(plate.forest, 0, aToB, ground, options, limitedBudget, scratch, limited, &stats);
    EXPECT_EQ(limited.size(), std::size_t(20));
    EXPECT_TRUE(stats.earlyTermination);
    // The limited query is a prefix of the unlimited one (same traversal, stopped earlier).
    for (std::size_t i = 0; i < limited.size(); ++i)
        EXPECT_EQ(limited[i].point, all[i].point);
    EXPECT_LT(limitedBudget, budget);

    options.contactLimit = 0;
    EXPECT_FALSE(querySettingsValid(options, limitedBudget));
    EXPECT_THROW(checkQuerySettings(options, limitedBudget), Error);
}

} // namespace
} // namespace shatter::test
