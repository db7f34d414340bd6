// Fragment bodies of the three shape kinds (FragmentShapeKind). All share the body frame of
// FracturableShape — origin at the centre of mass, axes along the principal axes — and
// its mass properties from the closed fragment surface (divergence theorem), so the baselines differ
// from Shatter only in how they collide:
//  - Fracturable: makeFracturableBody (shatter/fracturable_body.h).
//  - GImpact: btGImpactMeshShape over the fragment's surface triangles in the body frame, with
//    updateBound() (without it the shape keeps its constructor's ±∞ box: "Overflow in AABB",
//    which Bullet reports). The inertia is ours, not GImpact's vertex-lumped estimate.
//  - ConvexHull: one btConvexHullShape of the surface vertices (a fragment's hull: it fills the
//    fragment's concavities, TVCG §7's convex baseline).
// Contacts: the hulls' breaking threshold is raised (comparison_variants.h) so that they rest.
// Margins: Bullet's default 0.04 is a third of the plate's radius; the baselines use 1 % of the
// fragment's bounding-box diagonal (at most 0.04), which inflates them by that much.
#include "fragment_body.h"

#include "bullet_convert.h"
#include "continuous_collision.h"
#include "object_state.h"
#include "shatter/error.h"

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btTriangleIndexVertexArray.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <algorithm>

namespace shatter::fracture
{

FragmentBody::FragmentBody() = default;
FragmentBody::~FragmentBody()
{
    body.reset(); // the body references the shape, the shape the mesh interface, which the arrays
    shape.reset();
    meshInterface.reset();
}
FragmentBody::FragmentBody(FragmentBody&&) noexcept = default;
FragmentBody& FragmentBody::operator=(FragmentBody&&) noexcept = default;

namespace
{

Eigen::Isometry3d principalFrame(const MassProperties& mp)
{
    Eigen::Isometry3d o = Eigen::Isometry3d::Identity();
    o.linear() = mp.principalAxes.transpose();
    o.translation() = -(mp.principalAxes.transpose() * mp.centerOfMass);
    return o;
}

// The hull baseline with a larger contact breaking threshold (kBaselineBreakingThresholdScale). Bullet
// gives a new manifold the smaller threshold of its two shapes, so the hull's decides.
class BaselineHullShape final : public btConvexHullShape
{
public:
    btScalar getContactBreakingThreshold(btScalar defaultFactor) const override
    {
        return kBaselineBreakingThresholdScale *
               btConvexHullShape::getContactBreakingThreshold(defaultFactor);
    }
};

// The baselines: shape from the fragment surface in the body frame.
void makeBaselineShape(FragmentBody& out, FragmentShapeKind kind, const FragmentMesh& mesh)
{
    const TriMesh& surface = mesh.surface;
    const btScalar margin = btScalar(std::min<Real>(0.04, 0.01 * surface.bounds().extent().norm()));
    if (kind == FragmentShapeKind::ConvexHull)
    {
        auto hull = std::make_unique<BaselineHullShape>();
        for (const Vec3& v : surface.vertices)
            hull->addPoint(toBullet(out.materialToBody * v), false);
        hull->recalcLocalAabb();
        hull->setMargin(margin);
        out.shape = std::move(hull);
        return;
    }
    for (const Vec3& v : surface.vertices)
    {
        const Vec3 b = out.materialToBody * v;
        out.vertices.insert(out.vertices.end(), {btScalar(b.x()), btScalar(b.y()), btScalar(b.z())});
    }
    for (const auto& t : surface.triangles)
        out.indices.insert(out.indices.end(), {int(t[0]), int(t[1]), int(t[2])});
    out.meshInterface = std::make_unique<btTriangleIndexVertexArray>(
        int(surface.triangles.size()), out.indices.data(), int(3 * sizeof(int)), int(surface.vertices.size()),
        out.vertices.data(), int(3 * sizeof(btScalar)));
    auto gimpact = std::make_unique<btGImpactMeshShape>(out.meshInterface.get());
    gimpact->setMargin(margin);
    gimpact->updateBound();
    out.shape = std::move(gimpact);
}

} // namespace

FragmentBody makeFragmentBody(FragmentShapeKind kind, const std::shared_ptr<ObjectState>& state,
                              FragmentId fragment, const Eigen::Isometry3d& materialToWorld, Real density,
                              bool dynamic)
{
    FragmentBody out;
    btScalar mass = 0;
    btVector3 inertia(0, 0, 0);
    if (kind == FragmentShapeKind::Fracturable)
    {
        FracturableBody made = makeFracturableBody(state, fragment, materialToWorld, {density, dynamic});
        out.materialToBody = made.materialToBody;
        out.massProperties = static_cast<const FracturableShape&>(*made.shape).massProperties();
        mass = made.mass;
        inertia = made.localInertia;
        out.shape = std::move(made.shape);
    }
    else
    {
        if (!state || !state->alive(fragment) || !state->fragmentMesh(fragment))
            throw Error("FractureSystem",
                        "fragment " + std::to_string(fragment) + " is not alive or has no mesh");
        const FragmentMesh& mesh = *state->fragmentMesh(fragment);
        out.massProperties = computeMassProperties(
            mesh.surface, density, state->asset().name + " fragment " + std::to_string(fragment));
        out.materialToBody = principalFrame(out.massProperties);
        makeBaselineShape(out, kind, mesh);
        if (dynamic)
        {
            mass = btScalar(out.massProperties.mass);
            // Principal moments of the solid: exact for every kind, so the baselines move alike.
            inertia = toBullet(out.massProperties.principalInertia);
        }
    }
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, out.shape.get(), inertia);
    info.m_startWorldTransform = toBullet(Eigen::Isometry3d(materialToWorld * out.materialToBody.inverse()));
    out.body = std::make_unique<btRigidBody>(info);
    if (dynamic)
        setContinuousCollision(*out.body, out.massProperties);
    return out;
}

} // namespace shatter::fracture
