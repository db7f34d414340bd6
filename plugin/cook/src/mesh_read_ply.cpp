// Strict PLY reader (see mesh_readers.h for why it exists). Every count in the header is checked
// against the bytes that follow before anything is allocated, every read is bounds-checked and
// every index range-checked, so a corrupt file costs an exception, never a crash or a
// multi-gigabyte allocation.
#include "mesh_readers.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace shatter::detail
{

namespace
{

enum class Scalar : std::uint8_t
{
    Int8,
    UInt8,
    Int16,
    UInt16,
    Int32,
    UInt32,
    Float32,
    Float64,
    Invalid
};

Scalar scalarType(std::string_view name)
{
    if (name == "char" || name == "int8")
        return Scalar::Int8;
    if (name == "uchar" || name == "uint8")
        return Scalar::UInt8;
    if (name == "short" || name == "int16")
        return Scalar::Int16;
    if (name == "ushort" || name == "uint16")
        return Scalar::UInt16;
    if (name == "int" || name == "int32")
        return Scalar::Int32;
    if (name == "uint" || name == "uint32")
        return Scalar::UInt32;
    if (name == "float" || name == "float32")
        return Scalar::Float32;
    if (name == "double" || name == "float64")
        return Scalar::Float64;
    return Scalar::Invalid;
}

std::size_t sizeOf(Scalar s)
{
    constexpr std::size_t sizes[] = {1, 1, 2, 2, 4, 4, 4, 8, 0};
    return sizes[std::size_t(s)];
}

struct PlyProperty
{
    std::string name;
    Scalar type = Scalar::Invalid;
    Scalar countType = Scalar::Invalid; ///< Invalid for a scalar property
};

struct PlyElement
{
    std::string name;
    std::uint64_t count = 0;
    std::vector<PlyProperty> properties;
};

// Reads one value of the body, ASCII or binary, with bounds checks.
class PlyBody
{
public:
    PlyBody(std::string_view body, std::size_t headerLines, int format, const std::string& source)
        : body(body), tokens(body, headerLines + 1), format(format), source(source)
    {
    }

    double read(Scalar type)
    {
        if (format == 0)
        {
            const std::string_view token = tokens.next();
            if (token.empty())
                readFailed(source, "the file ends early, on line " + std::to_string(tokens.line()));
            const std::optional<double> value = parseNumber(token);
            if (!value)
                readFailed(source, "'" + std::string(token.substr(0, 32)) + "' on line " +
                                       std::to_string(tokens.line()) + " is not a number");
            return *value;
        }
        const std::size_t size = sizeOf(type);
        if (pos + size > body.size())
            readFailed(source, "the binary data ends early, at byte " + std::to_string(pos) + " of the body");
        unsigned char bytes[8];
        std::memcpy(bytes, body.data() + pos, size);
        pos += size;
        const bool fileBig = format == 2;
        if (fileBig != (std::endian::native == std::endian::big))
            std::reverse(bytes, bytes + size);
        return decode(type, bytes);
    }
    std::size_t remaining() const { return body.size() - std::min(pos, body.size()); }

private:
    static double decode(Scalar type, const unsigned char* bytes)
    {
        auto as = [&](auto value)
        {
            std::memcpy(&value, bytes, sizeof value);
            return double(value);
        };
        switch (type)
        {
        case Scalar::Int8:
            return as(std::int8_t());
        case Scalar::UInt8:
            return as(std::uint8_t());
        case Scalar::Int16:
            return as(std::int16_t());
        case Scalar::UInt16:
            return as(std::uint16_t());
        case Scalar::Int32:
            return as(std::int32_t());
        case Scalar::UInt32:
            return as(std::uint32_t());
        case Scalar::Float32:
            return as(float());
        case Scalar::Float64:
            return as(double());
        case Scalar::Invalid:
            break;
        }
        return 0;
    }

    std::string_view body;
    Tokens tokens;
    std::size_t pos = 0;
    int format; // 0 ascii, 1 binary little endian, 2 binary big endian
    const std::string& source;
};

} // namespace

TriMesh readPly(std::string_view bytes, const std::string& source, Index& skippedFaces)
{
    if (!(bytes.starts_with("ply\n") || bytes.starts_with("ply\r\n")))
        throw MeshError(source, MeshProblem::UnknownFormat, "not a PLY file: it does not start with 'ply'");
    std::vector<PlyElement> elements;
    int format = -1;
    std::size_t pos = 0;
    std::size_t lines = 0;
    for (bool done = false; !done;)
    {
        const std::size_t end = bytes.find('\n', pos);
        if (end == std::string_view::npos)
            readFailed(source, "the PLY header has no end_header line");
        Tokens line(bytes.substr(pos, end - pos));
        pos = end + 1;
        ++lines;
        const std::string_view keyword = line.next();
        if (keyword == "format")
        {
            const std::string_view name = line.next();
            format = name == "ascii"                  ? 0
                     : name == "binary_little_endian" ? 1
                     : name == "binary_big_endian"    ? 2
                                                      : -2;
            if (format < 0)
                readFailed(source, "unknown PLY format '" + std::string(name.substr(0, 32)) + "'");
        }
        else if (keyword == "element")
        {
            const std::string_view name = line.next();
            const std::optional<std::uint64_t> count = parseCount(line.next());
            if (!count)
                readFailed(source, "bad element count on PLY header line " + std::to_string(lines));
            elements.push_back({std::string(name), *count, {}});
        }
        else if (keyword == "property")
        {
            if (elements.empty())
                readFailed(source, "PLY property before any element on header line " + std::to_string(lines));
            PlyProperty property;
            std::string_view type = line.next();
            if (type == "list")
            {
                property.countType = scalarType(line.next());
                type = line.next();
                if (property.countType == Scalar::Invalid || property.countType >= Scalar::Float32)
                    readFailed(source, "bad PLY list count type on header line " + std::to_string(lines));
            }
            property.type = scalarType(type);
            property.name = std::string(line.next());
            if (property.type == Scalar::Invalid)
                readFailed(source, "unknown PLY property type '" + std::string(type.substr(0, 32)) + "'");
            elements.back().properties.push_back(std::move(property));
        }
        else if (keyword == "end_header")
            done = true;
        else if (keyword != "ply" && keyword != "comment" && keyword != "obj_info" && !keyword.empty())
            readFailed(source, "unexpected PLY header line " + std::to_string(lines));
    }
    if (format < 0)
        readFailed(source, "the PLY header has no format line");

    // Every element needs at least this many bytes of body: refuse counts the file cannot hold.
    const std::string_view body = bytes.substr(pos);
    long double needed = 0;
    const PlyElement* vertexElement = nullptr;
    for (const PlyElement& element : elements)
    {
        std::size_t perItem = 0;
        for (const PlyProperty& p : element.properties)
            perItem += format == 0 ? 1 : sizeOf(p.countType == Scalar::Invalid ? p.type : p.countType);
        needed += static_cast<long double>(element.count) * static_cast<long double>(perItem);
        if (element.name == "vertex")
            vertexElement = &element;
    }
    if (needed > static_cast<long double>(body.size()))
        readFailed(source, "truncated: the header promises more data than the file's " +
                               std::to_string(body.size()) + " bytes after the header");
    const std::uint64_t vertexCount = vertexElement ? vertexElement->count : 0;
    if (vertexCount > kInvalidIndex)
        readFailed(source, "too many vertices for 32-bit indices");
    if (vertexElement)
        for (const char* axis : {"x", "y", "z"})
            if (std::none_of(vertexElement->properties.begin(), vertexElement->properties.end(),
                             [&](const PlyProperty& p)
                             { return p.name == axis && p.countType == Scalar::Invalid; }))
                readFailed(source, std::string("the PLY vertex element has no '") + axis + "' property");

    TriMesh mesh;
    PlyBody reader(body, lines, format, source);
    std::vector<Index> polygon;
    for (const PlyElement& element : elements)
    {
        const bool isVertex = &element == vertexElement;
        const bool isFace = element.name == "face";
        if (isVertex)
            mesh.vertices.reserve(element.count);
        for (std::uint64_t item = 0; item < element.count; ++item)
        {
            Vec3 position = Vec3::Zero();
            for (const PlyProperty& property : element.properties)
            {
                if (property.countType == Scalar::Invalid)
                {
                    const double value = reader.read(property.type);
                    const int axis = property.name == "x"   ? 0
                                     : property.name == "y" ? 1
                                     : property.name == "z" ? 2
                                                            : -1;
                    if (isVertex && axis >= 0)
                        position[axis] = value;
                    continue;
                }
                const double count = reader.read(property.countType);
                if (!(count >= 0 && count <= double(kMaxPolygon) && count == std::floor(count)) ||
                    count * double(format == 0 ? 1 : sizeOf(property.type)) > double(reader.remaining()))
                    readFailed(source, "bad list length " + std::to_string(count) + " in " + element.name +
                                           " " + std::to_string(item));
                const bool indices =
                    isFace && (property.name == "vertex_indices" || property.name == "vertex_index");
                polygon.clear();
                for (std::uint64_t k = 0; k < std::uint64_t(count); ++k)
                {
                    const double value = reader.read(property.type);
                    if (indices)
                        polygon.push_back(checkedIndex(value, vertexCount, item, source));
                }
                if (indices)
                    addPolygon(mesh, polygon, skippedFaces);
            }
            if (isVertex)
                mesh.vertices.push_back(position);
        }
    }
    return mesh;
}

} // namespace shatter::detail
