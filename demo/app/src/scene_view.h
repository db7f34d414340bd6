// What the renderer and the debug views see of a running SceneWorld: every rigid body with the world
// transform of its material frame (T·O) and its fragment mesh, or the primitive it is.
#pragma once

#include "fragment_mesh.h"
#include "shatter/fracture_system.h"

#include <Eigen/Geometry>

#include <map>
#include <memory>
#include <string>
#include <vector>

class btRigidBody;
class btCollisionObject;

namespace shatter::scenes
{
class SceneWorld;
}

namespace shatter::demo
{

struct BodyView
{
    enum class Kind
    {
        Fragment, ///< a FractureSystem body: `mesh` in its material frame
        Sphere,   ///< a ball: `radius`
        Box,      ///< a box: `halfExtents`
    };
    Kind kind = Kind::Fragment;
    const btRigidBody* body = nullptr;
    Eigen::Isometry3d materialToWorld = Eigen::Isometry3d::Identity(); ///< T·O (primitives: T)
    // Fragments:
    fracture::ObjectId object = 0;
    FragmentId fragment = 0;
    std::shared_ptr<const FragmentMesh> mesh;
    std::string assetName;
    bool dynamic = true;
    // Primitives:
    double radius = 0;
    Eigen::Vector3d halfExtents = Eigen::Vector3d::Zero();
};

/// Every drawable body of the world, in the world's collision-object order. The ground and other
/// static non-fragment shapes are left out (the renderer draws the ground itself).
std::vector<BodyView> collectBodies(scenes::SceneWorld& world);

/// Live fragment bodies per (object, fragment), for the debug views.
std::map<std::pair<fracture::ObjectId, FragmentId>, const BodyView*>
indexFragments(const std::vector<BodyView>& views);

/// World bounds of the fracturable objects and balls (for framing and the shadow map).
Eigen::AlignedBox3d sceneBounds(const std::vector<BodyView>& views);

} // namespace shatter::demo
