// shatter_demo's command line (CLI11).
#pragma once

#include "camera.h"
#include "debug_views.h"

#include "shatter/scenes/scene_world.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shatter::demo
{

/// A point of the window as fractions of its width and height, each in [0, 1], origin top left.
struct WindowPoint
{
    float x = 0;
    float y = 0;
};

/// What the command line asked for. parseCommandLine has checked every value: the scene resolves, clicks
/// lie in the window, views are known, the camera pose is a view.
struct DemoSettings
{
    std::string scene = "plates"; ///< a shipped scene's name or a scene file (scenes::resolveScenePath)
    std::string mesh;             ///< a user mesh to drop in after the scene loads
    bool headless = false;
    int frames = 60;        ///< headless: frames to simulate and render
    std::string screenshot; ///< headless: PNG of the last frame
    std::string stats;      ///< headless: JSON with fragments, counts and errors
    std::optional<CameraPose> camera;
    int width = 1600;
    int height = 900;
    int dropBalls = 0; ///< headless: balls dropped on the objects, one every few frames
    /// headless: clicks at (x, y), fractions of the window, one every 10 frames from frame 3: each drops a
    /// ball above the point under it, as a mouse click does
    std::vector<WindowPoint> clicks;
    /// debug views on at start (--view contacts, spheres[:level], slice[:axis], colors, tets, hide-surfaces)
    DebugViewSettings views;
    bool hideUi = false;
    bool paused = false;
    std::string logFile;
    fracture::FragmentShapeKind collision = fracture::FragmentShapeKind::Fracturable;
    ContactMode contacts = ContactMode::Adaptive;
    std::uint64_t seed = 1;
    int workers = -1;         ///< fracture job threads (−1: the scene's)
    int latencySteps = -1;    ///< internal steps from an impact to its fragments (−1: the scene's)
    int collisionThreads = 0; ///< narrow-phase threads (0: all hardware threads)
};

/// Parses argv; returns an exit code when the program should stop: 0 after --help, non-zero after a bad
/// argument, whose CLI11 error (naming the option and the problem) is printed on stderr.
std::optional<int> parseCommandLine(int argc, char** argv, DemoSettings& options);

} // namespace shatter::demo
