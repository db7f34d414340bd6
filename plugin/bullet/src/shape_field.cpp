// ShapeField: picks the field kind for a Bullet shape, checks its dimensions, builds the field and the
// point shell, and forwards the queries (a std::visit over the kinds: one indirect jump, no virtual
// call per query). The fields themselves live in shape_field_{primitives,convex,mesh}.cpp, the point
// shells in shape_field_shell.cpp.
#include "shape_field_detail.h"

#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <cmath>

namespace shatter
{

namespace
{

Vec3 fromBullet(const btVector3& v)
{
    return Vec3(Real(v.x()), Real(v.y()), Real(v.z()));
}

bool isTriangleMesh(int type)
{
    return type == TRIANGLE_MESH_SHAPE_PROXYTYPE || type == SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE ||
           type == MULTIMATERIAL_TRIANGLE_MESH_PROXYTYPE || type == TERRAIN_SHAPE_PROXYTYPE ||
           type == GIMPACT_SHAPE_PROXYTYPE;
}

void requirePositive(const btCollisionShape& shape, const char* what, Real value)
{
    if (!(value > 0) || !std::isfinite(value))
        throw Error(shape.getName(),
                    std::string(what) + " must be positive and finite, got " + std::to_string(value));
}

detail::AnyField makeField(const btCollisionShape& shape, Real thickness, ShapeFieldKind& kind)
{
    const int type = shape.getShapeType();
    if (type == STATIC_PLANE_PROXYTYPE)
    {
        // Bullet's plane algorithms use the (normalized) normal and the constant as they are and ignore
        // local scaling; so does the field.
        const auto& plane = static_cast<const btStaticPlaneShape&>(shape);
        const Vec3 n = fromBullet(plane.getPlaneNormal());
        const Real c = Real(plane.getPlaneConstant());
        if (!n.allFinite() || !(n.norm() > 0) || !std::isfinite(c))
            throw Error(shape.getName(), "plane normal or constant is not finite");
        kind = ShapeFieldKind::Plane;
        return detail::PlaneField{n.normalized(), c};
    }
    const Vec3 scaling = fromBullet(shape.getLocalScaling());
    for (int k = 0; k < 3; ++k)
        requirePositive(shape, "local scaling", scaling[k]);
    if (isTriangleMesh(type))
    {
        kind = ShapeFieldKind::TriangleMesh;
        return detail::MeshField::make(shape, thickness);
    }
    if (!shape.isConvex())
        throw Error(shape.getName(), "unsupported shape type " + std::to_string(type) +
                                         " (convex shapes, static planes, triangle meshes, height fields and "
                                         "GImpact meshes are supported)");
    switch (type)
    {
    case SPHERE_SHAPE_PROXYTYPE:
    {
        const Real r = Real(static_cast<const btSphereShape&>(shape).getRadius());
        requirePositive(shape, "radius", r);
        kind = ShapeFieldKind::Sphere;
        return detail::SphereField{r};
    }
    case BOX_SHAPE_PROXYTYPE:
    {
        // The geometric box: btBoxShape keeps half extents minus margin as its core, btBoxBoxDetector
        // collides the full box.
        const Vec3 half = fromBullet(static_cast<const btBoxShape&>(shape).getHalfExtentsWithMargin());
        for (int k = 0; k < 3; ++k)
            requirePositive(shape, "half extent", half[k]);
        kind = ShapeFieldKind::Box;
        return detail::BoxField{half};
    }
    case CAPSULE_SHAPE_PROXYTYPE:
    {
        const auto& capsule = static_cast<const btCapsuleShape&>(shape);
        const Real r = Real(capsule.getRadius()), hh = Real(capsule.getHalfHeight());
        requirePositive(shape, "radius", r);
        if (!(hh >= 0) || !std::isfinite(hh))
            throw Error(shape.getName(), "half height must be finite and not negative");
        kind = ShapeFieldKind::Capsule;
        return detail::CapsuleField{capsule.getUpAxis(), hh, r};
    }
    default:
        kind = ShapeFieldKind::Convex;
        return detail::ConvexField::make(static_cast<const btConvexShape&>(shape));
    }
}

} // namespace

bool ShapeField::supports(const btCollisionShape& shape)
{
    const int type = shape.getShapeType();
    return shape.isConvex() || type == STATIC_PLANE_PROXYTYPE || isTriangleMesh(type);
}

ShapeField::ShapeField(const btCollisionShape& shape, Real thickness, Index shellPoints)
    : impl(std::make_unique<Impl>())
{
    if (std::isnan(thickness) || thickness < 0)
        throw Error(shape.getName(),
                    "mesh thickness must not be negative or NaN, got " + std::to_string(thickness));
    if (shellPoints == 0)
        throw Error(shape.getName(), "a point shell needs at least one point");
    impl->field = makeField(shape, thickness, impl->kind);
    std::visit(
        [&](const auto& f)
        {
            if constexpr (!std::is_same_v<std::decay_t<decltype(f)>, detail::PlaneField>)
                impl->shell = detail::makeShell(detail::shellCandidates(f, shellPoints),
                                                detail::shellFeatures(f), shellPoints);
        },
        impl->field);
}

ShapeField::~ShapeField() = default;

FieldSample ShapeField::sample(const Vec3& p, Real band) const
{
    return std::visit([&](const auto& f) { return f.sample(p, band); }, impl->field);
}

bool ShapeField::sphereTest(const Vec3& p, Real radius) const
{
    return std::visit([&](const auto& f) { return f.sphereTest(p, radius); }, impl->field);
}

const SphereForest* ShapeField::pointShell() const
{
    return impl->shell.get();
}

Real ShapeField::boundingRadius() const
{
    return std::visit([](const auto& f) { return f.boundingRadius(); }, impl->field);
}

ShapeFieldKind ShapeField::kind() const
{
    return impl->kind;
}

Real ShapeField::accuracy() const
{
    return std::visit([](const auto& f) { return f.accuracy(); }, impl->field);
}

} // namespace shatter
