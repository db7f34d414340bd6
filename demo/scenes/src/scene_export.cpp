// exportFragments: every live piece of a SceneWorld's objects as a mesh file at its world pose.
#include "shatter/scenes/scene_world.h"

#include "bullet_convert.h"
#include "object_state.h"
#include "shatter/error.h"
#include "shatter/fracture_system.h"

#include <btBulletDynamicsCommon.h>

#include <system_error>

namespace shatter::scenes
{

int exportFragments(SceneWorld& world, const std::filesystem::path& dir, MeshFormat format)
{
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error || !std::filesystem::is_directory(dir))
        throw Error("exportFragments " + dir.string(), "cannot create the folder: " + error.message());
    fracture::FractureSystem& system = world.fracture();
    const char* extension = format == MeshFormat::Gltf ? ".gltf" : ".obj";
    int files = 0;
    for (fracture::ObjectId object : system.objects())
    {
        for (const btRigidBody* body : system.bodies(object))
        {
            fracture::ObjectId owner = 0;
            FragmentId fragment = 0;
            system.lookup(body, owner, fragment);
            std::span<const std::uint8_t> crack;
            const TriMesh& surface = system.surface(object, fragment, &crack);
            const std::string name = world.scene().name + "_object" + std::to_string(object) + "_fragment" +
                                     std::to_string(fragment) + extension;
            const std::vector<TriangleUvs> uvs = fragmentUvs(system.state(object).asset(), surface, crack);
            exportMesh(surface, crack,
                       toEigen(body->getWorldTransform()) * system.materialToBody(object, fragment),
                       dir / name, format, uvs);
            ++files;
        }
    }
    return files;
}

} // namespace shatter::scenes
