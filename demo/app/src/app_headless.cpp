// The headless side of App: scripted ball drops and clicks, the screenshot and the stats file that the
// tests (tests/demo/) and docs/images are made from.
#include "app.h"

#include "screenshot.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace shatter::demo
{
namespace
{

// Mean, median and max of per-frame times (ms); zeros for no frames.
nlohmann::ordered_json timeSummary(std::vector<double> values)
{
    nlohmann::ordered_json summary;
    double mean = 0, median = 0, max = 0;
    if (!values.empty())
    {
        for (double v : values)
            mean += v / double(values.size());
        std::sort(values.begin(), values.end());
        const std::size_t n = values.size();
        median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
        max = values.back();
    }
    summary["mean"] = mean;
    summary["median"] = median;
    summary["max"] = max;
    return summary;
}

} // namespace

void App::headlessDrops(int frameIndex)
{
    // Ball k falls at frame 4 + 12 k onto object k (round robin), from above its highest point.
    scenes::SceneWorld* world = simulation.world();
    if (!world || options.dropBalls <= 0 || frameIndex < 4 || (frameIndex - 4) % 12 != 0)
        return;
    const int k = (frameIndex - 4) / 12;
    if (k >= options.dropBalls)
        return;
    fracture::FractureSystem& system = world->fracture();
    const auto objects = system.objects();
    if (objects.empty())
        return;
    const fracture::ObjectId object = objects[std::size_t(k) % objects.size()];
    Eigen::AlignedBox3d box;
    for (btRigidBody* body : system.bodies(object))
    {
        btVector3 lo, hi;
        body->getAabb(lo, hi);
        box.extend(Eigen::Vector3d(double(lo.x()), double(lo.y()), double(lo.z())));
        box.extend(Eigen::Vector3d(double(hi.x()), double(hi.y()), double(hi.z())));
    }
    if (box.isEmpty())
        return;
    const Eigen::Vector3d at(box.center().x(), box.max().y() + 0.3, box.center().z());
    simulation.dropBall(at, Eigen::Vector3d(0, -5, 0));
    char text[160];
    std::snprintf(text, sizeof text, "scripted ball %d dropped on object %u at (%.2f, %.2f, %.2f)", k + 1,
                  object, at.x(), at.y(), at.z());
    log.info(text);
}

void App::headlessClicks(int frameIndex)
{
    if (frameIndex < 3 || (frameIndex - 3) % 10 != 0)
        return;
    const std::size_t k = std::size_t((frameIndex - 3) / 10);
    if (k >= options.clicks.size() || !simulation.world())
        return;
    const WindowPoint click = options.clicks[k]; // in [0, 1]², checked by parseCommandLine
    const float w = float(target->width()), h = float(target->height());
    const float groundY = float(simulation.world()->scene().ground.height);
    char text[64];
    std::snprintf(text, sizeof text, "scripted click %.3g,%.3g", click.x, click.y);
    if (interaction.clickDrop(camera, simulation, groundY, click.x * w, click.y * h, w, h))
        log.info(std::string(text) + " dropped a ball");
    else
        log.warning(std::string(text) + " hit nothing");
}

void App::takeScreenshot(const std::string& file, double* deviation)
{
    const std::vector<std::uint8_t> pixels = readFinalImage(*target);
    try
    {
        writePng(file, target->width(), target->height(), pixels);
        log.info("screenshot written to " + file);
    }
    catch (const std::exception& e)
    {
        log.error(e.what());
    }
    if (deviation)
        *deviation = luminanceDeviation(pixels);
}

void App::writeStats(const std::string& file, double deviation)
{
    scenes::SceneWorld* world = simulation.world();
    long fractureEvents = 0, triangles = 0;
    if (world)
        for (const scenes::StepStats& s : world->history())
            fractureEvents += s.fractureEvents;
    if (world && !world->history().empty())
        triangles = world->history().back().triangles;
    long balls = 0;
    if (world)
        for (const BodyView& v : collectBodies(*world))
            balls += v.kind == BodyView::Kind::Sphere ? 1 : 0;
    nlohmann::ordered_json stats;
    stats["scene"] = world ? world->scene().name : options.scene;
    stats["frames"] = options.frames;
    stats["steps"] = world ? world->stepCount() : 0;
    stats["initial_fragments"] = simulation.initialFragments();
    stats["final_fragments"] = simulation.currentFragments();
    stats["fracture_events"] = fractureEvents;
    stats["bodies"] = world ? world->world().getNumCollisionObjects() : 0;
    stats["triangles"] = triangles;
    stats["balls"] = balls;
    stats["luminance_deviation"] = deviation;
    stats["ui_error"] = simulation.lastError();
    stats["frame_ms"] = timeSummary(frameMs);           // simulation + drawing of each frame
    stats["simulation_ms"] = timeSummary(simulationMs); // the frame's internal steps
    stats["draw_ms"] = timeSummary(drawMs);             // rendering and UI (software GL under Xvfb)
    if (world)
        stats["run_summary"] = nlohmann::ordered_json::parse(scenes::summaryJson(world->summary()));
    stats["errors"] = nlohmann::ordered_json::array();
    for (const LogLine& line : log.lines())
        if (line.level == LogLevel::Error)
            stats["errors"].push_back(line.text);
    // Text from the log can hold any bytes (a file name from the command line): bytes that are not UTF-8
    // become U+FFFD rather than an exception or a file that is not JSON.
    std::ofstream out(file);
    out << stats.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    if (!out)
        log.error("cannot write " + file);
    else
        log.info("stats written to " + file);
}

} // namespace shatter::demo
