// Internal: Shatter's own strict readers for the formats whose assimp loaders crash, hang, leak or
// waste time on corrupt or small files (assimp 5.2 aborts on a truncated OFF, segfaults on many
// mutated binary PLY files, and its OBJ loader fills a 16 MB buffer for every file and leaks when it
// rejects one). Used by mesh_import.cpp only.
#pragma once

#include "mesh_validate.h"
#include "shatter/mesh.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shatter::detail
{

/// Polygons with fewer than three corners are skipped and counted in `skippedFaces`; larger ones
/// are split into a fan. Indices are checked. Throws MeshError (ReadFailed, UnknownFormat) naming
/// `source`; never reads past `bytes` and allocates only what the file size can back.
TriMesh readPly(std::string_view bytes, const std::string& source, Index& skippedFaces);
/// Same for OFF (ASCII; optional ST/C/N prefixes, extra columns ignored).
TriMesh readOff(std::string_view bytes, const std::string& source, Index& skippedFaces);
/// Same for OBJ: `v` and `f` statements (any of the v, v/t, v//n, v/t/n corner forms, negative indices
/// counting back); other statements are skipped.
TriMesh readObj(std::string_view bytes, const std::string& source, Index& skippedFaces);

// Helpers shared by the readers.

// Longest polygon we accept; larger "faces" in a mesh file are corruption.
constexpr std::uint64_t kMaxPolygon = 1u << 16;

[[noreturn]] inline void readFailed(const std::string& source, const std::string& detail)
{
    throw MeshError(source, MeshProblem::ReadFailed, detail);
}

inline bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// Whitespace-separated tokens, counting lines for messages.
class Tokens
{
public:
    explicit Tokens(std::string_view text, std::size_t firstLine = 1) : text(text), lineNumber(firstLine) {}

    std::string_view next()
    {
        while (pos < text.size() && isSpace(text[pos]))
            lineNumber += text[pos++] == '\n' ? 1 : 0;
        const std::size_t start = pos;
        while (pos < text.size() && !isSpace(text[pos]))
            ++pos;
        return text.substr(start, pos - start);
    }
    std::size_t line() const { return lineNumber; }

private:
    std::string_view text;
    std::size_t pos = 0;
    std::size_t lineNumber;
};

inline std::optional<double> parseNumber(std::string_view token)
{
    if (!token.empty() && token.front() == '+')
        token.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (end != token.data() + token.size() || token.empty())
        return std::nullopt;
    if (error == std::errc::result_out_of_range) // strtod saturates to ±inf or 0 as we want
        return std::strtod(std::string(token).c_str(), nullptr);
    if (error != std::errc())
        return std::nullopt;
    return value;
}

inline std::optional<std::uint64_t> parseCount(std::string_view token)
{
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size() || token.empty())
        return std::nullopt;
    return value;
}

// A face's vertex index: integral and in range, or the file is corrupt.
inline Index checkedIndex(double value, std::uint64_t vertexCount, std::uint64_t face,
                          const std::string& source)
{
    if (!(value >= 0 && value < double(vertexCount) && value == std::floor(value)))
    {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", value);
        readFailed(source, "face " + std::to_string(face) + " refers to vertex " + text +
                               " but the file has " + std::to_string(vertexCount) + " vertices");
    }
    return Index(value);
}

inline void addPolygon(TriMesh& mesh, const std::vector<Index>& polygon, Index& skippedFaces)
{
    if (polygon.size() < 3)
    {
        ++skippedFaces;
        return;
    }
    for (std::size_t i = 1; i + 1 < polygon.size(); ++i)
        mesh.triangles.push_back({polygon[0], polygon[i], polygon[i + 1]});
}

} // namespace shatter::detail
