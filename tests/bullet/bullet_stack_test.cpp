// Fracturable × fracturable pairs at rest: a stack of five fracturable bricks stays put for 10 s
// simulated (drift < 1 mm), and 100 random drops of a fracturable ball on a fracturable plate never
// leave the ball below the plate's top surface. Both exercise fracturable × fracturable pairs, i.e.
// both query directions S(A)→D(B) and S(B)→D(A) with one budget per pair (TVCG §3, §5.2).
#include "bullet_world.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120.0;

TEST(BrickStack, FiveBricksDriftLessThanOneMillimetreInTenSeconds)
{
    // Bullet's stacking setup (docs/user-guide.md §7): two friction directions (its default single one
    // leaves bodies resting on each other free to creep sideways), friction anchors and 20 solver
    // iterations (five bodies deep, 10 iterations leave ~0.1 mm/s of creep between the lower bricks).
    WorldSettings options;
    options.twoFrictionDirections = true;
    options.solverIterations = 20;
    BulletWorld world(options);
    btRigidBody* ground = world.addGroundPlane();
    std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    const Real height = brick->asset().surface.bounds().extent().y();
    std::vector<btRigidBody*> bricks;
    std::vector<Vec3> start;
    for (int i = 0; i < 5; ++i)
    {
        // Exactly touching: the contacts start within ε (speculative), no drop.
        bricks.push_back(world.addFracturable(brick, 0, placement(Vec3(0, i * height, 0)), 2000));
        bricks.back()->setCollisionFlags(bricks.back()->getCollisionFlags() |
                                         btCollisionObject::CF_HAS_FRICTION_ANCHOR);
        start.push_back(materialToWorld(*bricks.back(), Vec3::Zero()));
    }
    Real drift = 0;
    int maxContacts = 0;
    const int steps = int(std::lround(10.0 / kDt));
    for (int s = 0; s < steps; ++s)
    {
        world.step(kDt);
        for (int i = 0; i < 5; ++i)
            drift = std::max(drift, (materialToWorld(*bricks[i], Vec3::Zero()) - start[i]).norm());
    }
    for (int i = 0; i < 5; ++i)
        maxContacts = std::max(maxContacts, world.contacts(bricks[i], i == 0 ? ground : bricks[i - 1]));
    std::printf("5-brick stack: max drift %.4g mm over 10 s, at most %d contacts per pair at the end\n",
                drift * 1e3, maxContacts);
    EXPECT_LT(drift, 1e-3);
    EXPECT_GE(maxContacts, 3);
}

TEST(BallDrops, HundredRandomDropsNeverEndBelowThePlateTop)
{
    std::shared_ptr<ObjectState> plateState = freshState("plate.obj");
    std::shared_ptr<ObjectState> ballState = freshState("ball.obj");
    const Real ballRadius = 0.5 * ballState->asset().surface.bounds().extent().y();
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<Real> u(0, 1);
    int onPlate = 0, failures = 0;
    Real deepest = 0;
    for (int drop = 0; drop < 100; ++drop)
    {
        BulletWorld world;
        world.addGroundPlane();
        btRigidBody* plate = world.addFracturable(plateState, 0, placement(Vec3::Zero()), 2400);
        const Real r = 0.09 * std::sqrt(u(rng)), phi = 6.283185307 * u(rng);
        const Vec3 at(r * std::cos(phi), 0.1 + 0.3 * u(rng), r * std::sin(phi));
        const Eigen::Matrix3d spin =
            Eigen::AngleAxisd(6.283185307 * u(rng),
                              Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized())
                .toRotationMatrix();
        // The ball's material frame has its centre at y = 0 (the mesh is centred).
        btRigidBody* ball = world.addFracturable(ballState, 0, placement(at, spin), 500);
        ball->setAngularVelocity(
            btVector3(btScalar(u(rng) * 4 - 2), btScalar(u(rng) * 4 - 2), btScalar(u(rng) * 4 - 2)));
        // 1.5 s: the fall (up to 0.4 s), the impact and settling. Bullet runs no CCD for the ball (a
        // concave shape); the plugin's speculative contacts stop it near the surface instead, and it
        // drops the contacts of points that tunnelled past the plate's mid-surface (whose nearest
        // surface is the bottom one), so what is left pushes the ball back up.
        Real gap = std::numeric_limits<Real>::infinity();
        const int steps = int(std::lround(1.5 / kDt));
        for (int s = 1; s <= steps; ++s)
        {
            world.step(kDt);
            if (s % 10 != 0 && s != steps)
                continue;
            const Vec3 c = materialToWorld(*ball, Vec3::Zero());
            const Real top = surfaceHeight(*plate, c.x(), c.z());
            // Over the plate, the gap between the ball's lowest point and the plate's top surface
            // (infinite once the ball rolled off the plate: the ground holds it, nothing to check).
            gap = std::isfinite(top) ? c.y() - ballRadius - top : std::numeric_limits<Real>::infinity();
            deepest = std::min(deepest, gap);
        }
        if (std::isfinite(gap))
            ++onPlate;
        // Where it ends, the ball must not be below the top surface (by more than 1 mm: contact
        // tolerance plus the curvature of the plate under the ball).
        const bool below = gap < -1e-3;
        if (below)
        {
            ++failures;
            ADD_FAILURE() << "drop " << drop << " from " << at.transpose() << " ended " << -gap * 1e3
                          << " mm below the plate's top";
        }
    }
    std::printf("100 ball drops: %d ended over the plate, deepest ball-below-top during impacts %.3g mm, %d "
                "failures\n",
                onPlate, -deepest * 1e3, failures);
    EXPECT_EQ(failures, 0);
    EXPECT_GT(onPlate, 50);
}

} // namespace
} // namespace shatter::test
