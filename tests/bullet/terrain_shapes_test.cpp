// Fracturable bodies against the ground shapes games use besides planes, boxes and BVH meshes: a
// btHeightfieldTerrainShape and a static btGImpactMeshShape. A brick dropped on each comes to rest on
// it (no fall-through over 5 s, penetration within 2 mm), and a dynamic GImpact cube rests on a brick. A pair
// with a shape Shatter has no field for is counted and logged once per shape type, never silently
// contact-free.
#include "bullet_world.h"
#include "test_env.h"

#include <BulletCollision/CollisionShapes/btEmptyShape.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <gtest/gtest.h>

#include <cmath>

namespace shatter::test
{
namespace
{

constexpr Real kDt = 1.0 / 120;

struct Landing
{
    Real lowest = std::numeric_limits<Real>::infinity(); ///< lowest surface point over the run, y
    Real finalLowest = 0;
    Real finalSpeed = 0;
    int contacts = 0; ///< with the ground, at the end
};

// Drops a brick from 2 cm above y = 0 onto `ground` (whose surface there is y = 0) and runs 5 s.
Landing dropBrick(BulletWorld& world, const btRigidBody* ground)
{
    std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    btRigidBody* body = world.addFracturable(brick, 0, placement(Vec3(0.05, 0.02, -0.03)), 2000);
    Landing out;
    for (int step = 0; step < 600; ++step)
    {
        world.step(kDt);
        out.lowest = std::min(out.lowest, lowestPoint(*body));
    }
    out.finalLowest = lowestPoint(*body);
    out.finalSpeed = surfaceSpeed(*body);
    out.contacts = world.contacts(body, ground);
    return out;
}

void expectResting(const Landing& l, const char* ground)
{
    std::printf(
        "[terrain] brick on %s: lowest %.2f mm over the run, %.2f mm at the end, %.2g m/s, %d contacts\n",
        ground, l.lowest * 1e3, l.finalLowest * 1e3, l.finalSpeed, l.contacts);
    EXPECT_GT(l.lowest, -2e-3) << ground;
    EXPECT_LT(std::abs(l.finalLowest), 2e-3) << ground << ": not resting on the surface";
    EXPECT_LT(l.finalSpeed, 1e-2) << ground;
    EXPECT_GT(l.contacts, 0) << ground;
}

TEST(TerrainShapes, ABrickRestsOnAHeightField)
{
    // 3.2 m square, 33 × 33 samples: flat (y = 0) within 0.6 m of the centre, bumps up to 10 cm around.
    constexpr int n = 33;
    constexpr Real spacing = 0.1;
    std::vector<float> heights(n * n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
        {
            const Real x = (i - (n - 1) / 2) * spacing, z = (j - (n - 1) / 2) * spacing;
            const bool flat = std::abs(x) < 0.6 && std::abs(z) < 0.6;
            heights[std::size_t(j * n + i)] =
                flat ? 0.0f : float(0.05 * (1 + std::sin(7 * x) * std::cos(5 * z)));
        }
    BulletWorld world;
    // The constructor typed on float data: Bullet's legacy one reads PHY_FLOAT as btScalar, so in its
    // double-precision build it would read these floats as doubles (past the array's end).
    auto terrain = std::make_unique<btHeightfieldTerrainShape>(n, n, heights.data(), btScalar(0),
                                                               btScalar(0.1), 1, false);
    terrain->setLocalScaling(btVector3(btScalar(spacing), 1, btScalar(spacing)));
    // Bullet centres a height field on its height range: y = 0 of the data is 5 cm below the origin.
    btTransform at = btTransform::getIdentity();
    at.setOrigin(btVector3(0, btScalar(0.05), 0));
    btRigidBody* ground = world.addBody(std::move(terrain), 0, at);
    expectResting(dropBrick(world, ground), "a height field");
    EXPECT_EQ(world.collision().statistics().unsupportedPairs, 0);
}

TEST(TerrainShapes, ABrickRestsOnAStaticGImpactMesh)
{
    // A 2 m square floor of 8 × 8 cells at y = 0.
    constexpr int n = 8;
    std::vector<btScalar> vertices;
    std::vector<int> indices;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i)
            for (Real c : {-1 + 2.0 * i / n, 0.0, -1 + 2.0 * j / n})
                vertices.push_back(btScalar(c));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
        {
            const int a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            for (int v : {a, c, b, b, c, d}) // counter-clockwise seen from above
                indices.push_back(v);
        }
    btTriangleIndexVertexArray mesh(int(indices.size() / 3), indices.data(), 3 * int(sizeof(int)),
                                    int(vertices.size() / 3), vertices.data(), 3 * int(sizeof(btScalar)));
    BulletWorld world;
    auto floor = std::make_unique<btGImpactMeshShape>(&mesh);
    floor->updateBound();
    btRigidBody* ground = world.addBody(std::move(floor), 0, btTransform::getIdentity());
    expectResting(dropBrick(world, ground), "a GImpact mesh");
    EXPECT_EQ(world.collision().statistics().unsupportedPairs, 0);
}

// A dynamic GImpact mesh (a closed 10 cm cube) dropped on a static fracturable brick rests on it.
TEST(TerrainShapes, ADynamicGImpactCubeRestsOnAFracturableBrick)
{
    std::vector<btScalar> vertices;
    for (int k = 0; k < 8; ++k)
        for (int a = 0; a < 3; ++a)
            vertices.push_back(btScalar((k >> a) & 1 ? 0.05 : -0.05));
    // Outward, counter-clockwise seen from outside: two triangles per face.
    std::vector<int> indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    btTriangleIndexVertexArray mesh(12, indices.data(), 3 * int(sizeof(int)), 8, vertices.data(),
                                    3 * int(sizeof(btScalar)));
    BulletWorld world;
    std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    const btRigidBody* base = world.addFracturable(brick, 0, placement(Vec3(0, 0, 0)), 2000, false);
    auto cube = std::make_unique<btGImpactMeshShape>(&mesh);
    cube->updateBound();
    btTransform at = btTransform::getIdentity();
    at.setOrigin(btVector3(0.01f, btScalar(0.065 + 0.05 + 0.02), 0.005f)); // 2 cm above the brick's top
    btRigidBody* body = world.addBody(std::move(cube), 1, at);
    for (int step = 0; step < 600; ++step)
        world.step(kDt);
    const Real bottom = Real(body->getCenterOfMassPosition().y()) - 0.05;
    std::printf("[terrain] GImpact cube on a brick: bottom %.2f mm above the brick's top, %d contacts\n",
                (bottom - 0.065) * 1e3, world.contacts(body, base));
    EXPECT_LT(std::abs(bottom - 0.065), 2e-3);
    EXPECT_GT(world.contacts(body, base), 0);
}

TEST(TerrainShapes, AnUnsupportedShapeIsCountedAndLoggedOncePerType)
{
    std::vector<std::string> logged;
    WorldSettings options;
    options.collision.log = [&](const std::string& message)
    {
        logged.push_back(message);
    };
    BulletWorld world(options);
    std::shared_ptr<ObjectState> brick = freshState("brick.obj");
    world.addFracturable(brick, 0, placement(Vec3(0, 0, 0)), 2000, false);
    for (Real x : {0.0, 0.05})
    {
        btTransform at = btTransform::getIdentity();
        at.setOrigin(btVector3(btScalar(x), btScalar(0.03), 0)); // inside the brick's bounds
        world.addBody(std::make_unique<btEmptyShape>(), 1, at);
    }
    world.step(kDt);
    EXPECT_EQ(world.collision().statistics().unsupportedPairs, 2);
    ASSERT_EQ(logged.size(), 1u) << "one line per shape type";
    EXPECT_NE(logged[0].find("Empty"), std::string::npos) << logged[0];
    EXPECT_NE(logged[0].find("get no contacts"), std::string::npos) << logged[0];
}

} // namespace
} // namespace shatter::test
