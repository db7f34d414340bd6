// ParallelCollisionDispatcher: a pile of every kind of pair — fracturable × fracturable, fracturable ×
// triangle mesh, sphere, box, convex hull, compound and GImpact, and Bullet's own pairs among those —
// stepped by a world with btCollisionDispatcher and by worlds with the parallel dispatcher on 1, 2 and 4
// threads gives after every step the same manifolds in the same order with bitwise the same contacts,
// the same statistics and the same bodies. Bad thread counts are refused. Bodies overlapping in one spot
// are held to the step's contact budget, the same way on every thread count.
#include "bullet_world.h"

#include "shatter/error.h"

#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace shatter::test
{
namespace
{

btTransform at(Real x, Real y, Real z, Real angle = 0)
{
    btTransform t;
    t.setIdentity();
    t.setOrigin(btVector3(btScalar(x), btScalar(y), btScalar(z)));
    t.setRotation(btQuaternion(btVector3(1, 0, 1).normalized(), btScalar(angle)));
    return t;
}

/// One pile in its own world; `threads` 0 is the plain btCollisionDispatcher.
struct Pile
{
    std::unique_ptr<BulletWorld> world;
    std::vector<btRigidBody*> bodies;
    std::unique_ptr<btTriangleMesh> gimpactMesh;

    explicit Pile(int threads)
    {
        WorldSettings settings;
        settings.collisionThreads = threads;
        world = std::make_unique<BulletWorld>(settings);
        btGImpactCollisionAlgorithm::registerAlgorithm(&world->dispatcher());
        add(world->addGroundMesh(3, 12));
        const std::shared_ptr<ObjectState> brick = freshState("brick.obj");
        const std::shared_ptr<ObjectState> plate = freshState("plate.obj");
        for (int i = 0; i < 6; ++i)
            add(world->addFracturable(brick, 0,
                                      placement(Vec3(0.03 * (i % 3), 0.08 + 0.09 * i, 0.02 * (i % 2)),
                                                Eigen::AngleAxisd(0.3 * i, Vec3::UnitY()).toRotationMatrix()),
                                      2000));
        add(world->addFracturable(plate, 0, placement(Vec3(0.4, 0.1, 0)), 2500));
        add(world->addFracturable(plate, 0, placement(Vec3(0.42, 0.16, 0.01)), 2500));
        for (int i = 0; i < 3; ++i)
            add(world->addBody(std::make_unique<btSphereShape>(btScalar(0.04)), 1,
                               at(0.4 + 0.02 * i, 0.3 + 0.1 * i, 0)));
        for (int i = 0; i < 3; ++i)
            add(world->addBody(std::make_unique<btBoxShape>(btVector3(0.05f, 0.03f, 0.04f)), 2,
                               at(-0.4, 0.1 + 0.08 * i, 0.01 * i, 0.2 * i)));
        auto hull = std::make_unique<btConvexHullShape>();
        for (const Vec3& v : brick->asset().surface.vertices)
            hull->addPoint(btVector3(btScalar(v.x()), btScalar(v.y()), btScalar(v.z())), false);
        hull->recalcLocalAabb();
        add(world->addBody(std::move(hull), 2, at(0.01, 0.75, 0.0, 0.4)));
        auto compound = std::make_unique<btCompoundShape>();
        compoundChildren.push_back(std::make_unique<btBoxShape>(btVector3(0.06f, 0.02f, 0.02f)));
        compoundChildren.push_back(std::make_unique<btSphereShape>(btScalar(0.03)));
        compound->addChildShape(at(0, 0, 0), compoundChildren[0].get());
        compound->addChildShape(at(0.06, 0, 0), compoundChildren[1].get());
        add(world->addBody(std::move(compound), 1, at(-0.38, 0.45, 0.0, 0.5)));
        gimpactMesh = std::make_unique<btTriangleMesh>();
        const TriMesh& surface = plate->asset().surface;
        for (const auto& t : surface.triangles)
        {
            btVector3 p[3];
            for (int k = 0; k < 3; ++k)
                p[k] = btVector3(btScalar(surface.vertices[t[k]].x()), btScalar(surface.vertices[t[k]].y()),
                                 btScalar(surface.vertices[t[k]].z()));
            gimpactMesh->addTriangle(p[0], p[1], p[2]);
        }
        auto gimpact = std::make_unique<btGImpactMeshShape>(gimpactMesh.get());
        gimpact->updateBound();
        add(world->addBody(std::move(gimpact), 2, at(0.4, 0.45, 0.0)));
    }

    void add(btRigidBody* body)
    {
        body->setUserIndex(int(bodies.size()));
        bodies.push_back(body);
    }

    std::vector<std::unique_ptr<btCollisionShape>> compoundChildren;
};

bool sameBits(const btVector3& a, const btVector3& b)
{
    return std::memcmp(a.m_floats, b.m_floats, 3 * sizeof(btScalar)) == 0;
}

/// The manifolds of `b` are those of `a`, in the same order, with bitwise the same contacts.
void expectSameManifolds(btDispatcher& a, btDispatcher& b, const std::string& what)
{
    ASSERT_EQ(a.getNumManifolds(), b.getNumManifolds()) << what;
    for (int m = 0; m < a.getNumManifolds(); ++m)
    {
        const btPersistentManifold& ma = *a.getManifoldByIndexInternal(m);
        const btPersistentManifold& mb = *b.getManifoldByIndexInternal(m);
        ASSERT_EQ(ma.getBody0()->getUserIndex(), mb.getBody0()->getUserIndex()) << what << ", manifold " << m;
        ASSERT_EQ(ma.getBody1()->getUserIndex(), mb.getBody1()->getUserIndex()) << what << ", manifold " << m;
        ASSERT_EQ(ma.getNumContacts(), mb.getNumContacts()) << what << ", manifold " << m;
        for (int c = 0; c < ma.getNumContacts(); ++c)
        {
            const btManifoldPoint& pa = ma.getContactPoint(c);
            const btManifoldPoint& pb = mb.getContactPoint(c);
            EXPECT_TRUE(sameBits(pa.m_positionWorldOnB, pb.m_positionWorldOnB)) << what << ", manifold " << m;
            EXPECT_TRUE(sameBits(pa.m_normalWorldOnB, pb.m_normalWorldOnB)) << what << ", manifold " << m;
            EXPECT_EQ(pa.m_distance1, pb.m_distance1) << what << ", manifold " << m;
            EXPECT_EQ(pa.m_appliedImpulse, pb.m_appliedImpulse) << what << ", manifold " << m;
        }
    }
}

TEST(ParallelDispatcher, EveryStepMatchesTheSerialDispatcherOnAnyThreadCount)
{
    Pile serial(0);
    std::vector<std::unique_ptr<Pile>> parallel;
    for (int threads : {1, 2, 4})
        parallel.push_back(std::make_unique<Pile>(threads));
    long contacts = 0, maxManifolds = 0, gimpactManifolds = 0;
    for (int step = 0; step < 150; ++step)
    {
        serial.world->step();
        for (auto& p : parallel)
        {
            p->world->step();
            const std::string what =
                "step " + std::to_string(step) + ", " +
                std::to_string(static_cast<ParallelCollisionDispatcher&>(p->world->dispatcher()).threads()) +
                " threads";
            expectSameManifolds(serial.world->dispatcher(), p->world->dispatcher(), what);
            if (testing::Test::HasFatalFailure())
                return;
        }
        btDispatcher& d = serial.world->dispatcher();
        maxManifolds = std::max<long>(maxManifolds, d.getNumManifolds());
        for (int m = 0; m < d.getNumManifolds(); ++m)
        {
            const btPersistentManifold& manifold = *d.getManifoldByIndexInternal(m);
            contacts += manifold.getNumContacts();
            gimpactManifolds += manifold.getNumContacts() > 0 &&
                                (manifold.getBody0()->getUserIndex() == int(serial.bodies.size()) - 1 ||
                                 manifold.getBody1()->getUserIndex() == int(serial.bodies.size()) - 1);
        }
    }
    std::printf("pile: up to %ld manifolds, %ld contacts over the run, %ld with the GImpact body\n",
                maxManifolds, contacts, gimpactManifolds);
    // The pile really collides, GImpact included (its pairs take the serial path).
    EXPECT_GT(maxManifolds, 15);
    EXPECT_GT(contacts, 5000);
    EXPECT_GT(gimpactManifolds, 0);
    const CollisionStatistics expected = serial.world->collision().statistics();
    EXPECT_GT(expected.outputContacts, 0);
    for (auto& p : parallel)
    {
        const CollisionStatistics got = p->world->collision().statistics();
        EXPECT_EQ(got.outputContacts, expected.outputContacts);
        EXPECT_EQ(got.collidingPoints, expected.collidingPoints);
        EXPECT_EQ(got.pairs, expected.pairs);
        EXPECT_EQ(got.failures, 0);
        EXPECT_EQ(hashBodies(p->bodies), hashBodies(serial.bodies));
    }
}

TEST(ParallelDispatcher, RemovingBodiesMidPileKeepsTheSerialOrder)
{
    Pile serial(0), parallel(2);
    for (int step = 0; step < 80; ++step)
    {
        if (step == 40)
            for (Pile* p : {&serial, &parallel})
            {
                p->world->removeBody(p->bodies[3]); // a fracturable brick in the middle of the stack
                p->world->removeBody(p->bodies[10]);
                p->bodies.erase(p->bodies.begin() + 10);
                p->bodies.erase(p->bodies.begin() + 3);
            }
        serial.world->step();
        parallel.world->step();
        expectSameManifolds(serial.world->dispatcher(), parallel.world->dispatcher(),
                            "step " + std::to_string(step));
        if (testing::Test::HasFatalFailure())
            return;
    }
    EXPECT_EQ(hashBodies(parallel.bodies), hashBodies(serial.bodies));
}

// Bodies dropped into one spot: every brick overlaps every other, 45 fracturable pairs. With a step budget
// of 40 contacts each pair keeps one, the cut is counted, and the result is the same on any thread count;
// under the default budget nothing is cut and the pairs keep several contacts each.
TEST(ParallelDispatcher, ContactBudgetBoundsOverlappingBodiesTheSameOnAnyThreadCount)
{
    struct Overlap
    {
        std::unique_ptr<BulletWorld> world;
        std::vector<btRigidBody*> bodies;
        Overlap(int threads, Index maxContactsPerStep)
        {
            WorldSettings settings;
            settings.collisionThreads = threads;
            settings.collision.maxContactsPerStep = maxContactsPerStep;
            world = std::make_unique<BulletWorld>(settings);
            const std::shared_ptr<ObjectState> brick = freshState("brick.obj");
            for (int i = 0; i < 10; ++i)
                bodies.push_back(world->addFracturable(
                    brick, 0,
                    placement(Vec3(0.002 * i, 0.3, 0),
                              Eigen::AngleAxisd(0.1 * i, Vec3::UnitY()).toRotationMatrix()),
                    2000));
        }
    };
    constexpr Index kBudget = 40;
    constexpr int kSteps = 3;
    std::vector<std::unique_ptr<Overlap>> runs;
    for (int threads : {1, 2, 4})
        runs.push_back(std::make_unique<Overlap>(threads, kBudget));
    Overlap unlimited(1, CollisionSettings{}.maxContactsPerStep);
    for (int step = 0; step < kSteps; ++step)
    {
        unlimited.world->step();
        for (auto& r : runs)
        {
            r->world->step();
            expectSameManifolds(runs[0]->world->dispatcher(), r->world->dispatcher(),
                                "step " + std::to_string(step));
        }
    }
    const CollisionStatistics limited = runs[0]->world->collision().statistics();
    const CollisionStatistics free = unlimited.world->collision().statistics();
    constexpr long kPairs = 45;
    EXPECT_GT(limited.budgetLimitedPairs, 0);
    EXPECT_LE(limited.outputContacts, kSteps * kPairs) << "more than one contact per pair";
    EXPECT_EQ(free.budgetLimitedPairs, 0);
    EXPECT_GT(free.outputContacts, 3 * limited.outputContacts);
    for (auto& r : runs)
    {
        const CollisionStatistics got = r->world->collision().statistics();
        EXPECT_EQ(got.outputContacts, limited.outputContacts);
        EXPECT_EQ(got.budgetLimitedPairs, limited.budgetLimitedPairs);
        EXPECT_EQ(hashBodies(r->bodies), hashBodies(runs[0]->bodies));
    }
}

TEST(ParallelDispatcher, ThreadCounts)
{
    auto configuration = makeCollisionConfiguration();
    const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    ParallelCollisionDispatcher dispatcher(configuration.get(), 2);
    EXPECT_EQ(dispatcher.threads(), std::min(2, hardware));
    dispatcher.setThreads(1000); // more than oneTBB allows: clamped
    EXPECT_LE(dispatcher.threads(), hardware);
    dispatcher.setThreads(0);
    EXPECT_GE(dispatcher.threads(), 1); // oneTBB's default concurrency: the cores this process may use
    EXPECT_LE(dispatcher.threads(), hardware);
    dispatcher.setThreads(1);
    EXPECT_EQ(dispatcher.threads(), 1);
    try
    {
        dispatcher.setThreads(-2);
        FAIL() << "a negative thread count was accepted";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find("threads must be"), std::string::npos) << e.what();
    }
    EXPECT_EQ(dispatcher.threads(), 1);
    EXPECT_THROW(ParallelCollisionDispatcher(configuration.get(), -1), Error);
}

} // namespace
} // namespace shatter::test
