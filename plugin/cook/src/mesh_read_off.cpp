// Strict OFF reader (see mesh_readers.h for why it exists): line oriented, counts checked against
// the lines that follow, indices range-checked.
#include "mesh_readers.h"

#include <algorithm>

namespace shatter::detail
{

TriMesh readOff(std::string_view bytes, const std::string& source, Index& skippedFaces)
{
    // OFF is line oriented in practice: one vertex or face per line, '#' comments.
    std::size_t pos = 0;
    std::size_t lineNumber = 0;
    auto nextLine = [&]() -> std::optional<std::string_view>
    {
        while (pos < bytes.size())
        {
            std::size_t end = bytes.find('\n', pos);
            if (end == std::string_view::npos)
                end = bytes.size();
            std::string_view line = bytes.substr(pos, end - pos);
            pos = end + 1;
            ++lineNumber;
            line = line.substr(0, line.find('#'));
            if (line.find_first_not_of(" \t\r\f\v") != std::string_view::npos)
                return line;
        }
        return std::nullopt;
    };
    const std::optional<std::string_view> first = nextLine();
    Tokens header(first.value_or(std::string_view()));
    const std::string_view keyword = header.next();
    const std::string_view prefix = keyword.substr(0, keyword.size() >= 3 ? keyword.size() - 3 : 0);
    if (!keyword.ends_with("OFF") || prefix.find_first_not_of("STCN4n") != std::string_view::npos)
        throw MeshError(source, MeshProblem::UnknownFormat, "not an OFF file: it does not start with 'OFF'");
    if (prefix.find_first_of("4n") != std::string_view::npos)
        readFailed(source, "only three-dimensional OFF files are supported");
    std::string_view countToken = header.next();
    if (countToken == "BINARY")
        readFailed(source, "binary OFF files are not supported");
    std::optional<std::string_view> countLine;
    Tokens counts(std::string_view{});
    if (countToken.empty())
    {
        countLine = nextLine();
        counts = Tokens(countLine.value_or(std::string_view()));
        countToken = counts.next();
    }
    else
        counts = header;
    const std::optional<std::uint64_t> vertexCount = parseCount(countToken);
    const std::optional<std::uint64_t> faceCount = parseCount(counts.next());
    if (!vertexCount || !faceCount)
        readFailed(source, "bad vertex and face counts on line " + std::to_string(lineNumber));
    const std::string_view rest = bytes.substr(std::min(pos, bytes.size()));
    const std::uint64_t linesLeft = std::uint64_t(std::count(rest.begin(), rest.end(), '\n')) +
                                    (rest.ends_with('\n') || rest.empty() ? 0 : 1);
    if (*vertexCount > linesLeft || *faceCount > linesLeft - *vertexCount || *vertexCount > kInvalidIndex)
        readFailed(source, "truncated: the header promises " + std::to_string(*vertexCount) +
                               " vertices and " + std::to_string(*faceCount) + " faces but only " +
                               std::to_string(linesLeft) + " lines follow");

    TriMesh mesh;
    mesh.vertices.reserve(*vertexCount);
    for (std::uint64_t i = 0; i < *vertexCount; ++i)
    {
        const std::optional<std::string_view> line = nextLine();
        if (!line)
            readFailed(source, "truncated: the file ends after " + std::to_string(i) + " of " +
                                   std::to_string(*vertexCount) + " vertices");
        Tokens tokens(*line);
        Vec3 p;
        for (int k = 0; k < 3; ++k)
        {
            const std::optional<double> value = parseNumber(tokens.next());
            if (!value)
                readFailed(source, "vertex " + std::to_string(i) + " on line " + std::to_string(lineNumber) +
                                       " does not have three coordinates");
            p[k] = *value;
        }
        mesh.vertices.push_back(p);
    }
    std::vector<Index> polygon;
    for (std::uint64_t f = 0; f < *faceCount; ++f)
    {
        const std::optional<std::string_view> line = nextLine();
        if (!line)
            readFailed(source, "truncated: the file ends after " + std::to_string(f) + " of " +
                                   std::to_string(*faceCount) + " faces");
        Tokens tokens(*line);
        const std::optional<std::uint64_t> corners = parseCount(tokens.next());
        if (!corners || *corners > kMaxPolygon)
            readFailed(source, "bad corner count for face " + std::to_string(f) + " on line " +
                                   std::to_string(lineNumber));
        polygon.clear();
        for (std::uint64_t k = 0; k < *corners; ++k)
        {
            const std::optional<double> value = parseNumber(tokens.next());
            if (!value)
                readFailed(source, "face " + std::to_string(f) + " on line " + std::to_string(lineNumber) +
                                       " has fewer than " + std::to_string(*corners) + " vertex indices");
            polygon.push_back(checkedIndex(*value, *vertexCount, f, source));
        }
        addPolygon(mesh, polygon, skippedFaces);
    }
    return mesh;
}

} // namespace shatter::detail
