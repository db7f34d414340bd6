// What a long session of one SceneWorld needs (the demo, the soak):
//  - respawn in the shipped plates scene: after a round with fracture, the world holds exactly what a
//    fresh world of the scene holds (the same bodies at the same poses, no balls), the events replay
//    from the respawn on (balls again, plates broken again), and time and history go on;
//  - RunSettings::historyLimit keeps the history from growing with the step count.
#include "shatter/scenes/scene_world.h"

#include "shatter/error.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

namespace shatter::scenes
{
namespace
{

// Every body's world origin, sorted: the world's contents without their order.
std::vector<std::array<btScalar, 3>> origins(SceneWorld& world)
{
    std::vector<std::array<btScalar, 3>> out;
    const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
    for (int i = 0; i < objects.size(); ++i)
    {
        const btVector3& p = objects[i]->getWorldTransform().getOrigin();
        out.push_back({p.x(), p.y(), p.z()});
    }
    std::sort(out.begin(), out.end());
    return out;
}

int balls(SceneWorld& world)
{
    const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
    int n = 0;
    for (int i = 0; i < objects.size(); ++i)
        n += objects[i]->getCollisionShape()->getShapeType() == SPHERE_SHAPE_PROXYTYPE ? 1 : 0;
    return n;
}

long runSteps(SceneWorld& world, int steps)
{
    long events = 0;
    for (int i = 0; i < steps; ++i)
        events += world.step().fractureEvents;
    return events;
}

TEST(SceneRespawn, PlatesBreakAgainAfterARespawnInTheSameWorld)
{
    const Scene scene = loadScene(builtInScenePath("plates"));
    const int roundSteps = int(scene.duration / scene.timeStep + 0.5);
    SceneWorld fresh(scene);
    const auto freshOrigins = origins(fresh);

    SceneWorld world(scene);
    const long firstEvents = runSteps(world, roundSteps);
    ASSERT_GT(firstEvents, 0) << "nothing broke in the first round: the test says nothing";
    const btDiscreteDynamicsWorld* bullet = &world.world();
    ASSERT_NE(origins(world), freshOrigins);

    world.respawn();
    EXPECT_EQ(&world.world(), bullet) << "respawn keeps the Bullet world";
    EXPECT_EQ(world.fracture().objects().size(), scene.objects.size());
    for (fracture::ObjectId object : world.fracture().objects())
        EXPECT_EQ(world.fracture().bodies(object).size(), 1u) << "object " << object << " is not whole";
    EXPECT_EQ(origins(world), freshOrigins) << "not the scene's initial bodies and poses";
    EXPECT_EQ(balls(world), 0);
    EXPECT_EQ(world.stepCount(), roundSteps);
    EXPECT_EQ(int(world.history().size()), roundSteps);

    // The second round: the balls come again at the scene's times after the respawn, and break plates.
    const StepStats& first = world.step();
    EXPECT_DOUBLE_EQ(first.time, (roundSteps + 1) * scene.timeStep);
    const long secondEvents = first.fractureEvents + runSteps(world, roundSteps - 1);
    runSteps(fresh, roundSteps);
    std::printf("[respawn] plates: %ld events in the first round, %ld after the respawn\n", firstEvents,
                secondEvents);
    EXPECT_GT(secondEvents, 0) << "the respawned plates never broke";
    EXPECT_GT(balls(fresh), 0);
    EXPECT_EQ(balls(world), balls(fresh)) << "the scene's balls did not all come again";
    EXPECT_EQ(int(world.history().size()), 2 * roundSteps);
    EXPECT_GT(world.summary().lowestBodyY, -0.05);
}

TEST(SceneHistory, TheLimitKeepsTheLatestSteps)
{
    const Scene scene = loadScene(builtInScenePath("plates"));
    RunSettings options;
    options.fracture = false;
    options.historyLimit = 10;
    SceneWorld world(scene, options);
    for (int i = 1; i <= 55; ++i)
    {
        world.step();
        ASSERT_LE(world.history().size(), 20u) << "step " << i;
        ASSERT_GE(world.history().size(), std::min<std::size_t>(std::size_t(i), 10u));
        EXPECT_EQ(world.history().back().step, i);
        EXPECT_EQ(world.history().front().step, i - int(world.history().size()) + 1);
    }
    EXPECT_EQ(world.summary().steps, int(world.history().size()));

    options.historyLimit = -1;
    EXPECT_THROW(SceneWorld(scene, options), Error);
}

} // namespace
} // namespace shatter::scenes
