// An existing Bullet program — world, ground, a body — with Shatter enabled by one call and a
// fracturable plate (docs/user-guide.md walks through it). Usage: shatter_consumer plate.obj cache-file
// Exits 0 when the plate came to rest on the ground.
#include <btBulletDynamicsCommon.h>

#include <shatter/asset.h>
#include <shatter/bullet_plugin.h>
#include <shatter/error.h>
#include <shatter/fracturable_shape.h>
#include <shatter/object_state.h>

#include <cstdio>
#include <memory>

int main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: %s mesh.obj asset-cache-file\n", argv[0]);
        return 2;
    }
    try
    {
        // The usual Bullet setup. The configuration comes from Shatter so that its algorithm fits the
        // dispatcher's pool slot (a plain btDefaultCollisionConfiguration works too).
        std::unique_ptr<btDefaultCollisionConfiguration> config = shatter::makeCollisionConfiguration();
        btCollisionDispatcher dispatcher(config.get());
        shatter::registerCollisionAlgorithms(dispatcher); // the one call
        btDbvtBroadphase broadphase;
        btSequentialImpulseConstraintSolver solver;
        btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, config.get());
        world.setGravity(btVector3(0, btScalar(-9.81), 0));

        btStaticPlaneShape groundShape(btVector3(0, 1, 0), 0);
        btRigidBody ground(0, nullptr, &groundShape);
        world.addRigidBody(&ground);

        // A fracturable plate: the asset (built once, then loaded from the cache file), the object's
        // runtime state, and a rigid body for its fragment 0, 5 cm above the ground.
        auto asset = std::make_shared<const shatter::Asset>(shatter::loadOrBuildAsset(argv[1], argv[2]));
        auto state = std::make_shared<shatter::ObjectState>(asset);
        Eigen::Isometry3d placement = Eigen::Isometry3d::Identity();
        placement.translation() = Eigen::Vector3d(0, 0.05, 0);
        shatter::FracturableBody plate = shatter::makeFracturableBody(state, 0, placement, {.density = 2400});
        btRigidBody plateBody(plate.constructionInfo());
        world.addRigidBody(&plateBody);

        for (int step = 0; step < 180; ++step)
            world.stepSimulation(btScalar(1.0 / 60.0), 1, btScalar(1.0 / 60.0));

        const btVector3 velocity = plateBody.getLinearVelocity();
        const btScalar height = plateBody.getWorldTransform().getOrigin().y();
        std::printf("plate centre of mass at y = %.4f m, speed %.5f m/s\n", double(height),
                    double(velocity.length()));

        world.removeRigidBody(&plateBody);
        world.removeRigidBody(&ground);
        // At rest on the ground: the centre of mass is within the plate's 2 cm height, not moving.
        const bool resting = velocity.length() < btScalar(0.01) && height > 0 && height < btScalar(0.02);
        std::printf("%s\n",
                    resting ? "OK: the plate rests on the ground" : "FAILED: the plate is not at rest");
        return resting ? 0 : 1;
    }
    catch (const shatter::Error& e)
    {
        std::fprintf(stderr, "shatter error: %s\n", e.what());
        return 1;
    }
}
