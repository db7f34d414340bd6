#include "scene_view.h"

#include "bullet_convert.h"
#include "object_state.h"
#include "shatter/scenes/scene_world.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

namespace shatter::demo
{

std::vector<BodyView> collectBodies(scenes::SceneWorld& sceneWorld)
{
    std::vector<BodyView> views;
    btDiscreteDynamicsWorld& world = sceneWorld.world();
    fracture::FractureSystem& system = sceneWorld.fracture();
    const btCollisionObjectArray& objects = world.getCollisionObjectArray();
    views.reserve(std::size_t(objects.size()));
    for (int i = 0; i < objects.size(); ++i)
    {
        const btRigidBody* body = btRigidBody::upcast(objects[i]);
        if (!body)
            continue;
        const btCollisionShape* shape = body->getCollisionShape();
        BodyView v;
        v.body = body;
        v.dynamic = !body->isStaticOrKinematicObject();
        const Eigen::Isometry3d t = toEigen(body->getWorldTransform());
        fracture::ObjectId object = 0;
        FragmentId fragment = 0;
        if (system.lookup(body, object, fragment))
        {
            const ObjectState& state = system.state(object);
            v.mesh = state.fragmentMesh(fragment);
            if (!v.mesh)
                continue;
            v.object = object;
            v.fragment = fragment;
            v.assetName = state.asset().name;
            v.materialToWorld = t * system.materialToBody(object, fragment);
        }
        else if (shape->getShapeType() == SPHERE_SHAPE_PROXYTYPE)
        {
            v.kind = BodyView::Kind::Sphere;
            v.radius = double(static_cast<const btSphereShape*>(shape)->getRadius());
            v.materialToWorld = t;
        }
        else if (shape->getShapeType() == BOX_SHAPE_PROXYTYPE && v.dynamic)
        {
            v.kind = BodyView::Kind::Box;
            const btVector3 h = static_cast<const btBoxShape*>(shape)->getHalfExtentsWithMargin();
            v.halfExtents = Eigen::Vector3d(double(h.x()), double(h.y()), double(h.z()));
            v.materialToWorld = t;
        }
        else
            continue; // the ground
        views.push_back(std::move(v));
    }
    return views;
}

std::map<std::pair<fracture::ObjectId, FragmentId>, const BodyView*>
indexFragments(const std::vector<BodyView>& views)
{
    std::map<std::pair<fracture::ObjectId, FragmentId>, const BodyView*> index;
    for (const BodyView& v : views)
        if (v.kind == BodyView::Kind::Fragment)
            index[{v.object, v.fragment}] = &v;
    return index;
}

Eigen::AlignedBox3d sceneBounds(const std::vector<BodyView>& views)
{
    Eigen::AlignedBox3d box;
    for (const BodyView& v : views)
    {
        if (v.kind == BodyView::Kind::Fragment)
        {
            const Aabb b = v.mesh->surface.bounds();
            for (int corner = 0; corner < 8; ++corner)
                box.extend(v.materialToWorld * Eigen::Vector3d(corner & 1 ? b.max.x() : b.min.x(),
                                                               corner & 2 ? b.max.y() : b.min.y(),
                                                               corner & 4 ? b.max.z() : b.min.z()));
        }
        else
        {
            const Eigen::Vector3d r = v.kind == BodyView::Kind::Sphere ? Eigen::Vector3d::Constant(v.radius)
                                                                       : Eigen::Vector3d(v.halfExtents);
            const Eigen::Vector3d c = v.materialToWorld.translation();
            // Balls far away (thrown off) should not blow up the shadow map.
            if (c.norm() < 50)
            {
                box.extend(c - r);
                box.extend(c + r);
            }
        }
    }
    return box;
}

} // namespace shatter::demo
