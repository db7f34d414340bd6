#include "camera.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shatter::demo
{
namespace
{
constexpr float kDegrees = 3.14159265358979f / 180.0f;
} // namespace

std::string formatCameraPose(const CameraPose& pose)
{
    char text[160];
    std::snprintf(text, sizeof text, "%.1f,%.1f,%.3f,%.3f,%.3f,%.3f", pose.yawDegrees, pose.pitchDegrees,
                  pose.distance, pose.target.x(), pose.target.y(), pose.target.z());
    return text;
}

Vec3f OrbitCamera::forward() const
{
    const float yaw = pose.yawDegrees * kDegrees;
    const float pitch = pose.pitchDegrees * kDegrees;
    // Looking down at the target from above when pitch > 0.
    return Vec3f(-std::sin(yaw) * std::cos(pitch), -std::sin(pitch), -std::cos(yaw) * std::cos(pitch));
}

Vec3f OrbitCamera::position() const
{
    return pose.target - pose.distance * forward();
}

Vec3f OrbitCamera::right() const
{
    return forward().cross(Vec3f::UnitY()).normalized();
}

Vec3f OrbitCamera::up() const
{
    return right().cross(forward()).normalized();
}

float OrbitCamera::nearPlane() const
{
    return std::max(0.002f, pose.distance * 0.02f);
}

float OrbitCamera::farPlane() const
{
    return std::max(50.0f, pose.distance * 60.0f);
}

Mat4f OrbitCamera::view() const
{
    const Vec3f f = forward(), r = right(), u = up(), eye = position();
    Mat4f m = Mat4f::Identity();
    m.block<1, 3>(0, 0) = r.transpose();
    m.block<1, 3>(1, 0) = u.transpose();
    m.block<1, 3>(2, 0) = -f.transpose();
    m(0, 3) = -r.dot(eye);
    m(1, 3) = -u.dot(eye);
    m(2, 3) = f.dot(eye);
    return m;
}

Mat4f OrbitCamera::projection(float aspect) const
{
    const float n = nearPlane(), f = farPlane();
    const float t = 1.0f / std::tan(0.5f * fovYDegrees * kDegrees);
    Mat4f m = Mat4f::Zero();
    m(0, 0) = t / aspect;
    m(1, 1) = t;
    m(2, 2) = (f + n) / (n - f);
    m(2, 3) = 2 * f * n / (n - f);
    m(3, 2) = -1;
    return m;
}

void OrbitCamera::orbit(float dxPixels, float dyPixels)
{
    pose.yawDegrees -= 0.3f * dxPixels;
    pose.pitchDegrees = std::clamp(pose.pitchDegrees + 0.3f * dyPixels, -5.0f, 89.0f);
    pose.yawDegrees = std::fmod(pose.yawDegrees + 540.0f, 360.0f) - 180.0f;
}

void OrbitCamera::pan(float dxPixels, float dyPixels, float viewportHeight)
{
    const float metresPerPixel =
        2 * pose.distance * std::tan(0.5f * fovYDegrees * kDegrees) / std::max(viewportHeight, 1.0f);
    pose.target += metresPerPixel * (-dxPixels * right() + dyPixels * up());
}

void OrbitCamera::zoom(float notches)
{
    pose.distance = std::clamp(pose.distance * std::pow(0.88f, notches), 0.05f, 200.0f);
}

void OrbitCamera::frame(const Eigen::AlignedBox3f& box)
{
    if (box.isEmpty())
        return;
    const float radius = std::max(0.5f * box.diagonal().norm(), 0.05f);
    pose.target = box.center();
    pose.distance = 1.15f * radius / std::sin(0.5f * fovYDegrees * kDegrees);
}

Ray OrbitCamera::rayThrough(float x, float y, float width, float height) const
{
    const float t = std::tan(0.5f * fovYDegrees * kDegrees);
    const float aspect = width / std::max(height, 1.0f);
    const float nx = (2 * x / std::max(width, 1.0f) - 1) * t * aspect;
    const float ny = (1 - 2 * y / std::max(height, 1.0f)) * t;
    Ray ray;
    ray.origin = position();
    ray.direction = (forward() + nx * right() + ny * up()).normalized();
    return ray;
}

std::optional<Eigen::Vector2f> OrbitCamera::project(const Vec3f& point, float width, float height) const
{
    const Eigen::Vector4f clip = projection(width / std::max(height, 1.0f)) * view() * point.homogeneous();
    if (clip.w() <= 1e-6f)
        return std::nullopt;
    const Eigen::Vector2f ndc = clip.head<2>() / clip.w();
    return Eigen::Vector2f((ndc.x() + 1) * 0.5f * width, (1 - ndc.y()) * 0.5f * height);
}

} // namespace shatter::demo
