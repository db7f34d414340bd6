// Scene files: one JSON format and one loader for shatter_run, the
// regression tests, the benchmarks and the demo. A scene is plain data: objects placed in the world,
// a ground, the time step, and scripted events. Format: docs/scenes.md.
#pragma once

#include "shatter/fracture/material.h"
#include "shatter/fracture_system.h"

#include <Eigen/Geometry>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shatter::scenes
{

/// One object of a scene.
struct SceneObject
{
    std::string name;  ///< for stats and messages (default: asset name + index)
    std::string asset; ///< procedural asset name (piggy_bank, plate, brick, shelf, ball) or a mesh path
    Eigen::Isometry3d placement = Eigen::Isometry3d::Identity(); ///< material frame → world
    fracture::Material material;
    bool dynamic = true;
    bool fracturable = true;
    Eigen::Vector3d linearVelocity = Eigen::Vector3d::Zero();
    Eigen::Vector3d angularVelocity = Eigen::Vector3d::Zero();
    double friction = 0.5;  ///< Bullet friction coefficient, ≥ 0
    double restitution = 0; ///< Bullet restitution, in [0, 1]
};

/// Scripted events, applied at the start of the first step whose time reaches `time`.
struct SceneEvent
{
    enum class Kind
    {
        SpawnBall,   ///< a (non-fracturable, rigid sphere) ball at `position` with `velocity`
        SpawnObject, ///< `object` at its placement
        Impulse,     ///< `impulse` at world `position` on the body of object `target` nearest to it
    };
    Kind kind = Kind::SpawnBall;
    double time = 0; ///< s
    Eigen::Vector3d position = Eigen::Vector3d::Zero();
    Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
    Eigen::Vector3d impulse = Eigen::Vector3d::Zero();
    double radius = 0.05;              ///< SpawnBall: m
    double density = 7800;             ///< SpawnBall: kg/m³
    std::string target;                ///< Impulse: object name
    std::optional<SceneObject> object; ///< SpawnObject
};

struct SceneGround
{
    bool present = true;
    double height = 0; ///< y of the ground plane (y is up, as in Bullet's examples)
    double friction = 0.6;
    /// "plane" (btStaticPlaneShape), "box" (a large static box) or "mesh" (static triangle mesh)
    std::string shape = "plane";
};

struct Scene
{
    std::string name;
    std::filesystem::path file; ///< where it was loaded from (empty for built-in)
    double timeStep = 1.0 / 60; ///< s, Bullet's fixed internal step
    int substeps = 1;           ///< internal steps per frame
    double duration = 5;        ///< s, default run length of shatter_run and the tests
    Eigen::Vector3d gravity{0, -9.81, 0};
    SceneGround ground;
    std::vector<SceneObject> objects;
    std::vector<SceneEvent> events;            ///< sorted by time
    fracture::FractureSystemSettings fracture; ///< deformation, metric, the gate (seed: the runner's)
    int solverIterations = 10;                 ///< Bullet's sequential-impulse iterations per step
};

/// Loads a scene file. Throws shatter::Error naming the file, the JSON path (e.g. /objects/3/material/
/// toughness) and the problem for unreadable files, bad JSON, unknown keys, wrong types and bad values.
Scene loadScene(const std::filesystem::path& file);
/// Parses scene JSON text; `file` names it in errors and anchors relative mesh paths.
Scene parseScene(const std::string& text, const std::filesystem::path& file);

/// The scene files shipped in assets/scenes (piggy_bank, bricks, plates, drop_piggies, ...), by name.
std::vector<std::string> builtInSceneNames();
/// Path of a shipped scene by name (assets/scenes/NAME.json); throws if there is none.
std::filesystem::path builtInScenePath(const std::string& name);
/// What a command line's scene argument (shatter_run SCENE, shatter_demo --scene) names: an existing file,
/// else the shipped scene of that name. Anything else throws shatter::Error listing the shipped scenes, so
/// that a typo is an error and never another scene. Text with a directory or an extension is a file name.
std::filesystem::path resolveScenePath(const std::string& argument);
/// Where shipped scenes and meshes live: $SHATTER_ASSET_DIR, else the source tree's assets/.
std::filesystem::path assetDirectory();
/// The mesh file of a SceneObject::asset: a procedural asset name maps to assets/meshes/NAME.obj, anything
/// else is a path, relative to the scene file's directory. Throws shatter::Error if it does not exist.
std::filesystem::path resolveMesh(const std::string& asset, const std::filesystem::path& sceneFile);

} // namespace shatter::scenes
