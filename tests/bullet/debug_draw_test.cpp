// FractureSystem::debugDraw through a counting btIDebugDraw: nothing when every switch is off; three
// 12-segment circles per sphere-tree node of the chosen level that a live piece owns; one
// drawContactPoint and one normal line per contact point of the system's bodies; outline edges that
// grow when the plate breaks (the crack borders); the world's own drawer when none is given.
#include "bullet_world.h"
#include "test_env.h"

#include "object_state.h"
#include "shatter/error.h"
#include "sphere_forest.h"

#include <gtest/gtest.h>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

struct CountingDrawer : btIDebugDraw
{
    long lines = 0, contactPoints = 0;
    int mode = DBG_DrawWireframe;
    void drawLine(const btVector3&, const btVector3&, const btVector3&) override { ++lines; }
    void drawContactPoint(const btVector3&, const btVector3&, btScalar, int, const btVector3&) override
    {
        ++contactPoints;
    }
    void reportErrorWarning(const char*) override {}
    void draw3dText(const btVector3&, const char*) override {}
    void setDebugMode(int m) override { mode = m; }
    int getDebugMode() const override { return mode; }
};

long nodesOwnedAtLevel(const FractureSystem& system, ObjectId object, int level)
{
    const ObjectState& state = system.state(object);
    const SphereForest& forest = state.sphereForest();
    std::set<FragmentId> live;
    for (const btRigidBody* body : system.bodies(object))
    {
        ObjectId o = 0;
        FragmentId f = 0;
        system.lookup(body, o, f);
        live.insert(f);
    }
    long count = 0;
    for (Index node = 0; node < forest.tree().nodeCount(); ++node)
        if (!forest.isFree(node) && int(forest.tree().nodes[node].level) == level &&
            live.contains(forest.pointFragment(forest.tree().nodes[node].point)))
            ++count;
    return count;
}

long contactPoints(btDiscreteDynamicsWorld& world, const FractureSystem& system)
{
    long count = 0;
    for (int m = 0; m < world.getDispatcher()->getNumManifolds(); ++m)
    {
        const btPersistentManifold* manifold = world.getDispatcher()->getManifoldByIndexInternal(m);
        ObjectId o = 0;
        FragmentId f = 0;
        if (system.lookup(manifold->getBody0(), o, f) || system.lookup(manifold->getBody1(), o, f))
            count += manifold->getNumContacts();
    }
    return count;
}

TEST(DebugDraw, EachSwitchDrawsWhatItSays)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystem system(world.world(), world.collision());
    const ObjectId plate = system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.001, 0)));
    for (int i = 0; i < 30; ++i)
        world.step(1.0 / 120);

    CountingDrawer off;
    system.debugDraw({}, &off);
    EXPECT_EQ(off.lines + off.contactPoints, 0);

    for (int level : {0, 2, 4})
    {
        CountingDrawer spheres;
        DebugDrawSettings what;
        what.sphereLevel = level;
        system.debugDraw(what, &spheres);
        const long nodes = nodesOwnedAtLevel(system, plate, level);
        EXPECT_GT(nodes, 0);
        EXPECT_EQ(spheres.lines, 3 * 12 * nodes) << "level " << level;
    }

    CountingDrawer contacts;
    DebugDrawSettings what;
    what.contacts = true;
    system.debugDraw(what, &contacts);
    const long points = contactPoints(world.world(), system);
    EXPECT_GT(points, 0) << "the resting plate has no contact";
    EXPECT_EQ(contacts.contactPoints, points);
    EXPECT_EQ(contacts.lines, points);

    CountingDrawer whole;
    what = {};
    what.outlines = true;
    system.debugDraw(what, &whole);
    EXPECT_GT(whole.lines, 0); // the plate's rims
    const Vec3 point(0, 0.021, 0), impulse(0, -3, 0);
    ASSERT_TRUE(system.breakWithImpulses(plate, 0, std::span(&point, 1), std::span(&impulse, 1), 1.0 / 120));
    CountingDrawer broken;
    system.debugDraw(what, &broken);
    EXPECT_GT(broken.lines, whole.lines) << "the crack borders are not drawn";

    // The world's drawer when none is given; nothing without one.
    CountingDrawer worlds;
    EXPECT_NO_THROW(system.debugDraw(what));
    world.world().setDebugDrawer(&worlds);
    system.debugDraw(what);
    EXPECT_EQ(worlds.lines, broken.lines);
    world.world().setDebugDrawer(nullptr);

    what.normalLength = 0;
    EXPECT_THROW(system.debugDraw(what, &worlds), Error);
}

} // namespace
} // namespace shatter::test
