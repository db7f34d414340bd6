// The registration's collision statistics (CollisionStatistics in shatter/collision.h, TVCG Table 2)
// and the three contact modes a scene runner can pick (--contacts adaptive|full|fixed8): each mode
// lets a plate come to rest, and the counters agree with what reaches Bullet's manifolds.
#include "bullet_world.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120.0;

struct ModeRun
{
    CollisionStatistics total;
    long manifoldContacts = 0; // contacts in the pair's manifolds after each step, summed
    int steps = 0;
    Real speed = 0;
    Real lowest = 0;
};

ModeRun restPlate(ContactMode mode)
{
    WorldSettings options;
    options.variants.contacts = mode;
    BulletWorld world(options);
    btRigidBody* ground = world.addGroundPlane();
    btRigidBody* plate = world.addFracturable(freshState("plate.obj"), 0, placement(Vec3(0, 0.01, 0)));
    ModeRun run;
    run.steps = int(std::lround(1.5 / kDt));
    for (int s = 0; s < run.steps; ++s)
    {
        world.step(kDt);
        run.manifoldContacts += world.contacts(plate, ground);
    }
    run.total = world.collision().statistics();
    run.speed = surfaceSpeed(*plate);
    run.lowest = lowestPoint(*plate);
    return run;
}

TEST(CollisionStatistics, CountPairsContactsAndCollidingPointsPerMode)
{
    const ModeRun adaptive = restPlate(ContactMode::Adaptive);
    const ModeRun full = restPlate(ContactMode::Full);
    const ModeRun fixed = restPlate(ContactMode::FixedBudget);
    for (const auto& [name, run] : {std::pair{"adaptive", adaptive}, {"full", full}, {"fixed8", fixed}})
    {
        std::printf("%s: %ld pair evaluations with contacts, %ld output contacts, %ld colliding points in %d "
                    "steps; final speed %.3g mm/s, lowest point %.3g mm\n",
                    name, run.total.pairs, run.total.outputContacts, run.total.collidingPoints, run.steps,
                    run.speed * 1e3, run.lowest * 1e3);
        // The plate falls 1 cm: it touches the ground from the second tenth of a second on.
        EXPECT_GT(run.total.pairs, run.steps / 2) << name;
        EXPECT_LE(run.total.pairs, run.steps) << name;
        // Every contact the algorithm output reached a manifold (none are dropped on the way).
        EXPECT_EQ(run.total.outputContacts, run.manifoldContacts) << name;
        EXPECT_LT(run.speed, 1e-3) << name;
        EXPECT_GT(run.lowest, -1e-3) << name;
    }
    // Full outputs every colliding point; the budgeted modes far fewer, and at most 8 per pair at rest
    // for FixedBudget (plus speculative ones while falling).
    EXPECT_GT(full.total.outputContacts, 4 * adaptive.total.outputContacts);
    EXPECT_GT(full.total.collidingPoints, adaptive.total.collidingPoints);
    EXPECT_LE(adaptive.total.outputContacts, 32 * adaptive.total.pairs);
    EXPECT_GE(adaptive.total.outputContacts, 3 * adaptive.total.pairs);
}

TEST(CollisionStatistics, PerRegistrationResetAndQueriesDoNotCount)
{
    BulletWorld a;
    BulletWorld b;
    a.addGroundPlane();
    btRigidBody* plate = a.addFracturable(freshState("plate.obj"), 0, placement(Vec3(0, 0.0, 0)));
    b.addGroundPlane();
    for (int s = 0; s < 10; ++s)
        a.step(kDt);
    const CollisionStatistics counted = a.collision().statistics();
    EXPECT_EQ(counted.pairs, 10);
    EXPECT_GE(counted.outputContacts, 30);
    EXPECT_GE(counted.collidingPoints, 30);

    // The other world has its own counters.
    b.step(kDt);
    EXPECT_EQ(b.collision().statistics().pairs, 0);

    // contactTest goes through the closest-point table: it reports contacts but does not count.
    struct Count : btCollisionWorld::ContactResultCallback
    {
        int points = 0;
        btScalar addSingleResult(btManifoldPoint&, const btCollisionObjectWrapper*, int, int,
                                 const btCollisionObjectWrapper*, int, int) override
        {
            ++points;
            return 0;
        }
    } callback;
    a.world().contactTest(plate, callback);
    EXPECT_GT(callback.points, 0);
    EXPECT_EQ(a.collision().statistics().outputContacts, counted.outputContacts);

    a.collision().resetStatistics();
    const CollisionStatistics zero = a.collision().statistics();
    EXPECT_EQ(zero.pairs, 0);
    EXPECT_EQ(zero.outputContacts, 0);
    EXPECT_EQ(zero.collidingPoints, 0);
    a.step(kDt);
    EXPECT_EQ(a.collision().statistics().pairs, 1);

    EXPECT_EQ(a.collision().statistics().failures, 0);
}

// Nothing throws through Bullet: a pair whose query throws inside the dispatcher (here: an ObjectState
// whose sphere forest was wiped behind its shape's back, which only in-tree code can do) outputs no
// contacts, the step completes, and the failure is counted, kept and logged.
TEST(CollisionStatistics, ACorruptFragmentFailsItsPairNotTheStep)
{
    std::vector<std::string> logged;
    WorldSettings options;
    options.collision.log = [&](const std::string& message)
    {
        logged.push_back(message);
    };
    BulletWorld world(options);
    btRigidBody* ground = world.addGroundPlane();
    const std::shared_ptr<ObjectState> state = freshState("plate.obj");
    btRigidBody* plate = world.addFracturable(state, 0, placement(Vec3(0, 0.0, 0)));
    world.step(kDt);
    EXPECT_GT(world.contacts(plate, ground), 0);
    EXPECT_EQ(world.collision().statistics().failures, 0);

    const_cast<SphereForest&>(state->sphereForest()) = SphereForest();
    ASSERT_NO_THROW(world.step(kDt));
    const CollisionStatistics st = world.collision().statistics();
    EXPECT_EQ(st.failures, 1);
    EXPECT_NE(st.lastError.find("not alive"), std::string::npos) << st.lastError;
    EXPECT_EQ(world.contacts(plate, ground), 0) << "a failed pair outputs no contacts";
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_EQ(logged[0], st.lastError);
    world.collision().resetStatistics();
    EXPECT_EQ(world.collision().statistics().failures, 0);
    EXPECT_TRUE(world.collision().statistics().lastError.empty());
}

} // namespace
} // namespace shatter::test
