// The running scene: a SceneWorld stepped in real time (or frame by frame headless), the editable copy
// of its Scene and RunSettings the panels change (applied by a restart), user meshes, thrown balls, and
// grabbing a fragment with the mouse.
#pragma once

#include "log.h"
#include "mesh_loader.h"

#include "shatter/scenes/scene.h"
#include "shatter/scenes/scene_world.h"

#include <Eigen/Geometry>

#include <memory>
#include <optional>
#include <string>

namespace shatter::demo
{

/// Settings of the balls the mouse drops and throws.
struct BallSettings
{
    float radius = 0.04f;    ///< m
    float density = 7800;    ///< kg/m³ (steel)
    float dropHeight = 0.6f; ///< m above the point under the cursor
    float throwGain = 1.5f;  ///< launch velocity per cursor velocity (m/s on the drag plane)
};

class Simulation
{
public:
    explicit Simulation(Log& log);
    ~Simulation();

    /// Starts loading a scene (assets may take seconds to build the first time); the current world keeps
    /// running until the new one is ready. False if another load is running.
    bool load(scenes::Scene scene, scenes::RunSettings options);
    /// Rebuilds the world from the editable scene and options (reset, and applying panel changes).
    bool restart();
    /// Validates and builds a user mesh in the background, then drops it into the running world.
    bool addMesh(const std::filesystem::path& file);
    /// Picks up finished background work; call once per frame on the main thread.
    void update();
    /// Waits for background work and picks it up (headless runs).
    void finishLoading();

    bool busy() const { return jobs.busy(); }
    const BackgroundJobs& background() const { return jobs; }
    scenes::SceneWorld* world() { return current.get(); }
    const scenes::SceneWorld* world() const { return current.get(); }
    /// Increments whenever the world is replaced (caches keyed on bodies must be dropped).
    int generation() const { return worldGeneration; }

    scenes::Scene& editableScene() { return scene; }
    scenes::RunSettings& editableSettings() { return options; }
    /// The last user-mesh or scene error ("" if the last attempt worked), for the UI.
    const std::string& lastError() const { return errorText; }
    void clearError() { errorText.clear(); }

    /// ε of TVCG §5.2 as a fraction of the smaller object's radius (RunSettings has no field for it: the
    /// demo re-registers the collision algorithm with it on every new world; pairs created from then on
    /// use it).
    float toleranceFraction = 0.002f;
    void applyCollisionSettings();

    // Stepping.
    bool paused = false;
    float speed = 1; ///< simulated seconds per real second
    /// Steps as many fixed internal steps as `realSeconds` × speed calls for (at most 4 per call).
    void advance(double realSeconds);
    /// One internal step (also while paused).
    void stepOnce();

    // Balls.
    BallSettings balls;
    /// Material of user meshes added from now on (the Material panel edits it; glass by default).
    fracture::Material newObjectMaterial;
    void dropBall(const Eigen::Vector3d& position, const Eigen::Vector3d& velocity);

    // Grabbing: a fragment or ball follows the cursor through velocity control applied before each step.
    /// Grabs the body hit by the ray; returns the world hit point.
    std::optional<Eigen::Vector3d> grab(const Eigen::Vector3d& from, const Eigen::Vector3d& to);
    void moveGrab(const Eigen::Vector3d& target) { grabTarget = target; }
    void release();
    bool grabbing() const { return grabbed.has_value(); }
    /// World position of the grabbed point, if still alive.
    std::optional<Eigen::Vector3d> grabPoint();
    std::optional<Eigen::Vector3d> grabTargetPoint() const
    {
        return grabbed ? std::optional<Eigen::Vector3d>(grabTarget) : std::nullopt;
    }

    /// Fragments (live fracturable bodies) right after the current world was loaded.
    long initialFragments() const { return startFragments; }
    /// Live fracturable bodies now.
    long currentFragments();

private:
    struct Grab
    {
        bool fragment = true;
        fracture::ObjectId object = 0;
        FragmentId id = 0;
        const btRigidBody* ball = nullptr;
        Eigen::Vector3d local = Eigen::Vector3d::Zero(); ///< material frame (fragment) or body frame (ball)
    };
    btRigidBody* grabbedBody(Eigen::Isometry3d& frame);
    void applyGrab();
    void adopt(JobResult&& result);

    Log& log;
    BackgroundJobs jobs;
    std::unique_ptr<scenes::SceneWorld> current;
    scenes::Scene scene;
    scenes::RunSettings options;
    std::string errorText;
    int worldGeneration = 0;
    double accumulator = 0;
    long startFragments = 0;
    std::optional<Grab> grabbed;
    Eigen::Vector3d grabTarget = Eigen::Vector3d::Zero();
};

} // namespace shatter::demo
