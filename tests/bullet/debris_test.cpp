// DebrisSettings on a plate dropped from 4 m (about twenty pieces):
//  - removeBelowVolume: no piece below it has a body after the step it appeared in;
//  - removeAfterSleeping: only pieces Bullet put to sleep (zero velocity) go, after that long asleep;
//  - freezeBelowVolume: sleeping pieces become static bodies where they lie;
//  - maxBodies: the smallest pieces go first, and never an unbroken object;
//  - every removal calls onRemove once with the body still in the world; bad settings are rejected.
#include "bullet_world.h"
#include "fracture_system_internal.h"
#include "test_env.h"

#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;

struct Removed
{
    int calls = 0;
    int inWorld = 0;
    std::vector<DebrisRemoval> removals;
    std::vector<Real> speeds; // |v| + |ω| of each body at its removal
};

struct PlateDrop
{
    BulletWorld world;
    std::unique_ptr<FractureSystem> system;
    ObjectId plate = 0;
    ObjectId witness = 0; // an unbroken plate lying aside: never debris
    Removed removed;
    int statsRemoved = 0, statsFrozen = 0;

    explicit PlateDrop(DebrisSettings debris)
    {
        world.addGroundPlane(0);
        FractureSystemSettings settings;
        settings.seed = 3;
        settings.debris = std::move(debris);
        settings.debris.onRemove = [this](const DebrisRemoval& r)
        {
            ++removed.calls;
            const btCollisionObjectArray& objects = world.world().getCollisionObjectArray();
            removed.inWorld += objects.findLinearSearch(r.body) < objects.size() ? 1 : 0;
            removed.removals.push_back(r);
            removed.speeds.push_back(
                Real(r.body->getLinearVelocity().length() + r.body->getAngularVelocity().length()));
        };
        system = std::make_unique<FractureSystem>(world.world(), world.collision(), settings);
        ObjectSettings options;
        options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * 4.0), 0);
        const Eigen::Matrix3d tilt = Eigen::AngleAxisd(0.15, Vec3(1, 0, 0.3).normalized()).toRotationMatrix();
        plate =
            system->addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.08, 0), tilt), options);
        witness = system->addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(2, 0.02, 0)));
    }
    void step(int steps)
    {
        for (int i = 0; i < steps; ++i)
        {
            world.step(kDt);
            statsRemoved += system->lastStepStats().debrisRemoved;
            statsFrozen += system->lastStepStats().debrisFrozen;
        }
    }
    Real volume(const btRigidBody* body) const
    {
        ObjectId object = 0;
        FragmentId fragment = 0;
        EXPECT_TRUE(system->lookup(body, object, fragment));
        return system->state(object).fragmentMesh(fragment)->surface.signedVolume();
    }
};

TEST(Debris, PiecesBelowTheVolumeAreRemovedInTheStepTheyAppear)
{
    // Most pieces of this drop are smaller (18 of 20 go), the largest stay.
    const Real threshold = 2e-5;
    DebrisSettings debris;
    debris.removeBelowVolume = threshold;
    PlateDrop drop(debris);
    int events = 0;
    for (int i = 0; i < 120; ++i)
    {
        drop.step(1);
        events += int(drop.system->lastStepEvents().size());
        for (const btRigidBody* body : drop.system->bodies(drop.plate))
            EXPECT_GE(drop.volume(body), threshold * (1 - 1e-9)) << "step " << i;
    }
    ASSERT_GT(events, 0);
    EXPECT_GT(drop.removed.calls, 0);
    EXPECT_GT(drop.system->bodies(drop.plate).size(), 1u) << "every piece went: pick a smaller threshold";
    EXPECT_EQ(drop.removed.calls, drop.statsRemoved);
    EXPECT_EQ(drop.removed.inWorld, drop.removed.calls);
    for (const DebrisRemoval& r : drop.removed.removals)
        EXPECT_EQ(r.reason, DebrisReason::Volume);
    EXPECT_EQ(drop.system->bodies(drop.witness).size(), 1u);
}

TEST(Debris, OnlySleepingPiecesAreRemovedAfterSleeping)
{
    DebrisSettings debris;
    debris.removeAfterSleeping = 0.5;
    PlateDrop drop(debris);
    drop.step(120 * 8);
    ASSERT_GT(drop.removed.calls, 0) << "no piece fell asleep in 8 s";
    EXPECT_EQ(drop.removed.calls, drop.statsRemoved);
    for (std::size_t i = 0; i < drop.removed.removals.size(); ++i)
    {
        EXPECT_EQ(drop.removed.removals[i].reason, DebrisReason::Sleep);
        EXPECT_EQ(drop.removed.speeds[i], 0) << "a moving piece was removed";
    }
    for (const btRigidBody* body : drop.system->bodies(drop.plate))
        EXPECT_NE(body->getActivationState(), ISLAND_SLEEPING) << "a piece asleep for long stayed";
    EXPECT_EQ(drop.system->bodies(drop.witness).size(), 1u) << "an unbroken object is never debris";
}

TEST(Debris, SleepingSmallPiecesFreezeWhereTheyLie)
{
    DebrisSettings debris;
    debris.freezeBelowVolume = 1; // every piece
    PlateDrop drop(debris);
    drop.step(120 * 8);
    const std::vector<btRigidBody*> bodies = drop.system->bodies(drop.plate);
    ASSERT_GT(bodies.size(), 1u);
    int frozen = 0;
    for (const btRigidBody* body : bodies)
        if (body->isStaticObject())
        {
            ++frozen;
            EXPECT_EQ(body->getInvMass(), 0);
            EXPECT_GT(body->getCenterOfMassPosition().y(), -0.01) << "frozen below the ground";
        }
    EXPECT_GT(frozen, 0);
    EXPECT_EQ(frozen, drop.statsFrozen);
    EXPECT_EQ(drop.removed.calls, 0);
    EXPECT_FALSE(drop.system->bodies(drop.witness).front()->isStaticObject());
}

TEST(Debris, TheBudgetRemovesTheSmallestPiecesFirst)
{
    DebrisSettings debris;
    debris.maxBodies = 6;
    PlateDrop drop(debris);
    Real largestRemoved = 0;
    for (int i = 0; i < 120; ++i)
    {
        const std::size_t before = drop.removed.removals.size();
        drop.step(1);
        std::size_t bodies = 0;
        for (ObjectId object : drop.system->objects())
            bodies += drop.system->bodies(object).size();
        EXPECT_LE(bodies, 6u) << "step " << i;
        EXPECT_EQ(drop.system->lastStepStats().liveFragments, Index(bodies));
        // What stays is at least as large as what went in the same step.
        Real smallestKept = std::numeric_limits<Real>::infinity();
        for (const btRigidBody* body : drop.system->bodies(drop.plate))
            smallestKept = std::min(smallestKept, drop.volume(body));
        for (std::size_t r = before; r < drop.removed.removals.size(); ++r)
        {
            const DebrisRemoval& removal = drop.removed.removals[r];
            const Real v =
                drop.system->state(removal.object).fragmentMesh(removal.fragment)->surface.signedVolume();
            largestRemoved = std::max(largestRemoved, v);
            EXPECT_LE(v, smallestKept * (1 + 1e-9)) << "step " << i;
            EXPECT_EQ(removal.reason, DebrisReason::Budget);
            EXPECT_NE(removal.object, drop.witness);
        }
    }
    EXPECT_GT(drop.removed.calls, 0);
    EXPECT_EQ(drop.removed.calls, drop.statsRemoved);
    EXPECT_EQ(drop.removed.inWorld, drop.removed.calls);
    EXPECT_GT(largestRemoved, 0);
}

// A removed piece never breaks again, nor does a removed object: their modal bases leave the pipeline's
// cache with them instead of waiting for its budget (what a long game session would otherwise hold).
TEST(Debris, RemovedPiecesAndObjectsReleaseTheirCachedBases)
{
    PlateDrop drop({});
    drop.step(120);
    const Deformation& model = pipeline(*drop.system).deformationModel();
    const std::size_t prepared = model.cachedRegions();
    ASSERT_GT(drop.system->bodies(drop.plate).size(), 2u);
    ASSERT_GT(prepared, 2u) << "the pieces' bases were not prepared: the test says nothing";

    drop.system->settings().debris.maxBodies = 2; // the witness and the largest piece stay
    drop.step(1);
    ASSERT_EQ(drop.system->bodies(drop.plate).size(), 1u);
    EXPECT_EQ(model.cachedRegions(), 2u) << "the whole plate's basis and the last piece's";

    drop.system->removeObject(drop.plate);
    EXPECT_EQ(model.cachedRegions(), 1u) << "only the whole plate's basis (the witness uses it)";
}

// The same when the object goes while its pieces' preparations are queued or running on the worker (in
// the step it broke, or a few steps later): nothing of the pieces stays cached. A queued preparation never
// runs; one that is running at the removal (a matter of timing, not forced here) is released once done.
TEST(Debris, PreparationsThatOutliveTheirObjectLeaveNothingCached)
{
    for (int delay = 0; delay < 4; ++delay)
    {
        PlateDrop drop({});
        int steps = 0;
        while (drop.system->bodies(drop.plate).size() < 2 && steps < 240)
        {
            drop.step(1);
            ++steps;
        }
        ASSERT_GT(drop.system->bodies(drop.plate).size(), 2u) << "the plate did not break";
        drop.step(delay);
        drop.system->removeObject(drop.plate);
        drop.step(240); // the worker finishes what it had started
        EXPECT_EQ(pipeline(*drop.system).deformationModel().cachedRegions(), 1u)
            << "a preparation's basis stayed after its object went (removed " << delay
            << " steps after the break)";
    }
}

TEST(Debris, BadSettingsAreRejected)
{
    BulletWorld world;
    auto make = [&](auto change)
    {
        FractureSystemSettings settings;
        change(settings.debris);
        FractureSystem system(world.world(), world.collision(), settings);
    };
    EXPECT_THROW(make([](DebrisSettings& d) { d.maxBodies = -1; }), Error);
    EXPECT_THROW(make([](DebrisSettings& d) { d.removeBelowVolume = std::nan(""); }), Error);
    EXPECT_THROW(make([](DebrisSettings& d) { d.freezeBelowVolume = -1; }), Error);
    EXPECT_THROW(make([](DebrisSettings& d) { d.removeAfterSleeping = 0; }), Error);
    EXPECT_NO_THROW(make([](DebrisSettings&) {}));
}

} // namespace
} // namespace shatter::test
