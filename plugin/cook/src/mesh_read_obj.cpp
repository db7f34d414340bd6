// Strict OBJ reader (see mesh_readers.h for why it exists): the polygonal subset of Wavefront OBJ that
// describes a solid. `v` and `f` (and the old `fo`) statements are read; texture coordinates,
// normals, groups, materials, smoothing, points, lines and free-form statements are skipped, as an
// importer that keeps only the triangles of all objects does. A backslash at a line's end continues it.
// Coordinates are rounded to single precision, the precision OBJ files have always been imported with
// (through assimp), so that an OBJ mesh's asset and its cache entry stay what they were.
#include "mesh_readers.h"

#include <algorithm>

namespace shatter::detail
{

namespace
{

// One logical line: physical lines joined at a trailing backslash, the comment dropped.
class ObjLines
{
public:
    explicit ObjLines(std::string_view bytes) : m_bytes(bytes) {}

    bool next(std::string& line)
    {
        line.clear();
        if (m_pos >= m_bytes.size())
            return false;
        m_line = m_nextLine;
        while (m_pos < m_bytes.size())
        {
            std::size_t end = m_bytes.find('\n', m_pos);
            end = end == std::string_view::npos ? m_bytes.size() : end;
            std::string_view physical = m_bytes.substr(m_pos, end - m_pos);
            m_pos = end + 1;
            ++m_nextLine;
            while (!physical.empty() &&
                   (physical.back() == '\r' || physical.back() == ' ' || physical.back() == '\t'))
                physical.remove_suffix(1);
            const bool continued = physical.ends_with('\\');
            if (continued)
                physical.remove_suffix(1);
            line.append(physical);
            if (!continued)
                break;
            line.push_back(' ');
        }
        line.erase(std::min(line.find('#'), line.size()));
        return true;
    }
    /// The number of the physical line the last logical line started on, from 1.
    std::size_t lineNumber() const { return m_line; }

private:
    std::string_view m_bytes;
    std::size_t m_pos = 0;
    std::size_t m_line = 0;
    std::size_t m_nextLine = 1;
};

} // namespace

TriMesh readObj(std::string_view bytes, const std::string& source, Index& skippedFaces)
{
    TriMesh mesh;
    ObjLines lines(bytes);
    std::string line;
    std::vector<Index> polygon;
    // Positive indices may name vertices defined further down; they are checked once all are read.
    std::uint64_t largestIndex = 0;
    std::size_t largestIndexLine = 0;
    while (lines.next(line))
    {
        Tokens tokens(line);
        const std::string_view keyword = tokens.next();
        const auto where = [&]
        {
            return " on line " + std::to_string(lines.lineNumber());
        }; // errors only
        if (keyword == "v")
        {
            Vec3 p;
            for (int k = 0; k < 3; ++k)
            {
                const std::string_view token = tokens.next();
                const std::optional<double> value = parseNumber(token);
                if (!value)
                    readFailed(source, token.empty()
                                           ? "a vertex with fewer than three coordinates" + where()
                                           : "bad vertex coordinate '" + std::string(token) + "'" + where());
                p[k] = Real(float(*value));
            }
            if (mesh.vertices.size() >= kInvalidIndex)
                readFailed(source, "more vertices than Shatter indexes");
            mesh.vertices.push_back(p);
        }
        else if (keyword == "f" || keyword == "fo")
        {
            polygon.clear();
            for (std::string_view corner = tokens.next(); !corner.empty(); corner = tokens.next())
            {
                const std::string_view vertex = corner.substr(0, corner.find('/'));
                const bool negative = vertex.starts_with('-');
                const std::optional<std::uint64_t> number = parseCount(negative ? vertex.substr(1) : vertex);
                if (!number || *number == 0)
                    readFailed(source, "bad face corner '" + std::string(corner) + "'" + where());
                if (polygon.size() >= kMaxPolygon)
                    readFailed(source,
                               "a face with more than " + std::to_string(kMaxPolygon) + " corners" + where());
                if (negative) // relative to the vertices read so far
                {
                    if (*number > mesh.vertices.size())
                        readFailed(source, "face corner " + std::string(vertex) +
                                               " refers back past the first vertex" + where());
                    polygon.push_back(Index(mesh.vertices.size() - *number));
                }
                else
                {
                    if (*number > largestIndex)
                    {
                        largestIndex = *number;
                        largestIndexLine = lines.lineNumber();
                    }
                    polygon.push_back(Index(std::min<std::uint64_t>(*number - 1, kInvalidIndex)));
                }
            }
            addPolygon(mesh, polygon, skippedFaces);
        }
    }
    if (largestIndex > mesh.vertices.size())
        readFailed(source, "a face on line " + std::to_string(largestIndexLine) + " refers to vertex " +
                               std::to_string(largestIndex) + " but the file has " +
                               std::to_string(mesh.vertices.size()) + " vertices");
    return mesh;
}

} // namespace shatter::detail
