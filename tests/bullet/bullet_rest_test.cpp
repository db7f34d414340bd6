// The procedural plate dropped flat and in ten random
// orientations onto a static plane, a box ground and a static triangle-mesh ground comes to rest, with
// penetration ≤ ε = 0.2 % of its radius (TVCG §5.2), at most 8 contacts for the pair (the initial
// budget m, TVCG §5.2) and |v| < 1 mm/s after 2 s simulated; and rayTest from above hits the plate's
// surface at the height of the surface mesh within 1e-4.
#include "bullet_world.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120.0;

enum class Ground
{
    Plane,
    Box,
    Mesh,
};

const char* groundName(Ground g)
{
    return g == Ground::Plane ? "plane" : g == Ground::Box ? "box" : "mesh";
}

btRigidBody* addGround(BulletWorld& world, Ground g)
{
    switch (g)
    {
    case Ground::Plane:
        return world.addGroundPlane();
    case Ground::Box:
        return world.addGroundBox();
    case Ground::Mesh:
        return world.addGroundMesh();
    }
    return nullptr;
}

struct RestResult
{
    Real penetration = 0;    // max(0, −lowest surface point)
    Real speed = 0;          // surface speed after 2 s
    int contacts = 0;        // contacts of the pair at the end
    int maxRestContacts = 0; // most contacts of the pair over the last 0.5 s
    Real epsilon = 0;
};

RestResult dropPlate(Ground g, const Eigen::Matrix3d& rotation, Real height)
{
    BulletWorld world;
    btRigidBody* ground = addGround(world, g);
    btRigidBody* plate =
        world.addFracturable(freshState("plate.obj"), 0, placement(Vec3(0, height, 0), rotation));
    RestResult r;
    r.epsilon = 0.002 * fracturable(*plate).boundingRadius();
    const int steps = int(std::lround(2.0 / kDt));
    for (int i = 0; i < steps; ++i)
    {
        world.step(kDt);
        if (i >= steps - int(std::lround(0.5 / kDt)))
            r.maxRestContacts = std::max(r.maxRestContacts, world.contacts(plate, ground));
    }
    r.penetration = std::max(Real(0), -lowestPoint(*plate));
    r.speed = surfaceSpeed(*plate);
    r.contacts = world.contacts(plate, ground);
    return r;
}

void expectRest(const RestResult& r, const std::string& what)
{
    std::printf("%s: penetration %.3g mm (eps %.3g mm), speed %.3g mm/s, contacts %d (max %d at rest)\n",
                what.c_str(), r.penetration * 1e3, r.epsilon * 1e3, r.speed * 1e3, r.contacts,
                r.maxRestContacts);
    EXPECT_LE(r.penetration, r.epsilon) << what;
    EXPECT_LT(r.speed, 1e-3) << what;
    EXPECT_GE(r.contacts, 3) << what;
    EXPECT_LE(r.maxRestContacts, 8) << what;
}

class PlateRest : public ::testing::TestWithParam<Ground>
{
};

TEST_P(PlateRest, Flat)
{
    expectRest(dropPlate(GetParam(), Eigen::Matrix3d::Identity(), 0.02),
               std::string(groundName(GetParam())) + " flat");
}

TEST_P(PlateRest, TenRandomOrientations)
{
    std::mt19937_64 rng(1234);
    std::normal_distribution<Real> gauss;
    std::uniform_real_distribution<Real> tilt(0.1, 0.6); // radians off flat
    for (int trial = 0; trial < 10; ++trial)
    {
        const Vec3 axis = Vec3(gauss(rng), 0, gauss(rng)).normalized();
        const Real spin = std::uniform_real_distribution<Real>(0, 6.283)(rng);
        const Eigen::Matrix3d rotation =
            (Eigen::AngleAxisd(tilt(rng), axis) * Eigen::AngleAxisd(spin, Vec3::UnitY())).toRotationMatrix();
        expectRest(dropPlate(GetParam(), rotation, 0.12),
                   std::string(groundName(GetParam())) + " tilted #" + std::to_string(trial));
    }
}

INSTANTIATE_TEST_SUITE_P(Grounds, PlateRest, ::testing::Values(Ground::Plane, Ground::Box, Ground::Mesh),
                         [](const ::testing::TestParamInfo<Ground>& info) { return groundName(info.param); });

TEST(PlateRay, HitsSurfaceAtMeshHeight)
{
    BulletWorld world;
    world.addGroundPlane();
    // A static plate, rotated and lifted, so that the body frame differs from the material frame.
    const Eigen::Matrix3d rotation = Eigen::AngleAxisd(0.3, Vec3(1, 0, 0.5).normalized()).toRotationMatrix();
    btRigidBody* plate = world.addFracturable(freshState("plate.obj"), 0,
                                              placement(Vec3(0.1, 0.2, -0.05), rotation), 1000, false);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<Real> u(0, 1);
    int hits = 0;
    for (int i = 0; i < 50; ++i)
    {
        // Uniform in a disc of radius 9 cm about the plate's axis (the plate is 13 cm in radius).
        const Real r = 0.09 * std::sqrt(u(rng)), phi = 6.283185307 * u(rng);
        const Real x = 0.1 + r * std::cos(phi), z = -0.05 + r * std::sin(phi);
        const btVector3 from(btScalar(x), 1, btScalar(z)), to(btScalar(x), -1, btScalar(z));
        btCollisionWorld::ClosestRayResultCallback callback(from, to);
        world.world().rayTest(from, to, callback);
        const Real expected = surfaceHeight(*plate, x, z);
        ASSERT_TRUE(std::isfinite(expected)) << "ray at " << x << ", " << z;
        ASSERT_TRUE(callback.hasHit()) << "ray at " << x << ", " << z;
        EXPECT_EQ(callback.m_collisionObject, plate);
        EXPECT_NEAR(Real(callback.m_hitPointWorld.y()), expected, 1e-4) << "ray at " << x << ", " << z;
        EXPECT_GT(callback.m_hitNormalWorld.y(), 0);
        ++hits;
    }
    EXPECT_EQ(hits, 50);
}

TEST(PlateRay, DebugDrawAndSweepSeeTriangles)
{
    BulletWorld world;
    btRigidBody* plate =
        world.addFracturable(freshState("plate.obj"), 0, placement(Vec3(0, 0, 0)), 1000, false);
    struct Counter : btTriangleCallback
    {
        int count = 0;
        void processTriangle(btVector3*, int, int) override { ++count; }
    } counter;
    const btVector3 big(BT_LARGE_FLOAT, BT_LARGE_FLOAT, BT_LARGE_FLOAT);
    static_cast<const btConcaveShape*>(plate->getCollisionShape())->processAllTriangles(&counter, -big, big);
    EXPECT_EQ(counter.count, int(fracturable(*plate).mesh().surface.triangles.size()));

    // A sphere swept down onto the plate stops on its top surface.
    btSphereShape sphere(0.02f);
    btTransform from = btTransform::getIdentity(), to = btTransform::getIdentity();
    from.setOrigin(btVector3(0, 0.5f, 0));
    to.setOrigin(btVector3(0, -0.5f, 0));
    btCollisionWorld::ClosestConvexResultCallback sweep(from.getOrigin(), to.getOrigin());
    world.world().convexSweepTest(&sphere, from, to, sweep);
    ASSERT_TRUE(sweep.hasHit());
    EXPECT_NEAR(Real(sweep.m_hitPointWorld.y()), surfaceHeight(*plate, 0, 0), 1e-3);
}

} // namespace
} // namespace shatter::test
