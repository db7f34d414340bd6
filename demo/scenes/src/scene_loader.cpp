// loadScene / parseScene: JSON → Scene (format: docs/scenes.md). Every key is checked against the keys
// its object may have, every value against its type and range, and every failure names the file and
// the JSON pointer of the offending value, e.g.
//     assets/scenes/x.json: /objects/3/material/toughness: must be > 0, found -1
#include "json_reader.h"
#include "shatter/error.h"
#include "shatter/scenes/scene.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace shatter::scenes
{

namespace
{

constexpr double kDegree = 3.14159265358979323846 / 180;

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
    readOptionalInRange(node, "density", m.density, 0, std::nullopt, true);
    readOptionalInRange(node, "youngs_modulus", m.youngsModulus, 0, std::nullopt, true);
    readOptionalInRange(node, "poisson_ratio", m.poissonRatio, -1, 0.49, true);
    readOptionalInRange(node, "toughness", m.toughness, 0, std::nullopt, true);
    readOptionalInRange(node, "energy_exponent", m.energyExponent, 0);
    readOptionalInRange(node, "min_fragment_volume", m.minFragmentVolume, 0);
    if (auto v = node.find("max_fragments"))
    {
        m.maxFragments = v->integer();
        if (m.maxFragments < 2)
            v->fail("must be >= 2, found " + std::to_string(m.maxFragments));
    }
    return m;
}

Eigen::Matrix3d readRotation(const JsonNode& node)
{
    const Eigen::Vector3d degrees = node.vector3();
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
    readOptional(node, "position", position);
    o.placement = Eigen::Isometry3d::Identity();
    if (auto r = node.find("rotation_degrees"))
        o.placement.linear() = readRotation(*r);
    o.placement.translation() = position;
    if (auto m = node.find("material"))
        o.material = readMaterial(*m);
    readOptional(node, "dynamic", o.dynamic);
    readOptional(node, "fracturable", o.fracturable);
    readOptional(node, "linear_velocity", o.linearVelocity);
    readOptional(node, "angular_velocity", o.angularVelocity);
    readOptionalInRange(node, "friction", o.friction, 0);
    readOptionalInRange(node, "restitution", o.restitution, 0, 1.0);
    return o;
}

SceneGround readGround(const JsonNode& node)
{
    node.allowOnly({"present", "height", "friction", "shape"});
    SceneGround g;
    readOptional(node, "present", g.present);
    readOptional(node, "height", g.height);
    readOptionalInRange(node, "friction", g.friction, 0);
    if (auto shape = node.find("shape"))
    {
        g.shape = shape->string();
        if (g.shape != "plane" && g.shape != "box" && g.shape != "mesh")
            shape->fail("unknown ground shape \"" + g.shape + "\" (expected plane, box or mesh)");
    }
    return g;
}

void readFracture(const JsonNode& node, fracture::FractureSystemSettings& s)
{
    node.allowOnly({"enabled", "max_events_per_step", "min_impulse", "evaluate_every_step", "impulse_growth",
                    "held_impulse_decay", "deformation", "metric", "workers", "latency_steps",
                    "fragment_ready_steps", "fragment_basis_ms"});
    readOptional(node, "enabled", s.enabled);
    if (auto v = node.find("max_events_per_step"))
    {
        s.maxEventsPerStep = v->integer();
        if (s.maxEventsPerStep < 1)
            v->fail("must be >= 1");
    }
    readOptionalInRange(node, "min_impulse", s.minImpulse, 0);
    readOptional(node, "evaluate_every_step", s.evaluateEveryStep);
    readOptionalInRange(node, "impulse_growth", s.impulseGrowth, 1);
    readOptionalInRange(node, "held_impulse_decay", s.heldImpulseDecay, 0, 1.0, true);
    if (auto v = node.find("workers"))
    {
        s.workers = v->integer();
        if (s.workers < 0)
            v->fail("must be >= 0");
    }
    if (auto v = node.find("latency_steps"))
    {
        s.latencySteps = v->integer();
        if (s.latencySteps < 0)
            v->fail("must be >= 0");
    }
    if (auto v = node.find("fragment_ready_steps"))
    {
        s.fragmentReadySteps = v->integer();
        if (s.fragmentReadySteps < 0)
            v->fail("must be >= 0");
    }
    if (auto v = node.find("fragment_basis_ms"))
    {
        s.fragmentBasisMs = v->number();
        if (s.fragmentBasisMs < 0)
            v->fail("must be >= 0");
    }
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
        e.position = node["position"].vector3();
        readOptional(node, "velocity", e.velocity);
        readOptionalInRange(node, "radius", e.radius, 0, std::nullopt, true);
        readOptionalInRange(node, "density", e.density, 0, std::nullopt, true);
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
        e.position = node["position"].vector3();
        e.impulse = node["impulse"].vector3();
    }
    else
        kind.fail("unknown event kind \"" + name + "\" (expected spawn_ball, spawn_object or impulse)");
    e.time = node["time"].number();
    if (e.time < 0)
        node["time"].fail("must be >= 0");
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
    readOptionalInRange(root, "time_step", scene.timeStep, 0, 0.1, true);
    if (auto v = root.find("substeps"))
    {
        scene.substeps = v->integer();
        if (scene.substeps < 1)
            v->fail("must be >= 1");
    }
    readOptionalInRange(root, "duration", scene.duration, 0, std::nullopt, true);
    readOptional(root, "gravity", scene.gravity);
    if (auto v = root.find("solver_iterations"))
    {
        scene.solverIterations = v->integer();
        if (scene.solverIterations < 1)
            v->fail("must be >= 1");
    }
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
    nlohmann::json json;
    try
    {
        json = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        // e.byte is the offset of the error; give line and column, which editors show.
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i)
        {
            if (text[i] == '\n')
            {
                ++line;
                column = 1;
            }
            else
                ++column;
        }
        std::string what = e.what();
        const auto pos = what.find("parse error");
        throw Error(file.string(), "invalid JSON at line " + std::to_string(line) + ", column " +
                                       std::to_string(column) + ": " +
                                       (pos == std::string::npos ? what : what.substr(pos)));
    }
    return readScene(JsonNode(json, "", file), file);
}

Scene loadScene(const std::filesystem::path& file)
{
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
