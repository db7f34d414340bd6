#include "cli.h"

#include "named_choices.h"

#include "shatter/error.h"
#include "shatter/scenes/scene.h"

#include <CLI/CLI.hpp>

#include <cmath>

namespace shatter::demo
{
namespace
{

// Every value below is checked while CLI11 parses, so that a bad one is a CLI::ValidationError
// ("--click: ...") and a non-zero exit before any window opens, never a value that silently becomes 0.

/// The comma-separated numbers of `text`, each converted as CLI11 converts a float option.
std::vector<float> numbers(const std::string& option, const std::string& text)
{
    std::vector<float> values;
    for (std::string item : CLI::detail::split(text, ','))
    {
        CLI::detail::trim(item);
        float v = 0;
        if (!CLI::detail::lexical_cast(item, v) || !std::isfinite(v))
            throw CLI::ValidationError(option, "\"" + item + "\" in \"" + text + "\" is not a finite number");
        values.push_back(v);
    }
    return values;
}

std::string countOf(std::size_t n)
{
    return std::to_string(n) + (n == 1 ? " number" : " numbers");
}

CameraPose parseCamera(const std::string& text)
{
    const std::vector<float> v = numbers("--camera", text);
    if (v.size() != 3 && v.size() != 6)
        throw CLI::ValidationError("--camera",
                                   "expected 3 or 6 numbers (yaw,pitch,distance[,tx,ty,tz]), got " +
                                       countOf(v.size()) + " in \"" + text + "\"");
    // The view matrix needs the camera away from the target and off the vertical through it.
    if (!(v[2] > 0))
        throw CLI::ValidationError("--camera", "distance must be > 0, got \"" + text + "\"");
    if (std::abs(v[1]) > 89.9f)
        throw CLI::ValidationError("--camera",
                                   "pitch must be within [-89.9, 89.9] degrees, got \"" + text + "\"");
    CameraPose pose;
    pose.yawDegrees = v[0];
    pose.pitchDegrees = v[1];
    pose.distance = v[2];
    if (v.size() == 6)
        pose.target = Vec3f(v[3], v[4], v[5]);
    return pose;
}

WindowPoint parseClick(const std::string& text)
{
    const std::vector<float> v = numbers("--click", text);
    if (v.size() != 2)
        throw CLI::ValidationError("--click", "expected X,Y (two fractions of the window), got " +
                                                  countOf(v.size()) + " in \"" + text + "\"");
    for (float f : v)
        if (f < 0 || f > 1)
            throw CLI::ValidationError(
                "--click", "X and Y must be within [0, 1] (fractions of the window), got \"" + text + "\"");
    return {v[0], v[1]};
}

void parseView(const std::string& view, DebugViewSettings& s)
{
    const std::size_t colon = view.find(':');
    const std::string name = view.substr(0, colon);
    const std::optional<std::string> argument =
        colon == std::string::npos ? std::nullopt : std::optional(view.substr(colon + 1));
    if (name == "spheres")
    {
        s.spheres = true;
        if (!argument)
            return;
        int level = -1;
        if (!CLI::detail::lexical_cast(*argument, level) || level < 0 || level > kMaxSphereLevel)
            throw CLI::ValidationError("--view", "sphere level \"" + *argument + "\" in \"" + view +
                                                     "\" is not an integer in [0, " +
                                                     std::to_string(kMaxSphereLevel) + "]");
        s.sphereLevel = level;
        return;
    }
    if (name == "slice")
    {
        s.slice = true;
        if (!argument)
            return;
        if (argument->size() != 1 || (*argument)[0] < 'x' || (*argument)[0] > 'z')
            throw CLI::ValidationError("--view", "slice axis \"" + *argument + "\" in \"" + view +
                                                     "\" is not x, y or z");
        s.sliceAxis = (*argument)[0] - 'x';
        return;
    }
    bool* flag = name == "contacts"                      ? &s.contacts
                 : name == "colors" || name == "colours" ? &s.fragmentColors
                 : name == "tets"                        ? &s.tets
                 : name == "hide-surfaces"               ? &s.hideMeshes
                                                         : nullptr;
    if (!flag)
        throw CLI::ValidationError("--view", "unknown view \"" + view +
                                                 "\", expected contacts, spheres[:LEVEL], slice[:x|y|z], "
                                                 "colors, tets or hide-surfaces");
    if (argument)
        throw CLI::ValidationError("--view", "the view \"" + name + "\" takes no \":" + *argument + "\"");
    *flag = true;
}

/// Checks that a --scene argument names a shipped scene or a scene file, without loading it.
CLI::Validator sceneCheck()
{
    return CLI::Validator(
        [](std::string& argument) -> std::string
        {
            try
            {
                scenes::resolveScenePath(argument);
                return {};
            }
            catch (const Error& e)
            {
                return e.what();
            }
        },
        "", "scene");
}

} // namespace

std::optional<int> parseCommandLine(int argc, char** argv, DemoSettings& o)
{
    CLI::App app("Shatter: real-time brittle fracture for Bullet Physics, interactive demo", "shatter_demo");
    app.add_option("--scene", o.scene, "shipped scene name (piggy_bank, bricks, plates, ...) or a scene file")
        ->check(sceneCheck())
        ->capture_default_str();
    app.add_option("--mesh", o.mesh, "a mesh file (OBJ, PLY, STL, OFF, glTF, ...) to drop into the scene");
    app.add_flag("--headless", o.headless,
                 "render offscreen for a number of frames and exit (use xvfb-run "
                 "where there is no display)");
    app.add_option("--frames", o.frames, "headless: frames to simulate and render")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--screenshot", o.screenshot, "headless: write the last frame as a PNG");
    app.add_option("--stats", o.stats, "headless: write fragments, counts and errors as JSON");
    app.add_option_function<std::string>(
           "--camera", [&o](const std::string& text) { o.camera = parseCamera(text); },
           "yaw,pitch,distance[,tx,ty,tz] in degrees and metres")
        ->type_name("YAW,PITCH,DIST[,TX,TY,TZ]");
    app.add_option("--width", o.width, "window width in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
    app.add_option("--height", o.height, "window height in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
    app.add_option("--drop-balls", o.dropBalls, "headless: drop this many balls onto the objects")
        ->check(CLI::NonNegativeNumber);
    app.add_option_function<std::vector<std::string>>(
           "--click",
           [&o](const std::vector<std::string>& texts)
           {
               for (const std::string& text : texts)
                   o.clicks.push_back(parseClick(text));
           },
           "headless: click at X,Y (fractions of the window) to drop a ball; one click every 10 frames")
        ->type_name("X,Y");
    app.add_option_function<std::vector<std::string>>(
           "--view",
           [&o](const std::vector<std::string>& views)
           {
               for (const std::string& view : views)
                   parseView(view, o.views);
           },
           "debug views to show: contacts, spheres[:LEVEL], slice[:x|y|z], colors, tets, hide-surfaces")
        ->delimiter(',')
        ->type_name("VIEW");
    app.add_flag("--hide-ui", o.hideUi, "no panels (clean screenshots)");
    app.add_flag("--paused", o.paused, "start paused");
    app.add_option("--log", o.logFile, "also write the log to this file");
    app.add_option("--collision", o.collision, "fragment shapes")
        ->transform(
            cli::namedChoices({fracture::FragmentShapeKind::Fracturable, fracture::FragmentShapeKind::GImpact,
                               fracture::FragmentShapeKind::ConvexHull},
                              &scenes::collisionName))
        ->default_str(std::string(scenes::collisionName(o.collision)));
    app.add_option("--contacts", o.contacts, "contact mode")
        ->transform(cli::namedChoices({ContactMode::Adaptive, ContactMode::Full, ContactMode::FixedBudget},
                                      &scenes::contactsName))
        ->default_str(std::string(scenes::contactsName(o.contacts)));
    app.add_option("--seed", o.seed, "fracture seed")->capture_default_str();
    app.add_option("--workers", o.workers, "fracture job threads (0: inline; default: the scene's, else 1)")
        ->check(CLI::Range(0, 256));
    app.add_option("--threads", o.collisionThreads, "narrow-phase threads (0: all hardware threads)")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    app.add_option("--latency", o.latencySteps,
                   "steps from an impact to its fragments (default: the scene's)")
        ->check(CLI::Range(0, 1000));
    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& e)
    {
        return app.exit(e);
    }
    return std::nullopt;
}

} // namespace shatter::demo
