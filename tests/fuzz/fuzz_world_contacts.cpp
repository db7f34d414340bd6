// libFuzzer harness for restoreWorldContacts. A small world — a ground plane, a fracturable box (the
// asset cache corpus's box), convex boxes and balls dropped onto it — is stepped until its bodies are
// in contact and its contacts are saved once; each input is a list of byte edits (4-byte offset, 1-byte
// value) applied to that save's payload, which is then framed with a matching checksum, so that
// mutations reach the structural checks (trees, pairs, manifolds, orders) rather than the checksum. A
// fresh world of the same bodies restores it and steps: shatter::Error is the expected answer to a bad
// save; a crash, hang or sanitizer report is a bug.
#include "asset_data.h"
#include "fuzz_input_file.h"
#include "world_contacts_io.h"

#include "shatter/asset.h"
#include "shatter/collision.h"
#include "shatter/error.h"
#include "shatter/fracture/material.h"
#include "shatter/fracture_system.h"

#include <btBulletDynamicsCommon.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace
{

std::shared_ptr<const shatter::Asset> boxAsset()
{
    static const std::shared_ptr<const shatter::Asset> asset = []
    {
        const shatter::fuzz::InputFile file("box.shatter");
        const std::vector<std::byte> payload = shatter::readFileBytes(SHATTER_FUZZ_BOX_PAYLOAD);
        const std::vector<std::byte> bytes = shatter::assetFileBytes(payload);
        file.write(bytes.data(), bytes.size());
        return shatter::loadAsset(file.path());
    }();
    return asset;
}

// The same bodies every time, in the same order.
struct FuzzWorld
{
    std::unique_ptr<btDefaultCollisionConfiguration> config = shatter::makeCollisionConfiguration();
    btCollisionDispatcher dispatcher{config.get()};
    shatter::CollisionRegistration collision{dispatcher};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, config.get()};
    btStaticPlaneShape groundShape{btVector3(0, 1, 0), 0};
    btBoxShape boxShape{btVector3(0.1f, 0.1f, 0.1f)};
    btSphereShape ballShape{0.08f};
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    std::unique_ptr<shatter::fracture::FractureSystem> fracture;

    FuzzWorld()
    {
        world.setGravity(btVector3(0, -9.81f, 0));
        add(0, &groundShape, btVector3(0, 0, 0));
        shatter::fracture::FractureSystemSettings settings;
        settings.enabled = false;
        fracture = std::make_unique<shatter::fracture::FractureSystem>(world, collision, settings);
        Eigen::Isometry3d placement = Eigen::Isometry3d::Identity();
        placement.translation() = Eigen::Vector3d(0, 0.6, 0);
        fracture->addObject(boxAsset(), shatter::fracture::glass(), placement);
        for (int i = 0; i < 4; ++i)
            add(1, &boxShape, btVector3(btScalar(0.25 * i - 0.4), btScalar(0.15 + 0.2 * i), 0.3f));
        for (int i = 0; i < 3; ++i)
        {
            btRigidBody* ball = add(2, &ballShape, btVector3(btScalar(0.3 * i - 0.3), 1.2f, -0.2f));
            ball->setCcdMotionThreshold(0.04f); // predictive contacts and CCD sweeps too
            ball->setCcdSweptSphereRadius(0.07f);
        }
    }
    ~FuzzWorld()
    {
        fracture.reset();
        for (auto& body : bodies)
            world.removeRigidBody(body.get());
    }

    btRigidBody* add(btScalar mass, btCollisionShape* shape, const btVector3& at)
    {
        btVector3 inertia(0, 0, 0);
        if (mass > 0)
            shape->calculateLocalInertia(mass, inertia);
        btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
        info.m_startWorldTransform.setOrigin(at);
        bodies.push_back(std::make_unique<btRigidBody>(info));
        bodies.back()->setUserIndex(int(bodies.size()));
        world.addRigidBody(bodies.back().get());
        return bodies.back().get();
    }

    std::uint64_t key(const btCollisionObject& object) const
    {
        shatter::fracture::ObjectId id = 0;
        shatter::FragmentId fragment = 0;
        if (fracture->lookup(&object, id, fragment))
            return (std::uint64_t(id) + 1) << 32 | fragment;
        return std::uint64_t(object.getUserIndex());
    }
};

// The payload of a save taken with everything in contact.
const std::vector<std::byte>& validPayload()
{
    static const std::vector<std::byte> payload = []
    {
        FuzzWorld w;
        for (int i = 0; i < 45; ++i)
            w.world.stepSimulation(btScalar(1.0 / 60), 0);
        const std::vector<std::byte> file =
            shatter::saveWorldContacts(w.world, [&](const btCollisionObject& o) { return w.key(o); });
        return std::vector<std::byte>(file.begin() + std::ptrdiff_t(shatter::kFramedHeaderSize), file.end());
    }();
    return payload;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::vector<std::byte> payload = validPayload();
    for (std::size_t i = 0; i + 5 <= size; i += 5)
    {
        std::uint32_t offset = 0;
        std::memcpy(&offset, data + i, sizeof offset);
        payload[offset % payload.size()] = std::byte(data[i + 4]);
    }
    const std::vector<std::byte> bytes = shatter::worldContactsFileBytes(payload);
    FuzzWorld w;
    try
    {
        shatter::restoreWorldContacts(
            w.world, bytes, [&](const btCollisionObject& o) { return w.key(o); }, "fuzz input");
    }
    catch (const shatter::Error& e)
    {
        if (size < 5) // the unedited save must restore, with its contacts
        {
            std::fprintf(stderr, "the unedited save was refused: %s\n", e.what());
            std::abort();
        }
    }
    if (size < 5 && w.world.getDispatcher()->getNumManifolds() == 0)
    {
        std::fprintf(stderr, "the unedited save restored no contact manifolds\n");
        std::abort();
    }
    for (int i = 0; i < 4; ++i)
        w.world.stepSimulation(btScalar(1.0 / 60), 0);
    return 0;
}
