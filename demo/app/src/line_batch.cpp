#include "line_batch.h"

#include <algorithm>
#include <cmath>

namespace shatter::demo
{
namespace
{
LineVertex vertex(const Eigen::Vector3f& p, const Eigen::Vector4f& c)
{
    LineVertex v{};
    for (int i = 0; i < 3; ++i)
        v.position[i] = p[i];
    for (int i = 0; i < 4; ++i)
        v.color[i] = std::uint8_t(std::clamp(c[i], 0.0f, 1.0f) * 255.0f + 0.5f);
    return v;
}
} // namespace

void LineBatch::line(const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector4f& color)
{
    vertices.push_back(vertex(a, color));
    vertices.push_back(vertex(b, color));
}

void LineBatch::cross(const Eigen::Vector3f& p, float h, const Eigen::Vector4f& color)
{
    for (int axis = 0; axis < 3; ++axis)
    {
        const Eigen::Vector3f d = Eigen::Vector3f::Unit(axis) * h;
        line(p - d, p + d, color);
    }
}

void LineBatch::circle(const Eigen::Vector3f& center, float radius, const Eigen::Vector3f& u,
                       const Eigen::Vector3f& v, const Eigen::Vector4f& color, int segments)
{
    const float step = 2 * 3.14159265358979f / float(segments);
    Eigen::Vector3f previous = center + radius * u;
    for (int i = 1; i <= segments; ++i)
    {
        const float a = step * float(i);
        const Eigen::Vector3f next = center + radius * (std::cos(a) * u + std::sin(a) * v);
        line(previous, next, color);
        previous = next;
    }
}

void LineBatch::arrow(const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector3f& side,
                      const Eigen::Vector4f& color)
{
    line(a, b, color);
    const Eigen::Vector3f d = b - a;
    const float length = d.norm();
    if (length <= 0)
        return;
    const Eigen::Vector3f back = b - 0.25f * d;
    const Eigen::Vector3f across = side * (0.12f * length);
    line(b, back + across, color);
    line(b, back - across, color);
}

GpuLines::GpuLines()
{
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &vbo);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex),
                          reinterpret_cast<void*>(offsetof(LineVertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(LineVertex),
                          reinterpret_cast<void*>(offsetof(LineVertex, color)));
    glBindVertexArray(0);
}

GpuLines::~GpuLines()
{
    glDeleteBuffers(1, &vbo);
    glDeleteVertexArrays(1, &vao);
}

void GpuLines::upload(const std::vector<LineVertex>& vertices)
{
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    const std::size_t bytes = vertices.size() * sizeof(LineVertex);
    if (bytes > capacity)
    {
        capacity = std::max<std::size_t>(bytes, 2 * capacity);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(capacity), nullptr, GL_DYNAMIC_DRAW);
    }
    if (bytes)
        glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(bytes), vertices.data());
    count = GLsizei(vertices.size());
}

void GpuLines::draw() const
{
    if (!count)
        return;
    glBindVertexArray(vao);
    glDrawArrays(GL_LINES, 0, count);
}

} // namespace shatter::demo
