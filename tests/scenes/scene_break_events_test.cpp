// FractureSystemSettings::onBreak in a scripted scene: the shipped plates scene (steel balls falling on
// plates on a shelf) calls it exactly once per fracture event the run reports, on the simulation
// thread, with fragment bodies that the world holds at that moment; at the end every body of every
// object carries the user pointer and indices its unbroken object was given.
#include "shatter/scenes/scene_world.h"

#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <map>
#include <thread>

namespace shatter::scenes
{
namespace
{

TEST(SceneBreakEvents, ThePlatesSceneReportsEveryEventOnceWithTheBodiesTheWorldHolds)
{
    const Scene scene = loadScene(builtInScenePath("plates"));
    SceneWorld world(scene);
    fracture::FractureSystem& system = world.fracture();
    const std::thread::id simulationThread = std::this_thread::get_id();

    // Each object's unbroken body gets its own tag.
    std::map<fracture::ObjectId, int> tags;
    for (fracture::ObjectId object : system.objects())
        tags[object] = int(object);
    for (auto& [object, tag] : tags)
        for (btRigidBody* body : system.bodies(object))
        {
            body->setUserPointer(&tag);
            body->setUserIndex(100 + tag);
            body->setUserIndex2(200 + tag);
            body->setUserIndex3(300 + tag);
        }

    long calls = 0, fragments = 0;
    bool otherThread = false;
    system.settings().onBreak = [&](const fracture::FractureEvent& event)
    {
        ++calls;
        fragments += long(event.fragments.size());
        otherThread = otherThread || std::this_thread::get_id() != simulationThread;
        ASSERT_NE(event.parentBody, nullptr);
        EXPECT_EQ(event.parentBody->getUserPointer(), &tags.at(event.object));
        const btCollisionObjectArray& inWorld = world.world().getCollisionObjectArray();
        for (btRigidBody* body : event.fragmentBodies)
            EXPECT_LT(inWorld.findLinearSearch(body), inWorld.size()) << "a fragment body not in the world";
        EXPECT_EQ(event.fragmentBodies.size(), event.fragments.size());
    };
    const int steps = int(scene.duration / scene.timeStep + 0.5);
    long reported = 0;
    for (int i = 0; i < steps; ++i)
    {
        world.step();
        reported += long(system.lastStepEvents().size());
        EXPECT_EQ(calls, reported) << "step " << i;
    }
    ASSERT_GT(calls, 2) << "the plates scene should break several plates";
    EXPECT_FALSE(otherThread);
    EXPECT_EQ(long(system.totalEvents()), calls);
    EXPECT_GT(fragments, calls);

    for (const auto& [object, tag] : tags)
        for (const btRigidBody* body : system.bodies(object))
        {
            EXPECT_EQ(body->getUserPointer(), &tag) << "object " << object;
            EXPECT_EQ(body->getUserIndex(), 100 + tag);
            EXPECT_EQ(body->getUserIndex2(), 200 + tag);
            EXPECT_EQ(body->getUserIndex3(), 300 + tag);
        }
}

} // namespace
} // namespace shatter::scenes
