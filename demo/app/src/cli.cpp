#include "cli.h"

#include <CLI/CLI.hpp>

namespace shatter::demo
{

std::optional<int> parseCommandLine(int argc, char** argv, DemoSettings& o)
{
    CLI::App app("Shatter: real-time brittle fracture for Bullet Physics, interactive demo", "shatter_demo");
    std::string camera;
    app.add_option("--scene", o.scene, "shipped scene name (piggy_bank, bricks, plates, ...) or a scene file")
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
    app.add_option("--camera", camera, "yaw,pitch,distance[,tx,ty,tz] in degrees and metres");
    app.add_option("--width", o.width, "window width in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
    app.add_option("--height", o.height, "window height in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
    app.add_option("--drop-balls", o.dropBalls, "headless: drop this many balls onto the objects")
        ->check(CLI::NonNegativeNumber);
    app.add_option(
        "--click", o.clicks,
        "headless: click at X,Y (fractions of the window) to drop a ball; one click every 10 frames");
    app.add_option(
           "--view", o.views,
           "debug views to show: contacts, spheres[:LEVEL], slice[:x|y|z], colors, tets, hide-surfaces")
        ->delimiter(',');
    app.add_flag("--hide-ui", o.hideUi, "no panels (clean screenshots)");
    app.add_flag("--paused", o.paused, "start paused");
    app.add_option("--log", o.logFile, "also write the log to this file");
    app.add_option("--collision", o.collision, "fragment shapes: shatter, gimpact or hull")
        ->capture_default_str();
    app.add_option("--contacts", o.contacts, "contact mode: adaptive, full or fixed8")->capture_default_str();
    app.add_option("--seed", o.seed, "fracture seed")->capture_default_str();
    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& e)
    {
        return app.exit(e);
    }
    if (!camera.empty())
    {
        o.camera = parseCameraPose(camera);
        if (!o.camera)
        {
            std::fprintf(stderr, "--camera: expected yaw,pitch,distance[,tx,ty,tz], got \"%s\"\n",
                         camera.c_str());
            return 2;
        }
    }
    return std::nullopt;
}

} // namespace shatter::demo
