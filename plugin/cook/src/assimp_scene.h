// Walking an assimp scene graph: shared by mesh import and the texture coordinates the cook keeps.
#pragma once

#include <assimp/scene.h>

#include <functional>
#include <string>

namespace shatter::detail
{

/// Calls visit(mesh, transform) for every mesh instance of the scene graph, with the transform its
/// chain of nodes accumulates. Throws MeshError (ReadFailed) naming `source` for a graph nested deeper
/// than 256 levels or a node that names a missing mesh.
void forEachMeshInstance(const aiScene& scene, const std::string& source,
                         const std::function<void(const aiMesh&, const aiMatrix4x4&)>& visit);

} // namespace shatter::detail
