// SceneWorld: a loaded Scene running in a Bullet world with Shatter's collision algorithm and a
// FractureSystem, plus the per-step statistics of TVCG Tables 2-3. shatter_run, the regression tests,
// the benchmarks and the demo all drive scenes through it.
#pragma once

#include "comparison_variants.h"
#include "shatter/cook.h"
#include "shatter/progress.h"
#include "shatter/scenes/scene.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

class btDiscreteDynamicsWorld;
class btRigidBody;

namespace shatter
{
class CollisionRegistration;
}

namespace shatter::scenes
{

/// Collision options of a run (shatter_run flags, demo panel).
struct RunSettings
{
    fracture::FragmentShapeKind collision =
        fracture::FragmentShapeKind::Fracturable;                ///< shatter|gimpact|hull
    ContactMode contacts = ContactMode::Adaptive;                ///< adaptive|full|fixed8
    RestructureMethod restructure = RestructureMethod::Tvcg2013; ///< 2013|2012|rebuild
    std::uint64_t seed = 1;
    bool fracture = true;  ///< false: nothing breaks
    int workers = -1;      ///< FractureSystemSettings::workers; −1: the scene's ("fracture" block)
    int latencySteps = -1; ///< FractureSystemSettings::latencySteps; −1: the scene's
    /// Threads of the narrow phase (ParallelCollisionDispatcher), ≥ 0; 0 all hardware threads; default 1.
    int collisionThreads = 1;
    /// The caller paced the steps to simulated time, as a game loop does (shatter_run --realtime); only
    /// recorded in the summary: SceneWorld itself never waits.
    bool realtime = false;
    /// Steps history() keeps, ≥ 0: with N > 0 the oldest go once it holds 2N, so a long session (the
    /// demo, the soak) does not grow with its step count; summary() then covers the steps kept.
    /// Default 0: every step.
    int historyLimit = 0;
    /// Where built assets are cached (empty: $SHATTER_ASSET_CACHE, else the build tree's scene_assets/).
    std::filesystem::path assetCacheDir;
    /// Reports asset builds (the first run of a mesh takes seconds); may be empty.
    ProgressCallback assetProgress;
    /// Told, with the file and the reason, when a cache file exists but is unusable and gets rebuilt
    /// (corrupt, truncated, another format version); may be empty.
    std::function<void(std::string_view message)> assetWarning;
};

/// Names of the run options as shatter_run spells them ("shatter", "adaptive", "2013", ...).
std::string_view collisionName(fracture::FragmentShapeKind kind);
std::string_view contactsName(ContactMode mode);
std::string_view restructureName(RestructureMethod method);
/// The inverse of the above; std::nullopt for an unknown name.
std::optional<fracture::FragmentShapeKind> parseCollision(std::string_view name);
std::optional<ContactMode> parseContacts(std::string_view name);
std::optional<RestructureMethod> parseRestructure(std::string_view name);

/// One internal step's statistics: TVCG Table 3 timings (ms) and Table 2 counts.
struct StepStats
{
    int step = 0;
    double time = 0; ///< simulated s at the end of the step
    double totalMs = 0;
    double collisionMs = 0;      ///< broad + narrow phase
    double physicsMs = 0;        ///< total − collision − update − fracture
    double updateMs = 0;         ///< collision-structure updates at fracture
    double fractureMs = 0;       ///< fracture work: impact evaluation (criterion) and the pipeline of breaks
    long outputContacts = 0;     ///< contact points handed to the solver
    long collidingPoints = 0;    ///< sphere-tree points found within ε (Full mode: all of them)
    long bodyPairs = 0;          ///< pairs with at least one contact
    long budgetLimitedPairs = 0; ///< pairs that kept fewer contacts for CollisionSettings::maxContactsPerStep
    long fragments = 0;          ///< live fracturable bodies
    long triangles = 0;          ///< surface triangles of those bodies
    int fractureEvents = 0;
    int failedEvents = 0;         ///< fracture pipeline failures this step (the body stayed whole)
    int bodylessFragments = 0;    ///< new fragments that could not become bodies this step
    int nonFiniteBodies = 0;      ///< bodies whose transform or velocity turned non-finite (taken out)
    int fractureEvaluations = 0;  ///< impacts run through the fracture criterion (broken or not)
    int boundRejections = 0;      ///< impacts the cheap bound ruled out before any job (not evaluated)
    int unreadyImpacts = 0;       ///< impacts on fragments younger than fragmentReadySteps (not evaluated)
    int fragmentLimitImpacts = 0; ///< impacts not evaluated: the event could pass maxWorldFragments
    double maxImpactEnergy = 0;   ///< largest E_D(N = 1) of those runs: compare with the material's γ
    double fractureMainMs =
        0; ///< all fracture work on the simulation thread (FractureStepStats::mainThreadMs)
    double fractureJobMs = 0;     ///< pipeline time of the fracture jobs completed this step (on the workers)
    double fractureWaitMs = 0;    ///< part of fractureMainMs spent on jobs not done by their step
    int fractureLatencySteps = 0; ///< largest latency of the events this step (internal steps)
    double maxPenetration = 0;    ///< m, deepest contact this step
    double lowestBodyY = 0;       ///< m, lowest body origin this step (fall-through check)
};

/// Averages and maxima over a run, plus the final-state hash (shatter_run --json).
struct RunSummary
{
    std::string scene;
    RunSettings options;     ///< the run's options (assetProgress and assetWarning cleared)
    double timeStep = 0;     ///< s
    double groundHeight = 0; ///< y of the ground (lowestBodyY below it: something fell through)
    bool groundPresent = true;
    int steps = 0;
    double simulatedSeconds = 0;
    StepStats mean; ///< per column (counts as doubles rounded)
    StepStats max;
    double medianTotalMs = 0;
    double maxOverMedian = 0; ///< max total_ms / median total_ms
    /// max over steps of (total_ms − collision_ms) / median total_ms: the spikes that are not collision
    /// detection (fracture waits, updates)
    double maxWithoutCollisionOverMedian = 0;
    long fractureEvents = 0;
    long finalFragments = 0;
    double maxPenetration = 0;
    double lowestBodyY = 0;
    std::string stateHash; ///< 16 hex digits over every body's transform and velocity bits, in a stable order
    long failedEvents = 0; ///< fracture pipeline failures (the body stayed whole)
    long bodylessFragments = 0;  ///< fragments that could not become bodies
    long nonFiniteBodies = 0;    ///< bodies that turned non-finite (shatter_run then exits with status 3)
    long budgetLimitedPairs = 0; ///< pair evaluations cut by the step's contact budget (shatter_run warns)
    long fragmentLimitImpacts =
        0; ///< impacts not evaluated for the world's fragment limit (shatter_run warns)
};

/// Summary of a run's history (SceneWorld::summary computes it from its own history).
RunSummary summarize(const std::vector<StepStats>& history);

class SceneWorld
{
public:
    /// Builds assets (through the asset cache), the world, the ground and the objects. Throws
    /// shatter::Error naming the scene file for bad assets.
    SceneWorld(const Scene& scene, const RunSettings& options = {});
    ~SceneWorld();

    /// Advances one internal step (applying due events first) and returns its statistics.
    const StepStats& step();
    /// Restores the scene's initial state. Rebuilds the Bullet world: references from world() and
    /// fracture() and body pointers taken before are invalid afterwards.
    void reset();
    /// Takes every object and ball out and puts the scene's objects back at their initial poses, with
    /// the scene's events replayed from now on, in the same Bullet world and FractureSystem (a level
    /// section reloaded in a running game; the soak's rounds). Time, step count and history go on;
    /// pointers to the removed bodies are invalid afterwards. Throws like the constructor.
    void respawn();

    /// The run between steps as bytes (see scene_save.cpp): the scene's progress (step count, event
    /// cursor, balls), the FractureSystem's save and the Bullet world's contact state, framed and
    /// versioned like the asset cache. A SceneWorld of the same scene and run settings that restores it
    /// continues the run bit for bit. Throws shatter::Error if the world holds something a save cannot
    /// carry.
    std::vector<std::byte> save();
    /// save() written atomically to `file`; throws shatter::Error naming the file.
    void save(const std::filesystem::path& file);
    /// Replaces what this world holds with a save (objects, fragments, balls, contacts, step count;
    /// history() starts empty). Throws shatter::Error naming `source` for a save of another scene, run
    /// settings or build, or corrupt bytes; the world then holds no objects or balls.
    void restore(std::span<const std::byte> bytes, const std::string& source = "save");
    /// restore() of a file written by save(file).
    void restore(const std::filesystem::path& file);

    const Scene& scene() const;
    const RunSettings& options() const;
    double time() const;
    int stepCount() const;
    const std::vector<StepStats>& history() const;
    RunSummary summary() const;
    std::string stateHash() const;

    btDiscreteDynamicsWorld& world();
    /// Shatter's registration with the world's dispatcher (settings, statistics).
    CollisionRegistration& collision();
    fracture::FractureSystem& fracture();

    /// Interactive additions (demo): a ball thrown from `position` with `velocity` (world frame).
    btRigidBody* spawnBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity,
                           double radius = 0.05, double density = 7800);
    /// Adds an object described like a scene object (e.g. a user mesh in the demo).
    fracture::ObjectId addObject(const SceneObject& object);

private:
    struct Impl;
    std::unique_ptr<Impl> impl;
};

/// Writes every live piece of the world's objects (fracturable bodies with a mesh) to `dir` (created if
/// missing) as SCENE_objectO_fragmentF.gltf (or .obj) at its world pose, crack faces as their own
/// material (exportMesh). Returns the number of files. Throws shatter::Error naming the file or folder.
int exportFragments(SceneWorld& world, const std::filesystem::path& dir, MeshFormat format);

/// Hands the allocator's free memory back to the OS (glibc's malloc_trim; nothing elsewhere). Call it
/// after destroying a SceneWorld, as a game does at a level change: glibc keeps what a world freed in
/// the arena of the thread that allocated it, so without it the next world's resident size stacks on
/// top of the last one's (docs/fuzzing.md, "Soak"). Costs a few milliseconds.
void releaseFreedMemory();

/// Writes the per-step CSV (header: the StepStats field names) and the JSON summary. Throw
/// shatter::Error naming the file if it cannot be written.
void writeCsv(const std::filesystem::path& file, const std::vector<StepStats>& history);
void writeSummaryJson(const std::filesystem::path& file, const RunSummary& summary);
/// The JSON summary as text (what writeSummaryJson writes).
std::string summaryJson(const RunSummary& summary);

} // namespace shatter::scenes
