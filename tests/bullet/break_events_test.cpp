// FractureSystemSettings::onBreak and what fragments inherit:
//  - a plate dropped onto the floor calls it once per event, on the simulation thread, inside the step,
//    with the broken body (out of the world) and the fragments' bodies (in the world, mapped back to the
//    object by lookup); lastStepEvents() holds the same events afterwards, without the broken body;
//  - the fragments carry the broken body's user pointer and user indices, generation after generation;
//  - breakWithImpulses calls it too, and what the callback throws is logged, not thrown.
#include "bullet_world.h"
#include "test_env.h"

#include "shatter/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <thread>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;

bool inWorld(btDiscreteDynamicsWorld& world, const btCollisionObject* body)
{
    return world.getCollisionObjectArray().findLinearSearch(const_cast<btCollisionObject*>(body)) <
           world.getNumCollisionObjects();
}

struct Seen
{
    int calls = 0;
    int insideStep = 0;
    bool otherThread = false;
    std::vector<FractureEvent> events; // copies, as the callback saw them
};

TEST(BreakEvents, APlateDroppedOnTheFloorReportsEachEventOnceWithItsBodies)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.seed = 3;
    Seen seen;
    bool stepping = false;
    const std::thread::id simulationThread = std::this_thread::get_id();
    FractureSystem* systemPointer = nullptr;
    int tag = 0;
    settings.onBreak = [&](const FractureEvent& event)
    {
        ++seen.calls;
        seen.insideStep += stepping ? 1 : 0;
        seen.otherThread = seen.otherThread || std::this_thread::get_id() != simulationThread;
        seen.events.push_back(event);
        // The broken body is out of the world; the fragments are in it, and map back to the object.
        ASSERT_NE(event.parentBody, nullptr);
        EXPECT_FALSE(inWorld(world.world(), event.parentBody));
        EXPECT_EQ(event.parentBody->getUserPointer(), &tag);
        ASSERT_EQ(event.fragmentBodies.size(), event.fragments.size());
        for (std::size_t i = 0; i < event.fragments.size(); ++i)
        {
            EXPECT_TRUE(inWorld(world.world(), event.fragmentBodies[i]));
            ObjectId object = 99;
            FragmentId fragment = 0;
            ASSERT_TRUE(systemPointer->lookup(event.fragmentBodies[i], object, fragment));
            EXPECT_EQ(object, event.object);
            EXPECT_EQ(fragment, event.fragments[i]);
        }
        EXPECT_GT(event.impulse, 0);
        EXPECT_GT(event.energy, 0);
        EXPECT_TRUE(event.impactPoint.allFinite());
        EXPECT_LT(std::abs(event.impactPoint.y()), 0.05) << "the plate hit the floor at y = 0";
        EXPECT_GE(event.step, event.impactStep);
    };
    FractureSystem system(world.world(), world.collision(), settings);
    systemPointer = &system;
    ObjectSettings options;
    options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * 4.0), 0);
    const Eigen::Matrix3d tilt = Eigen::AngleAxisd(0.15, Vec3(1, 0, 0.3).normalized()).toRotationMatrix();
    const ObjectId plate =
        system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.08, 0), tilt), options);
    btRigidBody* whole = system.bodies(plate).front();
    whole->setUserPointer(&tag);
    whole->setUserIndex(7);
    whole->setUserIndex2(-3);
    whole->setUserIndex3(1234);

    std::size_t reported = 0;
    for (int step = 0; step < 90; ++step)
    {
        stepping = true;
        world.step(kDt);
        stepping = false;
        const std::size_t before = reported;
        for (const FractureEvent& event : system.lastStepEvents())
        {
            ASSERT_LT(reported, seen.events.size()) << "an event the callback did not see";
            const FractureEvent& called = seen.events[reported++];
            EXPECT_EQ(event.object, called.object);
            EXPECT_EQ(event.parent, called.parent);
            EXPECT_EQ(event.fragments, called.fragments);
            EXPECT_EQ(event.fragmentBodies, called.fragmentBodies);
            EXPECT_EQ(event.parentBody, nullptr) << "only valid inside the callback";
        }
        EXPECT_EQ(reported, std::size_t(seen.calls))
            << "step " << step << ": " << reported - before << " events reported";
    }
    ASSERT_GT(seen.calls, 0) << "the 4 m drop did not break the plate";
    EXPECT_EQ(seen.insideStep, seen.calls);
    EXPECT_FALSE(seen.otherThread);
    EXPECT_EQ(system.totalEvents(), std::size_t(seen.calls));

    // A second generation: a blow on the first fragment breaks it again.
    ObjectId object = 0;
    FragmentId first = 0;
    ASSERT_TRUE(system.lookup(seen.events.front().fragmentBodies.front(), object, first));
    const btVector3 centre = seen.events.front().fragmentBodies.front()->getCenterOfMassPosition();
    const Vec3 point(centre.x(), centre.y() + 0.005, centre.z());
    const Vec3 impulse(0, -20, 0);
    const std::optional<FractureEvent> again =
        system.breakWithImpulses(plate, first, std::span(&point, 1), std::span(&impulse, 1), kDt);
    ASSERT_TRUE(again.has_value()) << "the blow did not break fragment " << first;
    EXPECT_EQ(again->parent, first);
    EXPECT_EQ(system.totalEvents(), std::size_t(seen.calls));

    // Every live fragment, whatever its generation, carries the plate's user data.
    const std::vector<btRigidBody*> bodies = system.bodies(plate);
    EXPECT_GT(bodies.size(), 1u);
    for (const btRigidBody* body : bodies)
    {
        EXPECT_EQ(body->getUserPointer(), &tag);
        EXPECT_EQ(body->getUserIndex(), 7);
        EXPECT_EQ(body->getUserIndex2(), -3);
        EXPECT_EQ(body->getUserIndex3(), 1234);
    }
}

TEST(BreakEvents, BreakWithImpulsesCallsItAndAThrowingCallbackIsLogged)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    int calls = 0;
    std::vector<std::string> logged;
    settings.onBreak = [&](const FractureEvent& event)
    {
        ++calls;
        EXPECT_NE(event.parentBody, nullptr);
        throw std::runtime_error("the game's handler failed");
    };
    settings.log = [&](const std::string& message)
    {
        logged.push_back(message);
    };
    FractureSystem system(world.world(), world.collision(), settings);
    const ObjectId plate = system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.5, 0)));
    const btRigidBody* body = system.bodies(plate).front();
    const btVector3 centre = body->getCenterOfMassPosition();
    const Vec3 top(centre.x(), centre.y(), centre.z());
    const Vec3 point = top + Vec3(0.02, 0, 0.01);
    const Vec3 impulse(0, -4, 0);
    std::optional<FractureEvent> event;
    ASSERT_NO_THROW(
        event = system.breakWithImpulses(plate, 0, std::span(&point, 1), std::span(&impulse, 1), kDt));
    ASSERT_TRUE(event.has_value()) << "the blow did not break the plate";
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(event->parentBody, nullptr);
    EXPECT_NEAR(event->impulse, 4, 1e-12);
    EXPECT_LT((event->impactPoint - point).norm(), 1e-9);
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_NE(logged[0].find("onBreak threw: the game's handler failed"), std::string::npos) << logged[0];
    // The world goes on.
    EXPECT_NO_THROW(world.step(kDt));
}

} // namespace
} // namespace shatter::test
