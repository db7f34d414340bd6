// Debug geometry: coloured line segments collected on the CPU during a frame and drawn in one call.
#pragma once

#include <glad/gl.h>

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace shatter::demo
{

struct LineVertex
{
    float position[3];
    std::uint8_t color[4];
};

class LineBatch
{
public:
    void clear() { vertices.clear(); }
    bool empty() const { return vertices.empty(); }
    std::size_t segmentCount() const { return vertices.size() / 2; }

    /// Colours are sRGB with alpha, in [0, 1].
    void line(const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector4f& color);
    /// Three short axis-aligned segments through p.
    void cross(const Eigen::Vector3f& p, float halfSize, const Eigen::Vector4f& color);
    /// Circle of `radius` around `center` in the plane spanned by the unit vectors u, v.
    void circle(const Eigen::Vector3f& center, float radius, const Eigen::Vector3f& u,
                const Eigen::Vector3f& v, const Eigen::Vector4f& color, int segments = 32);
    /// Segment with a small arrow head at b; `side` is any unit vector across the segment.
    void arrow(const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector3f& side,
               const Eigen::Vector4f& color);

    const std::vector<LineVertex>& data() const { return vertices; }

private:
    std::vector<LineVertex> vertices;
};

/// A dynamic vertex buffer that draws a LineBatch (or a fixed set of lines).
class GpuLines
{
public:
    GpuLines();
    ~GpuLines();
    GpuLines(const GpuLines&) = delete;
    GpuLines& operator=(const GpuLines&) = delete;

    void upload(const std::vector<LineVertex>& vertices);
    void draw() const;
    GLsizei vertexCount() const { return count; }

private:
    GLuint vao = 0, vbo = 0;
    GLsizei count = 0;
    std::size_t capacity = 0;
};

} // namespace shatter::demo
