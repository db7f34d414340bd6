#include "interaction.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cmath>

namespace shatter::demo
{
namespace
{
Eigen::Vector3d toDouble(const Vec3f& v)
{
    return v.cast<double>();
}
} // namespace

std::optional<Eigen::Vector3d> Interaction::pickWorld(Simulation& simulation, const Ray& ray,
                                                      float groundY) const
{
    const Eigen::Vector3d from = toDouble(ray.origin), dir = toDouble(ray.direction);
    if (scenes::SceneWorld* world = simulation.world())
    {
        const Eigen::Vector3d to = from + 200.0 * dir;
        const btVector3 a(btScalar(from.x()), btScalar(from.y()), btScalar(from.z()));
        const btVector3 b(btScalar(to.x()), btScalar(to.y()), btScalar(to.z()));
        btCollisionWorld::ClosestRayResultCallback hit(a, b);
        world->world().rayTest(a, b, hit);
        if (hit.hasHit())
            return Eigen::Vector3d(double(hit.m_hitPointWorld.x()), double(hit.m_hitPointWorld.y()),
                                   double(hit.m_hitPointWorld.z()));
    }
    if (std::abs(dir.y()) > 1e-6)
    {
        const double t = (double(groundY) - from.y()) / dir.y();
        if (t > 0)
            return from + t * dir;
    }
    return std::nullopt;
}

Eigen::Vector3d Interaction::onDragPlane(const Ray& ray) const
{
    const Eigen::Vector3d o = toDouble(ray.origin), d = toDouble(ray.direction);
    const double denominator = d.dot(planeNormal);
    if (std::abs(denominator) < 1e-9)
        return planePoint;
    const double t = (planePoint - o).dot(planeNormal) / denominator;
    return t > 0 ? o + t * d : planePoint;
}

KeyRequests Interaction::update(OrbitCamera& camera, Simulation& simulation, float groundY, float width,
                                float height, double dt)
{
    KeyRequests keys;
    ImGuiIO& io = ImGui::GetIO();
    // ImGui reports the mouse in window coordinates; the viewport is in framebuffer pixels.
    const float sx = io.DisplayFramebufferScale.x, sy = io.DisplayFramebufferScale.y;
    const float x = io.MousePos.x * sx, y = io.MousePos.y * sy;
    const float dx = x - lastX, dy = y - lastY;
    lastX = x;
    lastY = y;
    throwGain = simulation.balls.throwGain;

    if (!io.WantCaptureKeyboard)
    {
        if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false))
            simulation.paused = !simulation.paused;
        if (ImGui::IsKeyPressed(GLFW_KEY_S) || ImGui::IsKeyPressed(GLFW_KEY_PERIOD))
        {
            simulation.paused = true;
            simulation.stepOnce();
        }
        keys.reset = ImGui::IsKeyPressed(GLFW_KEY_R, false);
        keys.frame = ImGui::IsKeyPressed(GLFW_KEY_F, false);
        keys.toggleUi = ImGui::IsKeyPressed(GLFW_KEY_H, false);
        keys.screenshot = ImGui::IsKeyPressed(GLFW_KEY_P, false);
        keys.quit = ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) && mode == Mode::Idle;
        if (ImGui::IsKeyPressed(GLFW_KEY_B, false))
            if (auto hit =
                    pickWorld(simulation, camera.rayThrough(width / 2, height / 2, width, height), groundY))
                simulation.dropBall(*hit + Eigen::Vector3d(0, simulation.balls.dropHeight, 0),
                                    Eigen::Vector3d::Zero());
    }

    const Ray ray = camera.rayThrough(x, y, width, height);
    if (mode == Mode::Idle && !io.WantCaptureMouse)
    {
        if (io.MouseWheel != 0)
            camera.zoom(io.MouseWheel);
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left))
        {
            pressX = x;
            pressY = y;
            planeNormal = -toDouble(camera.forward());
            if (io.KeyShift)
            {
                const Eigen::Vector3d from = toDouble(ray.origin);
                if (auto hit = simulation.grab(from, from + 200.0 * toDouble(ray.direction)))
                {
                    planePoint = *hit;
                    mode = Mode::Grab;
                }
            }
            else if (simulation.world())
            {
                const auto hit = pickWorld(simulation, ray, groundY);
                const Eigen::Vector3d anchor =
                    hit ? *hit
                        : toDouble(ray.origin) + 2.0 * double(camera.pose.distance) * toDouble(ray.direction);
                carried = anchor + Eigen::Vector3d(0, simulation.balls.dropHeight, 0);
                planePoint = carried;
                velocity.setZero();
                mode = Mode::Carry;
            }
        }
        else if (ImGui::IsMouseClicked(ImGuiMouseButton_Right))
            mode = io.KeyCtrl ? Mode::Pan : Mode::Orbit;
        else if (ImGui::IsMouseClicked(ImGuiMouseButton_Middle))
            mode = Mode::Pan;
    }

    switch (mode)
    {
    case Mode::Idle:
        break;
    case Mode::Orbit:
        camera.orbit(dx, dy);
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Right))
            mode = Mode::Idle;
        break;
    case Mode::Pan:
        camera.pan(dx, dy, height);
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Right) && !ImGui::IsMouseDown(ImGuiMouseButton_Middle))
            mode = Mode::Idle;
        break;
    case Mode::Carry:
    {
        const bool moved = std::hypot(x - pressX, y - pressY) > 4;
        if (moved)
        {
            const Eigen::Vector3d next = onDragPlane(ray);
            if (dt > 0)
            {
                const Eigen::Vector3d instant = (next - carried) / dt;
                const double blend = std::min(1.0, dt / 0.06); // ~60 ms smoothing
                velocity += blend * (instant - velocity);
            }
            carried = next;
        }
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Left))
        {
            simulation.dropBall(carried, moved ? Eigen::Vector3d(double(throwGain) * velocity)
                                               : Eigen::Vector3d::Zero());
            mode = Mode::Idle;
        }
        break;
    }
    case Mode::Grab:
        simulation.moveGrab(onDragPlane(ray));
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Left) || !simulation.grabbing())
        {
            simulation.release();
            mode = Mode::Idle;
        }
        break;
    }
    return keys;
}

bool Interaction::clickDrop(const OrbitCamera& camera, Simulation& simulation, float groundY, float x,
                            float y, float width, float height) const
{
    const auto hit = pickWorld(simulation, camera.rayThrough(x, y, width, height), groundY);
    if (!hit || !simulation.world())
        return false;
    simulation.dropBall(*hit + Eigen::Vector3d(0, simulation.balls.dropHeight, 0), Eigen::Vector3d::Zero());
    return true;
}

void Interaction::drawOverlay(LineBatch& overlay, Simulation& simulation, float sceneScale) const
{
    if (mode == Mode::Carry)
    {
        const Eigen::Vector3f c = carried.cast<float>();
        const float r = simulation.balls.radius;
        const Eigen::Vector4f white(1, 1, 1, 0.95f);
        overlay.circle(c, r, Vec3f::UnitX(), Vec3f::UnitY(), white, 24);
        overlay.circle(c, r, Vec3f::UnitX(), Vec3f::UnitZ(), white, 24);
        overlay.circle(c, r, Vec3f::UnitY(), Vec3f::UnitZ(), white, 24);
        overlay.line(c, Eigen::Vector3f(c.x(), c.y() - 10 * sceneScale, c.z()),
                     Eigen::Vector4f(1, 1, 1, 0.35f));
        const Eigen::Vector3f v = (double(throwGain) * velocity).cast<float>();
        if (v.norm() > 0.05f)
            overlay.arrow(c, c + 0.15f * v, v.unitOrthogonal(), Eigen::Vector4f(1.0f, 0.6f, 0.2f, 1));
    }
    if (mode == Mode::Grab && simulation.grabbing())
        if (auto point = simulation.grabPoint())
            if (auto target = simulation.grabTargetPoint())
            {
                overlay.line(point->cast<float>(), target->cast<float>(),
                             Eigen::Vector4f(1.0f, 0.85f, 0.3f, 1));
                overlay.cross(target->cast<float>(), 0.01f * sceneScale,
                              Eigen::Vector4f(1.0f, 0.85f, 0.3f, 1));
            }
}

const char* Interaction::hint() const
{
    switch (mode)
    {
    case Mode::Carry:
        return "release to drop, or move while releasing to throw";
    case Mode::Grab:
        return "dragging a piece: release to let go";
    default:
        return nullptr;
    }
}

} // namespace shatter::demo
