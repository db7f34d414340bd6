// Orbit camera: yaw and pitch about a target point at a distance; orbit, pan, zoom, framing, and the
// ray through a pixel for picking and dropping balls.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <optional>
#include <string>

namespace shatter::demo
{

using Vec3f = Eigen::Vector3f;
using Mat4f = Eigen::Matrix4f;

struct Ray
{
    Vec3f origin = Vec3f::Zero();
    Vec3f direction = Vec3f::UnitZ(); ///< unit
};

/// Where the camera looks from; the --camera option's numbers.
struct CameraPose
{
    float yawDegrees = 35;   ///< about +y, 0 looks along −z
    float pitchDegrees = 25; ///< above the horizon
    float distance = 2;      ///< m from the target
    Vec3f target = Vec3f(0, 0.2f, 0);
};

/// "yaw,pitch,distance,tx,ty,tz" (degrees, metres), as shatter_demo's --camera reads it.
std::string formatCameraPose(const CameraPose& pose);

class OrbitCamera
{
public:
    CameraPose pose;
    float fovYDegrees = 40;

    Vec3f position() const;
    Vec3f forward() const; ///< unit, from the camera toward the target
    Vec3f right() const;   ///< unit, screen x
    Vec3f up() const;      ///< unit, screen y
    float nearPlane() const;
    float farPlane() const;
    Mat4f view() const;
    Mat4f projection(float aspect) const;

    /// Mouse drags in pixels; `viewportHeight` converts pan pixels to metres at the target.
    void orbit(float dxPixels, float dyPixels);
    void pan(float dxPixels, float dyPixels, float viewportHeight);
    /// Wheel notches: positive zooms in.
    void zoom(float notches);
    /// Looks at the box from the current direction so that it fills the view.
    void frame(const Eigen::AlignedBox3f& box);

    /// The ray through pixel (x, y) (origin top left) of a width × height viewport.
    Ray rayThrough(float x, float y, float width, float height) const;
    /// Pixel of a world point (origin top left); std::nullopt behind the camera.
    std::optional<Eigen::Vector2f> project(const Vec3f& point, float width, float height) const;
};

} // namespace shatter::demo
