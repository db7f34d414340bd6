#include "shader.h"

#include <stdexcept>
#include <utility>

namespace shatter::demo
{
namespace
{
GLuint compile(const std::string& name, GLenum stage, const char* source)
{
    const GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok)
    {
        char log[4096];
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        throw std::runtime_error("shader " + name +
                                 (stage == GL_VERTEX_SHADER ? " (vertex)" : " (fragment)") + ": " + log);
    }
    return shader;
}
} // namespace

ShaderProgram::ShaderProgram(const std::string& name, const char* vertexSource, const char* fragmentSource)
{
    const GLuint vs = compile(name, GL_VERTEX_SHADER, vertexSource);
    const GLuint fs = compile(name, GL_FRAGMENT_SHADER, fragmentSource);
    program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok)
    {
        char log[4096];
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        glDeleteProgram(program);
        program = 0;
        throw std::runtime_error("shader " + name + " (link): " + log);
    }
}

ShaderProgram::~ShaderProgram()
{
    if (program)
        glDeleteProgram(program);
}

ShaderProgram::ShaderProgram(ShaderProgram&& other) noexcept
    : program(std::exchange(other.program, 0)), locations(std::move(other.locations))
{
}

ShaderProgram& ShaderProgram::operator=(ShaderProgram&& other) noexcept
{
    if (this != &other)
    {
        if (program)
            glDeleteProgram(program);
        program = std::exchange(other.program, 0);
        locations = std::move(other.locations);
    }
    return *this;
}

void ShaderProgram::use() const
{
    glUseProgram(program);
}

GLint ShaderProgram::location(const char* name)
{
    auto it = locations.find(name);
    if (it == locations.end())
        it = locations.emplace(name, glGetUniformLocation(program, name)).first;
    return it->second;
}

void ShaderProgram::set(const char* name, int value)
{
    glUniform1i(location(name), value);
}

void ShaderProgram::set(const char* name, float value)
{
    glUniform1f(location(name), value);
}

void ShaderProgram::set(const char* name, const Eigen::Vector2f& value)
{
    glUniform2fv(location(name), 1, value.data());
}

void ShaderProgram::set(const char* name, const Eigen::Vector3f& value)
{
    glUniform3fv(location(name), 1, value.data());
}

void ShaderProgram::set(const char* name, const Eigen::Vector4f& value)
{
    glUniform4fv(location(name), 1, value.data());
}

void ShaderProgram::set(const char* name, const Eigen::Matrix4f& value)
{
    glUniformMatrix4fv(location(name), 1, GL_FALSE, value.data()); // Eigen is column-major, like GL
}

} // namespace shatter::demo
