// exportMesh: a fragment as an aiScene (a root node holding the fragment's node at its pose; one
// aiMesh per material, three vertices per triangle so each carries its face's normal and UVs), written by
// assimp's exporter. The scene is built in assimp's own ownership (new[] arrays the aiScene destructor
// frees), so nothing leaks when export fails.
#include "shatter/cook.h"

#include "shatter/error.h"

#include <assimp/Exporter.hpp>
#include <assimp/scene.h>

#include <memory>
#include <string>

namespace shatter
{

namespace
{

aiMaterial* namedMaterial(const char* name, const aiColor3D& colour)
{
    auto* material = new aiMaterial();
    const aiString text(name);
    material->AddProperty(&text, AI_MATKEY_NAME);
    material->AddProperty(&colour, 1, AI_MATKEY_COLOR_DIFFUSE);
    return material;
}

// The triangles of `mesh` whose crack flag equals `crackFaces`, as a flat-shaded aiMesh; null if none.
aiMesh* part(const TriMesh& mesh, std::span<const std::uint8_t> crack, std::span<const TriangleUvs> uvs,
             bool crackFaces, unsigned material)
{
    auto wanted = [&](Index t)
    {
        return (!crack.empty() && crack[t] != 0) == crackFaces;
    };
    unsigned count = 0;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        count += wanted(t) ? 1 : 0;
    if (count == 0)
        return nullptr;
    auto* out = new aiMesh();
    out->mName = crackFaces ? "crack" : "surface";
    out->mMaterialIndex = material;
    out->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    out->mNumVertices = 3 * count;
    out->mVertices = new aiVector3D[out->mNumVertices];
    out->mNormals = new aiVector3D[out->mNumVertices];
    if (!uvs.empty())
    {
        out->mTextureCoords[0] = new aiVector3D[out->mNumVertices];
        out->mNumUVComponents[0] = 2;
    }
    out->mNumFaces = count;
    out->mFaces = new aiFace[count];
    unsigned face = 0;
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        if (!wanted(t))
            continue;
        const Vec3 n = mesh.normal(t);
        aiFace& f = out->mFaces[face];
        f.mNumIndices = 3;
        f.mIndices = new unsigned[3];
        for (int k = 0; k < 3; ++k)
        {
            const unsigned v = 3 * face + unsigned(k);
            const Vec3& p = mesh.vertices[mesh.triangles[t][k]];
            out->mVertices[v] = aiVector3D(ai_real(p.x()), ai_real(p.y()), ai_real(p.z()));
            out->mNormals[v] = aiVector3D(ai_real(n.x()), ai_real(n.y()), ai_real(n.z()));
            if (!uvs.empty())
                out->mTextureCoords[0][v] = aiVector3D(ai_real(uvs[t][k].x()), ai_real(uvs[t][k].y()), 0);
            f.mIndices[k] = v;
        }
        ++face;
    }
    return out;
}

} // namespace

void exportMesh(const TriMesh& mesh, std::span<const std::uint8_t> crack, const Eigen::Isometry3d& pose,
                const std::filesystem::path& file, MeshFormat format, std::span<const TriangleUvs> uvs)
{
    const std::string where = "exportMesh " + file.string();
    if (mesh.triangles.empty())
        throw Error(where, "the mesh has no triangles");
    if (!crack.empty() && crack.size() != mesh.triangles.size())
        throw Error(where, "the crack flags (" + std::to_string(crack.size()) +
                               ") do not match the triangles (" + std::to_string(mesh.triangles.size()) +
                               ")");
    if (!uvs.empty() && uvs.size() != mesh.triangles.size())
        throw Error(where, "the texture coordinates (" + std::to_string(uvs.size()) +
                               " triangles) do not match the triangles (" +
                               std::to_string(mesh.triangles.size()) + ")");
    for (const TriangleUvs& corners : uvs)
        for (const Eigen::Vector2f& uv : corners)
            if (!uv.allFinite())
                throw Error(where, "a texture coordinate is not finite");
    for (const Triangle& t : mesh.triangles)
        for (Index v : t)
            if (v >= mesh.vertices.size())
                throw Error(where, "a triangle index is out of range");
    if (!pose.matrix().allFinite())
        throw Error(where, "the pose is not finite");

    auto scene = std::make_unique<aiScene>();
    scene->mNumMaterials = 2;
    scene->mMaterials = new aiMaterial*[2];
    scene->mMaterials[0] = namedMaterial("surface", aiColor3D(0.8f, 0.8f, 0.8f));
    scene->mMaterials[1] = namedMaterial("crack", aiColor3D(0.9f, 0.45f, 0.2f));
    aiMesh* parts[2] = {part(mesh, crack, uvs, false, 0), part(mesh, crack, uvs, true, 1)};
    scene->mNumMeshes = (parts[0] ? 1 : 0) + (parts[1] ? 1 : 0);
    scene->mMeshes = new aiMesh*[scene->mNumMeshes];
    unsigned m = 0;
    for (aiMesh* p : parts)
        if (p)
            scene->mMeshes[m++] = p;

    scene->mRootNode = new aiNode("root");
    auto* node = new aiNode(file.stem().string());
    const Eigen::Matrix4d t = pose.matrix();
    node->mTransformation =
        aiMatrix4x4(ai_real(t(0, 0)), ai_real(t(0, 1)), ai_real(t(0, 2)), ai_real(t(0, 3)), ai_real(t(1, 0)),
                    ai_real(t(1, 1)), ai_real(t(1, 2)), ai_real(t(1, 3)), ai_real(t(2, 0)), ai_real(t(2, 1)),
                    ai_real(t(2, 2)), ai_real(t(2, 3)), 0, 0, 0, 1);
    node->mNumMeshes = scene->mNumMeshes;
    node->mMeshes = new unsigned[node->mNumMeshes];
    for (unsigned i = 0; i < node->mNumMeshes; ++i)
        node->mMeshes[i] = i;
    scene->mRootNode->addChildren(1, &node);

    Assimp::Exporter exporter;
    const char* id = format == MeshFormat::Gltf ? "gltf2" : "obj";
    if (exporter.Export(scene.get(), id, file.string()) != aiReturn_SUCCESS)
        throw Error(where, std::string("assimp could not write it: ") + exporter.GetErrorString());
}

} // namespace shatter
