// shatter_run as a user meets it: a run writes the CSV and the JSON summary
// with every field; bad flags, missing and invalid scene files end with a one-line error and a
// non-zero exit status, never a crash.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace
{

struct Result
{
    int status = -1;    ///< exit status; -1 if it did not exit normally (a crash)
    std::string output; ///< stdout and stderr
};

Result shatterRun(const std::string& arguments)
{
    const std::string command = std::string(SHATTER_RUN_EXE) + " " + arguments + " 2>&1";
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return r;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
        r.output.append(buffer, n);
    const int raw = pclose(pipe);
    if (WIFEXITED(raw))
        r.status = WEXITSTATUS(raw);
    return r;
}

const std::filesystem::path kScratch =
    std::filesystem::path(SHATTER_BINARY_DIR) / "test_scratch" / "shatter_run";
const std::string kBad = std::string(SHATTER_SOURCE_DIR) + "/tests/data/scenes/";

TEST(ShatterRun, WritesCsvAndSummary)
{
    std::filesystem::create_directories(kScratch);
    const Result r = shatterRun("test_brick_drop --steps 20 --csv " + (kScratch / "s.csv").string() +
                                " --json " + (kScratch / "s.json").string());
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(kScratch / "s.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["steps"], 20);
    EXPECT_EQ(j["collision"], "shatter");
    for (const char* field : {"mean", "max", "median_total_ms", "fracture_events", "final_fragments",
                              "max_penetration", "lowest_body_y", "state_hash", "realtime"})
        EXPECT_TRUE(j.contains(field)) << field;
    EXPECT_FALSE(j["realtime"].get<bool>());
    for (const char* column : {"fracture_main_ms", "fracture_job_ms", "fracture_wait_ms",
                               "fracture_latency_steps", "unready_impacts"})
        EXPECT_TRUE(j["max"].contains(column)) << column;
    // The spike ratios follow from the columns: the slowest step over the median, with and without CD.
    const double median = j["median_total_ms"].get<double>();
    ASSERT_GT(median, 0);
    EXPECT_NEAR(j["max_over_median"].get<double>(), j["max"]["total_ms"].get<double>() / median,
                1e-9 * j["max_over_median"].get<double>());
    EXPECT_GE(j["max_over_median"].get<double>(), j["max_without_collision_over_median"].get<double>());
    EXPECT_GT(j["max_without_collision_over_median"].get<double>(), 0);
    std::ifstream csv(kScratch / "s.csv");
    int lines = 0;
    for (std::string line; std::getline(csv, line);)
        ++lines;
    EXPECT_EQ(lines, 21); // header + one row per step
}

// --realtime paces the steps to simulated time: 60 steps of the scene (0.5 s simulated, several times
// what they cost unpaced) take at least 59 time steps of wall time (step i starts at i·dt), and the
// summary says it ran so.
TEST(ShatterRun, RealtimePacesTheStepsToSimulatedTime)
{
    std::filesystem::create_directories(kScratch);
    const auto start = std::chrono::steady_clock::now();
    const Result r =
        shatterRun("test_brick_drop --steps 60 --realtime --json " + (kScratch / "rt.json").string());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(kScratch / "rt.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_TRUE(j["realtime"].get<bool>());
    EXPECT_GE(seconds, 59 * j["time_step"].get<double>());
}

TEST(ShatterRun, BadInputEndsWithAnErrorNotACrash)
{
    const struct
    {
        std::string arguments;
        std::string message;
    } cases[] = {
        {"test_brick_drop --collision bvh", "--collision"},
        {"test_brick_drop --contacts many", "--contacts"},
        {"test_brick_drop --steps -3", "--steps"},
        {"test_brick_drop --workers -1", "--workers"},
        {"test_brick_drop --latency -2", "--latency"},
        {"test_brick_drop --threads -1", "--threads"},
        {"test_brick_drop --threads many", "--threads"},
        {"test_brick_drop --workers two", "--workers"},
        {"test_brick_drop --frobnicate", "frobnicate"},
        {"test_brick_drop --contacts many", "unknown value \"many\", expected one of adaptive, full, fixed8"},
        {"test_brick_drop --restructure 2014", "expected one of 2013, 2012, rebuild"},
        {"test_brick_drop --contacts 1", "--contacts"}, // an enum's number is not one of its names
        {"no_such_scene", "no shipped scene of that name"},
        {"plats", "shipped scenes: bricks, drop_piggies, piggy_bank, plates"},
        {kBad + "missing.json", "shipped scenes: bricks, drop_piggies, piggy_bank, plates"},
        {kBad + "missing.json", "no such file"},
        {kBad + "not_json.json", "invalid JSON at line 5"},
        {kBad + "bad_toughness.json", "/objects/1/material/toughness: must be > 0"},
        {"", "no scene given"},
        {"test_brick_drop --seed -1", "--seed: must not be negative"},
        {kBad, "is a directory, not a scene file"},
        {"test_brick_drop --steps 1 --json /proc/no/such/dir/s.json", "cannot be opened for writing"},
    };
    for (const auto& c : cases)
    {
        const Result r = shatterRun(c.arguments);
        EXPECT_GT(r.status, 0) << c.arguments << " (status -1: it crashed)\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.arguments << "\n" << r.output;
    }
}

// A scene file whose name is not UTF-8 (legal on Linux) and that has no "name" key: the scene is named
// after the file's stem, and the JSON summary prints the odd bytes as U+FFFD (nlohmann's plain dump
// throws on them, after the whole run).
TEST(ShatterRun, SceneFileNameThatIsNotUtf8)
{
    std::filesystem::create_directories(kScratch);
    std::ifstream in(std::string(SHATTER_SOURCE_DIR) + "/assets/scenes/test_brick_drop.json");
    nlohmann::json scene = nlohmann::json::parse(in);
    scene.erase("name");
    const std::filesystem::path file = kScratch / "sc\xffne.json";
    std::ofstream(file) << scene.dump();
    const std::filesystem::path summary = kScratch / "odd.json";
    std::string arguments = "'"; // built in steps: GCC 12 warns (-Wrestrict) on the one-line form
    arguments += file.string();
    arguments += "' --steps 2 --json ";
    arguments += summary.string();
    const Result r = shatterRun(arguments);
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream written(summary);
    EXPECT_EQ(nlohmann::json::parse(written)["scene"], "sc\ufffdne");
}

// --help lists the choices of --collision, --contacts and --restructure by name; CLI11's map display
// printed "{adaptive->,full->,fixed8->}" with the enum values left blank.
TEST(ShatterRun, HelpListsChoicesByName)
{
    const Result r = shatterRun("--help");
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* choices :
         {"--collision ENUM:{shatter,gimpact,hull}", "--contacts ENUM:{adaptive,full,fixed8}",
          "--restructure ENUM:{2013,2012,rebuild}"})
        EXPECT_NE(r.output.find(choices), std::string::npos) << choices << "\n" << r.output;
    EXPECT_EQ(r.output.find("->"), std::string::npos) << r.output;
}

// The names map to the values the summary reports (any case), and a scene file given by path runs.
TEST(ShatterRun, ChoiceNamesAndSceneFilesAreTaken)
{
    std::filesystem::create_directories(kScratch);
    const std::string scene = std::string(SHATTER_SOURCE_DIR) + "/assets/scenes/test_brick_drop.json";
    const std::filesystem::path json = kScratch / "choices.json";
    const Result r =
        shatterRun(scene + " --steps 2 --collision HULL --contacts fixed8 --restructure rebuild --json " +
                   json.string());
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["scene"], "test_brick_drop");
    EXPECT_EQ(j["collision"], "hull");
    EXPECT_EQ(j["contacts"], "fixed8");
    EXPECT_EQ(j["restructure"], "rebuild");
}

// --workers and --latency reach the FractureSystem, --threads the dispatcher (the summary reports what
// ran); neither count changes the run.
TEST(ShatterRun, WorkersAndLatencyAreTakenAndWorkersDoNotChangeTheRun)
{
    std::filesystem::create_directories(kScratch);
    std::vector<nlohmann::json> runs;
    for (const char* workers : {"0", "2"})
    {
        const std::filesystem::path file = kScratch / (std::string("w") + workers + ".json");
        const Result r =
            shatterRun(std::string("test_brick_drop --steps 15 --latency 2 --workers ") + workers +
                       " --threads " + (workers[0] == '0' ? "1" : "2") + " --json " + file.string());
        ASSERT_EQ(r.status, 0) << r.output;
        std::ifstream in(file);
        runs.push_back(nlohmann::json::parse(in));
        EXPECT_EQ(runs.back()["workers"], std::stoi(workers));
        EXPECT_EQ(runs.back()["latency_steps"], 2);
    }
    EXPECT_EQ(runs[0]["collision_threads"], 1);
    EXPECT_GE(runs[1]["collision_threads"].get<int>(), 1); // 2, or the cores oneTBB allows
    EXPECT_LE(runs[1]["collision_threads"].get<int>(), 2);
    EXPECT_GT(runs[0]["fracture_events"].get<long>(), 0);
    EXPECT_EQ(runs[0]["max"]["fracture_latency_steps"], 2);
    EXPECT_EQ(runs[0]["state_hash"], runs[1]["state_hash"]);
}

TEST(ShatterRun, SaveAndRestoreSplitARunWithoutChangingIt)
{
    // 30 steps in one go, and 15 + 15 through --save and --restore: the same final state.
    std::filesystem::create_directories(kScratch);
    const std::filesystem::path save = kScratch / "half.save";
    auto hash = [](const Result& r)
    {
        const std::size_t at = r.output.find("state ");
        return at == std::string::npos ? std::string() : r.output.substr(at + 6, 16);
    };
    const Result whole = shatterRun("test_brick_drop --steps 30 --latency 2");
    const Result first = shatterRun("test_brick_drop --steps 15 --latency 2 --save " + save.string());
    const Result second = shatterRun("test_brick_drop --steps 15 --latency 2 --restore " + save.string());
    ASSERT_EQ(whole.status, 0) << whole.output;
    ASSERT_EQ(first.status, 0) << first.output;
    ASSERT_EQ(second.status, 0) << second.output;
    EXPECT_FALSE(hash(whole).empty()) << whole.output;
    EXPECT_EQ(hash(second), hash(whole)) << second.output;
    EXPECT_NE(hash(first), hash(whole));
    // A save restored under other options is refused with the file's name.
    const Result other = shatterRun("test_brick_drop --steps 5 --seed 7 --restore " + save.string());
    EXPECT_EQ(other.status, 1) << other.output;
    EXPECT_NE(other.output.find("half.save"), std::string::npos) << other.output;
}

} // namespace
