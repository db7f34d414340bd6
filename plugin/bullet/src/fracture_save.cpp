// FractureSystem::save and restore. A save holds what cannot be recomputed — each object's asset
// identity, material, settings and fracture events, its bodies' motion, the pending jobs and the
// system's schedule — and nothing that can: the distance field, grid and sphere trees are rebuilt by
// replaying the events through ObjectState::apply, which is deterministic, so they come out bit for
// bit as they were, and apply's own checks validate every event against the state it meets.
#include "asset_data.h"
#include "binary_io.h"
#include "fracture_result_io.h"
#include "fracture_system_impl.h"
#include "rigid_body_io.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shatter::fracture
{
namespace
{

const FileKind kSaveFile = {{'S', 'H', 'A', 'T', 'T', 'E', 'R', 'S'},
                            kSaveFormatVersion,
                            "save file",
                            "it was written by another version of Shatter"};

// A fragment body: its motion as Bullet holds it plus what the system keeps of it.
struct SavedBody
{
    SavedMotion motion;
    std::uint64_t bornStep = 0;
    double asleepFor = 0;
    FragmentId fragment = kNoFragment;
    std::uint32_t broadphaseOrder = 0; // rank of its broadphase proxy's id among the system's bodies
    std::uint8_t dynamic = 1;
    std::uint8_t frozen = 0;
    std::uint8_t reserved[6]{}; // no padding: every byte of a save is defined
};
static_assert(std::is_trivially_copyable_v<SavedBody>);
static_assert(sizeof(SavedBody) == sizeof(SavedMotion) + 32, "SavedBody has no padding");

struct HeldImpulse
{
    std::uint64_t fragment; // 64-bit: no padding
    Real impulse;
};
struct ReadyStep
{
    std::uint64_t fragment;
    std::uint64_t step;
};

SavedBody saveBody(FragmentId fragment, const FragmentBody& b)
{
    SavedBody s;
    s.motion = saveMotion(*b.body);
    s.fragment = fragment;
    s.dynamic = !b.body->isStaticOrKinematicObject();
    s.frozen = b.frozen;
    s.bornStep = b.bornStep;
    s.asleepFor = b.asleepFor;
    return s;
}

// The inverse of saveBody, on a body made for the same fragment (the same bits, not a recomputed pose).
void restoreBody(const SavedBody& s, FragmentBody& b)
{
    restoreMotion(s.motion, *b.body);
    b.bornStep = s.bornStep;
    b.asleepFor = s.asleepFor;
    b.frozen = s.frozen != 0;
}

// Everything a restore reads of a body, checked: finite numbers in their ranges, a rotation.
void checkBody(const BinaryReader& r, const SavedBody& s, ObjectId object)
{
    const std::string which = "object " + std::to_string(object) + " fragment " + std::to_string(s.fragment);
    checkMotion(r, s.motion, which);
    if (!(s.asleepFor >= 0 && std::isfinite(s.asleepFor)))
        r.fail(which + ": a body's sleeping time is negative or not finite");
    if (s.dynamic > 1 || s.frozen > 1 || (s.frozen && s.dynamic))
        r.fail(which + ": a body's flags are inconsistent");
}

void writeMaterial(BinaryWriter& w, const Material& m)
{
    for (Real v : {m.density, m.youngsModulus, m.poissonRatio, m.toughness, m.energyExponent,
                   m.minFragmentVolume, m.warp.waveAmplitude, m.warp.waveLength})
        w.value(v);
    w.array(m.weakness);
    for (int i = 0; i < 9; ++i)
        w.value(m.warp.linear(i));
    w.vec3s({m.warp.waveDirection, m.warp.wavePhaseDirection});
    w.value<std::int32_t>(m.maxFragments);
}

Material readMaterial(BinaryReader& r)
{
    Material m;
    for (Real* v : {&m.density, &m.youngsModulus, &m.poissonRatio, &m.toughness, &m.energyExponent,
                    &m.minFragmentVolume, &m.warp.waveAmplitude, &m.warp.waveLength})
        *v = r.value<Real>();
    m.weakness = r.array<Real>();
    for (int i = 0; i < 9; ++i)
        m.warp.linear(i) = r.value<Real>();
    const std::vector<Vec3> directions = r.vec3s();
    if (directions.size() != 2)
        r.fail("a material's wave directions are missing");
    m.warp.waveDirection = directions[0];
    m.warp.wavePhaseDirection = directions[1];
    m.maxFragments = r.value<std::int32_t>();
    return m; // checkMaterial validates it against the asset
}

void writeSettings(BinaryWriter& w, const ObjectSettings& o)
{
    w.value<std::uint8_t>(o.dynamic);
    w.value<std::uint8_t>(o.fracturable);
    w.value(o.friction);
    w.value(o.restitution);
    std::vector<Vec3> corners;
    for (const Eigen::AlignedBox3d& box : o.anchorBoxes)
    {
        corners.push_back(box.min());
        corners.push_back(box.max());
    }
    w.vec3s(corners);
    w.array(o.anchorNodes);
}

ObjectSettings readSettings(BinaryReader& r)
{
    ObjectSettings o;
    o.dynamic = r.value<std::uint8_t>() != 0;
    o.fracturable = r.value<std::uint8_t>() != 0;
    o.friction = r.value<Real>();
    o.restitution = r.value<Real>();
    const std::vector<Vec3> corners = r.vec3s();
    if (corners.size() % 2 != 0)
        r.fail("an object's anchor boxes are incomplete");
    for (std::size_t i = 0; i < corners.size(); i += 2)
        o.anchorBoxes.emplace_back(corners[i], corners[i + 1]);
    o.anchorNodes = r.array<std::uint32_t>();
    if (!(o.friction >= 0 && std::isfinite(o.friction)) ||
        !(o.restitution >= 0 && std::isfinite(o.restitution)))
        r.fail("an object's friction or restitution is negative or not finite");
    return o; // anchoredNodes validates the anchors against the asset
}

// Object `id`'s pending job as save() wrote it (its inputs only), checked against the fragments that
// have a body and the saved step.
std::shared_ptr<FractureJob> readJob(BinaryReader& r, ObjectId id, const std::set<FragmentId>& withBody,
                                     std::uint64_t stepIndex)
{
    auto job = std::make_shared<FractureJob>();
    job->object = id;
    job->fragment = r.value<FragmentId>();
    job->seed = r.value<std::uint64_t>();
    job->submitStep = r.value<std::uint64_t>();
    job->dueStep = r.value<std::uint64_t>();
    job->impulse = r.value<Real>();
    const std::vector<Vec3> points = r.vec3s(), forces = r.vec3s();
    if (points.size() != forces.size())
        r.fail("a pending job's impact points and forces differ in number");
    for (std::size_t k = 0; k < points.size(); ++k)
    {
        if (!points[k].allFinite() || !forces[k].allFinite())
            r.fail("a pending job's impact is not finite");
        job->forces.push_back({points[k], forces[k]});
    }
    if (!withBody.contains(job->fragment))
        r.fail("object " + std::to_string(id) + " has a pending job for fragment " +
               std::to_string(job->fragment) + ", which has no body");
    if (job->submitStep > stepIndex || job->dueStep < stepIndex || !(job->impulse >= 0))
        r.fail("a pending job's steps or impulse are out of range");
    return job;
}

} // namespace

std::vector<std::byte> FractureSystem::save() const
{
    const Impl& s = *impl;
    BinaryWriter w;
    w.value<std::uint32_t>(sizeof(btScalar));
    w.value(s.stepIndex);
    w.value(s.lastTimeStep);
    w.value(s.preparedUntil);
    w.value(s.nextId);
    w.value<std::uint64_t>(s.total);
    // The order of the bodies' broadphase proxies (Bullet's pair order follows it), as ranks among the
    // system's bodies: proxy ids are unique, so a body's rank is its id's place in the sorted list.
    std::vector<int> proxyIds;
    for (const auto& [id, o] : s.objects)
        for (const auto& [fragment, b] : o.bodies)
            proxyIds.push_back(b.body->getBroadphaseHandle()->m_uniqueId);
    std::sort(proxyIds.begin(), proxyIds.end());
    w.value<std::uint64_t>(s.objects.size());
    for (const auto& [id, o] : s.objects)
    {
        w.value(id);
        const Asset& asset = o.state->asset();
        w.string(asset.name);
        w.value(asset.sourceHash);
        writeMaterial(w, o.material);
        writeSettings(w, o.options);
        w.value(o.runs);
        std::vector<HeldImpulse> held;
        for (const auto& [f, j] : o.heldImpulse)
            held.push_back({f, j});
        std::vector<ReadyStep> ready;
        for (const auto& [f, step] : o.readyAt)
            ready.push_back({f, step});
        w.array(held);
        w.array(ready);
        w.value<std::uint64_t>(o.history.size());
        for (const auto& result : o.history)
            writeFractureResult(w, *result);
        std::vector<SavedBody> bodies;
        for (const auto& [fragment, b] : o.bodies)
        {
            SavedBody saved = saveBody(fragment, b);
            const int proxyId = b.body->getBroadphaseHandle()->m_uniqueId;
            saved.broadphaseOrder =
                std::uint32_t(std::lower_bound(proxyIds.begin(), proxyIds.end(), proxyId) - proxyIds.begin());
            bodies.push_back(saved);
        }
        w.array(bodies);
        const bool hasJob = o.job != nullptr;
        w.value<std::uint8_t>(hasJob);
        if (hasJob)
        {
            const FractureJob& job = *o.job;
            w.value(job.fragment);
            w.value(job.seed);
            w.value(job.submitStep);
            w.value(job.dueStep);
            w.value(job.impulse);
            std::vector<Vec3> points, forces;
            for (const ImpactForce& f : job.forces)
            {
                points.push_back(f.point);
                forces.push_back(f.force);
            }
            w.vec3s(points);
            w.vec3s(forces);
        }
    }
    // Pending jobs complete in submission order.
    std::vector<ObjectId> order;
    for (const auto& job : s.pending)
        order.push_back(job->object);
    w.array(order);
    return framedFileBytes(kSaveFile, w.bytes());
}

void FractureSystem::save(const std::filesystem::path& file) const
{
    writeFileBytes(file.string(), save());
}

void FractureSystem::restore(const std::filesystem::path& file, const AssetLookup& assets)
{
    const std::vector<std::byte> bytes = readFileBytes(file.string());
    restore(bytes, assets, file.string());
}

void FractureSystem::restore(std::span<const std::byte> bytes, const AssetLookup& assets,
                             const std::string& source)
{
    Impl& s = *impl;
    if (!s.objects.empty())
        throw Error(source, "FractureSystem::restore needs a system without objects (it holds " +
                                std::to_string(s.objects.size()) + ")");
    if (!assets)
        throw Error(source, "FractureSystem::restore needs an asset lookup");
    BinaryReader r(framedPayload(bytes, kSaveFile, source), source);
    try
    {
        if (const auto size = r.value<std::uint32_t>(); size != sizeof(btScalar))
            r.fail("saved with " + std::to_string(8 * size) + "-bit Bullet, this build uses " +
                   std::to_string(8 * sizeof(btScalar)) + "-bit");
        const auto stepIndex = r.value<std::uint64_t>();
        const auto lastTimeStep = r.value<double>();
        const auto preparedUntil = r.value<double>();
        const auto nextId = r.value<ObjectId>();
        const auto total = r.value<std::uint64_t>();
        if (!(lastTimeStep > 0 && std::isfinite(lastTimeStep)) || !std::isfinite(preparedUntil))
            r.fail("the saved time step or schedule is not finite");

        struct Placed
        {
            std::uint32_t order;
            BodyKey key;
            FragmentBody body;
            int group, mask;
        };
        std::vector<Placed> placed;
        std::map<ObjectId, std::shared_ptr<FractureJob>> jobs;
        std::set<std::uint32_t> orders;
        const auto objectCount = r.value<std::uint64_t>();
        for (std::uint64_t i = 0; i < objectCount; ++i)
        {
            const auto id = r.value<ObjectId>();
            if (id >= nextId || s.objects.contains(id))
                r.fail("object id " + std::to_string(id) + " is repeated or not below the next id");
            const std::string name = r.string();
            const auto sourceHash = r.value<std::uint64_t>();
            std::shared_ptr<const Asset> asset = assets(name);
            if (!asset)
                r.fail("no asset '" + name + "' for object " + std::to_string(id));
            if (asset->sourceHash != sourceHash)
                r.fail("asset '" + name + "' is not the one object " + std::to_string(id) +
                       " was saved with (its content key differs)");
            Impl::Object o;
            o.material = readMaterial(r);
            checkMaterial(o.material, asset->tetMesh.tetCount(), source);
            o.options = readSettings(r);
            o.anchored = detail::anchoredNodes(*asset, o.options);
            o.runs = r.value<std::uint64_t>();
            for (const HeldImpulse& h : r.array<HeldImpulse>())
            {
                if (!(h.impulse >= 0 && std::isfinite(h.impulse)))
                    r.fail("object " + std::to_string(id) + " holds a negative or non-finite impulse");
                o.heldImpulse[FragmentId(h.fragment)] = h.impulse;
            }
            for (const ReadyStep& ready : r.array<ReadyStep>())
                o.readyAt[FragmentId(ready.fragment)] = ready.step;
            o.state = std::make_shared<ObjectState>(std::move(asset), s.objectState);
            if (o.options.fracturable) // as addObject: the unbroken object's bound data first
                s.pipeline->prepare(*o.state, o.material);
            const auto events = r.value<std::uint64_t>();
            for (std::uint64_t e = 0; e < events; ++e)
            {
                auto result = std::make_shared<FractureResult>(readFractureResult(r));
                try
                {
                    o.state->apply(*result);
                }
                catch (const Error& error)
                {
                    r.fail("object " + std::to_string(id) + " event " + std::to_string(e) + ": " +
                           error.what());
                }
                o.history.push_back(std::move(result));
            }
            std::set<FragmentId> withBody;
            for (const SavedBody& saved : r.array<SavedBody>())
            {
                checkBody(r, saved, id);
                if (!o.state->alive(saved.fragment) || !withBody.insert(saved.fragment).second)
                    r.fail("object " + std::to_string(id) + " has a body for fragment " +
                           std::to_string(saved.fragment) + ", which is not a live fragment without one");
                if (!orders.insert(saved.broadphaseOrder).second)
                    r.fail("two bodies share a broadphase rank");
                // A fragment's body is made from its mesh: a history whose meshes are broken fails here.
                FragmentBody b = [&]
                {
                    try
                    {
                        return makeFragmentBody(s.shapes, o.state, saved.fragment,
                                                Eigen::Isometry3d::Identity(), o.material.density,
                                                saved.dynamic != 0);
                    }
                    catch (const Error& error)
                    {
                        r.fail("object " + std::to_string(id) + ": " + error.what());
                    }
                }();
                restoreBody(saved, b);
                placed.push_back({saved.broadphaseOrder,
                                  {id, saved.fragment},
                                  std::move(b),
                                  saved.motion.group,
                                  saved.motion.mask});
            }
            if (r.value<std::uint8_t>() != 0)
                jobs.emplace(id, readJob(r, id, withBody, stepIndex));
            s.objects.emplace(id, std::move(o));
            s.ids.push_back(id);
        }
        const std::vector<ObjectId> order = r.array<ObjectId>();
        if (r.remaining() != 0)
            r.fail(std::to_string(r.remaining()) + " bytes after the end of the save");
        if (order.size() != jobs.size() ||
            std::set<ObjectId>(order.begin(), order.end()).size() != order.size() ||
            std::any_of(order.begin(), order.end(), [&](ObjectId id) { return !jobs.contains(id); }))
            r.fail("the pending jobs' order does not list each pending job once");

        std::sort(s.ids.begin(), s.ids.end());
        s.stepIndex = stepIndex;
        s.lastTimeStep = lastTimeStep;
        s.preparedUntil = preparedUntil;
        s.nextId = nextId;
        s.total = total;
        // The bodies in the order of their broadphase proxies when saved.
        std::sort(placed.begin(), placed.end(),
                  [](const Placed& a, const Placed& b) { return a.order < b.order; });
        for (Placed& p : placed)
            s.addBody(p.key, std::move(p.body), p.group, p.mask);
        // The pending jobs, in their submission order.
        for (ObjectId id : order)
        {
            Impl::Object& o = s.objects.at(id);
            std::shared_ptr<FractureJob> job = jobs.at(id);
            job->state = o.state;
            job->material = &o.material;
            job->pipeline = s.pipeline.get();
            o.job = job;
            s.pending.push_back(job);
            s.jobs.submit(job);
        }
    }
    catch (...)
    {
        clear(); // nothing half restored stays
        s.pending.clear();
        throw;
    }
}

} // namespace shatter::fracture
