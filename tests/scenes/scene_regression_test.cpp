// Regression runs of the papers' scenes (ctest label "scene"). Each scene runs
// headless for the number of steps its golden summary (tests/scenes/golden/NAME.json, written by
// scripts/update-goldens.sh through shatter_run --json) records, and must give
//  - the golden final-state hash: the run is bitwise the same as when the golden was made (a change of
//    the physics, the collision algorithm or the fracture pipeline shows here first; regenerate the
//    goldens deliberately when the change is intended);
//  - the golden fragment count and fracture events, and mean and max output contacts and colliding
//    points within 10 % (these say how far a run drifted when the hash differs);
//  - nothing below the ground (the lowest body origin never under it) and a bounded penetration;
//  - no failed fracture events, and a sphere tree for every fragment body.
// Timings are not compared: they depend on the machine.
#include "object_state.h"
#include "shatter/fracture_system.h"
#include "shatter/scenes/scene_world.h"

#include <btBulletDynamicsCommon.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace shatter::scenes
{
namespace
{

struct PaperScene
{
    const char* name;
    double maxPenetration; ///< m: the deepest contact any step may report
};

nlohmann::json golden(const std::string& name)
{
    const std::filesystem::path file =
        std::filesystem::path(SHATTER_SOURCE_DIR) / "tests/scenes/golden" / (name + ".json");
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error(file.string() + ": missing; run scripts/update-goldens.sh");
    return nlohmann::json::parse(in);
}

void expectNear(const char* what, double value, double expected, double relative)
{
    EXPECT_LE(std::abs(value - expected), relative * std::max(1.0, std::abs(expected)))
        << what << ": " << value << ", golden " << expected;
}

/// Every fragment body has a sphere tree (a body without one collides with nothing).
void expectEveryBodyCanCollide(SceneWorld& world)
{
    const fracture::FractureSystem& system = world.fracture();
    for (const fracture::ObjectId object : system.objects())
        for (const btRigidBody* body : system.bodies(object))
        {
            fracture::ObjectId owner = 0;
            FragmentId fragment = kNoFragment;
            ASSERT_TRUE(system.lookup(body, owner, fragment));
            EXPECT_NE(system.state(object).sphereForest().root(fragment), kInvalidIndex)
                << "object " << object << " fragment " << fragment << " has a body but no sphere tree";
        }
}

class SceneRegression : public testing::TestWithParam<PaperScene>
{
};

TEST_P(SceneRegression, MatchesGoldenSummary)
{
    const PaperScene& paper = GetParam();
    const nlohmann::json g = golden(paper.name);
    const Scene scene = loadScene(builtInScenePath(paper.name));
    ASSERT_EQ(g["collision"], "shatter");
    SceneWorld world(scene);
    const int steps = g["steps"].get<int>();
    for (int i = 0; i < steps; ++i)
        world.step();
    const RunSummary s = world.summary();

    EXPECT_EQ(s.stateHash, g["state_hash"].get<std::string>()) << "the run is not bitwise the golden one";
    EXPECT_EQ(s.finalFragments, g["final_fragments"].get<long>());
    EXPECT_EQ(s.fractureEvents, g["fracture_events"].get<long>());
    expectNear("mean output contacts", double(s.mean.outputContacts),
               g["mean"]["output_contacts"].get<double>(), 0.1);
    expectNear("max output contacts", double(s.max.outputContacts), g["max"]["output_contacts"].get<double>(),
               0.1);
    expectNear("mean colliding points", double(s.mean.collidingPoints),
               g["mean"]["colliding_points"].get<double>(), 0.1);
    expectNear("max colliding points", double(s.max.collidingPoints),
               g["max"]["colliding_points"].get<double>(), 0.1);
    expectNear("mean body pairs", double(s.mean.bodyPairs), g["mean"]["body_pairs"].get<double>(), 0.1);

    EXPECT_GE(s.lowestBodyY, scene.ground.height) << "a body fell through the ground";
    EXPECT_LE(s.maxPenetration, paper.maxPenetration);
    EXPECT_EQ(s.failedEvents, 0);
    EXPECT_EQ(s.bodylessFragments, 0);
    expectEveryBodyCanCollide(world);
}

// Past its golden steps, drop_piggies' second batch lands (t = 0.875 s). One of its events made a
// piece lying inside a single tet without crossing any tet edge: no tet node, no crack point, so no
// sphere tree, and as a body it fell through the ground. Such a piece gets no body now (it counts as
// bodyless); the run must keep everything above the ground.
TEST(SceneRegressionLong, DropPiggiesSecondBatchKeepsEveryBodyAboveTheGround)
{
    const Scene scene = loadScene(builtInScenePath("drop_piggies"));
    SceneWorld world(scene);
    for (int i = 0; i < 200; ++i)
        world.step();
    const RunSummary s = world.summary();
    EXPECT_GT(s.fractureEvents, 9) << "the second batch has not broken yet";
    EXPECT_GE(s.lowestBodyY, scene.ground.height - 0.005) << "a body fell through the ground";
    EXPECT_EQ(s.failedEvents, 0);
    expectEveryBodyCanCollide(world);
}

INSTANTIATE_TEST_SUITE_P(Paper, SceneRegression,
                         testing::Values(PaperScene{"piggy_bank", 0.03}, PaperScene{"bricks", 0.05},
                                         PaperScene{"plates", 0.03}, PaperScene{"drop_piggies", 0.03}),
                         [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace shatter::scenes
