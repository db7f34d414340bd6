// Anchored static objects (ObjectSettings::anchorBoxes, anchorNodes): a plate standing on its edge as
// a wall, anchored along its bottom 4 cm, struck near the top. The pieces holding an anchored tet node
// stay static where they were; the others are dynamic and fall; a second blow on an anchored piece
// splits it the same way. Anchors on a dynamic object, empty boxes and bad node ids are rejected.
#include "bullet_world.h"
#include "test_env.h"

#include "cvd.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;
constexpr Real kAnchorZ = 0.09; // material z above which a node anchors: the wall's bottom 4 cm

struct Wall
{
    BulletWorld world;
    std::unique_ptr<FractureSystem> system;
    ObjectId wall = 0;
    Eigen::Isometry3d pose;

    Wall()
    {
        world.addGroundPlane(0);
        FractureSystemSettings settings;
        settings.seed = 5;
        system = std::make_unique<FractureSystem>(world.world(), world.collision(), settings);
        // Upright: material z (the disc's radius) points down, material y (its thickness) along world z.
        const Eigen::Matrix3d upright = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()).toRotationMatrix();
        pose = placement(Vec3(0, 0.1317, 0), upright);
        ObjectSettings options;
        options.dynamic = false;
        options.anchorBoxes.push_back(Eigen::AlignedBox3d(Vec3(-1, -1, kAnchorZ), Vec3(1, 1, 1)));
        wall = system->addObject(bulletAsset("plate.obj"), glass(), pose, options);
    }
    // Strikes live fragment `fragment` at material point `point` through the wall's thickness.
    std::optional<FractureEvent> strike(FragmentId fragment, const Vec3& point)
    {
        const Vec3 world = pose * point;
        const Vec3 impulse(0, 0, -6);
        return system->breakWithImpulses(wall, fragment, std::span(&world, 1), std::span(&impulse, 1), kDt);
    }
    bool nodeAnchored(FragmentId f) const
    {
        const ObjectState& state = system->state(wall);
        for (Index n : fragmentRegion(state.field(), f).nodes)
            if (state.asset().tetMesh.nodes[n].z() >= kAnchorZ)
                return true;
        return false;
    }
};

TEST(Anchors, AWallAnchoredAtItsFootKeepsTheFootAndDropsTheRest)
{
    Wall w;
    const std::optional<FractureEvent> event = w.strike(0, Vec3(0, 0.01, -0.11));
    ASSERT_TRUE(event.has_value()) << "the blow did not break the wall";
    std::map<FragmentId, Eigen::Vector3d> start;
    int anchored = 0, loose = 0;
    for (std::size_t i = 0; i < event->fragments.size(); ++i)
    {
        const btRigidBody* body = event->fragmentBodies[i];
        const bool expected = w.nodeAnchored(event->fragments[i]);
        EXPECT_EQ(body->isStaticObject(), expected) << "fragment " << event->fragments[i];
        (expected ? anchored : loose) += 1;
        const btVector3 c = body->getCenterOfMassPosition();
        start[event->fragments[i]] = Vec3(c.x(), c.y(), c.z());
    }
    ASSERT_GT(anchored, 0);
    ASSERT_GT(loose, 0);
    for (int step = 0; step < 120; ++step)
        w.world.step(kDt);
    // The foot did not move; the loose pieces above it fell.
    int fell = 0;
    for (btRigidBody* body : w.system->bodies(w.wall))
    {
        ObjectId object = 0;
        FragmentId f = 0;
        ASSERT_TRUE(w.system->lookup(body, object, f));
        if (!start.contains(f))
            continue; // a piece of a later break
        const btVector3 c = body->getCenterOfMassPosition();
        const Real drop = start[f].y() - Real(c.y());
        if (body->isStaticObject())
            EXPECT_EQ(drop, 0) << "an anchored piece moved";
        else
            fell += drop > 0.01 ? 1 : 0;
    }
    EXPECT_GT(fell, 0) << "no loose piece fell";

    // A blow on an anchored piece: its own pieces are split by the same rule.
    FragmentId foot = 0;
    for (std::size_t i = 0; i < event->fragments.size(); ++i)
        if (w.nodeAnchored(event->fragments[i]))
            foot = event->fragments[i];
    const std::optional<FractureEvent> again = w.strike(foot, Vec3(0, 0.01, 0.1));
    ASSERT_TRUE(again.has_value()) << "the second blow did not break the foot";
    for (std::size_t i = 0; i < again->fragments.size(); ++i)
        EXPECT_EQ(again->fragmentBodies[i]->isStaticObject(), w.nodeAnchored(again->fragments[i]));
}

TEST(Anchors, BadAnchorsAreRejected)
{
    BulletWorld world;
    FractureSystem system(world.world(), world.collision());
    const auto asset = bulletAsset("plate.obj");
    auto add = [&](ObjectSettings options)
    {
        system.addObject(asset, glass(), placement(Vec3(0, 1, 0)), options);
    };
    ObjectSettings dynamic;
    dynamic.anchorNodes = {0};
    EXPECT_THROW(add(dynamic), Error);
    ObjectSettings empty;
    empty.dynamic = false;
    empty.anchorBoxes.push_back(Eigen::AlignedBox3d(Vec3(5, 5, 5), Vec3(6, 6, 6)));
    EXPECT_THROW(add(empty), Error); // holds no node
    ObjectSettings inverted;
    inverted.dynamic = false;
    inverted.anchorBoxes.push_back(Eigen::AlignedBox3d(Vec3(1, 1, 1), Vec3(-1, -1, -1)));
    EXPECT_THROW(add(inverted), Error);
    ObjectSettings node;
    node.dynamic = false;
    node.anchorNodes = {asset->tetMesh.nodeCount()};
    EXPECT_THROW(add(node), Error);
    node.anchorNodes = {0};
    EXPECT_NO_THROW(add(node));
}

} // namespace
} // namespace shatter::test
