// Primitive shapes and threading against fracturable shapes: sphere, box, capsule, cylinder,
// cone, convex hull and compound bodies dropped on a fracturable plate come to rest on it (no
// fall-through, no explosion); contactTest and contactPairTest go through the closest-point table
// without crashing and report the contacts; the same scene runs in btCollisionDispatcherMt +
// btDiscreteDynamicsWorldMt under Bullet's sequential task scheduler; registration covers every pair
// type in both tables, and a non-fracturable custom-concave pair still falls back to Bullet's algorithm.
#include "bullet_world.h"

#include "fracturable_collision_algorithm.h"
#include "shatter/error.h"

#include <BulletCollision/CollisionShapes/btSdfCollisionShape.h>
#include <LinearMath/btPoolAllocator.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120.0;

struct ShapeCase
{
    const char* name;
    std::function<std::unique_ptr<btCollisionShape>()> make;
};

std::unique_ptr<btCollisionShape> makeHull()
{
    auto hull = std::make_unique<btConvexHullShape>();
    // An irregular octahedron-like hull, 6 cm across.
    const btVector3 points[] = {{0.03f, 0, 0}, {-0.025f, 0, 0}, {0, 0.03f, 0},        {0, -0.02f, 0},
                                {0, 0, 0.03f}, {0, 0, -0.03f},  {0.02f, 0.02f, 0.02f}};
    for (const btVector3& p : points)
        hull->addPoint(p, false);
    hull->recalcLocalAabb();
    return hull;
}

std::unique_ptr<btCollisionShape> makeCompound()
{
    // A box and a sphere side by side, the compound's frame off their centroid: the algorithm must get
    // each child's shape and child world transform.
    auto compound = std::make_unique<btCompoundShape>();
    static btBoxShape box(btVector3(0.03f, 0.015f, 0.02f));
    static btSphereShape ball(0.02f);
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(-0.03f, 0.01f, 0));
    compound->addChildShape(t, &box);
    t.setOrigin(btVector3(0.03f, 0.015f, 0.01f));
    compound->addChildShape(t, &ball);
    return compound;
}

const ShapeCase kShapes[] = {
    {"sphere",
     []
     {
         return std::make_unique<btSphereShape>(btScalar(0.03));
     }},
    {"box",
     []
     {
         return std::make_unique<btBoxShape>(btVector3(0.03f, 0.02f, 0.025f));
     }},
    {"capsule",
     []
     {
         return std::make_unique<btCapsuleShape>(btScalar(0.02), btScalar(0.04));
     }},
    {"cylinder",
     []
     {
         return std::make_unique<btCylinderShape>(btVector3(0.03f, 0.02f, 0.03f));
     }},
    {"cone",
     []
     {
         return std::make_unique<btConeShape>(btScalar(0.03), btScalar(0.05));
     }},
    {"hull", makeHull},
    {"compound", makeCompound},
};

struct DropResult
{
    Real centreOverPlate = 0; // the body's origin minus the plate's top surface under it
    Real deepestContact = 0;  // most negative contact distance between the body and the plate
    Real speed = 0;
    Real plateSpeed = 0;
    Vec3 position = Vec3::Zero();
    int contacts = 0;
};

/// Drops `shape` onto a dynamic plate lying on a static plane and simulates 3 s.
DropResult dropOnPlate(BulletWorld& world, const ShapeCase& shape, const Vec3& from)
{
    world.addGroundPlane();
    btRigidBody* plate = world.addFracturable(freshState("plate.obj"), 0, placement(Vec3::Zero()), 2400);
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(btScalar(from.x()), btScalar(from.y()), btScalar(from.z())));
    t.setRotation(btQuaternion(btVector3(1, 0, 1).normalized(), btScalar(0.4)));
    btRigidBody* body = world.addBody(shape.make(), 0.2, t);
    body->setRollingFriction(btScalar(0.01)); // spheres and cylinders would roll in the well forever
    body->setSpinningFriction(btScalar(0.01));
    for (int s = 0; s < int(std::lround(3.0 / kDt)); ++s)
        world.step(kDt);
    DropResult r;
    const btVector3 c = body->getWorldTransform().getOrigin();
    r.position = Vec3(c.x(), c.y(), c.z());
    r.centreOverPlate = r.position.y() - surfaceHeight(*plate, r.position.x(), r.position.z());
    for (int i = 0; i < world.dispatcher().getNumManifolds(); ++i)
    {
        const btPersistentManifold* m = world.dispatcher().getManifoldByIndexInternal(i);
        if ((m->getBody0() == body && m->getBody1() == plate) ||
            (m->getBody0() == plate && m->getBody1() == body))
            for (int k = 0; k < m->getNumContacts(); ++k)
                r.deepestContact = std::min(r.deepestContact, Real(m->getContactPoint(k).getDistance()));
    }
    r.speed = surfaceSpeed(*body);
    r.plateSpeed = surfaceSpeed(*plate);
    r.contacts = world.contacts(body, plate);
    return r;
}

class ShapesOnPlate : public ::testing::TestWithParam<ShapeCase>
{
};

TEST_P(ShapesOnPlate, ComesToRestOnThePlate)
{
    BulletWorld world;
    const DropResult r = dropOnPlate(world, GetParam(), Vec3(0.02, 0.15, -0.01));
    std::printf(
        "%s: rests at (%.4f %.4f %.4f), centre %.3g mm over the plate top, deepest contact %.3g mm, speed "
        "%.3g mm/s, %d contacts\n",
        GetParam().name, r.position.x(), r.position.y(), r.position.z(), r.centreOverPlate * 1e3,
        r.deepestContact * 1e3, r.speed * 1e3, r.contacts);
    EXPECT_TRUE(std::isfinite(r.centreOverPlate)) << "not over the plate any more";
    // On the plate, not in it: the centre is above the plate's top surface and no contact is deeper
    // than 3 mm (no fall-through; the measured depths are printed above). The compound's lowest points
    // are exactly 5 mm below its origin, the least of all the shapes, so resting flat it reads 5 mm
    // minus its resting penetration: 1 mm of slack.
    EXPECT_GT(r.centreOverPlate, 0.004);
    EXPECT_GT(r.deepestContact, -3e-3);
    EXPECT_LT(r.position.y(), 0.08); // no explosion
    EXPECT_LT(r.speed, 5e-3);
    EXPECT_LT(r.plateSpeed, 5e-3);
    EXPECT_GT(r.contacts, 0);
}

INSTANTIATE_TEST_SUITE_P(Bullet, ShapesOnPlate, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<ShapeCase>& info) { return info.param.name; });

struct CountingCallback : btCollisionWorld::ContactResultCallback
{
    int points = 0;
    Real deepest = 0;
    btScalar addSingleResult(btManifoldPoint& cp, const btCollisionObjectWrapper*, int, int,
                             const btCollisionObjectWrapper*, int, int) override
    {
        ++points;
        deepest = std::min(deepest, Real(cp.getDistance()));
        return 0;
    }
};

TEST(ClosestPointTable, ContactTestAndContactPairTest)
{
    BulletWorld world;
    btRigidBody* ground = world.addGroundPlane();
    btRigidBody* plate = world.addFracturable(freshState("plate.obj"), 0, placement(Vec3::Zero()), 2400);
    // A sphere sunk 2 mm into the plate's well, a box far away.
    const Real top = surfaceHeight(*plate, 0, 0);
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(0, btScalar(top + 0.03 - 0.002), 0));
    btRigidBody* ball = world.addBody(std::make_unique<btSphereShape>(btScalar(0.03)), 0.2, t);
    t.setOrigin(btVector3(1, 1, 1));
    btRigidBody* far = world.addBody(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)), 1, t);
    world.world().performDiscreteCollisionDetection();

    CountingCallback pair;
    world.world().contactPairTest(ball, plate, pair);
    EXPECT_GT(pair.points, 0);
    EXPECT_NEAR(pair.deepest, -0.002, 5e-4);

    CountingCallback all;
    world.world().contactTest(plate, all); // plate vs ground plane and vs the ball
    EXPECT_GT(all.points, pair.points);

    CountingCallback groundPair;
    world.world().contactPairTest(plate, ground, groundPair);
    EXPECT_GT(groundPair.points, 0);

    CountingCallback none;
    world.world().contactPairTest(plate, far, none);
    EXPECT_EQ(none.points, 0);

    // A query distance: the far box is not within 1 mm, the sphere is.
    CountingCallback threshold;
    threshold.m_closestDistanceThreshold = btScalar(0.001);
    world.world().contactPairTest(ball, plate, threshold);
    EXPECT_GT(threshold.points, 0);
}

TEST(Registration, EveryPairTypeInBothTablesButCompound)
{
    auto config = makeCollisionConfiguration();
    btCollisionDispatcher dispatcher(config.get());
    EXPECT_GE(config->getCollisionAlgorithmPool()->getElementSize(), int(collisionAlgorithmSize()));
    auto registration = std::make_unique<CollisionRegistration>(dispatcher);
    // Bullet's tables are protected: look at them through the dispatcher's findAlgorithm instead, with
    // a fracturable shape against one shape of each family, in both orders and both tables.
    std::shared_ptr<ObjectState> state = freshState("brick.obj");
    FracturableBody brick = makeFracturableBody(state, 0, Eigen::Isometry3d::Identity());
    btCollisionObject a, b;
    a.setCollisionShape(brick.shape.get());
    btSphereShape sphere(1);
    btStaticPlaneShape plane(btVector3(0, 1, 0), 0);
    for (btCollisionShape* other :
         {static_cast<btCollisionShape*>(&sphere), static_cast<btCollisionShape*>(&plane),
          static_cast<btCollisionShape*>(brick.shape.get())})
    {
        b.setCollisionShape(other);
        const btCollisionObjectWrapper wa(nullptr, a.getCollisionShape(), &a, a.getWorldTransform(), -1, -1);
        const btCollisionObjectWrapper wb(nullptr, other, &b, b.getWorldTransform(), -1, -1);
        for (ebtDispatcherQueryType table : {BT_CONTACT_POINT_ALGORITHMS, BT_CLOSEST_POINT_ALGORITHMS})
            for (int order = 0; order < 2; ++order)
            {
                btCollisionAlgorithm* algorithm = order == 0
                                                      ? dispatcher.findAlgorithm(&wa, &wb, nullptr, table)
                                                      : dispatcher.findAlgorithm(&wb, &wa, nullptr, table);
                ASSERT_NE(algorithm, nullptr);
                EXPECT_NE(dynamic_cast<FracturableCollisionAlgorithm*>(algorithm), nullptr)
                    << other->getName() << " table " << table << " order " << order;
                algorithm->~btCollisionAlgorithm();
                dispatcher.freeCollisionAlgorithm(algorithm);
            }
    }
    // Two non-fracturable shapes in a CUSTOM_CONCAVE entry (Bullet's btSdfCollisionShape shares the
    // id) get the configuration's own algorithm, not ours.
    btSdfCollisionShape sdf;
    b.setCollisionShape(&sdf);
    btCollisionObject c;
    c.setCollisionShape(&sphere);
    const btCollisionObjectWrapper wsdf(nullptr, &sdf, &b, b.getWorldTransform(), -1, -1);
    const btCollisionObjectWrapper wsphere(nullptr, &sphere, &c, c.getWorldTransform(), -1, -1);
    btCollisionAlgorithm* fallback =
        dispatcher.findAlgorithm(&wsphere, &wsdf, nullptr, BT_CONTACT_POINT_ALGORITHMS);
    ASSERT_NE(fallback, nullptr);
    EXPECT_EQ(dynamic_cast<FracturableCollisionAlgorithm*>(fallback), nullptr);
    fallback->~btCollisionAlgorithm();
    dispatcher.freeCollisionAlgorithm(fallback);

    // The destructor gives the entries back to Bullet's defaults.
    registration.reset();
    {
        b.setCollisionShape(&sphere);
        const btCollisionObjectWrapper wa(nullptr, a.getCollisionShape(), &a, a.getWorldTransform(), -1, -1);
        const btCollisionObjectWrapper wb(nullptr, &sphere, &b, b.getWorldTransform(), -1, -1);
        for (ebtDispatcherQueryType table : {BT_CONTACT_POINT_ALGORITHMS, BT_CLOSEST_POINT_ALGORITHMS})
        {
            btCollisionAlgorithm* algorithm = dispatcher.findAlgorithm(&wb, &wa, nullptr, table);
            if (!algorithm)
                continue;
            EXPECT_EQ(dynamic_cast<FracturableCollisionAlgorithm*>(algorithm), nullptr) << "table " << table;
            algorithm->~btCollisionAlgorithm();
            dispatcher.freeCollisionAlgorithm(algorithm);
        }
    }

    // Bad settings are caught at registration.
    CollisionSettings bad;
    bad.toleranceFraction = 0;
    EXPECT_THROW((CollisionRegistration{dispatcher, bad}), Error);
    bad = {};
    bad.shellPoints = 0;
    EXPECT_THROW((CollisionRegistration{dispatcher, bad}), Error);
    EXPECT_THROW(makeFracturableBody(nullptr, 0, Eigen::Isometry3d::Identity()), Error);
    EXPECT_THROW(makeFracturableBody(state, 7, Eigen::Isometry3d::Identity()), Error);
}

TEST(Registration, WorksWithADefaultSizedConfiguration)
{
    // An existing program's configuration with Bullet's 192-byte pool slot: the algorithm is then
    // allocated outside the pool, and freed correctly by the dispatcher.
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    CollisionRegistration registration(dispatcher);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity(btVector3(0, -9.81f, 0));
    btStaticPlaneShape ground(btVector3(0, 1, 0), 0);
    btRigidBody groundBody(0, nullptr, &ground);
    world.addRigidBody(&groundBody);
    FracturableBody brick = makeFracturableBody(freshState("brick.obj"), 0, placement(Vec3(0, 0.01, 0)));
    btRigidBody body(brick.constructionInfo());
    world.addRigidBody(&body);
    for (int s = 0; s < 120; ++s)
        world.stepSimulation(btScalar(kDt), 1, btScalar(kDt));
    EXPECT_NEAR(lowestPoint(body), 0, 1e-3);
    world.removeRigidBody(&body);
    world.removeRigidBody(&groundBody);
}

// Scaling a compound that holds a fracturable child: Bullet calls the child's setLocalScaling from the
// compound's, so it must not throw (the compound would be left half scaled). The child stays unscaled,
// and its pairs fail with a message saying why, counted by the registration; setting the compound back to
// unit scaling undoes it.
TEST(Registration, ScalingAFracturableChildIsRefusedAndReported)
{
    BulletWorld world;
    world.addGroundPlane();
    FracturableBody brick = makeFracturableBody(freshState("brick.obj"), 0, Eigen::Isometry3d::Identity());
    auto compound = std::make_unique<btCompoundShape>();
    btCompoundShape& shape = *compound;
    compound->addChildShape(btTransform::getIdentity(), brick.shape.get());
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(0, 0.005f, 0));
    world.addBody(std::move(compound), 1.0, t);
    EXPECT_NO_THROW(shape.setLocalScaling(btVector3(2, 2, 2)));
    EXPECT_EQ(brick.shape->getLocalScaling(), btVector3(2, 2, 2)) << "the request is kept for the compound";
    world.step(kDt);
    const CollisionStatistics stats = world.collision().statistics();
    EXPECT_GT(stats.failures, 0);
    EXPECT_NE(stats.lastError.find("local scaling"), std::string::npos) << stats.lastError;

    shape.setLocalScaling(btVector3(1, 1, 1));
    EXPECT_EQ(brick.shape->getLocalScaling(), btVector3(1, 1, 1));
    world.collision().resetStatistics();
    world.step(kDt);
    EXPECT_EQ(world.collision().statistics().failures, 0) << world.collision().statistics().lastError;
}

TEST(Multithreaded, SequentialSchedulerMtWorld)
{
    WorldSettings options;
    options.multithreaded = true;
    BulletWorld world(options);
    btRigidBody* ground = world.addGroundPlane();
    std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    const Real h = brick->asset().surface.bounds().extent().y();
    btRigidBody* lower = world.addFracturable(brick, 0, placement(Vec3(0, 0, 0)), 2000);
    btRigidBody* upper = world.addFracturable(brick, 0, placement(Vec3(0.01, h + 0.005, 0)), 2000);
    btTransform t = btTransform::getIdentity();
    t.setOrigin(btVector3(0.3f, 0.1f, 0));
    btRigidBody* ball = world.addBody(std::make_unique<btSphereShape>(btScalar(0.03)), 0.2, t);
    // Rolling and spinning friction, as for any ball meant to come to rest: without the latter Bullet
    // keeps (and a patch of several contacts' friction slowly changes) a spin about the normal.
    ball->setRollingFriction(btScalar(0.01));
    ball->setSpinningFriction(btScalar(0.01));
    btRigidBody* plate = world.addFracturable(freshState("plate.obj"), 0, placement(Vec3(0.3, 0.0, 0)), 2400);
    for (int s = 0; s < 360; ++s)
        world.step(kDt);
    EXPECT_LT(surfaceSpeed(*upper), 5e-3);
    EXPECT_NEAR(lowestPoint(*lower), 0, 1e-3);
    EXPECT_NEAR(lowestPoint(*upper), h, 1e-3);
    EXPECT_GT(world.contacts(lower, upper), 0);
    EXPECT_GT(world.contacts(lower, ground), 0);
    EXPECT_GT(world.contacts(ball, plate), 0);
    EXPECT_LT(surfaceSpeed(*ball), 5e-3);
}

} // namespace
} // namespace shatter::test
