// Texture coordinates for exported fragments: the input file's, carried from the triangle of the input
// each original-surface face lies in; a planar projection on crack faces.
#include "surface_uv.h"

#include "assimp_scene.h"
#include "binary_io.h"
#include "shatter/cook.h"
#include "shatter/error.h"
#include "triangle_bvh.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace shatter
{

namespace
{

constexpr const char* kSectionName = "cook/surface uv";
constexpr std::uint32_t kSectionVersion = 1;
// Appends the textured triangles of one mesh instance (none without texture coordinates); skips a
// triangle with a missing or non-finite corner.
void collect(const aiMesh& mesh, const aiMatrix4x4& transform, std::vector<TexturedTriangle>& out)
{
    if (!mesh.HasTextureCoords(0))
        return;
    const bool identity = transform.IsIdentity();
    for (unsigned f = 0; f < mesh.mNumFaces; ++f)
    {
        const aiFace& face = mesh.mFaces[f];
        if (face.mNumIndices != 3)
            continue;
        TexturedTriangle t{};
        bool valid = true;
        for (int k = 0; k < 3 && valid; ++k)
        {
            const unsigned v = face.mIndices[k];
            valid = v < mesh.mNumVertices;
            if (!valid)
                break;
            const aiVector3D p = identity ? mesh.mVertices[v] : transform * mesh.mVertices[v];
            const aiVector3D& uv = mesh.mTextureCoords[0][v];
            const float values[5] = {float(p.x), float(p.y), float(p.z), float(uv.x), float(uv.y)};
            for (int i = 0; i < 3; ++i)
                t.position[k][i] = values[i];
            t.uv[k][0] = values[3];
            t.uv[k][1] = values[4];
            for (float x : values)
                valid = valid && std::isfinite(x);
        }
        if (valid)
            out.push_back(t);
    }
}

Vec3 corner(const TexturedTriangle& t, int k)
{
    return Vec3(t.position[k][0], t.position[k][1], t.position[k][2]);
}

// (u, v) at p, interpolated linearly in t's plane (barycentric coordinates of p's projection).
Eigen::Vector2f interpolate(const TexturedTriangle& t, const Vec3& p)
{
    const Vec3 a = corner(t, 0);
    const Vec3 e0 = corner(t, 1) - a, e1 = corner(t, 2) - a, d = p - a;
    const Real d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
    const Real d20 = d.dot(e0), d21 = d.dot(e1);
    const Real denominator = d00 * d11 - d01 * d01;
    if (!(denominator > 0))
        return Eigen::Vector2f(t.uv[0][0], t.uv[0][1]);
    const Real w1 = (d11 * d20 - d01 * d21) / denominator;
    const Real w2 = (d00 * d21 - d01 * d20) / denominator;
    const Real w0 = 1 - w1 - w2;
    Eigen::Vector2f uv;
    for (int i = 0; i < 2; ++i)
        uv[i] = float(w0 * t.uv[0][i] + w1 * t.uv[1][i] + w2 * t.uv[2][i]);
    return uv;
}

} // namespace

std::vector<TexturedTriangle> readTexturedTriangles(const std::filesystem::path& meshFile)
{
    std::string extension = meshFile.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (extension == ".off" || extension == ".stl") // formats without texture coordinates
        return {};
    if (extension == ".obj")
    {
        // Most OBJ files of solids have no `vt`; then assimp need not read the file a second time.
        const std::vector<std::byte> bytes = readFileBytes(meshFile.string());
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        if (!text.starts_with("vt") && text.find("\nvt") == std::string_view::npos)
            return {};
    }
    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene =
        importer.ReadFile(meshFile.string(), aiProcess_Triangulate | aiProcess_SortByPType);
    std::vector<TexturedTriangle> out;
    if (!scene)
        return out;
    try
    {
        detail::forEachMeshInstance(*scene, meshFile.string(),
                                    [&](const aiMesh& mesh, const aiMatrix4x4& transform)
                                    { collect(mesh, transform, out); });
    }
    catch (const Error&) // a scene importMesh accepted; without coordinates rather than half of them
    {
        out.clear();
    }
    return out;
}

void setSurfaceUvs(Asset& asset, const std::vector<TexturedTriangle>& triangles)
{
    if (triangles.empty())
        return;
    BinaryWriter out;
    out.value(kSectionVersion);
    out.array(triangles);
    asset.setSection(kSectionName, out.bytes());
}

std::vector<TexturedTriangle> surfaceUvs(const Asset& asset)
{
    std::optional<std::vector<std::byte>> bytes = asset.readSection(kSectionName);
    if (!bytes)
        return {};
    BinaryReader in = BinaryReader::owning(std::move(*bytes), "asset '" + asset.name + "' section '" +
                                                                  std::string(kSectionName) + "'");
    if (in.value<std::uint32_t>() != kSectionVersion)
        in.fail("unknown version");
    std::vector<TexturedTriangle> triangles = in.array<TexturedTriangle>();
    if (in.remaining() != 0)
        in.fail("unexpected bytes after the triangles");
    return triangles;
}

std::vector<TriangleUvs> fragmentUvs(const Asset& asset, const TriMesh& surface,
                                     std::span<const std::uint8_t> crack)
{
    if (!crack.empty() && crack.size() != surface.triangles.size())
        throw Error("fragmentUvs", "the crack flags (" + std::to_string(crack.size()) +
                                       ") do not match the triangles (" +
                                       std::to_string(surface.triangles.size()) + ")");
    for (const Triangle& t : surface.triangles)
        for (Index v : t)
            if (v >= surface.vertices.size())
                throw Error("fragmentUvs", "a triangle index is out of range");
    const std::vector<TexturedTriangle> source = surfaceUvs(asset);
    TriMesh sourceMesh;
    for (const TexturedTriangle& t : source)
    {
        const Index base = Index(sourceMesh.vertices.size());
        for (int k = 0; k < 3; ++k)
            sourceMesh.vertices.push_back(corner(t, k));
        sourceMesh.triangles.push_back({base, base + 1, base + 2});
    }
    const TriangleBvh tree(sourceMesh);
    // An original-surface face lies in an input triangle up to the input's float rounding.
    const Aabb box = asset.surface.bounds();
    const Real size = std::max(box.extent().maxCoeff(), Real(1e-12));
    const Real reach = 1e-5 * size;

    std::vector<TriangleUvs> uvs(surface.triangles.size());
    for (Index t = 0; t < surface.triangles.size(); ++t)
    {
        const Triangle& tri = surface.triangles[t];
        const Vec3 p[3] = {surface.vertices[tri[0]], surface.vertices[tri[1]], surface.vertices[tri[2]]};
        const bool isCrack = !crack.empty() && crack[t] != 0;
        if (!isCrack && !tree.empty())
        {
            const ClosestPoint hit = tree.closestPoint((p[0] + p[1] + p[2]) / 3, reach);
            if (hit.found())
            {
                for (int k = 0; k < 3; ++k)
                    uvs[t][k] = interpolate(source[hit.triangle], p[k]);
                continue;
            }
        }
        // Planar projection along the face's dominant axis, in units of the asset's size: continuous
        // over a planar crack face, and the same scale on every piece.
        const Vec3 n = (p[1] - p[0]).cross(p[2] - p[0]);
        int axis = 0;
        n.cwiseAbs().maxCoeff(&axis);
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int k = 0; k < 3; ++k)
            uvs[t][k] =
                Eigen::Vector2f(float((p[k][a] - box.min[a]) / size), float((p[k][b] - box.min[b]) / size));
    }
    return uvs;
}

} // namespace shatter
