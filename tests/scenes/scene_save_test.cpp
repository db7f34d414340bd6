// SceneWorld::save / restore: a fracturing scene saved mid-run and restored into a fresh SceneWorld
// continues bit for bit — the next 200 steps give the same state hash and the same fracture events as
// the run that was never interrupted — and a bad save is a clear error: a file that is not a save
// leaves the world as it was, a save that does not fit leaves it without objects.
#include "../support/resealed.h"
#include "../support/test_env.h"
#include "binary_io.h"
#include "shatter/error.h"
#include "shatter/fracture_system.h"
#include "shatter/scenes/scene_world.h"

#include <gtest/gtest.h>

#include <btBulletDynamicsCommon.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace shatter::scenes
{
namespace
{

constexpr int kContinuation = 200;

struct Continuation
{
    std::string hash;
    std::vector<int> events;    // per step
    std::vector<long> contacts; // per step
};

Continuation continueRun(SceneWorld& world, int steps)
{
    Continuation c;
    for (int i = 0; i < steps; ++i)
    {
        const StepStats& s = world.step();
        c.events.push_back(s.fractureEvents);
        c.contacts.push_back(s.outputContacts);
    }
    c.hash = world.stateHash();
    return c;
}

// Where a run is saved and how far it goes on.
struct SavePoint
{
    int afterFirstBreak = 5;     ///< steps past the first step with a fracture event
    bool mustBreak = true;       ///< fail if nothing breaks; false: save by saveBy anyway
    bool withPendingJob = false; ///< and then on until a fracture job is pending
    int saveBy = 1 << 30;        ///< save at this step at the latest
    int continuation = kContinuation;
};

// Runs `scene` to the save point (so the save holds broken objects, their fragments in contact and, if
// asked, a pending job), saves, and checks that a fresh world restored from the save continues exactly
// as the original does.
void expectSameContinuation(const std::string& sceneName, const RunSettings& options, const SavePoint& at)
{
    const Scene scene = loadScene(builtInScenePath(sceneName));
    SceneWorld original(scene, options);
    int firstEvent = -1;
    const int limit = int(scene.duration / scene.timeStep);
    auto reached = [&](int i)
    {
        if (i >= at.saveBy && !at.mustBreak)
            return true;
        return firstEvent >= 0 && i >= firstEvent + at.afterFirstBreak &&
               (!at.withPendingJob || original.fracture().lastStepStats().pendingJobs > 0);
    };
    for (int i = 0; i < limit && !reached(i); ++i)
        if (original.step().fractureEvents > 0 && firstEvent < 0)
            firstEvent = i;
    if (at.mustBreak)
    {
        ASSERT_GE(firstEvent, 0) << sceneName << " breaks nothing in its duration";
        ASSERT_GT(original.fracture().totalEvents(), 0u);
    }
    if (at.withPendingJob)
    {
        ASSERT_GT(original.fracture().lastStepStats().pendingJobs, 0) << "no fracture job was pending";
    }
    const std::vector<std::byte> bytes = original.save();
    const int savedAt = original.stepCount();

    SceneWorld restored(scene, options);
    restored.restore(bytes, "test save");
    EXPECT_EQ(restored.stepCount(), savedAt);
    EXPECT_EQ(restored.stateHash(), original.stateHash());
    EXPECT_EQ(restored.world().getNumCollisionObjects(), original.world().getNumCollisionObjects());
    EXPECT_EQ(restored.world().getDispatcher()->getNumManifolds(),
              original.world().getDispatcher()->getNumManifolds());
    // What the restored world would save is what it was restored from, byte for byte.
    EXPECT_TRUE(restored.save() == bytes);

    const Continuation a = continueRun(original, at.continuation);
    const Continuation b = continueRun(restored, at.continuation);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.contacts, b.contacts);
    EXPECT_EQ(a.hash, b.hash) << sceneName << " saved at step " << savedAt;
}

// The message of the error restoring `bytes` into `world` throws (empty, and a failure, if none).
std::string restoreError(SceneWorld& world, const std::vector<std::byte>& bytes, const std::string& source)
{
    try
    {
        world.restore(bytes, source);
    }
    catch (const Error& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "restored a bad save (" << source << ")";
    return {};
}

TEST(SceneSave, PlatesContinueBitForBitAfterARestore)
{
    expectSameContinuation("plates", {}, SavePoint{});
}

TEST(SceneSave, APendingFractureJobContinuesAfterARestore)
{
    // Saved after the first break, at a step where a fracture job is pending (latency 2).
    RunSettings options;
    options.workers = 1;
    options.latencySteps = 2;
    expectSameContinuation("plates", options, SavePoint{.afterFirstBreak = 1, .withPendingJob = true});
}

// Bullet's own algorithms (the baselines' convex hulls and GImpact meshes, balls on the ground) keep
// their manifolds across a restore too. Short: the bricks, saved by step 60, 40 steps on;
// SHATTER_LONG_TESTS=1: every shipped scene saved at its first break (or half way), 200 steps on.
TEST(SceneSave, EveryCollisionModeContinuesBitForBit)
{
    const bool full = test::longTests();
    const std::vector<std::string> scenes = full ? builtInSceneNames() : std::vector<std::string>{"bricks"};
    for (const std::string& name : scenes)
        for (const char* collision : {"shatter", "hull", "gimpact"})
        {
            SCOPED_TRACE(name + " " + collision);
            RunSettings options;
            options.collision = *parseCollision(collision);
            const Scene scene = loadScene(builtInScenePath(name));
            const int half = int(scene.duration / scene.timeStep) / 2;
            expectSameContinuation(name, options,
                                   SavePoint{.afterFirstBreak = 10,
                                             .mustBreak = false,
                                             .saveBy = full ? half : 60,
                                             .continuation = full ? kContinuation : 40});
        }
}

TEST(SceneSave, TheContactStateIsWhatMakesTheContinuationExact)
{
    // The control: the same restore with every contact point dropped (no warm start) continues
    // differently, so the test above would see a restore that kept only the bodies.
    const Scene scene = loadScene(builtInScenePath("plates"));
    SceneWorld original(scene);
    for (int i = 0; i < 60; ++i)
        original.step();
    const std::vector<std::byte> bytes = original.save();
    SceneWorld restored(scene);
    restored.restore(bytes, "test save");
    btDispatcher& dispatcher = *restored.world().getDispatcher();
    int points = 0;
    for (int i = 0; i < dispatcher.getNumManifolds(); ++i)
    {
        points += dispatcher.getManifoldByIndexInternal(i)->getNumContacts();
        dispatcher.getManifoldByIndexInternal(i)->clearManifold();
    }
    ASSERT_GT(points, 0) << "nothing was in contact at the save";
    EXPECT_NE(continueRun(original, 50).hash, continueRun(restored, 50).hash);
}

TEST(SceneSave, BadSavesAreClearErrors)
{
    const Scene scene = loadScene(builtInScenePath("plates"));
    SceneWorld original(scene);
    for (int i = 0; i < 40; ++i)
        original.step();
    const std::vector<std::byte> bytes = original.save();

    // Not a save at all (truncated, a flipped bit): the world is left as it was.
    SceneWorld untouched(scene);
    untouched.step();
    const std::string before = untouched.stateHash();
    const int objects = untouched.world().getNumCollisionObjects();
    for (std::vector<std::byte> bad :
         {std::vector<std::byte>(bytes.begin(), bytes.begin() + std::ptrdiff_t(bytes.size() / 2)), bytes})
    {
        bad[bad.size() - 3] ^= std::byte{0x10};
        const std::string error = restoreError(untouched, bad, "bad.save");
        EXPECT_NE(error.find("bad.save"), std::string::npos) << error;
        EXPECT_EQ(untouched.stateHash(), before);
        EXPECT_EQ(untouched.world().getNumCollisionObjects(), objects);
    }

    // A save of another scene: refused naming both, the world left without objects or balls.
    SceneWorld bricks(loadScene(builtInScenePath("bricks")));
    const std::string error = restoreError(bricks, bytes, "plates.save");
    EXPECT_NE(error.find("plates"), std::string::npos) << error;
    EXPECT_NE(error.find("bricks"), std::string::npos) << error;
    EXPECT_TRUE(bricks.fracture().objects().empty());

    // Other run settings are refused too.
    RunSettings other;
    other.seed = 99;
    SceneWorld reseeded(scene, other);
    EXPECT_THROW(reseeded.restore(bytes, "plates.save"), Error);

    // Random edits with a valid checksum: each restores or is an error naming the save, never a crash;
    // the world steps on either way.
    std::mt19937_64 rng(5);
    int rejected = 0;
    for (int i = 0; i < 20; ++i)
    {
        std::vector<std::byte> bad = bytes;
        const std::size_t at = kFramedHeaderSize + rng() % (bytes.size() - kFramedHeaderSize);
        bad[at] = std::byte(rng() & 0xff);
        SceneWorld target(scene);
        try
        {
            target.restore(resealed(std::move(bad)), "edited.save");
        }
        catch (const Error& e)
        {
            ++rejected;
            EXPECT_NE(std::string(e.what()).find("edited.save"), std::string::npos) << e.what();
            EXPECT_TRUE(target.fracture().objects().empty());
        }
        for (int k = 0; k < 3; ++k)
            target.step();
    }
    RecordProperty("rejected_edits", rejected);

    // Through a file.
    const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                       ("shatter_scene_save_" + std::to_string(::getpid()) + ".save");
    original.save(file);
    SceneWorld fromFile(scene);
    fromFile.restore(file);
    EXPECT_EQ(fromFile.stateHash(), original.stateHash());
    std::filesystem::remove(file);
}

} // namespace
} // namespace shatter::scenes
