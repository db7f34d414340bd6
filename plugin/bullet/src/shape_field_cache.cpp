// ShapeFieldCache: one ShapeField per Bullet shape, shared by every pair that meets the shape.
//
// Bullet shapes are mutable (setLocalScaling, setMargin, setImplicitShapeDimensions, addPoint on a hull)
// and a freed shape's address can be reused, so an entry remembers a fingerprint of what it was built
// from — type, local scaling, margin, local AABB, vertex count — and get() rebuilds when it differs.
// Computing the fingerprint costs a few virtual calls (Bullet caches the AABBs of hulls and meshes),
// cheap enough for once per pair and step. Fields are handed out as shared_ptr, so a pair keeps a field
// alive while the cache replaces it.
//
// Bullet says nothing when a shape is deleted, and a program that deletes shapes without forgetShape
// (balls thrown and removed all session long) would grow the cache without bound. So each time it has
// doubled, get() drops the entries whose field no pair holds any more: the shapes of removed bodies,
// most likely freed. A live shape dropped that way is only rebuilt at its next pair.
#include "shape_field.h"

#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletCollision/CollisionShapes/btPolyhedralConvexShape.h>
#include <BulletCollision/CollisionShapes/btStridingMeshInterface.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace shatter
{

namespace
{

struct Fingerprint
{
    int type = 0;
    std::array<Real, 3> scaling{};
    Real margin = 0;
    std::array<Real, 6> bounds{};
    long long count = -1; // vertices of a polyhedron, sub-parts of a mesh, else -1

    bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const btCollisionShape& shape)
{
    Fingerprint f;
    f.type = shape.getShapeType();
    const btVector3& s = shape.getLocalScaling();
    f.scaling = {Real(s.x()), Real(s.y()), Real(s.z())};
    f.margin = Real(shape.getMargin());
    btVector3 lo, hi;
    shape.getAabb(btTransform::getIdentity(), lo, hi);
    f.bounds = {Real(lo.x()), Real(lo.y()), Real(lo.z()), Real(hi.x()), Real(hi.y()), Real(hi.z())};
    if (shape.isPolyhedral())
        f.count = static_cast<const btPolyhedralConvexShape&>(shape).getNumVertices();
    else if (f.type == TRIANGLE_MESH_SHAPE_PROXYTYPE || f.type == MULTIMATERIAL_TRIANGLE_MESH_PROXYTYPE)
    {
        const btStridingMeshInterface* mesh =
            static_cast<const btTriangleMeshShape&>(shape).getMeshInterface();
        f.count = mesh ? mesh->getNumSubParts() : -1;
    }
    return f;
}

} // namespace

struct ShapeFieldCache::Entry
{
    Fingerprint fingerprint;
    std::shared_ptr<const ShapeField> field;
};

ShapeFieldCache::ShapeFieldCache(const ShapeFieldSettings& settings) : config(settings)
{
    if (std::isnan(settings.meshThickness) || settings.meshThickness < 0)
        throw Error("ShapeFieldSettings", "meshThickness must not be negative or NaN, got " +
                                              std::to_string(settings.meshThickness));
    if (settings.shellPoints == 0)
        throw Error("ShapeFieldSettings", "shellPoints must be at least 1");
}

ShapeFieldCache::~ShapeFieldCache() = default;

std::shared_ptr<const ShapeField> ShapeFieldCache::get(const btCollisionShape& shape)
{
    const Fingerprint current = fingerprint(shape);
    // Built under the lock: two pairs asking for a new shape at once build it once. Debian's Bullet
    // runs pairs sequentially anyway.
    std::lock_guard lock(mutex);
    if (const auto it = entries.find(&shape); it != entries.end() && it->second->fingerprint == current)
        return it->second->field;
    if (entries.size() >= pruneAt)
    {
        // use_count() may lag a pair that copies or releases the field right now: then an entry is
        // kept, or rebuilt later, never wrong (the fields handed out stay valid).
        std::erase_if(entries, [](const auto& e) { return e.second->field.use_count() == 1; });
        pruneAt = std::max(kMinPrune, 2 * entries.size());
    }
    auto entry = std::make_shared<Entry>();
    entry->fingerprint = current;
    entry->field = std::make_shared<const ShapeField>(shape, config.meshThickness, config.shellPoints);
    ++builds;
    entries[&shape] = entry;
    return entry->field;
}

void ShapeFieldCache::forget(const btCollisionShape* shape)
{
    std::lock_guard lock(mutex);
    entries.erase(shape);
}

void ShapeFieldCache::clear()
{
    std::lock_guard lock(mutex);
    entries.clear();
}

std::size_t ShapeFieldCache::size() const
{
    std::lock_guard lock(mutex);
    return entries.size();
}

Index ShapeFieldCache::buildCount() const
{
    std::lock_guard lock(mutex);
    return builds;
}

} // namespace shatter
