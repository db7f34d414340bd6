// FracturableShape (fracturable_shape.h) and makeFracturableBody (shatter/fracturable_body.h): the fragment
// as Bullet's concave shape. Everything is computed once in the constructor — the principal frame, the
// body-frame surface, the tight box and the triangle BVH — because Bullet calls getAabb for every active body
// every step and may call processAllTriangles from several threads (btCollisionDispatcherMt): no lazy caches,
// no mutation after construction.
#include "fracturable_shape.h"

#include "bullet_convert.h"
#include "object_state.h"
#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <LinearMath/btAabbUtil2.h>

#include <cmath>
#include <string>

namespace shatter
{

namespace
{

const std::shared_ptr<const FragmentMesh>& checkedMesh(const std::shared_ptr<ObjectState>& state,
                                                       FragmentId f)
{
    if (!state)
        throw Error("FracturableShape", "the object state is null");
    if (!state->alive(f))
        throw Error("FracturableShape", "fragment " + std::to_string(f) + " is not a live fragment of '" +
                                            state->asset().name + "'");
    const std::shared_ptr<const FragmentMesh>& mesh = state->fragmentMesh(f);
    if (!mesh || mesh->surface.triangles.empty())
        throw Error("FracturableShape", "fragment " + std::to_string(f) + " of '" + state->asset().name +
                                            "' has no surface mesh (its FractureResult carried no meshes)");
    // A piece inside one tet that crosses none of its edges has no tet node and no crack point: with
    // no sphere tree, Algorithm 1 has nothing to query and the body would pass through everything.
    if (state->sphereForest().root(f) == kInvalidIndex)
        throw Error("FracturableShape", "fragment " + std::to_string(f) + " of '" + state->asset().name +
                                            "' has no sphere-tree point (a piece inside one tet), so it "
                                            "cannot collide");
    return mesh;
}

// O = material → body: body coordinates are the principal-axes coordinates about the centre of mass.
Eigen::Isometry3d principalFrame(const MassProperties& mp)
{
    Eigen::Isometry3d o = Eigen::Isometry3d::Identity();
    o.linear() = mp.principalAxes.transpose();
    o.translation() = -(mp.principalAxes.transpose() * mp.centerOfMass);
    return o;
}

} // namespace

FracturableShape::FracturableShape(std::shared_ptr<ObjectState> state, FragmentId fragment,
                                   const MassProperties& massProperties)
    : m_state(std::move(state)), m_fragment(fragment), m_massProperties(massProperties),
      m_localScaling(1, 1, 1)
{
    m_shapeType = CUSTOM_CONCAVE_SHAPE_TYPE;
    m_mesh = checkedMesh(m_state, fragment);
    const MassProperties& mp = m_massProperties;
    const Mat3& axes = mp.principalAxes;
    const bool axesOk = axes.allFinite() && (axes.transpose() * axes - Mat3::Identity()).norm() < 1e-6 &&
                        axes.determinant() > 0;
    if (!(mp.mass > 0) || !std::isfinite(mp.mass) || !mp.centerOfMass.allFinite() ||
        !mp.principalInertia.allFinite() || !(mp.principalInertia.array() >= 0).all() || !axesOk)
        throw Error("FracturableShape", "invalid mass properties for fragment " + std::to_string(fragment) +
                                            " (need mass > 0, finite inertia, a rotation as principal axes)");
    m_materialToBody = principalFrame(mp);
    m_unitInertia = mp.principalInertia / mp.mass;

    const TriMesh& surface = m_mesh->surface;
    m_bodyVertices.reserve(surface.vertices.size());
    for (const Vec3& v : surface.vertices)
    {
        const Vec3 b = m_materialToBody * v;
        m_localBounds.grow(b);
        m_boundingRadius = std::max(m_boundingRadius, b.norm());
        m_bodyVertices.push_back(toBullet(b));
    }
}

const TriangleBvh& FracturableShape::bvh() const
{
    // Box queries only (processAllTriangles reads the corners from m_bodyVertices): no copy of them.
    std::call_once(
        m_bvhOnce, [this]
        { m_bvh = std::make_unique<const TriangleBvh>(m_mesh->surface, TriangleBvh::Storage::Indices); });
    return *m_bvh;
}

FracturableShape::~FracturableShape() = default;

bool FracturableShape::is(const btCollisionShape& shape)
{
    // The type id is shared with btSdfCollisionShape, so look at the dynamic type (once per pair, at
    // algorithm creation; never in a loop).
    return shape.getShapeType() == CUSTOM_CONCAVE_SHAPE_TYPE && dynamic_cast<const FracturableShape*>(&shape);
}

void FracturableShape::getAabb(const btTransform& t, btVector3& aabbMin, btVector3& aabbMax) const
{
    btTransformAabb(toBullet(m_localBounds.min), toBullet(m_localBounds.max), getMargin(), t, aabbMin,
                    aabbMax);
}

void FracturableShape::getBoundingSphere(btVector3& center, btScalar& radius) const
{
    center.setValue(0, 0, 0);
    radius = btScalar(m_boundingRadius) + getMargin();
}

btScalar FracturableShape::getAngularMotionDisc() const
{
    return btScalar(m_boundingRadius) + getMargin();
}

btScalar FracturableShape::getContactBreakingThreshold(btScalar defaultContactThresholdFactor) const
{
    // Bullet's rule (angular motion disc × factor, 2 % of the radius by default), without the
    // getAabb(identity) the base class would run on every manifold creation.
    return getAngularMotionDisc() * defaultContactThresholdFactor;
}

void FracturableShape::setLocalScaling(const btVector3& scaling)
{
    // Kept as asked, so that a compound's bookkeeping (child scale = old child scale × new / old) undoes
    // it when the compound is set back; the collision geometry stays unscaled.
    m_localScaling = scaling;
}

void FracturableShape::calculateLocalInertia(btScalar mass, btVector3& inertia) const
{
    inertia = toBullet(Vec3(Real(mass) * m_unitInertia));
}

void FracturableShape::processAllTriangles(btTriangleCallback* callback, const btVector3& aabbMin,
                                           const btVector3& aabbMax) const
{
    // The query box is in the body frame; the BVH is in the material frame. Map the box to the
    // material frame conservatively (the box of the rotated box), cull with the BVH there, then test
    // each triangle's body-frame box against the exact query box. Ray tests and sweeps pass a thin box,
    // debug drawing an infinite one (±BT_LARGE_FLOAT: clamp before transforming so nothing overflows).
    const Vec3 lo = toEigen(aabbMin).cwiseMax(Vec3::Constant(-1e30));
    const Vec3 hi = toEigen(aabbMax).cwiseMin(Vec3::Constant(1e30));
    if ((lo.array() > hi.array()).any())
        return;
    const Eigen::Isometry3d bodyToMaterial = m_materialToBody.inverse();
    const Vec3 center = bodyToMaterial * (Real(0.5) * (lo + hi));
    const Vec3 half = bodyToMaterial.linear().cwiseAbs() * (Real(0.5) * (hi - lo));
    const Vec3 qmin = center - half, qmax = center + half;

    const TriMesh& surface = m_mesh->surface;
    const auto emit = [&](Index t)
    {
        const Triangle& tri = surface.triangles[t];
        btVector3 v[3] = {m_bodyVertices[tri[0]], m_bodyVertices[tri[1]], m_bodyVertices[tri[2]]};
        btVector3 tmin = v[0], tmax = v[0];
        tmin.setMin(v[1]);
        tmin.setMin(v[2]);
        tmax.setMax(v[1]);
        tmax.setMax(v[2]);
        if (TestAabbAgainstAabb2(tmin, tmax, aabbMin, aabbMax))
            callback->processTriangle(v, int(m_fragment), int(t));
    };

    const TriangleBvh& bvh = this->bvh();
    if (bvh.empty())
        return;
    const std::vector<TriangleBvh::Node>& nodes = bvh.nodes();
    TriangleBvh::NodeRef stack[TriangleBvh::kMaxDepth + 2];
    int top = 0;
    stack[top++] = bvh.root();
    while (top > 0)
    {
        const TriangleBvh::NodeRef ref = stack[--top];
        if (ref.leaf())
        {
            for (Index slot = ref.index; slot < ref.index + ref.count; ++slot)
                emit(bvh.leafTriangle(slot));
            continue;
        }
        const TriangleBvh::Node& node = nodes[ref.index];
        for (int c = 0; c < 2; ++c)
        {
            bool overlap = true;
            for (int k = 0; k < 3; ++k)
                overlap = overlap && Real(node.min[c][k]) <= qmax[k] && Real(node.max[c][k]) >= qmin[k];
            if (overlap)
                stack[top++] = node.child[c];
        }
    }
}

btRigidBody::btRigidBodyConstructionInfo FracturableBody::constructionInfo(btMotionState* motionState) const
{
    btRigidBody::btRigidBodyConstructionInfo info(mass, motionState, shape.get(), localInertia);
    info.m_startWorldTransform = worldTransform;
    return info;
}

FracturableBody makeFracturableBody(std::shared_ptr<ObjectState> state, FragmentId fragment,
                                    const Eigen::Isometry3d& materialToWorld,
                                    const FracturableBodySettings& settings)
{
    if (!(settings.density > 0) || !std::isfinite(settings.density))
        throw Error("FracturableBodySettings::density", "must be positive and finite");
    if (!materialToWorld.matrix().allFinite())
        throw Error("makeFracturableBody", "the placement is not finite");
    const std::shared_ptr<const FragmentMesh>& mesh = checkedMesh(state, fragment);
    const std::string source = state->asset().name + " fragment " + std::to_string(fragment);

    FracturableBody body;
    const MassProperties massProperties = computeMassProperties(mesh->surface, settings.density, source);
    auto shape = std::make_unique<FracturableShape>(std::move(state), fragment, massProperties);
    body.materialToBody = shape->materialToBody();
    if (settings.dynamic)
    {
        body.mass = btScalar(massProperties.mass);
        shape->calculateLocalInertia(body.mass, body.localInertia);
    }
    body.shape = std::move(shape);
    // T·O = placement, so T = placement · O⁻¹.
    body.worldTransform = toBullet(Eigen::Isometry3d(materialToWorld * body.materialToBody.inverse()));
    return body;
}

} // namespace shatter
