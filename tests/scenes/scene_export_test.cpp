// exportFragments / shatter_run --export: the pieces of the shipped piggy_bank scene, broken, written as
// glTF (and OBJ) and read back through assimp as a content tool would: each piece, welded across its
// two primitives, is a closed mesh; the crack faces are in their own material; the volumes sum to the
// unbroken piggy bank's within 1e-6 relative.
#include "shatter/scenes/scene_world.h"

#include "object_state.h"
#include "shatter/error.h"
#include "shatter/fracture_system.h"

#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>

namespace shatter::scenes
{
namespace
{

struct Loaded
{
    bool closed = false;
    double volume = 0; // in the frame of the file's vertices
    int crackTriangles = 0, surfaceTriangles = 0;
};

Loaded load(const std::filesystem::path& file)
{
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile(file.string(), 0);
    Loaded out;
    EXPECT_NE(scene, nullptr) << file << ": " << importer.GetErrorString();
    if (!scene)
        return out;
    // glTF keeps the piece's node and its pose; OBJ has neither and stores world positions, one group
    // per material. Either way every mesh of the file is one of the piece's two primitives.
    // Weld the corners of both primitives by position (the file repeats them per face).
    std::map<std::array<float, 3>, int> ids;
    std::map<std::pair<int, int>, int> edges; // directed edge → uses
    for (unsigned i = 0; i < scene->mNumMeshes; ++i)
    {
        const aiMesh& mesh = *scene->mMeshes[i];
        aiString name;
        scene->mMaterials[mesh.mMaterialIndex]->Get(AI_MATKEY_NAME, name);
        const bool crack = std::string(name.C_Str()) == "crack";
        EXPECT_TRUE(crack || std::string(name.C_Str()) == "surface") << name.C_Str();
        EXPECT_TRUE(mesh.HasTextureCoords(0)) << name.C_Str() << ": no texture coordinates";
        for (unsigned f = 0; f < mesh.mNumFaces; ++f)
        {
            const aiFace& face = mesh.mFaces[f];
            EXPECT_EQ(face.mNumIndices, 3u);
            std::array<int, 3> v{};
            std::array<Eigen::Vector3d, 3> p;
            for (int k = 0; k < 3; ++k)
            {
                const aiVector3D& a = mesh.mVertices[face.mIndices[k]];
                v[std::size_t(k)] = ids.try_emplace({a.x, a.y, a.z}, int(ids.size())).first->second;
                p[std::size_t(k)] = Eigen::Vector3d(a.x, a.y, a.z);
            }
            out.volume += p[0].dot(p[1].cross(p[2])) / 6;
            for (int k = 0; k < 3; ++k)
                ++edges[{v[std::size_t(k)], v[std::size_t((k + 1) % 3)]}];
            (crack ? out.crackTriangles : out.surfaceTriangles) += 1;
        }
    }
    out.closed = !edges.empty();
    for (const auto& [edge, uses] : edges)
        out.closed = out.closed && uses == 1 && edges.contains({edge.second, edge.first});
    return out;
}

TEST(SceneExport, TheBrokenPiggyBankReadsBackAsClosedPiecesOfTheSameVolume)
{
    const Scene scene = loadScene(builtInScenePath("piggy_bank"));
    SceneWorld world(scene);
    const int steps = int(scene.duration / scene.timeStep + 0.5);
    for (int i = 0; i < steps; ++i)
        world.step();
    const fracture::FractureSystem& system = world.fracture();
    ASSERT_EQ(system.objects().size(), 1u);
    const fracture::ObjectId piggy = system.objects().front();
    const std::size_t pieces = system.bodies(piggy).size();
    ASSERT_GT(pieces, 1u) << "the piggy bank did not break";
    ASSERT_EQ(pieces, system.state(piggy).liveFragments().size()) << "a piece without a body";
    double whole = 0;
    for (FragmentId f : system.state(piggy).liveFragments())
        whole += system.state(piggy).fragmentMesh(f)->surface.signedVolume();
    const double unbroken = system.state(piggy).asset().surface.signedVolume();
    EXPECT_NEAR(whole / unbroken, 1, 1e-9) << "the pieces' own volumes";

    for (MeshFormat format : {MeshFormat::Gltf, MeshFormat::Obj})
    {
        const std::filesystem::path dir = std::filesystem::path(SHATTER_BINARY_DIR) / "test_scratch" /
                                          (format == MeshFormat::Gltf ? "export_gltf" : "export_obj");
        std::filesystem::remove_all(dir);
        ASSERT_EQ(exportFragments(world, dir, format), int(pieces));
        double sum = 0;
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            const std::string extension = entry.path().extension().string();
            if (extension != ".gltf" && extension != ".obj")
                continue;
            ++files;
            const Loaded piece = load(entry.path());
            EXPECT_TRUE(piece.closed) << entry.path();
            EXPECT_GT(piece.crackTriangles, 0) << entry.path() << ": no crack material";
            EXPECT_GT(piece.surfaceTriangles, 0) << entry.path();
            sum += piece.volume;
        }
        EXPECT_EQ(files, int(pieces));
        EXPECT_NEAR(sum / unbroken, 1, 1e-6) << (format == MeshFormat::Gltf ? "glTF" : "OBJ");
    }
}

TEST(SceneExport, AnUnwritableFolderIsAnError)
{
    const Scene scene = loadScene(builtInScenePath("piggy_bank"));
    SceneWorld world(scene);
    const std::filesystem::path file =
        std::filesystem::path(SHATTER_BINARY_DIR) / "test_scratch" / "export_file";
    std::filesystem::create_directories(file.parent_path());
    std::FILE* f = std::fopen(file.string().c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    EXPECT_THROW(exportFragments(world, file, MeshFormat::Gltf), Error); // a file where the folder should be
}

} // namespace
} // namespace shatter::scenes
