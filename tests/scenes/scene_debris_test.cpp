// DebrisSettings::maxBodies in the shipped drop_piggies scene (twenty piggy banks falling into a pile):
// with a budget of 50 bodies the system never holds more after a step, onRemove fires once for each
// removed piece (with its body still in the world), and the run stays above the ground.
#include "shatter/scenes/scene_world.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

namespace shatter::scenes
{
namespace
{

TEST(SceneDebris, DropPiggiesWithABudgetOfFiftyNeverHoldsMore)
{
    const Scene scene = loadScene(builtInScenePath("drop_piggies"));
    SceneWorld world(scene);
    fracture::FractureSystem& system = world.fracture();
    long calls = 0, inWorld = 0;
    system.settings().debris.maxBodies = 50;
    system.settings().debris.onRemove = [&](const fracture::DebrisRemoval& removal)
    {
        ++calls;
        const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
        inWorld += objects.findLinearSearch(removal.body) < objects.size() ? 1 : 0;
        EXPECT_EQ(removal.reason, fracture::DebrisReason::Budget);
    };
    const int steps = int(scene.duration / scene.timeStep + 0.5);
    long removed = 0, events = 0, most = 0;
    for (int i = 0; i < steps; ++i)
    {
        const StepStats& stats = world.step();
        removed += system.lastStepStats().debrisRemoved;
        events += stats.fractureEvents;
        long bodies = 0;
        for (fracture::ObjectId object : system.objects())
            bodies += long(system.bodies(object).size());
        most = std::max(most, bodies);
        ASSERT_LE(bodies, 50) << "step " << i;
    }
    std::printf("[debris] drop_piggies, budget 50: %ld events, %ld pieces removed, at most %ld bodies\n",
                events, removed, most);
    EXPECT_GT(events, 0);
    EXPECT_GT(removed, 0) << "the budget was never reached: the test says nothing";
    EXPECT_EQ(calls, removed);
    EXPECT_EQ(inWorld, calls);
    EXPECT_EQ(most, 50);
    EXPECT_GT(world.summary().lowestBodyY, -0.05);
}

} // namespace
} // namespace shatter::scenes
