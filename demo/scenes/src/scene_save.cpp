// SceneWorld::save and restore: a run saved between steps and continued elsewhere, bit for bit.
//
// A save holds three parts. The scene's own progress: step count, event cursor and origin, the objects
// placed so far (by scene object name) and the balls (size, density, motion). The FractureSystem's save
// (objects, fracture history, fragment bodies, pending jobs). And the Bullet world's state between
// steps (saveWorldContacts): broadphase, pairs, algorithms, manifolds and the order of everything the
// solver walks. Bodies are named across the save by a key: the ground, a ball by its spawn index, a
// fragment body by its object and fragment ids. The run settings that change the simulation are
// recorded and must match.
#include "scene_world_impl.h"

#include "scene_assets.h"

#include "binary_io.h"
#include "rigid_body_io.h"

#include "shatter/collision.h"
#include "shatter/error.h"
#include "shatter/fracture_system.h"

#include <cmath>
#include <limits>
#include <map>

namespace shatter::scenes
{
namespace
{

const FileKind kSceneSaveFile = {{'S', 'H', 'A', 'T', 'T', 'E', 'R', 'W'},
                                 1,
                                 "scene save file",
                                 "it was written by another version of Shatter"};

struct SavedBall
{
    SavedMotion motion;
    double radius = 0, density = 0;
};
static_assert(sizeof(SavedBall) == sizeof(SavedMotion) + 16, "SavedBall has no padding");

// What of RunSettings changes the simulation: a save continues only under the same.
struct SavedRun
{
    std::uint64_t seed = 0;
    std::int32_t collision = 0, contacts = 0, restructure = 0, latencySteps = 0;
    std::uint8_t fracture = 0, reserved[7]{};
};

SavedRun savedRun(const RunSettings& o)
{
    SavedRun r;
    r.seed = o.seed;
    r.collision = std::int32_t(o.collision);
    r.contacts = std::int32_t(o.contacts);
    r.restructure = std::int32_t(o.restructure);
    r.latencySteps = o.latencySteps;
    r.fracture = o.fracture;
    return r;
}

constexpr std::uint64_t kGroundKey = 0;
constexpr std::uint64_t kFragmentKeys = std::uint64_t(1) << 63;

} // namespace

std::uint64_t SceneWorld::Impl::bodyKey(const btCollisionObject& object) const
{
    if (&object == ground.get())
        return kGroundKey;
    fracture::ObjectId id = 0;
    FragmentId fragment = kNoFragment;
    if (system->lookup(&object, id, fragment))
        return kFragmentKeys | std::uint64_t(id) << 32 | fragment;
    for (std::size_t i = 0; i < balls.size(); ++i)
        if (balls[i].body.get() == &object)
            return 1 + i;
    throw Error("SceneWorld::save", "the world holds a collision object that is not the scene's");
}

const SceneObject* SceneWorld::Impl::sceneObject(const std::string& name) const
{
    for (const SceneObject& o : scene.objects)
        if (o.name == name)
            return &o;
    for (const SceneEvent& e : scene.events)
        if (e.object && e.object->name == name)
            return &*e.object;
    return nullptr;
}

std::vector<std::byte> SceneWorld::save()
{
    Impl& s = *impl;
    BinaryWriter w;
    w.string(s.scene.name);
    w.value<std::uint32_t>(sizeof(btScalar));
    w.value(savedRun(s.options));
    w.value<std::int64_t>(s.steps);
    w.value<std::uint64_t>(s.nextEvent);
    w.value(s.eventOrigin);
    w.value<std::uint64_t>(s.placed.size());
    for (const Impl::Placed& p : s.placed)
    {
        w.string(p.name);
        w.value(p.id);
        w.value<std::uint8_t>(p.fracturable);
    }
    std::vector<SavedBall> balls;
    for (const Impl::Ball& b : s.balls)
        balls.push_back({saveMotion(*b.body), b.radius, b.density});
    w.array(balls);
    w.array(s.system->save());
    w.array(saveWorldContacts(*s.world, [&](const btCollisionObject& o) { return s.bodyKey(o); }));
    return framedFileBytes(kSceneSaveFile, w.bytes());
}

void SceneWorld::save(const std::filesystem::path& file)
{
    writeFileBytes(file.string(), save());
}

void SceneWorld::restore(const std::filesystem::path& file)
{
    restore(readFileBytes(file.string()), file.string());
}

void SceneWorld::restore(std::span<const std::byte> bytes, const std::string& source)
{
    Impl& s = *impl;
    BinaryReader r(framedPayload(bytes, kSceneSaveFile, source), source);
    s.removeContents();
    try
    {
        if (const std::string name = r.string(); name != s.scene.name)
            r.fail("a save of scene \"" + name + "\", this world runs \"" + s.scene.name + "\"");
        if (const auto size = r.value<std::uint32_t>(); size != sizeof(btScalar))
            r.fail("saved with " + std::to_string(8 * size) + "-bit Bullet, this build uses " +
                   std::to_string(8 * sizeof(btScalar)) + "-bit");
        const SavedRun run = r.value<SavedRun>();
        const SavedRun own = savedRun(s.options);
        if (run.seed != own.seed || run.collision != own.collision || run.contacts != own.contacts ||
            run.restructure != own.restructure || run.latencySteps != own.latencySteps ||
            run.fracture != own.fracture)
            r.fail("saved with other run settings (collision, contacts, restructure, seed, latency or "
                   "fracture)");
        const auto steps = r.value<std::int64_t>();
        const auto nextEvent = r.value<std::uint64_t>();
        const auto eventOrigin = r.value<double>();
        if (steps < 0 || steps > std::numeric_limits<int>::max() || nextEvent > s.scene.events.size() ||
            !std::isfinite(eventOrigin))
            r.fail("the step count, event cursor or event origin is out of range");

        // The objects placed so far, and the assets their fracture state needs, as addObject made them.
        std::vector<Impl::Placed> placed(r.value<std::uint64_t>());
        std::map<std::string, std::shared_ptr<const Asset>> assets;
        for (Impl::Placed& p : placed)
        {
            p.name = r.string();
            p.id = r.value<fracture::ObjectId>();
            p.fracturable = r.value<std::uint8_t>() != 0;
            const SceneObject* object = s.sceneObject(p.name);
            if (!object || object->fracturable != p.fracturable)
                r.fail("object \"" + p.name + "\" is not one of the scene's");
            std::shared_ptr<const Asset> asset = s.objectAsset(*object);
            assets.emplace(assetInfo(*asset).name, std::move(asset));
        }
        const std::vector<SavedBall> balls = r.array<SavedBall>();
        for (std::size_t i = 0; i < balls.size(); ++i)
        {
            checkMotion(r, balls[i].motion, "ball " + std::to_string(i));
            if (!(balls[i].radius > 0 && std::isfinite(balls[i].radius)) ||
                !(balls[i].density > 0 && std::isfinite(balls[i].density)))
                r.fail("ball " + std::to_string(i) + ": its radius or density is not positive and finite");
        }
        const std::vector<std::byte> fracture = r.array<std::byte>();
        const std::vector<std::byte> contacts = r.array<std::byte>();
        if (r.remaining() != 0)
            r.fail(std::to_string(r.remaining()) + " bytes after the end of the save");

        s.system->restore(
            fracture,
            [&](const std::string& name) -> std::shared_ptr<const Asset>
            {
                const auto found = assets.find(name);
                return found == assets.end() ? nullptr : found->second;
            },
            source);
        s.placed = std::move(placed);
        for (const SavedBall& b : balls)
        {
            btRigidBody* body =
                s.spawnBall(Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), b.radius, b.density);
            restoreMotion(b.motion, *body);
            body->getBroadphaseHandle()->m_collisionFilterGroup = b.motion.group;
            body->getBroadphaseHandle()->m_collisionFilterMask = b.motion.mask;
        }
        restoreWorldContacts(
            *s.world, contacts, [&](const btCollisionObject& o) { return s.bodyKey(o); }, source);
        s.history.clear();
        s.steps = int(steps);
        s.nextEvent = nextEvent;
        s.eventOrigin = eventOrigin;
    }
    catch (...)
    {
        s.removeContents();
        throw;
    }
}

} // namespace shatter::scenes
