#include "bullet_world.h"

#include "test_assets.h"
#include "test_paths.h"

#include "shatter/contact_solver.h"
#include "shatter/error.h"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcherMt.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorldMt.h>
#include <LinearMath/btThreads.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>

namespace shatter::test
{

namespace
{

btVector3 bt(const Vec3& v)
{
    return {btScalar(v.x()), btScalar(v.y()), btScalar(v.z())};
}

Vec3 eigen(const btVector3& v)
{
    return {Real(v.x()), Real(v.y()), Real(v.z())};
}

} // namespace

std::shared_ptr<const Asset> bulletAsset(const std::string& file)
{
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Asset>> cache;
    const std::lock_guard lock(mutex);
    std::shared_ptr<const Asset>& asset = cache[file];
    if (!asset)
        asset = cachedMeshAsset(meshDir() / file);
    return asset;
}

std::shared_ptr<ObjectState> freshState(const std::string& file)
{
    return std::make_shared<ObjectState>(bulletAsset(file));
}

Eigen::Isometry3d placement(const Vec3& translation, const Eigen::Matrix3d& rotation)
{
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.linear() = rotation;
    t.translation() = translation;
    return t;
}

BulletWorld::BulletWorld(const WorldSettings& options)
{
    configuration = makeCollisionConfiguration();
    if (options.multithreaded)
    {
        // Debian's Bullet has no threaded scheduler and the *Mt classes dereference the current one.
        btSetTaskScheduler(btGetSequentialTaskScheduler());
        collisionDispatcher = std::make_unique<btCollisionDispatcherMt>(configuration.get());
        solverPool = std::make_unique<btConstraintSolverPoolMt>(1);
    }
    else if (options.collisionThreads > 0)
        collisionDispatcher =
            std::make_unique<ParallelCollisionDispatcher>(configuration.get(), options.collisionThreads);
    else
        collisionDispatcher = std::make_unique<btCollisionDispatcher>(configuration.get());
    broadphase = std::make_unique<btDbvtBroadphase>();
    if (options.multithreaded)
        dynamicsWorld = std::make_unique<btDiscreteDynamicsWorldMt>(
            collisionDispatcher.get(), broadphase.get(), solverPool.get(), nullptr, configuration.get());
    else
    {
        if (options.staticPrioritySolver)
            solver = std::make_unique<StaticPriorityConstraintSolver>();
        else
            solver = std::make_unique<btSequentialImpulseConstraintSolver>();
        dynamicsWorld = std::make_unique<btDiscreteDynamicsWorld>(collisionDispatcher.get(), broadphase.get(),
                                                                  solver.get(), configuration.get());
    }
    dynamicsWorld->setGravity(btVector3(0, btScalar(-9.81), 0));
    dynamicsWorld->getSolverInfo().m_numIterations = options.solverIterations;
    if (options.twoFrictionDirections)
        dynamicsWorld->getSolverInfo().m_solverMode |= SOLVER_USE_2_FRICTION_DIRECTIONS;
    if (options.register_)
    {
        registration = std::make_unique<CollisionRegistration>(*collisionDispatcher, options.collision);
        applyComparisonVariants(*registration, options.variants);
    }
}

CollisionRegistration& BulletWorld::collision()
{
    if (!registration)
        throw Error("BulletWorld", "made without a CollisionRegistration");
    return *registration;
}

BulletWorld::~BulletWorld()
{
    for (auto& body : bodies)
        dynamicsWorld->removeRigidBody(body.get());
    bodies.clear();
    registration.reset();
    dynamicsWorld.reset();
    solver.reset();
    solverPool.reset();
    broadphase.reset();
    collisionDispatcher.reset();
    configuration.reset();
    shapes.clear();
}

btRigidBody* BulletWorld::addBody(std::unique_ptr<btCollisionShape> shape, Real mass,
                                  const btTransform& transform)
{
    btVector3 inertia(0, 0, 0);
    if (mass > 0)
        shape->calculateLocalInertia(btScalar(mass), inertia);
    btRigidBody::btRigidBodyConstructionInfo info(btScalar(mass), nullptr, shape.get(), inertia);
    info.m_startWorldTransform = transform;
    info.m_friction = btScalar(0.6);
    auto body = std::make_unique<btRigidBody>(info);
    body->setActivationState(DISABLE_DEACTIVATION); // measure real velocities, no sleeping
    dynamicsWorld->addRigidBody(body.get());
    shapes.push_back(std::move(shape));
    bodies.push_back(std::move(body));
    return bodies.back().get();
}

btRigidBody* BulletWorld::addGroundPlane(Real height)
{
    return addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(height)), 0,
                   btTransform::getIdentity());
}

btRigidBody* BulletWorld::addGroundBox(const Vec3& halfExtents)
{
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(0, btScalar(-halfExtents.y()), 0));
    return addBody(std::make_unique<btBoxShape>(bt(halfExtents)), 0, t);
}

btRigidBody* BulletWorld::addGroundMesh(Real size, int n)
{
    if (groundMesh)
        throw Error("BulletWorld", "one ground mesh per world");
    groundMesh = std::make_unique<btTriangleMesh>();
    const Real h = size / n;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
        {
            const Real x0 = -size / 2 + i * h, z0 = -size / 2 + j * h;
            const btVector3 a = bt(Vec3(x0, 0, z0)), b = bt(Vec3(x0 + h, 0, z0)),
                            c = bt(Vec3(x0 + h, 0, z0 + h)), d = bt(Vec3(x0, 0, z0 + h));
            // Counter-clockwise seen from above (+y): normals up.
            groundMesh->addTriangle(a, d, c);
            groundMesh->addTriangle(a, c, b);
        }
    return addBody(std::make_unique<btBvhTriangleMeshShape>(groundMesh.get(), true), 0,
                   btTransform::getIdentity());
}

btRigidBody* BulletWorld::addFracturable(std::shared_ptr<ObjectState> state, FragmentId fragment,
                                         const Eigen::Isometry3d& materialToWorld, Real density, bool dynamic)
{
    FracturableBodySettings settings;
    settings.density = density;
    settings.dynamic = dynamic;
    FracturableBody made = makeFracturableBody(std::move(state), fragment, materialToWorld, settings);
    btRigidBody::btRigidBodyConstructionInfo info = made.constructionInfo();
    info.m_friction = btScalar(0.6);
    auto body = std::make_unique<btRigidBody>(info);
    body->setActivationState(DISABLE_DEACTIVATION);
    dynamicsWorld->addRigidBody(body.get());
    shapes.push_back(std::move(made.shape));
    bodies.push_back(std::move(body));
    return bodies.back().get();
}

void BulletWorld::removeBody(btRigidBody* body)
{
    for (std::size_t i = 0; i < bodies.size(); ++i)
        if (bodies[i].get() == body)
        {
            dynamicsWorld->removeRigidBody(body);
            const btCollisionShape* shape = body->getCollisionShape();
            bodies.erase(bodies.begin() + std::ptrdiff_t(i));
            if (registration)
                registration->forgetShape(shape);
            for (std::size_t k = 0; k < shapes.size(); ++k)
                if (shapes[k].get() == shape)
                {
                    shapes.erase(shapes.begin() + std::ptrdiff_t(k));
                    break;
                }
            return;
        }
}

void BulletWorld::step(Real dt)
{
    dynamicsWorld->stepSimulation(btScalar(dt), 1, btScalar(dt));
}

int BulletWorld::contacts(const btCollisionObject* a, const btCollisionObject* b) const
{
    int count = 0;
    for (int i = 0; i < collisionDispatcher->getNumManifolds(); ++i)
    {
        const btPersistentManifold* m = collisionDispatcher->getManifoldByIndexInternal(i);
        if ((m->getBody0() == a && m->getBody1() == b) || (m->getBody0() == b && m->getBody1() == a))
            count += m->getNumContacts();
    }
    return count;
}

int BulletWorld::manifolds(const btCollisionObject* a, const btCollisionObject* b) const
{
    int count = 0;
    for (int i = 0; i < collisionDispatcher->getNumManifolds(); ++i)
    {
        const btPersistentManifold* m = collisionDispatcher->getManifoldByIndexInternal(i);
        if ((m->getBody0() == a && m->getBody1() == b) || (m->getBody0() == b && m->getBody1() == a))
            ++count;
    }
    return count;
}

const FracturableShape& fracturable(const btRigidBody& body)
{
    const btCollisionShape* shape = body.getCollisionShape();
    if (!FracturableShape::is(*shape))
        throw Error("fracturable", "the body's shape is not a FracturableShape");
    return *static_cast<const FracturableShape*>(shape);
}

Vec3 materialToWorld(const btRigidBody& body, const Vec3& p)
{
    const FracturableShape& shape = fracturable(body);
    return eigen(body.getWorldTransform() * bt(shape.materialToBody() * p));
}

Real lowestPoint(const btRigidBody& body)
{
    const FracturableShape& shape = fracturable(body);
    const btTransform& t = body.getWorldTransform();
    Real lowest = std::numeric_limits<Real>::infinity();
    for (const Vec3& v : shape.mesh().surface.vertices)
        lowest = std::min(lowest, Real((t * bt(shape.materialToBody() * v)).y()));
    return lowest;
}

Real surfaceHeight(const btRigidBody& body, Real x, Real z)
{
    const FracturableShape& shape = fracturable(body);
    const TriMesh& surface = shape.mesh().surface;
    std::vector<Vec3> world(surface.vertices.size());
    for (std::size_t i = 0; i < world.size(); ++i)
        world[i] = materialToWorld(body, surface.vertices[i]);
    Real best = -std::numeric_limits<Real>::infinity();
    for (const Triangle& t : surface.triangles)
    {
        const Vec3 &a = world[t[0]], &b = world[t[1]], &c = world[t[2]];
        // Barycentric coordinates of (x, z) in the triangle projected on the xz plane.
        const Real det = (b.x() - a.x()) * (c.z() - a.z()) - (c.x() - a.x()) * (b.z() - a.z());
        if (std::abs(det) < 1e-18)
            continue;
        const Real u = ((x - a.x()) * (c.z() - a.z()) - (c.x() - a.x()) * (z - a.z())) / det;
        const Real v = ((b.x() - a.x()) * (z - a.z()) - (x - a.x()) * (b.z() - a.z())) / det;
        if (u < 0 || v < 0 || u + v > 1)
            continue;
        best = std::max(best, a.y() + u * (b.y() - a.y()) + v * (c.y() - a.y()));
    }
    return best;
}

Real surfaceSpeed(const btRigidBody& body)
{
    Real radius = 0;
    if (FracturableShape::is(*body.getCollisionShape()))
        radius = fracturable(body).boundingRadius();
    else
    {
        btVector3 c;
        btScalar r;
        body.getCollisionShape()->getBoundingSphere(c, r);
        radius = Real(r);
    }
    return Real(body.getLinearVelocity().length()) + Real(body.getAngularVelocity().length()) * radius;
}

Vec3 toVec(const btVector3& v)
{
    return Vec3(Real(v.x()), Real(v.y()), Real(v.z()));
}

std::uint64_t hashBodies(const std::vector<btRigidBody*>& bodies)
{
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* data, std::size_t size)
    {
        for (std::size_t i = 0; i < size; ++i)
            h = (h ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
    };
    for (const btRigidBody* b : bodies)
    {
        const btTransform& t = b->getWorldTransform();
        const btScalar values[18] = {
            t.getOrigin().x(),           t.getOrigin().y(),           t.getOrigin().z(),
            t.getBasis()[0].x(),         t.getBasis()[0].y(),         t.getBasis()[0].z(),
            t.getBasis()[1].x(),         t.getBasis()[1].y(),         t.getBasis()[1].z(),
            t.getBasis()[2].x(),         t.getBasis()[2].y(),         t.getBasis()[2].z(),
            b->getLinearVelocity().x(),  b->getLinearVelocity().y(),  b->getLinearVelocity().z(),
            b->getAngularVelocity().x(), b->getAngularVelocity().y(), b->getAngularVelocity().z()};
        mix(values, sizeof(values));
    }
    return h;
}

void expectFailuresReportedNotApplied(const fracture::FractureSystem& system, fracture::ObjectId object,
                                      int failed, const std::vector<std::string>& logged,
                                      const std::string& expectedInMessage)
{
    EXPECT_GT(failed, 0);
    EXPECT_EQ(system.totalEvents(), 0u);
    EXPECT_EQ(system.bodies(object).size(), 1u) << "a failed event leaves the body whole";
    EXPECT_EQ(int(logged.size()), failed);
    ASSERT_FALSE(logged.empty());
    EXPECT_NE(logged.back().find(expectedInMessage), std::string::npos) << logged.back();
}

} // namespace shatter::test
