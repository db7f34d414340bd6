// loadScene: every shipped scene loads; bad scene files (tests/data/scenes/) give
// a shatter::Error naming the file, the JSON pointer of the bad value and the problem.
#include "shatter/error.h"
#include "shatter/scenes/scene.h"
#include "shatter/scenes/scene_world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace shatter::scenes
{
namespace
{

const std::filesystem::path kBad = std::filesystem::path(SHATTER_SOURCE_DIR) / "tests/data/scenes";

// Loads a bad file and returns the error; fails the test if it loads.
Error loadError(const std::string& file)
{
    try
    {
        loadScene(kBad / file);
    }
    catch (const Error& e)
    {
        return e;
    }
    ADD_FAILURE() << file << " loaded without an error";
    return Error("", "");
}

struct BadFile
{
    const char* file;
    const char* pointer; ///< the JSON pointer the message must start with ("" for none)
    const char* problem; ///< a part of the message
};

class BadSceneFile : public testing::TestWithParam<BadFile>
{
};

TEST_P(BadSceneFile, ErrorNamesFilePointerAndProblem)
{
    const BadFile& bad = GetParam();
    const Error e = loadError(bad.file);
    EXPECT_EQ(e.source(), (kBad / bad.file).string());
    EXPECT_EQ(e.problem().rfind(bad.pointer, 0), 0u) << e.what();
    EXPECT_NE(e.problem().find(bad.problem), std::string::npos) << e.what();
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, BadSceneFile,
    testing::Values(BadFile{"not_json.json", "invalid JSON at line 5", "parse error"},
                    BadFile{"not_an_object.json", "/: ", "expected an object, found array"},
                    BadFile{"unknown_key.json", "/objects/0/colour: ", "unknown key"},
                    BadFile{"wrong_type.json", "/time_step: ", "expected a number, found string"},
                    BadFile{"bad_toughness.json", "/objects/1/material/toughness: ", "must be > 0"},
                    BadFile{"missing_mesh.json", "/objects/0/asset: ", "mesh file not found"},
                    BadFile{"bad_event_kind.json", "/events/0/kind: ", "unknown event kind \"explode\""},
                    BadFile{"bad_impulse_target.json", "/events/0/target: ", "no object named \"brik\""},
                    BadFile{"duplicate_name.json", "/objects/1: ", "duplicate object name \"a\""},
                    BadFile{"bad_vector.json", "/objects/0/position: ", "expected an array of 3 numbers"},
                    BadFile{"missing_asset_key.json", "/objects/0: ", "missing required key \"asset\""},
                    BadFile{"bad_ground_shape.json", "/ground/shape: ", "unknown ground shape \"lava\""},
                    BadFile{"bad_basis_cost.json", "/fracture/fragment_basis_ms: ", "must be >= 0"}),
    [](const testing::TestParamInfo<BadFile>& info)
    {
        std::string name = info.param.file;
        return name.substr(0, name.find('.'));
    });

// Values that a plain JSON parse accepts but no scene means: a key given twice (a plain parse keeps the
// last copy), a number no double holds, and magnitudes outside the documented ranges (docs/scenes.md),
// each an error naming the file, the JSON pointer and the range.
TEST(SceneLoader, DuplicateKeysOverflowAndOutOfRangeValuesAreErrors)
{
    const std::string object = R"("objects": [{"asset": "ball", "position": [0, 1, 0]}])";
    struct Case
    {
        std::string text;
        const char* pointer; ///< the message starts with it
        const char* problem; ///< a part of the message
    };
    const std::vector<Case> cases = {
        {R"({"name": "a", "name": "b"})", "/name: ", "duplicate key \"name\""},
        {R"({"objects": [{"asset": "ball"}, {"asset": "ball", "friction": 1, "friction": 2}]})",
         "/objects/1/friction: ", "duplicate key"},
        {R"({"gravity": [0, -1e999, 0]})", "invalid JSON at line 1, column 17", "number overflow"},
        {R"({"solver_iterations": 2147483647})", "/solver_iterations: ", "<= 10000"},
        {R"({"time_step": 1e-5, "duration": 1e5})", "/duration: ", "1e+10 steps, more than 1e+09"},
        {R"({"time_step": 1e-300})", "/time_step: ", ">= 1e-05"},
        {R"({"gravity": [0, -1e300, 0]})", "/gravity: ", "within ±1000"},
        {R"({"objects": [{"asset": "ball", "position": [0, 1e300, 0]}]})", "/objects/0/position: ", "within"},
        {R"({"objects": [{"asset": "ball", "linear_velocity": [1e30, 0, 0]}]})",
         "/objects/0/linear_velocity: ", "within ±1000"},
        {R"({"objects": [{"asset": "ball", "material": {"density": 1e-300}}]})",
         "/objects/0/material/density: ", ">= 0.001"},
        {R"({"objects": [{"asset": "ball", "material": {"density": 1e300}}]})",
         "/objects/0/material/density: ", "<= 1000000"},
        {R"({"events": [{"kind": "spawn_ball", "time": 0, "position": [0, 1, 0], "radius": 1e-300}]})",
         "/events/0/radius: ", ">= 0.0001"},
        {R"({"events": [{"kind": "spawn_ball", "time": 1e300, "position": [0, 1, 0]}]})",
         "/events/0/time: ", "<= 100000"},
        {R"({"fracture": {"workers": 100000}})", "/fracture/workers: ", "<= 256"},
        {R"({"fracture": {"debris": {"max_bodies": -1}}})", "/fracture/debris/max_bodies: ", ">= 0"},
        {R"({"fracture": {"debris": {"remove_after_sleeping": 0}}})",
         "/fracture/debris/remove_after_sleeping: ", "> 0"},
        {R"({"fracture": {"debris": {"remove_below_volume": 1e300}}})",
         "/fracture/debris/remove_below_volume: ", "<= 1000000"},
        {R"({"fracture": {"debris": {"budget": 5}}})", "/fracture/debris/budget: ", "unknown key"},
    };
    const std::filesystem::path file = "inline.json";
    for (const Case& c : cases)
    {
        try
        {
            parseScene(c.text, file);
            ADD_FAILURE() << c.text << " loaded";
        }
        catch (const Error& e)
        {
            EXPECT_EQ(e.source(), file.string());
            EXPECT_EQ(e.problem().rfind(c.pointer, 0), 0u) << c.text << " -> " << e.what();
            EXPECT_NE(e.problem().find(c.problem), std::string::npos) << c.text << " -> " << e.what();
        }
    }
    // Too many objects: the count is checked before any of them is read.
    std::string many = R"({"objects": [)";
    for (int i = 0; i <= 10000; ++i)
        many += std::string(i ? "," : "") + "{}";
    many += "]}";
    try
    {
        parseScene(many, file);
        ADD_FAILURE() << "10001 objects loaded";
    }
    catch (const Error& e)
    {
        EXPECT_NE(e.problem().find("/objects: has 10001 entries, more than 10000"), std::string::npos)
            << e.what();
    }
    // The ranges leave real scenes alone.
    EXPECT_NO_THROW(parseScene("{" + object + "}", file));
}

TEST(SceneLoader, MissingFileIsNamed)
{
    try
    {
        loadScene(kBad / "does_not_exist.json");
        FAIL() << "no error";
    }
    catch (const Error& e)
    {
        EXPECT_EQ(e.source(), (kBad / "does_not_exist.json").string());
        EXPECT_EQ(e.problem(), "no such file");
    }
}

TEST(SceneLoader, EveryShippedSceneLoads)
{
    const std::vector<std::string> names = builtInSceneNames();
    for (const char* paper : {"piggy_bank", "bricks", "plates", "drop_piggies"})
        EXPECT_NE(std::find(names.begin(), names.end(), paper), names.end()) << paper;
    for (const std::string& name : names)
        EXPECT_NO_THROW(loadScene(builtInScenePath(name))) << name;
    EXPECT_THROW(builtInScenePath("no_such_scene"), Error);
}

// A command line's scene argument: a shipped name or an existing file, and anything else an error that
// lists the shipped scenes (the demo once fell back to another scene on a typo).
TEST(SceneLoader, ResolveScenePathTakesNamesAndFilesAndRejectsTypos)
{
    EXPECT_EQ(resolveScenePath("bricks"), builtInScenePath("bricks"));
    const std::filesystem::path file = builtInScenePath("plates");
    EXPECT_EQ(resolveScenePath(file.string()), file);
    const std::vector<std::string> typos = {"plats", "piggy-bank", (kBad / "no_such_scene.json").string(),
                                            "plates.json"};
    for (const std::string& typo : typos)
    {
        try
        {
            resolveScenePath(typo);
            ADD_FAILURE() << typo << " resolved";
        }
        catch (const Error& e)
        {
            EXPECT_EQ(e.source(), typo);
            for (const char* shipped : {"piggy_bank", "bricks", "plates", "drop_piggies"})
                EXPECT_NE(e.problem().find(shipped), std::string::npos) << typo << ": " << e.what();
        }
    }
}

TEST(SceneLoader, PaperScenesMatchThePapersSetUp)
{
    // TVCG Table 3 time steps; object counts of §7.
    const Scene piggy = loadScene(builtInScenePath("piggy_bank"));
    EXPECT_DOUBLE_EQ(piggy.timeStep, 0.015);
    ASSERT_EQ(piggy.objects.size(), 1u);
    EXPECT_EQ(piggy.objects[0].asset, "piggy_bank");

    const Scene bricks = loadScene(builtInScenePath("bricks"));
    EXPECT_DOUBLE_EQ(bricks.timeStep, 0.03);
    EXPECT_EQ(bricks.objects.size(), 32u);

    const Scene plates = loadScene(builtInScenePath("plates"));
    EXPECT_DOUBLE_EQ(plates.timeStep, 0.03);
    EXPECT_EQ(std::count_if(plates.objects.begin(), plates.objects.end(),
                            [](const SceneObject& o) { return o.asset == "plate"; }),
              4);
    EXPECT_FALSE(plates.events.empty());

    const Scene piggies = loadScene(builtInScenePath("drop_piggies"));
    EXPECT_DOUBLE_EQ(piggies.timeStep, 0.005);
    EXPECT_EQ(piggies.events.size(), 27u);
    std::set<double> batches;
    for (const SceneEvent& e : piggies.events)
    {
        EXPECT_EQ(e.kind, SceneEvent::Kind::SpawnObject);
        batches.insert(e.time);
    }
    EXPECT_EQ(batches.size(), 3u);
}

TEST(SceneLoader, ParsesEveryField)
{
    const Scene s = parseScene(R"({
        "name": "all", "time_step": 0.01, "substeps": 2, "duration": 1.5, "gravity": [0, -5, 0],
        "solver_iterations": 20,
        "ground": {"present": true, "height": -0.5, "friction": 0.3, "shape": "mesh"},
        "fracture": {"enabled": false, "max_events_per_step": 3, "min_impulse": 0.1, "evaluate_every_step": true,
                     "impulse_growth": 2, "deformation": "modal", "metric": "euclidean",
                     "debris": {"max_bodies": 40, "remove_below_volume": 1e-7, "freeze_below_volume": 1e-6,
                                "remove_after_sleeping": 2.5}},
        "objects": [{"name": "b", "asset": "brick", "position": [1, 2, 3], "rotation_degrees": [0, 90, 0],
                     "dynamic": false, "fracturable": false, "linear_velocity": [1, 0, 0],
                     "angular_velocity": [0, 1, 0], "friction": 0.2, "restitution": 0.1,
                     "material": {"density": 1000, "youngs_modulus": 1e9, "poisson_ratio": 0.3, "toughness": 2,
                                  "energy_exponent": 1, "max_fragments": 5, "min_fragment_volume": 1e-6}}],
        "events": [{"kind": "impulse", "time": 0.5, "target": "b", "position": [1, 2, 3], "impulse": [0, 1, 0]},
                   {"kind": "spawn_ball", "time": 0.25, "position": [0, 1, 0], "velocity": [0, -1, 0],
                    "radius": 0.1, "density": 500}]
    })",
                               std::filesystem::path(SHATTER_SOURCE_DIR) / "assets/scenes/inline.json");
    EXPECT_EQ(s.name, "all");
    EXPECT_EQ(s.substeps, 2);
    EXPECT_EQ(s.solverIterations, 20);
    EXPECT_EQ(s.gravity, Eigen::Vector3d(0, -5, 0));
    EXPECT_EQ(s.ground.shape, "mesh");
    EXPECT_DOUBLE_EQ(s.ground.height, -0.5);
    EXPECT_FALSE(s.fracture.enabled);
    EXPECT_EQ(s.fracture.maxEventsPerStep, 3);
    EXPECT_EQ(s.fracture.deformation, fracture::DeformationModel::Modal);
    EXPECT_EQ(s.fracture.metric, fracture::FractureMetric::Euclidean);
    EXPECT_EQ(s.fracture.debris.maxBodies, 40);
    EXPECT_DOUBLE_EQ(s.fracture.debris.removeBelowVolume, 1e-7);
    EXPECT_DOUBLE_EQ(s.fracture.debris.freezeBelowVolume, 1e-6);
    EXPECT_DOUBLE_EQ(s.fracture.debris.removeAfterSleeping, 2.5);
    ASSERT_EQ(s.objects.size(), 1u);
    const SceneObject& o = s.objects[0];
    EXPECT_FALSE(o.dynamic);
    EXPECT_FALSE(o.fracturable);
    EXPECT_TRUE(o.placement.translation().isApprox(Eigen::Vector3d(1, 2, 3)));
    EXPECT_TRUE((o.placement.linear() * Eigen::Vector3d::UnitX()).isApprox(Eigen::Vector3d(0, 0, -1), 1e-12));
    EXPECT_DOUBLE_EQ(o.material.toughness, 2);
    EXPECT_EQ(o.material.maxFragments, 5);
    EXPECT_DOUBLE_EQ(o.restitution, 0.1);
    // Events are sorted by time.
    ASSERT_EQ(s.events.size(), 2u);
    EXPECT_EQ(s.events[0].kind, SceneEvent::Kind::SpawnBall);
    EXPECT_EQ(s.events[1].kind, SceneEvent::Kind::Impulse);
    EXPECT_EQ(s.events[1].target, "b");
}

TEST(RunOptionNames, RoundTrip)
{
    for (auto k : {fracture::FragmentShapeKind::Fracturable, fracture::FragmentShapeKind::GImpact,
                   fracture::FragmentShapeKind::ConvexHull})
        EXPECT_EQ(parseCollision(collisionName(k)), k);
    for (auto m : {ContactMode::Adaptive, ContactMode::Full, ContactMode::FixedBudget})
        EXPECT_EQ(parseContacts(contactsName(m)), m);
    for (auto r : {RestructureMethod::Tvcg2013, RestructureMethod::Sca2012, RestructureMethod::Rebuild})
        EXPECT_EQ(parseRestructure(restructureName(r)), r);
    EXPECT_FALSE(parseCollision("bvh"));
}

} // namespace
} // namespace shatter::scenes
