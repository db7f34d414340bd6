// loadScene / parseScene: JSON → Scene (format: docs/scenes.md). Every key is checked against the keys
// its object may have, every value against its type and range, and every failure names the file and
// the JSON pointer of the offending value, e.g.
//     assets/scenes/x.json: /objects/3/material/toughness: must be > 0, found -1
#include "json_reader.h"
#include "shatter/error.h"
#include "shatter/scenes/scene.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace shatter::scenes
{

namespace
{

constexpr double kDegree = 3.14159265358979323846 / 180;

// Sane ranges (docs/scenes.md, "Ranges"): a value outside them is a typo, not a scene, and the solver,
// the step count and memory all assume them.
constexpr double kMaxCoordinate = 1e4;                  // m: positions, the ground height
constexpr double kMaxSpeed = 1e3;                       // m/s and rad/s, per component
constexpr double kMaxGravity = 1e3;                     // m/s², per component
constexpr double kMinDensity = 1e-3, kMaxDensity = 1e6; // kg/m³
constexpr double kMaxYoungsModulus = 1e13;              // Pa
constexpr double kMaxFriction = 100;
constexpr double kMinBallRadius = 1e-4, kMaxBallRadius = 100; // m
constexpr double kMaxImpulse = 1e6;                           // N·s, per component
constexpr double kMinTimeStep = 1e-5, kMaxTimeStep = 0.1;     // s
constexpr double kMaxDuration = 1e5;                          // s, also the latest event time
constexpr double kMaxVolume = 1e6;                            // m³: debris volume thresholds
constexpr double kMaxSteps = 1e9;                             // duration / time_step
constexpr int kMaxSubsteps = 1000;
constexpr int kMaxSolverIterations = 10000;
constexpr std::size_t kMaxEntries = 10000; // objects, and events

fracture::Material readMaterial(const JsonNode& node)
{
    node.allowOnly({"preset", "density", "youngs_modulus", "poisson_ratio", "toughness", "energy_exponent",
                    "max_fragments", "min_fragment_volume"});
    fracture::Material m;
    if (auto preset = node.find("preset"))
    {
        const std::string name = preset->string();
        if (name == "glass")
            m = fracture::glass();
        else if (name != "default")
            preset->fail("unknown material preset \"" + name + "\" (expected glass or default)");
    }
    readOptionalInRange(node, "density", m.density, kMinDensity, kMaxDensity);
    readOptionalInRange(node, "youngs_modulus", m.youngsModulus, 0, kMaxYoungsModulus, true);
    readOptionalInRange(node, "poisson_ratio", m.poissonRatio, -1, 0.49, true);
    readOptionalInRange(node, "toughness", m.toughness, 0, std::nullopt, true);
    readOptionalInRange(node, "energy_exponent", m.energyExponent, 0);
    readOptionalInRange(node, "min_fragment_volume", m.minFragmentVolume, 0);
    readOptionalInRange(node, "max_fragments", m.maxFragments, 2, 1 << 16);
    return m;
}

Eigen::Matrix3d readRotation(const JsonNode& node)
{
    const Eigen::Vector3d degrees = node.vector3(1e6);
    return (Eigen::AngleAxisd(degrees.z() * kDegree, Eigen::Vector3d::UnitZ()) *
            Eigen::AngleAxisd(degrees.y() * kDegree, Eigen::Vector3d::UnitY()) *
            Eigen::AngleAxisd(degrees.x() * kDegree, Eigen::Vector3d::UnitX()))
        .toRotationMatrix();
}

SceneObject readObject(const JsonNode& node, const std::string& defaultName)
{
    node.allowOnly({"name", "asset", "position", "rotation_degrees", "material", "dynamic", "fracturable",
                    "linear_velocity", "angular_velocity", "friction", "restitution"});
    SceneObject o;
    o.asset = node["asset"].string();
    if (o.asset.empty())
        node["asset"].fail("must not be empty");
    o.name = defaultName;
    readOptional(node, "name", o.name);
    Eigen::Vector3d position = Eigen::Vector3d::Zero();
    readOptionalWithin(node, "position", position, kMaxCoordinate);
    o.placement = Eigen::Isometry3d::Identity();
    if (auto r = node.find("rotation_degrees"))
        o.placement.linear() = readRotation(*r);
    o.placement.translation() = position;
    if (auto m = node.find("material"))
        o.material = readMaterial(*m);
    readOptional(node, "dynamic", o.dynamic);
    readOptional(node, "fracturable", o.fracturable);
    readOptionalWithin(node, "linear_velocity", o.linearVelocity, kMaxSpeed);
    readOptionalWithin(node, "angular_velocity", o.angularVelocity, kMaxSpeed);
    readOptionalInRange(node, "friction", o.friction, 0, kMaxFriction);
    readOptionalInRange(node, "restitution", o.restitution, 0, 1.0);
    return o;
}

SceneGround readGround(const JsonNode& node)
{
    node.allowOnly({"present", "height", "friction", "shape"});
    SceneGround g;
    readOptional(node, "present", g.present);
    readOptionalInRange(node, "height", g.height, -kMaxCoordinate, kMaxCoordinate);
    readOptionalInRange(node, "friction", g.friction, 0, kMaxFriction);
    if (auto shape = node.find("shape"))
    {
        g.shape = shape->string();
        if (g.shape != "plane" && g.shape != "box" && g.shape != "mesh")
            shape->fail("unknown ground shape \"" + g.shape + "\" (expected plane, box or mesh)");
    }
    return g;
}

void readDebris(const JsonNode& node, fracture::DebrisSettings& d)
{
    node.allowOnly({"max_bodies", "remove_below_volume", "freeze_below_volume", "remove_after_sleeping"});
    readOptionalInRange(node, "max_bodies", d.maxBodies, 0, 1000000);
    readOptionalInRange(node, "remove_below_volume", d.removeBelowVolume, 0, kMaxVolume);
    readOptionalInRange(node, "freeze_below_volume", d.freezeBelowVolume, 0, kMaxVolume);
    readOptionalInRange(node, "remove_after_sleeping", d.removeAfterSleeping, 0, kMaxDuration, true);
}

void readFracture(const JsonNode& node, fracture::FractureSystemSettings& s)
{
    node.allowOnly({"enabled", "max_events_per_step", "min_impulse", "evaluate_every_step", "impulse_growth",
                    "held_impulse_decay", "deformation", "metric", "workers", "latency_steps",
                    "fragment_ready_steps", "fragment_basis_ms", "max_world_fragments",
                    "continuous_collision", "debris"});
    readOptional(node, "enabled", s.enabled);
    readOptional(node, "continuous_collision", s.continuousCollision);
    readOptionalInRange(node, "max_events_per_step", s.maxEventsPerStep, 1, int(kMaxEntries));
    readOptionalInRange(node, "max_world_fragments", s.maxWorldFragments, 1, 1000000);
    readOptionalInRange(node, "min_impulse", s.minImpulse, 0, kMaxImpulse);
    readOptional(node, "evaluate_every_step", s.evaluateEveryStep);
    readOptionalInRange(node, "impulse_growth", s.impulseGrowth, 1, 1e6);
    readOptionalInRange(node, "held_impulse_decay", s.heldImpulseDecay, 0, 1.0, true);
    readOptionalInRange(node, "workers", s.workers, 0, 256);
    readOptionalInRange(node, "latency_steps", s.latencySteps, 0, 1000);
    readOptionalInRange(node, "fragment_ready_steps", s.fragmentReadySteps, 0, 1000000);
    readOptionalInRange(node, "fragment_basis_ms", s.fragmentBasisMs, 0, 1e6);
    if (auto d = node.find("debris"))
        readDebris(*d, s.debris);
    if (auto v = node.find("deformation"))
    {
        const std::string model = v->string();
        if (model == "fem")
            s.deformation = fracture::DeformationModel::Fem;
        else if (model == "modal")
            s.deformation = fracture::DeformationModel::Modal;
        else
            v->fail("unknown deformation model \"" + model + "\" (expected fem or modal)");
    }
    if (auto v = node.find("metric"))
    {
        const std::string metric = v->string();
        if (metric == "auto")
            s.metric = fracture::FractureMetric::Auto;
        else if (metric == "euclidean")
            s.metric = fracture::FractureMetric::Euclidean;
        else if (metric == "interior")
            s.metric = fracture::FractureMetric::Interior;
        else
            v->fail("unknown metric \"" + metric + "\" (expected auto, euclidean or interior)");
    }
}

SceneEvent readEvent(const JsonNode& node, std::size_t index)
{
    SceneEvent e;
    const JsonNode kind = node["kind"];
    const std::string name = kind.string();
    if (name == "spawn_ball")
    {
        node.allowOnly({"kind", "time", "position", "velocity", "radius", "density"});
        e.kind = SceneEvent::Kind::SpawnBall;
        e.position = node["position"].vector3(kMaxCoordinate);
        readOptionalWithin(node, "velocity", e.velocity, kMaxSpeed);
        readOptionalInRange(node, "radius", e.radius, kMinBallRadius, kMaxBallRadius);
        readOptionalInRange(node, "density", e.density, kMinDensity, kMaxDensity);
    }
    else if (name == "spawn_object")
    {
        node.allowOnly({"kind", "time", "object"});
        e.kind = SceneEvent::Kind::SpawnObject;
        e.object = readObject(node["object"], "event" + std::to_string(index));
    }
    else if (name == "impulse")
    {
        node.allowOnly({"kind", "time", "target", "position", "impulse"});
        e.kind = SceneEvent::Kind::Impulse;
        e.target = node["target"].string();
        e.position = node["position"].vector3(kMaxCoordinate);
        e.impulse = node["impulse"].vector3(kMaxImpulse);
    }
    else
        kind.fail("unknown event kind \"" + name + "\" (expected spawn_ball, spawn_object or impulse)");
    e.time = node["time"].number(0, kMaxDuration);
    return e;
}

Scene readScene(const JsonNode& root, const std::filesystem::path& file)
{
    root.allowOnly({"name", "description", "time_step", "substeps", "duration", "gravity",
                    "solver_iterations", "ground", "fracture", "objects", "events"});
    Scene scene;
    scene.file = file;
    scene.name = file.stem().string();
    readOptional(root, "name", scene.name);
    if (auto d = root.find("description"))
        d->string(); // free text, type-checked only
    readOptionalInRange(root, "time_step", scene.timeStep, kMinTimeStep, kMaxTimeStep);
    readOptionalInRange(root, "substeps", scene.substeps, 1, kMaxSubsteps);
    readOptionalInRange(root, "duration", scene.duration, 0, kMaxDuration, true);
    if (const double steps = scene.duration / scene.timeStep; steps > kMaxSteps)
    {
        char text[96];
        std::snprintf(text, sizeof text, "duration / time_step is %.3g steps, more than %.3g", steps,
                      kMaxSteps);
        (root.find("duration") ? *root.find("duration") : root).fail(text);
    }
    readOptionalWithin(root, "gravity", scene.gravity, kMaxGravity);
    readOptionalInRange(root, "solver_iterations", scene.solverIterations, 1, kMaxSolverIterations);
    if (auto g = root.find("ground"))
        scene.ground = readGround(*g);
    if (auto f = root.find("fracture"))
        readFracture(*f, scene.fracture);

    std::set<std::string> names;
    auto addName = [&](const JsonNode& node, const std::string& name)
    {
        if (!names.insert(name).second)
            node.fail("duplicate object name \"" + name + "\"");
    };
    for (const char* list : {"objects", "events"})
        if (auto v = root.find(list); v && v->size() > kMaxEntries)
            v->fail("has " + std::to_string(v->size()) + " entries, more than " +
                    std::to_string(kMaxEntries));
    if (auto objects = root.find("objects"))
        for (std::size_t i = 0; i < objects->size(); ++i)
        {
            const JsonNode node = (*objects)[i];
            SceneObject o = readObject(node, "");
            if (o.name.empty())
                o.name = o.asset + std::to_string(i);
            addName(node, o.name);
            scene.objects.push_back(std::move(o));
        }
    if (auto events = root.find("events"))
        for (std::size_t i = 0; i < events->size(); ++i)
        {
            const JsonNode node = (*events)[i];
            SceneEvent e = readEvent(node, i);
            if (e.object)
                addName(node["object"], e.object->name);
            scene.events.push_back(std::move(e));
        }
    // Impulse targets must name an object of the scene (placed or spawned).
    for (std::size_t i = 0; i < scene.events.size(); ++i)
        if (scene.events[i].kind == SceneEvent::Kind::Impulse && !names.contains(scene.events[i].target))
            (*root.find("events"))[i]["target"].fail("no object named \"" + scene.events[i].target + "\"");
    std::stable_sort(scene.events.begin(), scene.events.end(),
                     [](const SceneEvent& a, const SceneEvent& b) { return a.time < b.time; });
    // Mesh files must exist (a typo is caught at load time, not when the world is built).
    auto checkAsset = [&](const SceneObject& o, const JsonNode& node)
    {
        try
        {
            resolveMesh(o.asset, file);
        }
        catch (const Error& e)
        {
            node["asset"].fail(e.problem());
        }
    };
    if (auto objects = root.find("objects"))
        for (std::size_t i = 0; i < objects->size(); ++i)
            checkAsset(scene.objects[i], (*objects)[i]);
    if (auto events = root.find("events"))
        for (std::size_t i = 0; i < events->size(); ++i)
            if (auto object = (*events)[i].find("object"))
                checkAsset(readObject(*object, ""), *object);
    return scene;
}

} // namespace

Scene parseScene(const std::string& text, const std::filesystem::path& file)
{
    const nlohmann::json json = parseJson(text, file);
    return readScene(JsonNode(json, "", file), file);
}

Scene loadScene(const std::filesystem::path& file)
{
    if (std::error_code ec; std::filesystem::is_directory(file, ec))
        throw Error(file.string(), "is a directory, not a scene file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw Error(file.string(), std::filesystem::exists(file) ? "cannot be read" : "no such file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw Error(file.string(), "read error");
    return parseScene(text.str(), file);
}

} // namespace shatter::scenes
