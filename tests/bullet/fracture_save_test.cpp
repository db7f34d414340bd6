// FractureSystem::save and restore:
//  - a plate broken on the floor, saved with a job pending, restores into a fresh world with the same
//    fragments (field, grid and trees bit for bit), the same bodies (poses, velocities, sleep state,
//    user indices, filters) and the same pending job, whose event then gives the same fragments;
//  - the file form round-trips;
//  - a truncated, corrupt, wrong-version or inconsistent save, a missing or different asset and a
//    system that already holds objects are errors naming the source, and leave the system empty.
#include "bullet_world.h"
#include "fracture_fixtures.h"
#include "resealed.h"
#include "test_env.h"

#include "binary_io.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;

AssetLookup lookupOf(const std::shared_ptr<const Asset>& asset)
{
    return [asset](const std::string& name)
    {
        return name == assetInfo(*asset).name ? asset : nullptr;
    };
}

// A plate dropped 4 m onto a floor, stepped until a step ends with a fracture job pending after at
// least one event (so the save holds a history, fragments and a job); its world and system stay alive.
struct BrokenPlate
{
    BulletWorld world;
    std::shared_ptr<const Asset> asset = bulletAsset("plate.obj");
    FractureSystem system;
    ObjectId plate = 0;

    static FractureSystemSettings settings()
    {
        FractureSystemSettings s;
        s.seed = 3;
        s.fragmentReadySteps = 0; // fragments may break again at once: more events, more history
        s.fragmentBasisMs = 0;
        return s;
    }

    BrokenPlate() : system(world.world(), world.collision(), settings())
    {
        world.addGroundPlane(0);
        ObjectSettings options;
        options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * 4.0), 0);
        const Eigen::Matrix3d tilt = Eigen::AngleAxisd(0.15, Vec3(1, 0, 0.3).normalized()).toRotationMatrix();
        plate = system.addObject(asset, glass(), placement(Vec3(0, 0.08, 0), tilt), options);
        system.bodies(plate).front()->setUserIndex(7);
        system.bodies(plate).front()->setUserIndex3(-12);
    }

    // Steps until a job is pending after an event; false if that never happens within `steps`.
    bool stepUntilPendingAfterABreak(int steps)
    {
        for (int i = 0; i < steps; ++i)
        {
            world.step(kDt);
            if (system.totalEvents() > 0 && system.lastStepStats().pendingJobs > 0)
                return true;
        }
        return false;
    }
};

struct EmptyWorld
{
    BulletWorld world;
    FractureSystem system;
    EmptyWorld() : system(world.world(), world.collision(), BrokenPlate::settings())
    {
        world.addGroundPlane(0);
    }
};

void expectSameBodies(const FractureSystem& a, const FractureSystem& b, ObjectId object)
{
    const std::vector<btRigidBody*> ba = a.bodies(object), bb = b.bodies(object);
    ASSERT_EQ(ba.size(), bb.size());
    for (std::size_t i = 0; i < ba.size(); ++i)
    {
        ObjectId oa = 0, ob = 0;
        FragmentId fa = 0, fb = 0;
        ASSERT_TRUE(a.lookup(ba[i], oa, fa));
        ASSERT_TRUE(b.lookup(bb[i], ob, fb));
        EXPECT_EQ(oa, ob);
        EXPECT_EQ(fa, fb);
        EXPECT_EQ(hashBodies({ba[i]}), hashBodies({bb[i]})) << "fragment " << fa;
        EXPECT_EQ(ba[i]->getActivationState(), bb[i]->getActivationState());
        EXPECT_EQ(ba[i]->getDeactivationTime(), bb[i]->getDeactivationTime());
        EXPECT_EQ(ba[i]->getUserIndex(), bb[i]->getUserIndex());
        EXPECT_EQ(ba[i]->getUserIndex3(), bb[i]->getUserIndex3());
        EXPECT_EQ(ba[i]->getBroadphaseHandle()->m_collisionFilterGroup,
                  bb[i]->getBroadphaseHandle()->m_collisionFilterGroup);
        EXPECT_EQ(ba[i]->getBroadphaseHandle()->m_collisionFilterMask,
                  bb[i]->getBroadphaseHandle()->m_collisionFilterMask);
        EXPECT_EQ(ba[i]->getInvMass(), bb[i]->getInvMass());
        EXPECT_TRUE(a.materialToBody(object, fa).isApprox(b.materialToBody(object, fb), 0));
    }
}

TEST(FractureSave, ABrokenPlateRestoresIntoAFreshWorldWithItsPendingJob)
{
    BrokenPlate run;
    ASSERT_TRUE(run.stepUntilPendingAfterABreak(200)) << "the plate never broke with a job pending after";
    const std::vector<std::byte> bytes = run.system.save();

    EmptyWorld restored;
    restored.system.restore(bytes, lookupOf(run.asset), "plate.save");
    ASSERT_EQ(restored.system.objects().size(), 1u);
    EXPECT_EQ(restored.system.objects()[0], run.plate);
    EXPECT_EQ(restored.system.totalEvents(), run.system.totalEvents());
    expectSameObjectState(run.system.state(run.plate), restored.system.state(run.plate));
    expectSameBodies(run.system, restored.system, run.plate);
    EXPECT_EQ(restored.world.world().getNumCollisionObjects(), run.world.world().getNumCollisionObjects());
}

TEST(FractureSave, ARestoredPendingJobBreaksAsItWouldHave)
{
    // Saves at each step that ends with a job pending, until a job saved that way breaks
    // its fragment; the restored system must then take the same event from it (its impact was saved
    // with it), whatever the bodies did meanwhile.
    BrokenPlate run;
    std::vector<std::byte> saved;
    std::uint64_t savedStep = 0, step = 0;
    std::optional<ObjectState> after; // the run's state right after that event
    for (; step < 400 && !after;)
    {
        run.world.step(kDt);
        ++step; // the system counts internal steps from 1, as here
        for (const FractureEvent& e : run.system.lastStepEvents())
            if (!saved.empty() && e.impactStep == savedStep)
                after.emplace(run.system.state(run.plate));
        if (!after && run.system.lastStepStats().pendingJobs > 0 && (saved.empty() || step > savedStep + 3))
        {
            saved = run.system.save();
            savedStep = step;
        }
    }
    ASSERT_TRUE(after.has_value()) << "no saved pending job broke anything";

    EmptyWorld restored;
    restored.system.restore(saved, lookupOf(run.asset), "plate.save");
    bool broke = false;
    for (int i = 0; i < 4 && !broke; ++i)
    {
        restored.world.step(kDt);
        for (const FractureEvent& e : restored.system.lastStepEvents())
            broke = broke || e.impactStep == savedStep;
    }
    ASSERT_TRUE(broke) << "the restored job did not break";
    expectSameObjectState(*after, restored.system.state(run.plate));
}

TEST(FractureSave, TheFileFormRoundTrips)
{
    BrokenPlate run;
    ASSERT_TRUE(run.stepUntilPendingAfterABreak(200));
    const std::filesystem::path file = std::filesystem::path(testing::TempDir()) / "plate.shattersave";
    run.system.save(file);
    EmptyWorld restored;
    restored.system.restore(file, lookupOf(run.asset));
    expectSameObjectState(run.system.state(run.plate), restored.system.state(run.plate));
    expectSameBodies(run.system, restored.system, run.plate);
    EXPECT_EQ(restored.system.save(), run.system.save()) << "a restored system saves the same bytes";
    std::filesystem::remove(file);
}

// The error's message names the source; the system is left without objects or bodies.
void expectRejected(std::span<const std::byte> bytes, const AssetLookup& lookup, const std::string& what)
{
    EmptyWorld target;
    try
    {
        target.system.restore(bytes, lookup, "bad.save");
        ADD_FAILURE() << what << ": accepted";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find("bad.save"), std::string::npos) << what << ": " << e.what();
    }
    EXPECT_TRUE(target.system.objects().empty()) << what;
    EXPECT_EQ(target.world.world().getNumCollisionObjects(), 1) << what << ": only the ground stays";
}

TEST(FractureSave, BadSavesAreErrorsThatLeaveTheSystemEmpty)
{
    BrokenPlate run;
    ASSERT_TRUE(run.stepUntilPendingAfterABreak(200));
    const std::vector<std::byte> good = run.system.save();
    const AssetLookup lookup = lookupOf(run.asset);

    for (std::size_t size :
         {std::size_t(0), std::size_t(10), kFramedHeaderSize, good.size() / 2, good.size() - 1})
        expectRejected(std::span<const std::byte>(good).first(size), lookup, "truncated");
    std::vector<std::byte> bad = good;
    bad[good.size() / 3] ^= std::byte{0x10};
    expectRejected(bad, lookup, "a flipped bit");
    bad = good;
    bad[8] = std::byte{99};
    expectRejected(bad, lookup, "another format version");
    bad = good;
    bad[0] = std::byte{'X'};
    expectRejected(bad, lookup, "not a save file");
    expectRejected(
        good, [](const std::string&) { return nullptr; }, "no asset");
    const std::shared_ptr<const Asset> other = bulletAsset("brick.obj");
    expectRejected(
        good, [&](const std::string&) { return other; }, "another asset");
    std::vector<std::byte> padded = good;
    padded.push_back(std::byte{0});
    expectRejected(resealed(std::vector<std::byte>(padded)), lookup, "bytes after the end");

    // Random edits with a valid checksum: each restores or is an error, never a crash or a half state.
    std::mt19937_64 rng(11);
    int rejected = 0;
    for (int i = 0; i < 30; ++i)
    {
        bad = good;
        const std::size_t at = kFramedHeaderSize + rng() % (good.size() - kFramedHeaderSize);
        bad[at] = std::byte(rng() & 0xff);
        bad = resealed(std::move(bad));
        EmptyWorld target;
        try
        {
            target.system.restore(bad, lookup, "bad.save");
        }
        catch (const Error& e)
        {
            ++rejected;
            EXPECT_NE(std::string(e.what()).find("bad.save"), std::string::npos) << e.what();
            EXPECT_TRUE(target.system.objects().empty());
        }
    }
    EXPECT_GT(rejected, 0);

    // A system that already holds an object.
    EmptyWorld busy;
    busy.system.addObject(run.asset, glass(), placement(Vec3(0, 1, 0)));
    EXPECT_THROW(busy.system.restore(good, lookup, "good.save"), Error);
    EXPECT_EQ(busy.system.objects().size(), 1u) << "the failed restore leaves the existing object";
}

} // namespace
} // namespace shatter::test
