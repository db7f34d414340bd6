// A linked GLSL program with cached uniform locations.
#pragma once

#include <glad/gl.h>

#include <Eigen/Core>

#include <string>
#include <unordered_map>

namespace shatter::demo
{

class ShaderProgram
{
public:
    ShaderProgram() = default;
    /// Compiles and links; throws std::runtime_error with `name` and the driver's log on failure.
    ShaderProgram(const std::string& name, const char* vertexSource, const char* fragmentSource);
    ~ShaderProgram();
    ShaderProgram(ShaderProgram&& other) noexcept;
    ShaderProgram& operator=(ShaderProgram&& other) noexcept;
    ShaderProgram(const ShaderProgram&) = delete;
    ShaderProgram& operator=(const ShaderProgram&) = delete;

    void use() const;
    GLuint id() const { return program; }

    void set(const char* name, int value);
    void set(const char* name, float value);
    void set(const char* name, const Eigen::Vector2f& value);
    void set(const char* name, const Eigen::Vector3f& value);
    void set(const char* name, const Eigen::Vector4f& value);
    void set(const char* name, const Eigen::Matrix4f& value);

private:
    GLint location(const char* name);

    GLuint program = 0;
    std::unordered_map<std::string, GLint> locations;
};

} // namespace shatter::demo
