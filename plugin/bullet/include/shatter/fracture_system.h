// FractureSystem: brittle fracture for the user's existing btDiscreteDynamicsWorld.
//
//     shatter::CollisionRegistration collision(dispatcher);           // Shatter's narrow phase
//     shatter::fracture::FractureSystem fracture(world, collision);   // installs the post-tick callback
//     auto piggy = fracture.addObject(shatter::loadAsset("piggy.shatter"), material, placement);
//     world.stepSimulation(1.0 / 60);   // fragments appear after the substep that broke it
//
// After each internal step (Bullet's post-tick callback, when the solver has written the contact
// impulses back) it sums the contact impulses on every registered body over all manifolds of its pairs
// and hands the fracture pipeline (deformation, criterion and degree, CVD tessellation: CVD §3) of the
// strongest impacts to worker threads (oneTBB; FractureSystemSettings::workers). Exactly latencySteps
// internal steps later, at the post-tick before that step's impacts are collected, it takes each result
// (waiting for a job that is not done yet, so the run never depends on timing), applies a fracture to
// the object's ObjectState (incremental collision updates, TVCG §4.2, §6), removes the broken body and
// adds one body per new fragment at the body's pose then, with its v + ω × r at the fragment's centre of
// mass. While an object has a pending job its bodies simulate on whole and their impacts are not
// evaluated. latencySteps = 0 breaks in the impact step itself. Fragments fracture again the same way,
// once they are ready: fragmentReadySteps internal steps old, later for large pieces (fragmentBasisMs).
//
// Bodies and shapes are owned by the system; the world and the registration must outlive it. The
// destructor removes its bodies from the world. The world's internal tick callback belongs to the
// system while it lives (Bullet has one slot); a program that needs its own post-tick work calls
// onInternalTick from its callback after constructing with installCallback = false.
//
// Errors: the constructor and addObject throw shatter::Error for bad settings and input. Nothing throws
// from onInternalTick (it runs inside stepSimulation): a failed event leaves the body whole and is
// counted in FractureStepStats (and passed to FractureSystemSettings::log).
#pragma once

#include "shatter/fracture/fracture_settings.h"
#include "shatter/fracture/material.h"
#include "shatter/math.h"

#include <Eigen/Geometry>
#include <LinearMath/btScalar.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

class btDiscreteDynamicsWorld;
class btRigidBody;
class btCollisionObject;
class btIDebugDraw;

namespace shatter
{

struct Asset;
struct TriMesh;
class ObjectState;
class CollisionRegistration;
/// A fragment of an object: 0 is the unbroken object, new fragments get increasing ids.
using FragmentId = std::uint32_t;

namespace detail
{
struct InternalAccess;
} // namespace detail

namespace fracture
{

struct FractureEventStats;

using ObjectId = std::uint32_t;

/// Why DebrisSettings took a piece out of the world.
enum class DebrisReason : std::uint8_t
{
    Budget, ///< the system held more bodies than DebrisSettings::maxBodies
    Volume, ///< smaller than DebrisSettings::removeBelowVolume
    Sleep,  ///< asleep for DebrisSettings::removeAfterSleeping
};

/// A piece about to be removed (DebrisSettings::onRemove).
struct DebrisRemoval
{
    ObjectId object = 0;
    FragmentId fragment = 0;
    btRigidBody* body = nullptr; ///< still in the world; destroyed after the call
    DebrisReason reason = DebrisReason::Budget;
};

/// What happens to the pieces of broken objects (never to unbroken objects, nor to a piece whose own
/// fracture is pending). Applied at the end of every internal step, in this order: volume, sleep,
/// budget. The defaults keep every piece. A removed piece stays in its ObjectState without a body, so
/// its siblings' collision data need no update, and never breaks again (its cached basis is
/// released). Checked by the FractureSystem constructor; editable between steps (a value it would
/// reject turns its rule off).
struct DebrisSettings
{
    /// Most bodies the system keeps, unbroken objects included, ≥ 0 (0: no budget). Beyond it the
    /// smallest pieces go first (by volume; among equals the oldest, then by object and fragment id);
    /// default 0.
    int maxBodies = 0;
    /// Pieces smaller than this are removed in the step they appear, m³, ≥ 0; default 0 (none).
    Real removeBelowVolume = 0;
    /// Pieces smaller than this become static where they lie once Bullet puts them to sleep (they cost
    /// nothing after, and still break when hit), m³, ≥ 0; default 0 (none).
    Real freezeBelowVolume = 0;
    /// Pieces that Bullet kept asleep this long are removed, s, > 0; default +∞ (never).
    Real removeAfterSleeping = std::numeric_limits<Real>::infinity();
    /// Called on the simulation thread before each removal; what it throws is logged. Default none.
    std::function<void(const DebrisRemoval&)> onRemove;
};

/// Settings of a FractureSystem; checked by its constructor.
struct FractureSystemSettings
{
    /// The deformation model (CVD §3.3); default Modal (TVCG 2013's choice: an impact costs O(k · DOFs),
    /// and the criterion's bound rejects most non-breaking impacts without it). Fem stays selectable.
    DeformationModel deformation = DeformationModel::Modal;
    /// The metric of the fracture pattern's Voronoi cells (CVD §3.2); default Auto.
    FractureMetric metric = FractureMetric::Auto;
    /// Install onInternalTick as the world's post-tick callback; default true.
    bool installCallback = true;
    /// False: collect impacts but never break (editable between steps); default true.
    bool enabled = true;
    /// Contacts with a smaller impulse are ignored, N·s, ≥ 0; default 0.
    Real minImpulse = 0;
    /// The strongest impacts of one step are processed first, at most this many, ≥ 1; default 8.
    int maxEventsPerStep = 8;
    /// Most fragment bodies of all objects: an impact is evaluated only while the bodies there are plus
    /// what the pending events may add (each up to its material's maxFragments − 1) leave room for its
    /// event; the others are counted (FractureStepStats::fragmentLimitImpacts). ≥ 1; default 4096.
    int maxWorldFragments = 4096;
    /// Sweep fragment bodies that move more than half their radius in a step (Bullet's CCD skips concave
    /// shapes) and stop them where a sphere inside them first meets what they approach; default true.
    bool continuousCollision = true;
    /// Evaluate every body with an impact in every step, turning off the gate below; default false.
    bool evaluateEveryStep = false;
    /// Gate: a body is evaluated when its impulse exceeds this × the largest it has held, ≥ 1; default 1.25.
    Real impulseGrowth = 1.25;
    /// Gate: the held impulse decays by this factor per internal step, in (0, 1]; default 0.9.
    Real heldImpulseDecay = 0.9;
    /// Event k of object o uses a seed derived from (seed, o, k): runs are reproducible; default 1.
    std::uint64_t seed = 1;
    /// Threads for the pipeline's jobs, ≥ 0 (0: a job runs inline at its submission); read by the
    /// constructor; default 1.
    int workers = 1;
    /// Internal steps from an impact to its fragments replacing the body, ≥ 0; read by the constructor;
    /// default 2 (a job has two steps of wall time in a paced loop before the step waits for it).
    int latencySteps = 2;
    /// Internal steps after a fragment appears during which its impacts are not evaluated, ≥ 0: a worker
    /// prepares its modal basis meanwhile, so its first evaluation does not build it;
    /// read by the constructor; default 30 (half a second at 60 Hz).
    int fragmentReadySteps = 30;
    /// Predicted milliseconds of a 1000-node fragment's modal basis on one thread, scaled by
    /// (nodes / 1000)^1.5 for other sizes (its factorisation and Lanczos solves): a fragment is ready no
    /// sooner than the preparation thread, paced to simulated time, would have built its basis after all
    /// preparations queued before it. ≥ 0 and finite, 0: fragmentReadySteps alone; read by the
    /// constructor; default 140.
    Real fragmentBasisMs = 140;
    /// Called with the message of every failed event or bodyless fragment during a step; default none.
    std::function<void(const std::string&)> log;
    /// Called on the simulation thread for every fracture event, right after its fragments replaced the
    /// broken body (inside stepSimulation at an internal step's boundary, or in breakWithImpulses): the
    /// place to play a sound or spawn particles. It may read the world and any body, and change the
    /// fragments' bodies, but must not add or remove objects or step the world. What it throws is caught
    /// and logged. Default none.
    std::function<void(const struct FractureEvent&)> onBreak;
    /// Removal and freezing of pieces (a budget, small pieces, sleeping pieces); default: keep all.
    DebrisSettings debris;
};

/// Per-object settings of addObject.
struct ObjectSettings
{
    /// False: a static body (mass 0) that still breaks into dynamic fragments; default true.
    bool dynamic = true;
    /// Initial velocity, world frame, m/s, each component within ±1e4; default zero.
    Eigen::Vector3d linearVelocity = Eigen::Vector3d::Zero();
    /// Initial angular velocity, world frame, rad/s, each component within ±1e4; default zero.
    Eigen::Vector3d angularVelocity = Eigen::Vector3d::Zero();
    /// Bullet friction of the object and its fragments, ≥ 0; default 0.5.
    Real friction = 0.5;
    /// Bullet restitution of the object and its fragments, ≥ 0; default 0.
    Real restitution = 0.0;
    /// False: collides as a fracturable shape but never breaks; default true.
    bool fracturable = true;
    /// Anchors of a static object (dynamic = false), e.g. a wall's foot or a shelf's screws: boxes in the
    /// material frame, m, each holding at least one tet node of the asset. After a break, a piece with a
    /// tet node in an anchor stays static where it is, the others become dynamic; so do its own pieces.
    /// Empty (default): every piece of a static object is dynamic.
    std::vector<Eigen::AlignedBox3d> anchorBoxes;
    /// Asset tet-node ids that anchor likewise (e.g. painted in a tool), each below the node count;
    /// default none.
    std::vector<std::uint32_t> anchorNodes;
};

/// One processed fracture event. The fragments' bodies inherit the broken body's user pointer and user
/// indices 1–3; FractureSystem::lookup maps a body back to its object and fragment.
struct FractureEvent
{
    ObjectId object = 0;                                        ///< the object that broke
    FragmentId parent = std::numeric_limits<FragmentId>::max(); ///< the fragment that broke
    std::vector<FragmentId> fragments;                          ///< its new fragments with a body
    /// Their bodies, parallel to `fragments`; each valid while its fragment has a body in the system
    /// (null here once DebrisSettings removed it in the same step).
    std::vector<btRigidBody*> fragmentBodies;
    /// The broken body, already out of the world: valid inside FractureSystemSettings::onBreak only,
    /// null afterwards (e.g. in lastStepEvents()).
    const btRigidBody* parentBody = nullptr;
    /// Where the impact acted, world frame, m: its forces' centre weighted by magnitude, at the broken
    /// body's pose when the fragments appeared.
    Eigen::Vector3d impactPoint = Eigen::Vector3d::Zero();
    Real impulse = 0;             ///< the impact's total contact impulse, N·s (≥ 0)
    Real energy = 0;              ///< strain energy of the broken fragment under the impact, J (CVD §3.3)
    std::uint64_t impactStep = 0; ///< internal step of the impact (the system counts steps from 1)
    std::uint64_t step = 0;       ///< internal step at whose boundary the fragments appeared
    double fractureMs = 0;        ///< pipeline time (on a worker), ms
    double updateMs = 0;          ///< swapping in the state its job updated, and the body replacement, ms
    int latencySteps = 0;         ///< internal steps from the impact to the fragments
    std::shared_ptr<const FractureEventStats> details; ///< in-tree diagnostics (not installed)
};

/// Totals of the last internal step (the "fracture" and "update" columns of TVCG Table 3).
struct FractureStepStats
{
    int events = 0;          ///< fracture events processed
    double fractureMs = 0;   ///< pipeline time (deformation, criterion, tessellation), ms
    double updateMs = 0;     ///< swapping in updated states and body replacement (this thread), ms
    Index liveFragments = 0; ///< bodies of the system after the step
    int evaluations = 0;     ///< pipeline runs (bodies with an impact), broken or not
    Real maxWholeEnergy = 0; ///< largest strain energy of the unbroken fragments evaluated (compare with γ)
    int failedEvents = 0;    ///< evaluations that failed (the body stayed whole)
    int bodylessFragments = 0; ///< new fragments without a body (no enclosed volume or no sphere-tree point)
    /// Bodies taken out of the world this step because their transform or velocity was not finite
    /// (each logged; their fragments stay in the object without a body, and never break).
    int nonFiniteBodies = 0;
    std::string lastError; ///< the message of the last failure above ("" if none)
    /// All of onInternalTick on the simulation thread (impacts, submission, waits, updates), ms.
    double mainThreadMs = 0;
    /// Part of mainThreadMs spent on jobs not done by their step (waiting for or running them), ms.
    double waitMs = 0;
    double jobMs = 0;        ///< pipeline time of the jobs completed this step, wherever they ran
    int boundRejections = 0; ///< impacts the cheap bound ruled out on this thread (no job, no solve)
    int unreadyImpacts = 0;  ///< impacts on fragments not ready yet (fragmentReadySteps, fragmentBasisMs)
    int fragmentLimitImpacts = 0; ///< impacts not evaluated: the event could pass maxWorldFragments
    int jobsSubmitted = 0;        ///< impacts handed to the pipeline this step
    int jobsCompleted = 0;        ///< jobs whose result was taken this step (broken, whole or failed)
    int jobsWaited = 0;    ///< of those, not done by their step: the simulation thread waited or ran them
    int pendingJobs = 0;   ///< jobs submitted and not yet completed after the step
    int debrisRemoved = 0; ///< pieces DebrisSettings removed at the end of the step
    int debrisFrozen = 0;  ///< pieces DebrisSettings made static at the end of the step
};

/// What FractureSystem::debugDraw draws (each a switch; the defaults draw nothing).
struct DebugDrawSettings
{
    /// Sphere-tree level whose nodes are drawn as three circles each (TVCG §5.1; 0: the roots), per
    /// piece in its colour; −1: none; default −1.
    int sphereLevel = -1;
    /// Contact points of the system's bodies, through drawContactPoint, plus a line along each normal;
    /// default false.
    bool contacts = false;
    /// The pieces' outlines: surface edges where the faces meet at more than 30° or where a crack face
    /// meets the original surface; default false.
    bool outlines = false;
    /// Length of the contact normals' lines, m, > 0; default 0.02.
    Real normalLength = 0.02;
};

/// The asset an object of a save was made from, by its name (assetInfo(asset).name); null if there is
/// none. FractureSystem::restore checks that it is the very asset the save was made with.
using AssetLookup = std::function<std::shared_ptr<const Asset>(const std::string& name)>;

/// Version of the save format (FractureSystem::save) this build reads and writes.
inline constexpr std::uint32_t kSaveFormatVersion = 2;

/// See the file comment. Neither copyable nor movable: the world's callback points to it.
class FractureSystem
{
public:
    /// Throws shatter::Error for bad settings or a registration of another dispatcher than the world's.
    FractureSystem(btDiscreteDynamicsWorld& world, CollisionRegistration& collision,
                   const FractureSystemSettings& settings = {});
    ~FractureSystem();
    FractureSystem(const FractureSystem&) = delete;
    FractureSystem& operator=(const FractureSystem&) = delete;

    /// Adds an unbroken object of `asset` with its material frame at `placement` (world, a rigid
    /// transform, translation within ±1e6 m), as one body; prepares its deformation model now, not at the
    /// first impact. Throws shatter::Error for bad input.
    ObjectId addObject(std::shared_ptr<const Asset> asset, const Material& material,
                       const Eigen::Isometry3d& placement, const ObjectSettings& settings = {});
    /// Removes the object's bodies from the world and forgets it, with its pieces' cached bases; its
    /// pending job is cancelled (waited for if a worker is running it).
    void removeObject(ObjectId object);
    /// Removes every object.
    void clear();

    /// The objects, in increasing id.
    std::span<const ObjectId> objects() const;
    /// The object's state (its fragments, meshes and fields). Throws shatter::Error for an unknown id.
    const ObjectState& state(ObjectId object) const;
    const Material& material(ObjectId object) const;
    /// O of a live fragment's body: material frame → body frame (centre of mass, principal axes). A
    /// material point x is at T·O·x, T the body's world transform.
    const Eigen::Isometry3d& materialToBody(ObjectId object, FragmentId fragment) const;
    /// The live fragments' bodies of an object (owned by the system).
    std::vector<btRigidBody*> bodies(ObjectId object) const;
    /// A live fragment's closed surface in the material frame, for rendering or export (exportMesh in
    /// shatter/cook.h); `crack`, if given, receives its per-triangle flags (1: a face made by
    /// fracture; empty for the unbroken object). Valid until the fragment breaks or the object goes.
    /// Throws shatter::Error for an unknown object or a fragment that is not alive.
    const TriMesh& surface(ObjectId object, FragmentId fragment,
                           std::span<const std::uint8_t>* crack = nullptr) const;
    /// (object, fragment) of a body the system owns; false for other bodies.
    bool lookup(const btCollisionObject* body, ObjectId& object, FragmentId& fragment) const;

    /// Breaks `fragment` of `object` now with world-frame impulses at world points (a scripted blow),
    /// bypassing contact collection; synchronous. Returns the event if it broke; throws shatter::Error for
    /// bad input. A pending job of the object is completed first (its event is appended to
    /// lastStepEvents()); if it broke `fragment`, the blow returns std::nullopt.
    std::optional<FractureEvent> breakWithImpulses(ObjectId object, FragmentId fragment,
                                                   std::span<const Eigen::Vector3d> points,
                                                   std::span<const Eigen::Vector3d> impulses, Real timeStep);

    /// The state of every object as bytes: its asset's name and content key, material and settings, the
    /// fracture events that made its fragments, its bodies' poses, velocities and sleep state, its
    /// pending job, and the system's step count and schedule; a header with the format version, size
    /// and checksum, as in the asset cache. Between steps, on the simulation thread. The user pointer
    /// of bodies is not saved (a pointer means nothing in another process); user indices are.
    std::vector<std::byte> save() const;
    /// save() written to `file` atomically; throws shatter::Error naming it when it cannot be written.
    void save(const std::filesystem::path& file) const;
    /// Puts a save back into this system, which must hold no objects (and should have the saving system's
    /// settings: the seed, latency and deformation model decide what later impacts do): each object from the
    /// asset that `assets` returns for its name, its fragments rebuilt by replaying its fracture events (the
    /// distance field, grid and sphere trees come out exactly as they were), its bodies added to the
    /// world in the order they had there, and its pending job submitted again. Throws shatter::Error
    /// naming `source` for a truncated, corrupt, wrong-version or inconsistent save, a missing or
    /// different asset, or a system that is not empty; the system then holds no objects.
    void restore(std::span<const std::byte> bytes, const AssetLookup& assets,
                 const std::string& source = "save");
    /// restore() of a file written by save(file).
    void restore(const std::filesystem::path& file, const AssetLookup& assets);

    /// The post-tick work; called by the installed callback or by the program. Never throws.
    void onInternalTick(btScalar timeStep) noexcept;

    /// Events of the last internal step, and the number of events since construction.
    std::span<const FractureEvent> lastStepEvents() const;
    std::size_t totalEvents() const;
    const FractureStepStats& lastStepStats() const;

    /// The settings, editable between steps (enabled, minImpulse, the gate, seed, log); deformation,
    /// metric, workers, latencySteps and fragmentReadySteps are read by the constructor.
    FractureSystemSettings& settings();

    /// The world the system's bodies live in.
    btDiscreteDynamicsWorld& world() const;
    /// Draws what `what` selects through `drawer`, or through the world's debug drawer when null (nothing
    /// without one): call it after the world's debugDrawWorld. Between steps, on the simulation thread.
    void debugDraw(const DebugDrawSettings& what, btIDebugDraw* drawer = nullptr) const;

private:
    friend struct shatter::detail::InternalAccess;
    void tick(btScalar timeStep); // onInternalTick's work; may throw
    struct Impl;
    std::unique_ptr<Impl> impl;
};

} // namespace fracture
} // namespace shatter
