// importMesh: read a file into a TriMesh, then hand it to checkMesh (mesh_check.cpp).
//
// Assimp is lenient where we need strictness: it reads a random binary blob named .obj as an empty
// scene, its OFF and PLY loaders abort or crash on truncated or corrupt files (assimp 5.2.5), and its
// OBJ loader fills a 16 MB buffer for every file, however small, and leaks when it rejects one. So the
// format is chosen by extension and sniffed first: PLY, OFF and OBJ go to our strict readers
// (mesh_read_ply.cpp, mesh_read_off.cpp, mesh_read_obj.cpp), binary STL has its triangle count checked
// against the file size, and only then does assimp see the file. Fuzzing (tests/fuzz) found no crash in
// assimp's STL and glTF importers, though the ASCII STL and glTF ones leak a little memory when they
// reject a corrupt file. Assimp's logger stays its default NullLogger (we never create one, and a
// global logger is not ours to replace), so import is silent.
#include "mesh_import.h"
#include "mesh_repair.h"

#include "assimp_scene.h"

#include "mesh_readers.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>

namespace shatter
{

namespace
{

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t(1) << 32;
constexpr int kMaxSceneDepth = 256;

[[noreturn]] void fail(const std::string& source, MeshProblem problem, const std::string& detail)
{
    throw MeshError(source, problem, detail);
}

std::string readFile(const std::filesystem::path& file, const std::string& source)
{
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(file, error);
    if (error || !std::filesystem::exists(status))
        fail(source, MeshProblem::ReadFailed, "no such file");
    if (!std::filesystem::is_regular_file(status))
        fail(source, MeshProblem::ReadFailed, "not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (error || size > kMaxFileBytes)
        fail(source, MeshProblem::ReadFailed, error ? "cannot get the file size" : "larger than 4 GiB");
    std::ifstream in(file, std::ios::binary);
    std::string bytes(size, '\0');
    if (!in || !in.read(bytes.data(), std::streamsize(size)))
        fail(source, MeshProblem::ReadFailed, "cannot read the file");
    return bytes;
}

// Text formats hold no NUL bytes and few other control characters.
bool looksLikeText(std::string_view bytes)
{
    const std::string_view head = bytes.substr(0, 1 << 16);
    std::size_t control = 0;
    for (char c : head)
    {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u == 0)
            return false;
        control += (u < 0x20 && !std::strchr("\t\n\r\f\v", c)) || u == 0x7f ? 1 : 0;
    }
    return control * 100 <= head.size();
}

void sniffObj(std::string_view bytes, const std::string& source)
{
    static constexpr std::array<std::string_view, 40> kKeywords = {
        "v",    "vt",    "vn",       "vp",       "f",          "fo",        "l",      "p",     "o",    "g",
        "s",    "mg",    "usemtl",   "mtllib",   "usemap",     "maplib",    "cstype", "deg",   "bmat", "step",
        "curv", "curv2", "surf",     "parm",     "trim",       "hole",      "scrv",   "sp",    "end",  "con",
        "lod",  "bevel", "c_interp", "d_interp", "shadow_obj", "trace_obj", "ctech",  "stech", "call", "csh"};
    if (!looksLikeText(bytes))
        fail(source, MeshProblem::UnknownFormat, "binary data, not an OBJ text file");
    bool vertices = false;
    std::size_t unknownLine = 0;
    std::size_t lineNumber = 0;
    for (std::size_t pos = 0; pos < bytes.size() && !vertices;)
    {
        std::size_t end = bytes.find('\n', pos);
        end = end == std::string_view::npos ? bytes.size() : end;
        std::string_view line = bytes.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        const std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || line[first] == '#')
            continue;
        line = line.substr(first);
        const std::string_view keyword = line.substr(0, line.find_first_of(" \t\r"));
        vertices = keyword == "v";
        if (!unknownLine && std::find(kKeywords.begin(), kKeywords.end(), keyword) == kKeywords.end())
            unknownLine = lineNumber;
    }
    if (vertices)
        return;
    if (unknownLine)
        fail(source, MeshProblem::UnknownFormat,
             "not an OBJ file: line " + std::to_string(unknownLine) +
                 " is no OBJ statement and there are no vertices");
    fail(source, MeshProblem::Empty, "the OBJ file has no vertices");
}

// Returns how many bytes assimp should see (trailing garbage after a binary STL is dropped).
std::size_t sniffStl(std::string_view bytes, const std::string& source, std::vector<std::string>& notes)
{
    std::uint32_t count = 0;
    if (bytes.size() >= 84)
        std::memcpy(&count, bytes.data() + 80, 4); // little endian, as on every platform we build for
    const std::uint64_t expected = 84 + 50 * std::uint64_t(count);
    const std::size_t start = bytes.find_first_not_of(" \t\r\n");
    const bool ascii = start != std::string_view::npos && bytes.substr(start).starts_with("solid") &&
                       !(bytes.size() >= 84 && expected == bytes.size()) && looksLikeText(bytes);
    if (ascii)
        return bytes.size();
    if (bytes.size() < 84)
        fail(source, MeshProblem::ReadFailed,
             "not an ASCII STL, and too short (" + std::to_string(bytes.size()) +
                 " bytes) for a binary STL's 84-byte header");
    if (bytes.size() < expected)
        fail(source, MeshProblem::ReadFailed,
             "truncated or corrupt binary STL: its header promises " + std::to_string(count) +
                 " triangles (" + std::to_string(expected) + " bytes) but the file has " +
                 std::to_string(bytes.size()) + " bytes");
    if (bytes.size() > expected)
        notes.push_back("ignored " + std::to_string(bytes.size() - expected) +
                        " bytes after the last STL triangle");
    return std::size_t(expected);
}

void forEachInstance(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent, int depth,
                     const std::string& source,
                     const std::function<void(const aiMesh&, const aiMatrix4x4&)>& visit)
{
    if (depth > kMaxSceneDepth)
        fail(source, MeshProblem::ReadFailed, "the scene graph is nested too deeply");
    const aiMatrix4x4 transform = parent * node.mTransformation;
    for (unsigned i = 0; i < node.mNumMeshes; ++i)
    {
        if (node.mMeshes[i] >= scene.mNumMeshes)
            fail(source, MeshProblem::ReadFailed, "a scene node refers to a missing mesh");
        visit(*scene.mMeshes[node.mMeshes[i]], transform);
    }
    for (unsigned c = 0; c < node.mNumChildren; ++c)
        forEachInstance(scene, *node.mChildren[c], transform, depth + 1, source, visit);
}

// Appends one mesh instance's vertices and triangles.
void collect(const aiMesh& mesh, const aiMatrix4x4& transform, TriMesh& out, const std::string& source)
{
    const bool mirrored = transform.Determinant() < 0; // a mirroring transform reverses winding
    const Index base = Index(out.vertices.size());
    const bool identity = transform.IsIdentity(); // also keeps a NaN from spreading to x, y and z
    for (unsigned v = 0; v < mesh.mNumVertices; ++v)
    {
        const aiVector3D p = identity ? mesh.mVertices[v] : transform * mesh.mVertices[v];
        out.vertices.emplace_back(p.x, p.y, p.z);
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f)
    {
        const aiFace& face = mesh.mFaces[f];
        if (face.mNumIndices != 3) // points and lines; polygons were triangulated
            continue;
        Triangle tri{};
        for (int k = 0; k < 3; ++k)
        {
            if (face.mIndices[k] >= mesh.mNumVertices)
                fail(source, MeshProblem::ReadFailed, "a face refers to a missing vertex");
            tri[k] = base + face.mIndices[k];
        }
        if (mirrored)
            std::swap(tri[1], tri[2]);
        out.triangles.push_back(tri);
    }
}

TriMesh readWithAssimp(const std::filesystem::path& file, std::string_view memory, const std::string& source)
{
    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    // No JoinIdenticalVertices: it merges NaN vertices into one, hiding them; we weld ourselves.
    const unsigned flags = aiProcess_Triangulate | aiProcess_SortByPType;
    const aiScene* scene = memory.empty()
                               ? importer.ReadFile(file.string(), flags)
                               : importer.ReadFileFromMemory(memory.data(), memory.size(), flags, "stl");
    if (!scene)
        fail(source, MeshProblem::ReadFailed,
             std::string("assimp cannot read it: ") + importer.GetErrorString());
    TriMesh mesh;
    detail::forEachMeshInstance(*scene, source,
                                [&](const aiMesh& m, const aiMatrix4x4& transform)
                                { collect(m, transform, mesh, source); });
    return mesh;
}

TriMesh readMeshFile(const std::filesystem::path& file, const std::string& source, ImportReport& report)
{
    const std::string bytes = readFile(file, source);
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (bytes.empty())
        fail(source, MeshProblem::Empty, "the file is empty");
    Index skipped = 0;
    TriMesh mesh;
    if (extension == ".ply")
        mesh = detail::readPly(bytes, source, skipped);
    else if (extension == ".off")
        mesh = detail::readOff(bytes, source, skipped);
    else if (extension == ".obj")
    {
        sniffObj(bytes, source);
        mesh = detail::readObj(bytes, source, skipped);
    }
    else if (extension == ".stl")
    {
        const std::size_t size = sniffStl(bytes, source, report.notes);
        mesh = readWithAssimp(file, std::string_view(bytes).substr(0, size), source);
    }
    else
    {
        if (extension.empty() || !Assimp::Importer().IsExtensionSupported(extension))
            fail(source, MeshProblem::UnknownFormat,
                 "'" + extension +
                     "' is not a mesh format Shatter reads (PLY, OFF, OBJ, STL, glTF, or another "
                     "format assimp reads)");
        mesh = readWithAssimp(file, {}, source);
    }
    if (skipped > 0)
        report.notes.push_back("skipped " + std::to_string(skipped) + " faces with fewer than three corners");
    return mesh;
}

} // namespace

TriMesh importMesh(const std::filesystem::path& file, const ImportSettings& options, ImportReport* report)
{
    checkImportSettings(options);
    const std::string source = file.string();
    ImportReport readReport;
    try
    {
        TriMesh mesh = readMeshFile(file, source, readReport);
        if (mesh.triangles.empty())
            fail(source, MeshProblem::Empty, "the file has no triangles");
        readReport.inputVertices = Index(mesh.vertices.size());
        // Some formats store a vertex per triangle corner; merging exact copies first makes the
        // counts in error messages count distinct points.
        const Index copies = weldVertices(mesh, 0);
        renumberByFirstUse(mesh);
        ImportReport checkReport;
        TriMesh result = checkMesh(std::move(mesh), source, options, &checkReport);
        checkReport.notes.insert(checkReport.notes.begin(), readReport.notes.begin(), readReport.notes.end());
        checkReport.inputVertices = readReport.inputVertices;
        checkReport.weldedVertices += copies;
        if (report)
            *report = std::move(checkReport);
        return result;
    }
    catch (const Error&)
    {
        throw;
    }
    catch (const std::bad_alloc&)
    {
        throw MeshError(source, MeshProblem::ReadFailed, "out of memory while reading");
    }
    catch (const std::exception& e)
    {
        throw MeshError(source, MeshProblem::ReadFailed, e.what());
    }
}

void detail::forEachMeshInstance(const aiScene& scene, const std::string& source,
                                 const std::function<void(const aiMesh&, const aiMatrix4x4&)>& visit)
{
    if (scene.mRootNode)
        forEachInstance(scene, *scene.mRootNode, aiMatrix4x4(), 0, source, visit);
}

} // namespace shatter
