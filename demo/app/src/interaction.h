// Mouse and keyboard: orbit (right drag), pan (middle drag or Ctrl + right drag), zoom (wheel); left click
// drops a ball above the point under the cursor, left drag carries it and throws it with the cursor's
// velocity on release; Shift + left drag grabs a fragment or ball and drags it; keys for pause, step,
// reset, framing and the UI.
#pragma once

#include "camera.h"
#include "line_batch.h"
#include "simulation.h"

#include <optional>

struct GLFWwindow;

namespace shatter::demo
{

/// What the keys asked the app to do this frame.
struct KeyRequests
{
    bool reset = false;
    bool frame = false;
    bool toggleUi = false;
    bool screenshot = false;
    bool quit = false;
};

class Interaction
{
public:
    /// Handles this frame's input (skipped where ImGui wants the mouse or keyboard).
    KeyRequests update(OrbitCamera& camera, Simulation& simulation, float groundY, float width, float height,
                       double dt);
    /// What a click at pixel (x, y) does: drops a ball from `dropHeight` above the point under the cursor
    /// (the first body hit, else the ground). Also used by headless --click.
    bool clickDrop(const OrbitCamera& camera, Simulation& simulation, float groundY, float x, float y,
                   float width, float height) const;
    /// The ball being carried and its throw velocity, the grab line.
    void drawOverlay(LineBatch& overlay, Simulation& simulation, float sceneScale) const;
    /// One-line hint while dragging (nullptr when idle).
    const char* hint() const;

private:
    enum class Mode
    {
        Idle,
        Orbit,
        Pan,
        Carry, ///< left drag: a ball to drop or throw
        Grab,  ///< shift + left drag: a body on a spring
    };
    std::optional<Eigen::Vector3d> pickWorld(Simulation& simulation, const Ray& ray, float groundY) const;
    Eigen::Vector3d onDragPlane(const Ray& ray) const;

    Mode mode = Mode::Idle;
    float lastX = 0, lastY = 0, pressX = 0, pressY = 0;
    Eigen::Vector3d planePoint = Eigen::Vector3d::Zero(), planeNormal = Eigen::Vector3d::UnitZ();
    Eigen::Vector3d carried = Eigen::Vector3d::Zero();
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero(); ///< smoothed cursor velocity on the drag plane, m/s
    float throwGain = 1;
};

} // namespace shatter::demo
