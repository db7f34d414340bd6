// shatter_demo's command line (CLI11).
#pragma once

#include "camera.h"

#include <optional>
#include <string>
#include <vector>

namespace shatter::demo
{

struct DemoSettings
{
    std::string scene = "plates"; ///< a shipped scene's name or a scene file
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
    std::vector<std::string> clicks;
    /// debug views on at start: contacts, spheres[:level], slice[:axis], colors, tets, hide-surfaces
    std::vector<std::string> views;
    bool hideUi = false;
    bool paused = false;
    std::string logFile;
    std::string collision = "shatter";
    std::string contacts = "adaptive";
    std::uint64_t seed = 1;
};

/// Parses argv; returns an exit code when the program should stop (--help, bad arguments).
std::optional<int> parseCommandLine(int argc, char** argv, DemoSettings& options);

} // namespace shatter::demo
