// The piggy bank cut in two by a plane (an analytic
// FractureResult with fragment meshes, tests/support/fracture_fixtures.h), the two fragments resting on
// each other along the crack: the pile is stable and the kinetic energy never exceeds its initial value
// + 1 %. Sibling fragments share one ObjectState; their pair is queried both ways through the fragment
// distance field's ε band across the crack (TVCG §3, §4; sphere_tree_query.h FragmentFieldView).
#include "bullet_world.h"
#include "fracture_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120.0;

Real kineticEnergy(const btRigidBody& b)
{
    const btVector3 v = b.getLinearVelocity(), w = b.getAngularVelocity();
    const btVector3 wLocal = b.getWorldTransform().getBasis().transpose() * w;
    const btVector3 inertia = b.getLocalInertia();
    const Real rot = Real(inertia.x() * wLocal.x() * wLocal.x() + inertia.y() * wLocal.y() * wLocal.y() +
                          inertia.z() * wLocal.z() * wLocal.z());
    return 0.5 * Real(1 / b.getInvMass()) * Real(v.length2()) + 0.5 * rot;
}

TEST(PiggyBankCrack, FragmentsRestAlongTheCrackWithoutGainingEnergy)
{
    std::shared_ptr<ObjectState> state = freshState("piggy_bank.obj");
    const Asset& asset = state->asset();
    AnalyticFracture fixture(asset.tetMesh, asset.surface);
    // A slightly tilted cut through the middle: the upper fragment rests on the lower one along the
    // crack (friction 0.6 holds it on the 8° slope). Nudge the plane off nodes if the fixture refuses.
    const Aabb box = asset.surface.bounds();
    std::optional<FractureResult> result;
    for (int attempt = 0; attempt < 20 && !result; ++attempt)
    {
        Plane plane;
        plane.normal = Vec3(0.14, 1, 0.02).normalized();
        plane.offset = plane.normal.dot(box.center()) + 1e-4 * attempt;
        result = fixture.cutWithPlane(0, plane);
    }
    ASSERT_TRUE(result.has_value());
    ASSERT_EQ(result->fragments.size(), 2u);
    ASSERT_EQ(result->meshes.size(), 2u);
    state->apply(*result);

    // Two friction directions: with Bullet's default single one, nothing resting on a slope is held
    // (the one direction follows the sliding velocity, or is arbitrary at rest).
    WorldSettings options;
    options.twoFrictionDirections = true;
    BulletWorld world(options);
    btRigidBody* ground = world.addGroundPlane();
    // Both fragments where they were in the unbroken object, standing on the ground, sliding together
    // at 0.2 m/s: friction with the ground takes the energy out; the crack contacts must not add any.
    std::vector<btRigidBody*> pieces;
    for (FragmentId f : result->fragments)
    {
        pieces.push_back(world.addFracturable(state, f, placement(Vec3::Zero()), 1500));
        pieces.back()->setLinearVelocity(btVector3(0.2f, 0, 0));
    }
    // The pieces start touching along the crack (speculative contacts within ε), not overlapping.
    Real initial = 0;
    for (const btRigidBody* p : pieces)
        initial += kineticEnergy(*p);
    Real most = initial;
    const int steps = int(std::lround(3.0 / kDt));
    const Vec3 relative0 =
        materialToWorld(*pieces[1], Vec3::Zero()) - materialToWorld(*pieces[0], Vec3::Zero());
    for (int s = 0; s < steps; ++s)
    {
        world.step(kDt);
        Real energy = 0;
        for (const btRigidBody* p : pieces)
            energy += kineticEnergy(*p);
        most = std::max(most, energy);
    }
    const Vec3 relative =
        materialToWorld(*pieces[1], Vec3::Zero()) - materialToWorld(*pieces[0], Vec3::Zero());
    const Real slip = (relative - relative0).norm();
    const int crackContacts = world.contacts(pieces[0], pieces[1]);
    std::printf("piggy bank crack: initial KE %.4g J, max %.4g J (%.2f %%), final speeds %.3g / %.3g mm/s, "
                "slip along "
                "crack %.3g mm, %d crack contacts, %d/%d ground contacts\n",
                initial, most, 100 * (most / initial - 1), surfaceSpeed(*pieces[0]) * 1e3,
                surfaceSpeed(*pieces[1]) * 1e3, slip * 1e3, crackContacts, world.contacts(pieces[0], ground),
                world.contacts(pieces[1], ground));
    EXPECT_LE(most, initial * 1.01);
    EXPECT_GT(crackContacts, 0);
    EXPECT_LT(slip, 2e-3); // the pieces stay together
    for (const btRigidBody* p : pieces)
        EXPECT_LT(surfaceSpeed(*p), 5e-3);
}

} // namespace
} // namespace shatter::test
