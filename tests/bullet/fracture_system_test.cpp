// FractureSystem over a real btDiscreteDynamicsWorld: impacts read after each step, the
// fracture decision, the body replacement and repeated fracture.
//  - the plate (fracture::glass(), the material fitted for it) dropped flat-ish onto a
//    floor from 0.5, 1, 2 and 4 m, several seeds each (10 with SHATTER_LONG_TESTS=1, 4 otherwise): the
//    mean fragment count strictly increases with the height; fragments whose centre lies within 25 % of
//    the radius from the impact point are smaller on average than the others; a 0.15 m drop never
//    breaks it;
//  - fragments inherit v + ω × r, conserve mass and momentum, and keep the parent's placement;
//  - the impact is read in the material frame: the same break in a moved, turned placement gives the
//    same fragments;
//  - the GImpact and convex-hull baselines build valid Bullet bodies of their kind;
//  - lookup / bodies / removeObject bookkeeping, the enabled switch, determinism of a whole simulation;
//  - a failing event inside the post-tick callback does not escape stepSimulation and is reported.
#include "bullet_world.h"
#include "test_env.h"

#include "fracture_system_internal.h"
#include "shatter/error.h"

#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

constexpr Real kDt = 1.0 / 120;

struct Drop
{
    int fragments = 0;      ///< live bodies 0.5 s after the impact
    int events = 0;         ///< fracture events
    Real maxEnergy = 0;     ///< largest E_D(N = 1) the system evaluated (0 when the bound rejected all)
    int evaluations = 0;    ///< impacts the pipeline evaluated (the bound may stop them before E_D)
    std::vector<Real> near; ///< volumes of fragments centred within 25 % of the radius from the impact
    std::vector<Real> far;  ///< volumes of the others
    std::uint64_t hash = 0; ///< FNV-1a of every body's transform and velocities at the end
};

// The plate tilted by 5-15° about a random horizontal axis, its lowest point 5 mm above the floor and
// falling at √(2 g h): a drop from h without simulating the fall.
Drop dropPlate(Real height, std::uint64_t seed)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.seed = seed;
    FractureSystem system(world.world(), world.collision(), settings);
    const auto asset = bulletAsset("plate.obj");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> u(0, 1);
    const Real azimuth = 2 * M_PI * u(rng);
    const Real tilt = (5 + 10 * u(rng)) * M_PI / 180;
    const Eigen::Matrix3d rotation =
        Eigen::AngleAxisd(tilt, Vec3(std::cos(azimuth), 0, std::sin(azimuth))).toRotationMatrix();
    Index lowest = 0;
    for (Index v = 0; v < asset->surface.vertices.size(); ++v)
        if ((rotation * asset->surface.vertices[v]).y() < (rotation * asset->surface.vertices[lowest]).y())
            lowest = v;
    const Vec3 impact = asset->surface.vertices[lowest]; // material frame
    ObjectSettings options;
    options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * height), 0);
    const ObjectId plate = system.addObject(
        asset, glass(), placement(Vec3(0, 0.005 - (rotation * impact).y(), 0), rotation), options);
    Drop drop;
    for (int step = 0; step < 60; ++step)
    {
        world.step(kDt);
        drop.events += int(system.lastStepEvents().size());
        drop.maxEnergy = std::max(drop.maxEnergy, system.lastStepStats().maxWholeEnergy);
        drop.evaluations += system.lastStepStats().evaluations;
        EXPECT_EQ(system.lastStepStats().failedEvents, 0) << system.lastStepStats().lastError;
        EXPECT_EQ(system.lastStepStats().bodylessFragments, 0) << system.lastStepStats().lastError;
    }
    const ObjectState& state = system.state(plate);
    const Real radius = 0.5 * (asset->surface.bounds().extent().x());
    for (FragmentId f : state.liveFragments())
    {
        const MassProperties mp = computeMassProperties(state.fragmentMesh(f)->surface, 1);
        ((mp.centerOfMass - impact).norm() < 0.25 * radius ? drop.near : drop.far).push_back(mp.volume);
    }
    drop.fragments = int(system.bodies(plate).size());
    drop.hash = hashBodies(system.bodies(plate));
    EXPECT_EQ(std::size_t(drop.fragments), state.liveFragments().size());
    return drop;
}

TEST(FractureSystem, PlateDropsBreakMoreWithHeightAndFinerNearTheImpact)
{
    const int seeds = longTests() ? 10 : 4;
    for (int s = 0; s < seeds; ++s)
    {
        const Drop low = dropPlate(0.15, 100 + std::uint64_t(s));
        std::printf("[system] plate drop 0.15 m, seed %d: E_D %.3g × 1e-6, γ %.3g × 1e-6\n", s,
                    low.maxEnergy * 1e6, glass().toughness * 1e6);
        EXPECT_EQ(low.events, 0) << "a 0.15 m drop broke the plate (seed " << s << ")";
        EXPECT_EQ(low.fragments, 1);
        EXPECT_GT(low.evaluations, 0) << "the impact was not evaluated";
    }
    std::vector<Real> near, far;
    Real previousMean = 0;
    for (Real height : {0.5, 1.0, 2.0, 4.0})
    {
        int total = 0;
        std::string counts, energies;
        for (int s = 0; s < seeds; ++s)
        {
            const Drop d = dropPlate(height, 100 + std::uint64_t(s));
            total += d.fragments;
            counts += ' ';
            counts += std::to_string(d.fragments);
            energies += ' ';
            energies += std::to_string(d.maxEnergy * 1e6);
            near.insert(near.end(), d.near.begin(), d.near.end());
            far.insert(far.end(), d.far.begin(), d.far.end());
        }
        const Real mean = Real(total) / seeds;
        std::printf("[system] plate drop %.1f m: mean %.2f fragments (%s ); E_D × 1e6:%s\n", height, mean,
                    counts.c_str(), energies.c_str());
        EXPECT_GT(mean, previousMean) << "drop from " << height << " m";
        previousMean = mean;
    }
    auto average = [](const std::vector<Real>& v)
    {
        Real s = 0;
        for (Real x : v)
            s += x;
        return v.empty() ? 0 : s / Real(v.size());
    };
    std::printf(
        "[system] fragments near the impact: %zu, mean volume %.3g m³; others: %zu, mean volume %.3g m³ "
        "(%d seeds per height%s)\n",
        near.size(), average(near), far.size(), average(far), seeds,
        longTests() ? "" : "; SHATTER_LONG_TESTS=1 runs 10");
    ASSERT_FALSE(near.empty());
    ASSERT_FALSE(far.empty());
    EXPECT_LT(average(near), average(far));
}

// Determinism of a whole simulation: the same seed and scene give bitwise the same bodies.
TEST(FractureSystem, SameSeedGivesTheSameSimulation)
{
    const Drop a = dropPlate(2.0, 7);
    const Drop b = dropPlate(2.0, 7);
    EXPECT_GT(a.events, 0);
    EXPECT_EQ(a.fragments, b.fragments);
    EXPECT_EQ(a.hash, b.hash);
}

// A plate flying and spinning, broken by a scripted impulse (no ground, gravity only).
struct Flying
{
    BulletWorld world;
    std::unique_ptr<FractureSystem> system;
    ObjectId plate = 0;
    Eigen::Isometry3d place;
    Vec3 v{1.0, 2.0, -0.5};
    Vec3 w{0.5, 3.0, 1.0};

    explicit Flying(FragmentShapeKind kind = FragmentShapeKind::Fracturable,
                    const Eigen::Isometry3d& where =
                        placement(Vec3(0.3, 1.0, -0.2),
                                  Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix()),
                    bool still = false)
        : place(where)
    {
        if (still)
            v = w = Vec3::Zero();
        FractureSystemSettings settings;
        system = std::make_unique<FractureSystem>(world.world(), world.collision(), settings);
        applyComparisonVariants(*system, ComparisonVariants{.shapes = kind});
        ObjectSettings options;
        options.linearVelocity = v;
        options.angularVelocity = w;
        plate = system->addObject(bulletAsset("plate.obj"), glass(), place, options);
    }

    // A hard knock on the rim, toward the centre: world point and impulse.
    std::optional<FractureEvent> knock(FragmentId fragment = 0, Real impulse = 6)
    {
        const ObjectState& state = system->state(plate);
        const TriMesh& surface = state.fragmentMesh(fragment)->surface;
        Index rim = 0;
        for (Index i = 0; i < surface.vertices.size(); ++i)
            if (surface.vertices[i].x() > surface.vertices[rim].x())
                rim = i;
        const Vec3 p = surface.vertices[rim];
        const Vec3 toward = (surface.bounds().center() - p).normalized();
        const Vec3 worldPoint = place * p;
        const Vec3 worldImpulse = place.linear() * (impulse * toward);
        return system->breakWithImpulses(plate, fragment, std::span(&worldPoint, 1),
                                         std::span(&worldImpulse, 1), kDt);
    }
};

TEST(FractureSystem, FragmentsInheritVelocityMassAndPlacement)
{
    Flying f;
    btRigidBody& parent = *f.system->bodies(f.plate).at(0);
    const Vec3 c = toVec(parent.getCenterOfMassPosition());
    const Real mass = Real(1 / parent.getInvMass());
    const Vec3 v = toVec(parent.getLinearVelocity()), w = toVec(parent.getAngularVelocity());
    const Vec3 probe = f.system->state(f.plate).asset().surface.vertices[5];
    const Vec3 probeWorld = materialToWorld(parent, probe);

    const std::optional<FractureEvent> event = f.knock();
    ASSERT_TRUE(event);
    EXPECT_EQ(event->object, f.plate);
    EXPECT_EQ(event->parent, 0u);
    ASSERT_GE(event->fragments.size(), 2u);
    EXPECT_EQ(f.system->totalEvents(), 1u);
    EXPECT_GT(event->updateMs, 0);
    ASSERT_TRUE(event->details);
    EXPECT_EQ(event->details->updateMs, event->updateMs);
    const std::vector<btRigidBody*> bodies = f.system->bodies(f.plate);
    ASSERT_EQ(bodies.size(), event->fragments.size());
    EXPECT_EQ(f.world.world().getNumCollisionObjects(), int(bodies.size()));

    Real massSum = 0;
    Vec3 momentum = Vec3::Zero(), centre = Vec3::Zero();
    for (btRigidBody* b : bodies)
    {
        const Real m = Real(1 / b->getInvMass());
        const Vec3 cf = toVec(b->getCenterOfMassPosition());
        const Vec3 expected = v + w.cross(cf - c);
        EXPECT_LT((toVec(b->getLinearVelocity()) - expected).norm(), 1e-5 * (1 + expected.norm()));
        EXPECT_LT((toVec(b->getAngularVelocity()) - w).norm(), 1e-5 * w.norm());
        massSum += m;
        momentum += m * toVec(b->getLinearVelocity());
        centre += m * cf;
        // Same material → world placement as the parent: the probe point lands where it was.
        EXPECT_LT((materialToWorld(*b, probe) - probeWorld).norm(), 1e-5);
        ObjectId object = 99;
        FragmentId fragment = kNoFragment;
        ASSERT_TRUE(f.system->lookup(b, object, fragment));
        EXPECT_EQ(object, f.plate);
        EXPECT_TRUE(f.system->state(f.plate).alive(fragment));
    }
    EXPECT_NEAR(massSum, mass, 1e-5 * mass);
    EXPECT_LT((momentum - mass * v).norm(), 1e-4 * mass * v.norm());
    EXPECT_LT((centre / massSum - c).norm(), 1e-5);

    // Every fragment can break again (repeated fracture, restricted to its tets).
    const FragmentId largest = event->fragments.front();
    const std::optional<FractureEvent> again = f.knock(largest, 6);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->parent, largest);
    EXPECT_GT(again->fragments.front(), event->fragments.back());
    EXPECT_EQ(f.system->bodies(f.plate).size(), bodies.size() - 1 + again->fragments.size());
    EXPECT_EQ(f.system->totalEvents(), 2u);
}

// The impact is read in the material frame: the same knock on an object placed elsewhere, turned,
// gives the same fragments (same volumes), up to the float rounding of Bullet's transforms.
TEST(FractureSystem, ImpactsAreReadInTheMaterialFrame)
{
    Flying here(FragmentShapeKind::Fracturable, Eigen::Isometry3d::Identity());
    Flying there;
    const auto a = here.knock();
    const auto b = there.knock();
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->fragments.size(), b->fragments.size());
    for (std::size_t i = 0; i < a->fragments.size(); ++i)
    {
        const Real va = here.system->state(here.plate).fragmentMesh(a->fragments[i])->surface.signedVolume();
        const Real vb =
            there.system->state(there.plate).fragmentMesh(b->fragments[i])->surface.signedVolume();
        EXPECT_NEAR(va, vb, 1e-6 * va) << "fragment " << i;
    }
}

// The baselines of TVCG §7: one Bullet body per fragment of their shape kind, the same masses, and
// they fall onto a floor and stay above it.
TEST(FractureSystem, BaselineShapesAreBulletBodiesOfTheirKind)
{
    const Eigen::Isometry3d where =
        placement(Vec3(0, 1.0, 0), Eigen::AngleAxisd(0.3, Vec3::UnitX()).toRotationMatrix());
    Flying fracturable(FragmentShapeKind::Fracturable, where, true);
    const auto reference = fracturable.knock();
    ASSERT_TRUE(reference);
    for (const auto& [kind, type] :
         {std::pair{FragmentShapeKind::GImpact, int(GIMPACT_SHAPE_PROXYTYPE)},
          std::pair{FragmentShapeKind::ConvexHull, int(CONVEX_HULL_SHAPE_PROXYTYPE)}})
    {
        Flying f(kind, where, true);
        EXPECT_EQ(f.system->bodies(f.plate).at(0)->getCollisionShape()->getShapeType(), type);
        const auto event = f.knock();
        ASSERT_TRUE(event);
        ASSERT_EQ(event->fragments.size(), reference->fragments.size()); // same fracture, other shapes
        const std::vector<btRigidBody*> bodies = f.system->bodies(f.plate);
        const std::vector<btRigidBody*> referenceBodies = fracturable.system->bodies(fracturable.plate);
        for (std::size_t i = 0; i < bodies.size(); ++i)
        {
            EXPECT_EQ(bodies[i]->getCollisionShape()->getShapeType(), type);
            EXPECT_NEAR(1 / bodies[i]->getInvMass(), 1 / referenceBodies[i]->getInvMass(),
                        1e-5 / referenceBodies[i]->getInvMass());
            btVector3 lo, hi;
            bodies[i]->getAabb(lo, hi);
            EXPECT_TRUE(toVec(lo).allFinite() && toVec(hi).allFinite());
        }
        // A floor box 10 cm below: slow enough that no shape tunnels (none of them has CCD here). A box,
        // not a plane: GImpact's mesh-vs-plane path lost small fragments through a plane.
        btTransform floor;
        floor.setIdentity();
        floor.setOrigin(btVector3(0, btScalar(0.8 - 0.1), 0));
        f.world.addBody(std::make_unique<btBoxShape>(btVector3(1, btScalar(0.1), 1)), 0, floor);
        for (int step = 0; step < 120; ++step)
            f.world.step(kDt);
        for (btRigidBody* b : f.system->bodies(f.plate))
        {
            const Vec3 c = toVec(b->getCenterOfMassPosition());
            EXPECT_TRUE(c.allFinite());
            EXPECT_GT(c.y(), 0.8) << "a fragment fell through the floor (shape type " << type << ")";
        }
    }
}

TEST(FractureSystem, BookkeepingAndTheEnabledSwitch)
{
    BulletWorld world;
    btRigidBody* ground = world.addGroundPlane(0);
    FractureSystemSettings settings;
    settings.enabled = false;
    FractureSystem system(world.world(), world.collision(), settings);
    ObjectSettings options;
    options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * 4.0), 0);
    const ObjectId a =
        system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.01, 0)), options);
    const ObjectId b = system.addObject(bulletAsset("brick.obj"), glass(), placement(Vec3(1, 0.5, 0)));
    EXPECT_NE(a, b);
    ASSERT_EQ(system.objects().size(), 2u);
    EXPECT_EQ(world.world().getNumCollisionObjects(), 3);
    ObjectId object;
    FragmentId fragment;
    EXPECT_FALSE(system.lookup(ground, object, fragment));
    ASSERT_TRUE(system.lookup(system.bodies(b).at(0), object, fragment));
    EXPECT_EQ(object, b);
    EXPECT_EQ(fragment, 0u);
    for (int step = 0; step < 10; ++step)
        world.step(kDt);
    EXPECT_EQ(system.totalEvents(), 0u) << "disabled: a 4 m drop must not break";
    EXPECT_EQ(system.bodies(a).size(), 1u);
    EXPECT_EQ(system.lastStepStats().liveFragments, 2u);

    system.removeObject(a);
    EXPECT_EQ(world.world().getNumCollisionObjects(), 2);
    EXPECT_THROW(system.state(a), Error);
    EXPECT_THROW(system.bodies(a), Error);
    ASSERT_EQ(system.objects().size(), 1u);
    EXPECT_EQ(system.objects()[0], b);

    Material bad = glass();
    bad.youngsModulus = -1;
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), bad, placement(Vec3::Zero())), Error);
    EXPECT_THROW(system.addObject(nullptr, glass(), placement(Vec3::Zero())), Error);
    // Values a double allows but no body means: out of the documented ranges, or not a rigid placement.
    Material feather = glass();
    feather.density = 1e-300; // a mass Bullet would take for a static body
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), feather, placement(Vec3::Zero())), Error);
    ObjectSettings fast;
    fast.linearVelocity = Vec3(0, -1e30, 0); // beyond what single precision integrates
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), glass(), placement(Vec3::Zero()), fast), Error);
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), glass(), placement(Vec3(0, 1e30, 0))), Error);
    Eigen::Isometry3d scaled = placement(Vec3::Zero());
    scaled.linear() *= 2;
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), glass(), scaled), Error);
    const Vec3 p = Vec3::Zero();
    EXPECT_THROW(system.breakWithImpulses(b, 5, std::span(&p, 1), std::span(&p, 1), kDt), Error);
    EXPECT_THROW(system.breakWithImpulses(b, 0, std::span(&p, 1), {}, kDt), Error);
    objectStateSettings(system).sphereTestMargin = -1; // reaches every new ObjectState
    EXPECT_THROW(system.addObject(bulletAsset("brick.obj"), glass(), placement(Vec3::Zero())), Error);
    objectStateSettings(system) = {};
    FractureSystemSettings badSettings;
    badSettings.maxEventsPerStep = 0;
    EXPECT_THROW(FractureSystem(world.world(), world.collision(), badSettings), Error);
    BulletWorld other;
    EXPECT_THROW(FractureSystem(world.world(), other.collision()), Error)
        << "another dispatcher's registration";
    system.clear();
    EXPECT_EQ(world.world().getNumCollisionObjects(), 1);
}

// A static object (a shelf, a wall) breaks into dynamic fragments that collide with the static floor.
TEST(FractureSystem, StaticObjectsBreakIntoDynamicFragments)
{
    BulletWorld world;
    world.addGroundPlane(0);
    FractureSystem system(world.world(), world.collision());
    ObjectSettings options;
    options.dynamic = false;
    const auto asset = bulletAsset("brick.obj");
    const ObjectId brick = system.addObject(asset, glass(), placement(Vec3(0, 0.05, 0)), options);
    EXPECT_TRUE(system.bodies(brick).at(0)->isStaticObject());
    const Vec3 top = Vec3(0, 0.05, 0) + asset->surface.bounds().max.cwiseProduct(Vec3(0, 1, 0));
    const Vec3 impulse(0, -400, 0); // a hammer blow: far above what the brick holds with glass()'s γ
    const auto event = system.breakWithImpulses(brick, 0, std::span(&top, 1), std::span(&impulse, 1), kDt);
    ASSERT_TRUE(event);
    for (btRigidBody* b : system.bodies(brick))
        EXPECT_FALSE(b->isStaticOrKinematicObject());
    for (int step = 0; step < 120; ++step)
        world.step(kDt);
    for (btRigidBody* b : system.bodies(brick))
        EXPECT_GT(lowestPoint(*b), -0.02) << "a fragment of the static brick fell through the floor";
}

// Nothing throws through Bullet: an event whose pipeline throws inside the post-tick callback leaves
// the body whole, the step completes, and the failure is counted, kept and logged.
// A floor, a FractureSystem whose log is kept, and a plate 1 cm above the floor falling as from 4 m: it
// would break.
struct LoggedPlateDrop
{
    BulletWorld world;
    btRigidBody* ground = world.addGroundPlane(0);
    std::vector<std::string> logged;
    FractureSystem system{world.world(), world.collision(), loggingSettings()};
    ObjectSettings falling = fallingFrom(4.0);
    ObjectId plate =
        system.addObject(bulletAsset("plate.obj"), glass(), placement(Vec3(0, 0.01, 0)), falling);

private:
    FractureSystemSettings loggingSettings()
    {
        FractureSystemSettings settings;
        settings.log = [this](const std::string& message)
        {
            logged.push_back(message);
        };
        return settings;
    }
    static ObjectSettings fallingFrom(Real height)
    {
        ObjectSettings options;
        options.linearVelocity = Vec3(0, -std::sqrt(2 * 9.81 * height), 0);
        return options;
    }
};

TEST(FractureSystem, AFailingEventInsideAStepIsReportedNotThrown)
{
    LoggedPlateDrop drop;
    BulletWorld& world = drop.world;
    FractureSystem& system = drop.system;
    const ObjectId plate = drop.plate;
    // Corrupt the material behind addObject's check (only in-tree code can): every pipeline run now
    // throws shatter::Error from inside stepSimulation's post-tick callback.
    const_cast<Material&>(system.material(plate)).youngsModulus = -1;
    int failed = 0;
    for (int step = 0; step < 30; ++step)
    {
        ASSERT_NO_THROW(world.step(kDt));
        failed += system.lastStepStats().failedEvents;
        if (system.lastStepStats().failedEvents > 0)
        {
            EXPECT_FALSE(system.lastStepStats().lastError.empty());
        }
    }
    expectFailuresReportedNotApplied(system, plate, failed, drop.logged, "oung"); // Young's modulus
}

// The world's fragment limit: an impact is evaluated only if its event (up to the material's maxFragments
// − 1 new bodies) fits; the others are counted, and the bodies never pass the limit.
TEST(FractureSystem, TheWorldFragmentLimitHoldsAndCountsTheImpactsItStops)
{
    for (int limit : {10, 64})
    {
        LoggedPlateDrop drop;
        drop.system.settings().maxWorldFragments = limit;
        int stopped = 0;
        std::size_t most = 0;
        for (int step = 0; step < 60; ++step)
        {
            drop.world.step(kDt);
            stopped += drop.system.lastStepStats().fragmentLimitImpacts;
            most = std::max<std::size_t>(most, drop.system.lastStepStats().liveFragments);
        }
        EXPECT_LE(most, std::size_t(limit)) << "limit " << limit;
        EXPECT_GT(stopped, 0) << "limit " << limit;
        if (limit == 10) // a plate event may make 63 new bodies: none fits
        {
            EXPECT_EQ(drop.system.totalEvents(), 0u);
            EXPECT_EQ(drop.system.bodies(drop.plate).size(), 1u);
        }
        else // the first event fits (1 + 63), the later ones do not
            EXPECT_EQ(drop.system.totalEvents(), 1u);
    }
}

// A body whose state turns non-finite (an absurd impulse, a degenerate mesh) leaves the world before its
// contacts are read, counted and logged, and never breaks: its impact would make non-finite fragments.
TEST(FractureSystem, NonFiniteBodiesAreRemovedCountedAndNeverBroken)
{
    LoggedPlateDrop drop;
    BulletWorld& world = drop.world;
    FractureSystem& system = drop.system;
    const ObjectId plate = drop.plate;
    const ObjectId brick =
        system.addObject(bulletAsset("brick.obj"), glass(), placement(Vec3(1, 0.01, 0)), drop.falling);
    system.bodies(plate).at(0)->setLinearVelocity(btVector3(std::nanf(""), 0, 0));
    system.bodies(brick).at(0)->setAngularVelocity(
        btVector3(0, std::numeric_limits<btScalar>::infinity(), 0));
    int removed = 0;
    for (int step = 0; step < 30; ++step)
    {
        ASSERT_NO_THROW(world.step(kDt));
        removed += system.lastStepStats().nonFiniteBodies;
        EXPECT_EQ(system.lastStepStats().failedEvents, 0) << system.lastStepStats().lastError;
    }
    EXPECT_EQ(removed, 2);
    EXPECT_EQ(system.totalEvents(), 0u);
    EXPECT_TRUE(system.bodies(plate).empty());
    EXPECT_TRUE(system.bodies(brick).empty());
    EXPECT_EQ(world.world().getNumCollisionObjects(), 1) << "only the ground is left";
    ASSERT_EQ(drop.logged.size(), 2u);
    for (const std::string& message : drop.logged)
        EXPECT_NE(message.find("non-finite transform or velocity"), std::string::npos) << message;
}

} // namespace
} // namespace shatter::test
