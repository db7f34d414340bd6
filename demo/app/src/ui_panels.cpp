#include "ui_panels.h"

#include "plots.h"

#include "shatter/collision.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

namespace shatter::demo
{
namespace
{
const ImVec4 kErrorColor(1.0f, 0.42f, 0.32f, 1.0f);
const ImVec4 kMutedColor(0.62f, 0.64f, 0.70f, 1.0f);

/// A slider over a positive value on a log scale.
bool logSlider(const char* label, double& value, double low, double high, const char* format)
{
    float v = float(value);
    const bool changed =
        ImGui::SliderFloat(label, &v, float(low), float(high), format, ImGuiSliderFlags_Logarithmic);
    if (changed)
        value = double(v);
    return changed;
}

void sceneSection(UiState& ui, Simulation& sim, Log& log, UiActions& actions)
{
    scenes::Scene& scene = sim.editableScene();
    const bool busy = sim.busy();
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::BeginCombo("##scene", scene.name.c_str()))
    {
        for (const std::string& name : ui.sceneNames)
            if (ImGui::Selectable(name.c_str(), name == scene.name) && !busy)
            {
                try
                {
                    sim.load(scenes::loadScene(scenes::builtInScenePath(name)), sim.editableSettings());
                    actions.frameCamera = true;
                }
                catch (const std::exception& e)
                {
                    log.error(e.what()); // names the file and the JSON path
                }
            }
        ImGui::EndCombo();
    }
    if (ImGui::Button("Open scene file...") && !busy)
        ui.sceneBrowser.open();
    if (auto file = ui.sceneBrowser.draw())
    {
        try
        {
            sim.load(scenes::loadScene(*file), sim.editableSettings());
            actions.frameCamera = true;
        }
        catch (const std::exception& e)
        {
            log.error(e.what());
        }
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(busy);
    if (ImGui::Button("Reset (R)"))
        sim.restart();
    ImGui::EndDisabled();

    if (ImGui::Button(sim.paused ? "  Run  " : "Pause"))
        sim.paused = !sim.paused;
    ImGui::SameLine();
    if (ImGui::Button("Step"))
    {
        sim.paused = true;
        sim.stepOnce();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::SliderFloat("##speed", &sim.speed, 0.05f, 2.0f, "speed %.2fx", ImGuiSliderFlags_Logarithmic);
    if (const scenes::SceneWorld* world = sim.world())
        ImGui::TextColored(kMutedColor, "t = %.2f s, step %d (dt %.1f ms)", world->time(), world->stepCount(),
                           1000 * world->scene().timeStep);
    // Every piece as glTF, at its pose now, into a folder named after the scene and the step.
    ImGui::BeginDisabled(busy || !sim.world());
    if (ImGui::Button("Export pieces") && sim.world())
    {
        scenes::SceneWorld& world = *sim.world();
        const std::string dir = "exports/" + world.scene().name + "-step" + std::to_string(world.stepCount());
        try
        {
            const int files = scenes::exportFragments(world, dir, MeshFormat::Gltf);
            log.info("exported " + std::to_string(files) + " pieces to " + dir);
        }
        catch (const std::exception& e)
        {
            log.error(e.what());
        }
    }
    ImGui::EndDisabled();
}

void objectsSection(UiState& ui, Simulation& sim)
{
    const bool busy = sim.busy();
    ImGui::BeginDisabled(busy);
    if (ImGui::Button("Load mesh..."))
        ui.meshBrowser.open();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextColored(kMutedColor, "OBJ, PLY, STL, OFF, glTF");
    if (auto file = ui.meshBrowser.draw())
        sim.addMesh(*file);
    if (busy)
    {
        const BackgroundJobs& jobs = sim.background();
        ImGui::ProgressBar(float(jobs.fraction()), ImVec2(-FLT_MIN, 0), jobs.stage().c_str());
    }
    if (!sim.lastError().empty())
    {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(kErrorColor, "%s", sim.lastError().c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::SmallButton("dismiss"))
            sim.clearError();
    }
    ImGui::Separator();
    ImGui::Text("Balls");
    BallSettings& b = sim.balls;
    ImGui::SliderFloat("radius (m)", &b.radius, 0.01f, 0.2f, "%.3f");
    ImGui::SliderFloat("density", &b.density, 100, 20000, "%.0f kg/m3", ImGuiSliderFlags_Logarithmic);
    ImGui::SliderFloat("drop height", &b.dropHeight, 0.05f, 3.0f, "%.2f m");
    ImGui::SliderFloat("throw gain", &b.throwGain, 0.2f, 5.0f, "%.1fx");
}

void materialSection(UiState& ui, Simulation& sim)
{
    scenes::Scene& scene = sim.editableScene();
    const int count = int(scene.objects.size());
    ui.materialObject = std::clamp(ui.materialObject, -1, count - 1);
    auto label = [&](int i)
    {
        return i < 0 ? std::string("new objects (user meshes)") : scene.objects[std::size_t(i)].name;
    };
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::BeginCombo("##object", label(ui.materialObject).c_str()))
    {
        for (int i = -1; i < count; ++i)
            if (ImGui::Selectable(label(i).c_str(), i == ui.materialObject))
                ui.materialObject = i;
        ImGui::EndCombo();
    }
    fracture::Material& m = ui.materialObject < 0 ? sim.newObjectMaterial
                                                  : scene.objects[std::size_t(ui.materialObject)].material;
    logSlider("toughness γ", m.toughness, 1e-9, 1e3, "%.3g");
    float alpha = float(m.energyExponent);
    if (ImGui::SliderFloat("energy exponent α", &alpha, 0.0f, 4.0f, "%.2f"))
        m.energyExponent = double(alpha);
    logSlider("Young's modulus", m.youngsModulus, 1e6, 1e12, "%.3g Pa");
    logSlider("density", m.density, 100, 20000, "%.0f kg/m3");
    int maxFragments = m.maxFragments;
    if (ImGui::SliderInt("max fragments / event", &maxFragments, 2, 256))
        m.maxFragments = maxFragments;
    if (ui.materialObject >= 0 && ImGui::Button("Apply to all objects of this asset"))
        for (scenes::SceneObject& o : scene.objects)
            if (o.asset == scene.objects[std::size_t(ui.materialObject)].asset)
                o.material = m;
    ImGui::TextColored(kMutedColor, "Scene objects take changes on Reset.");
}

void collisionSection(Simulation& sim)
{
    scenes::RunSettings& o = sim.editableSettings();
    int shapes = int(o.collision);
    ImGui::Text("Fragment shapes");
    ImGui::RadioButton("Shatter", &shapes, int(fracture::FragmentShapeKind::Fracturable));
    ImGui::SameLine();
    ImGui::RadioButton("GImpact", &shapes, int(fracture::FragmentShapeKind::GImpact));
    ImGui::SameLine();
    ImGui::RadioButton("convex hull", &shapes, int(fracture::FragmentShapeKind::ConvexHull));
    o.collision = fracture::FragmentShapeKind(shapes);
    int mode = int(o.contacts);
    ImGui::Text("Contacts (TVCG §5.2)");
    ImGui::RadioButton("adaptive", &mode, int(ContactMode::Adaptive));
    ImGui::SameLine();
    ImGui::RadioButton("full", &mode, int(ContactMode::Full));
    ImGui::SameLine();
    ImGui::RadioButton("fixed 8", &mode, int(ContactMode::FixedBudget));
    o.contacts = ContactMode(mode);
    int restructure = int(o.restructure);
    ImGui::Text("Sphere trees at fracture (TVCG §6)");
    ImGui::RadioButton("2013", &restructure, int(RestructureMethod::Tvcg2013));
    ImGui::SameLine();
    ImGui::RadioButton("2012", &restructure, int(RestructureMethod::Sca2012));
    ImGui::SameLine();
    ImGui::RadioButton("rebuild", &restructure, int(RestructureMethod::Rebuild));
    o.restructure = RestructureMethod(restructure);
    ImGui::SetNextItemWidth(180);
    if (ImGui::SliderFloat("ε / radius", &sim.toleranceFraction, 0.0002f, 0.02f, "%.4f",
                           ImGuiSliderFlags_Logarithmic))
        sim.applyCollisionSettings(); // live, for pairs that start touching from now on
    ImGui::TextColored(kMutedColor, "TVCG default 0.002 (0.2 %% of the smaller radius)");
    ImGui::SetNextItemWidth(180);
    const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    o.collisionThreads = std::clamp(o.collisionThreads == 0 ? hardware : o.collisionThreads, 1, hardware);
    if (ImGui::SliderInt("narrow-phase threads", &o.collisionThreads, 1, hardware))
        if (scenes::SceneWorld* world = sim.world())
            if (auto* dispatcher = dynamic_cast<ParallelCollisionDispatcher*>(world->world().getDispatcher()))
                dispatcher->setThreads(o.collisionThreads); // live: results do not depend on it
    ImGui::BeginDisabled(sim.busy());
    if (ImGui::Button("Apply (restarts the scene)"))
        sim.restart();
    ImGui::EndDisabled();
}

void fractureSection(Simulation& sim)
{
    scenes::Scene& scene = sim.editableScene();
    fracture::FractureSystemSettings& p = scene.fracture;
    int model = int(p.deformation);
    ImGui::Text("Deformation");
    ImGui::RadioButton("quasi-static FEM", &model, int(fracture::DeformationModel::Fem));
    ImGui::SameLine();
    ImGui::RadioButton("modal", &model, int(fracture::DeformationModel::Modal));
    p.deformation = fracture::DeformationModel(model);
    int metric = int(p.metric);
    ImGui::Text("Voronoi metric (CVD §3.2)");
    ImGui::RadioButton("auto", &metric, int(fracture::FractureMetric::Auto));
    ImGui::SameLine();
    ImGui::RadioButton("Euclidean", &metric, int(fracture::FractureMetric::Euclidean));
    ImGui::SameLine();
    ImGui::RadioButton("interior", &metric, int(fracture::FractureMetric::Interior));
    p.metric = fracture::FractureMetric(metric);
    bool enabled = sim.editableSettings().fracture;
    if (ImGui::Checkbox("fracture enabled", &enabled))
    {
        sim.editableSettings().fracture = enabled;
        if (scenes::SceneWorld* world = sim.world())
            world->fracture().settings().enabled = enabled; // live
    }
    ImGui::BeginDisabled(sim.busy());
    if (ImGui::Button("Apply (restarts the scene)##fracture"))
        sim.restart();
    ImGui::EndDisabled();
}

bool viewsSection(UiState& ui, DebugViews& views)
{
    DebugViewSettings& s = views.settings;
    const DebugViewCounts& c = views.counts();
    bool normalsChanged = false;
    ImGui::Checkbox("fragment colours", &s.fragmentColors);
    ImGui::Checkbox("contact points and normals", &s.contacts);
    if (s.contacts)
    {
        ImGui::SameLine();
        ImGui::TextColored(kMutedColor, "(%ld)", c.contacts);
    }
    ImGui::Checkbox("sphere-tree level", &s.spheres);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::SliderInt("##level", &s.sphereLevel, 0, kMaxSphereLevel);
    ImGui::Checkbox("distance-field slice", &s.slice);
    if (s.slice)
    {
        ImGui::RadioButton("x", &s.sliceAxis, 0);
        ImGui::SameLine();
        ImGui::RadioButton("y", &s.sliceAxis, 1);
        ImGui::SameLine();
        ImGui::RadioButton("z", &s.sliceAxis, 2);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::SliderFloat("##offset", &s.sliceOffset, 0.02f, 0.98f, "at %.2f");
    }
    ImGui::Checkbox("tet mesh wireframe", &s.tets);
    ImGui::Checkbox("hide surfaces", &s.hideMeshes);
    int normals = int(ui.normals);
    ImGui::RadioButton("smooth normals", &normals, int(NormalMode::Smooth));
    ImGui::SameLine();
    ImGui::RadioButton("flat", &normals, int(NormalMode::Flat));
    if (normals != int(ui.normals))
    {
        ui.normals = NormalMode(normals);
        normalsChanged = true;
    }
    ImGui::SameLine();
    ImGui::Checkbox("shadows", &ui.shadows);
    return normalsChanged;
}

void controlsSection()
{
    const char* controls[][2] = {
        {"click", "drop a ball above the cursor"}, {"drag", "carry a ball, let go to throw"},
        {"shift + drag", "grab and drag a piece"}, {"right drag", "orbit"},
        {"middle / ctrl + right", "pan"},          {"wheel", "zoom"},
        {"space / S", "pause / single step"},      {"R  F  H  B", "reset, frame, hide UI, ball"},
    };
    if (ImGui::BeginTable("controls", 2, ImGuiTableFlags_SizingFixedFit))
    {
        for (const auto& row : controls)
        {
            ImGui::TableNextColumn();
            ImGui::TextColored(ImVec4(0.96f, 0.62f, 0.35f, 1), "%s", row[0]);
            ImGui::TableNextColumn();
            ImGui::TextColored(kMutedColor, "%s", row[1]);
        }
        ImGui::EndTable();
    }
}

void statisticsWindow(UiState& ui, Simulation& sim, const FrameInfo& info)
{
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float width = 390;
    ImGui::SetNextWindowPos(
        ImVec2(viewport->WorkPos.x + viewport->WorkSize.x - width - 10, viewport->WorkPos.y + 10));
    ImGui::SetNextWindowSize(ImVec2(width, 0));
    ImGui::Begin("Statistics", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_AlwaysAutoResize);
    const scenes::SceneWorld* world = sim.world();
    if (!world)
    {
        ImGui::TextColored(kMutedColor, "no scene yet");
        ImGui::End();
        return;
    }
    const std::vector<scenes::StepStats>& history = world->history();
    const scenes::StepStats last = history.empty() ? scenes::StepStats{} : history.back();
    if (ImGui::BeginTable("counters", 4, ImGuiTableFlags_SizingStretchSame))
    {
        auto cell = [](const char* label, const char* format, double value)
        {
            ImGui::TableNextColumn();
            ImGui::TextColored(kMutedColor, "%s", label);
            ImGui::Text(format, value);
        };
        cell("bodies", "%.0f", double(info.bodies));
        cell("fragments", "%.0f", double(last.fragments));
        cell("triangles", "%.0f", double(last.triangles));
        cell("pairs", "%.0f", double(last.bodyPairs));
        cell("contacts", "%.0f", double(last.outputContacts));
        cell("colliding pts", "%.0f", double(last.collidingPoints));
        cell("step ms", "%.2f", last.totalMs);
        ImGui::TableNextColumn();
        ImGui::TextColored(kMutedColor, "fps");
        if (info.fps > 0)
            ImGui::Text("%.0f", info.fps);
        else
            ImGui::TextDisabled("headless");
        ImGui::EndTable();
    }
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::SliderFloat("##seconds", &ui.plotSeconds, 1, 20, "last %.0f s");
    const std::size_t n = std::min(
        history.size(), std::size_t(std::max(2.0, double(ui.plotSeconds) / world->scene().timeStep)));
    const auto begin = history.end() - std::ptrdiff_t(n);
    auto column = [&](auto member)
    {
        std::vector<float> v;
        v.reserve(n);
        for (auto it = begin; it != history.end(); ++it)
            v.push_back(float(member(*it)));
        return v;
    };
    using S = scenes::StepStats;
    const PlotSeries times[] = {
        {"total", IM_COL32(240, 240, 245, 255), column([](const S& s) { return s.totalMs; })},
        {"CD", IM_COL32(90, 200, 255, 255), column([](const S& s) { return s.collisionMs; })},
        {"physics", IM_COL32(140, 220, 120, 255), column([](const S& s) { return s.physicsMs; })},
        {"update", IM_COL32(255, 200, 80, 255), column([](const S& s) { return s.updateMs; })},
        {"fracture", IM_COL32(255, 110, 90, 255), column([](const S& s) { return s.fractureMs; })},
    };
    ImGui::Text("Time per step");
    multiPlot("times", times, 110, "ms");
    const PlotSeries contacts[] = {
        {"output", IM_COL32(245, 150, 70, 255), column([](const S& s) { return double(s.outputContacts); })},
        {"colliding", IM_COL32(170, 140, 255, 255),
         column([](const S& s) { return double(s.collidingPoints); })},
    };
    ImGui::Text("Contacts per step");
    multiPlot("contacts", contacts, 80, "");
    long events = 0;
    for (const S& s : history)
        events += s.fractureEvents;
    ImGui::TextColored(kMutedColor, "%ld fracture events, %ld fragments at start", events,
                       sim.initialFragments());
    ImGui::TextColored(kMutedColor, "%s", info.gl.c_str());
    ImGui::End();
}

void logWindow(UiState& ui, Log& log)
{
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const std::size_t errors = log.errorCount();
    const float lines = 4.5f;
    ImGui::SetNextWindowPos(
        ImVec2(viewport->WorkPos.x + 370, viewport->WorkPos.y + viewport->WorkSize.y - 10), ImGuiCond_Always,
        ImVec2(0, 1));
    ImGui::SetNextWindowSize(
        ImVec2(viewport->WorkSize.x - 370 - 410,
               ImGui::GetTextLineHeightWithSpacing() * lines + ImGui::GetFrameHeight() + 12));
    ImGui::SetNextWindowBgAlpha(0.75f);
    char title[64];
    std::snprintf(title, sizeof title, errors ? "Log - %zu error%s###log" : "Log###log", errors,
                  errors == 1 ? "" : "s");
    if (errors)
        ImGui::PushStyleColor(ImGuiCol_TitleBg, ImVec4(0.45f, 0.14f, 0.10f, 0.95f));
    if (errors)
        ImGui::PushStyleColor(ImGuiCol_TitleBgActive, ImVec4(0.55f, 0.16f, 0.12f, 1.0f));
    ImGui::Begin(title, nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    const bool newLines = log.count() != ui.seenErrors;
    ui.seenErrors = log.count();
    for (const LogLine& line : log.lines())
    {
        const ImVec4 color = line.level == LogLevel::Error     ? kErrorColor
                             : line.level == LogLevel::Warning ? ImVec4(1, 0.8f, 0.4f, 1)
                                                               : kMutedColor;
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(color, "%7.2f  %s", line.time, line.text.c_str());
        ImGui::PopTextWrapPos();
    }
    if (newLines || ui.logOpen)
        ImGui::SetScrollHereY(1);
    ui.logOpen = false;
    ImGui::End();
    if (errors)
        ImGui::PopStyleColor(2);
}

void loadingOverlay(Simulation& sim)
{
    if (!sim.busy())
        return;
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + viewport->WorkSize.x / 2, viewport->WorkPos.y + 60),
                            ImGuiCond_Always, ImVec2(0.5f, 0));
    ImGui::SetNextWindowSize(ImVec2(420, 0));
    ImGui::Begin("##loading", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_AlwaysAutoResize);
    const BackgroundJobs& jobs = sim.background();
    ImGui::Text("Loading %s", jobs.what().c_str());
    ImGui::ProgressBar(float(jobs.fraction()), ImVec2(-FLT_MIN, 0), jobs.stage().c_str());
    ImGui::End();
}
} // namespace

UiState::UiState()
    : sceneBrowser("Open scene file", {".json"}, std::filesystem::current_path()),
      meshBrowser("Load mesh", {".obj", ".ply", ".stl", ".off", ".gltf", ".glb", ".fbx", ".dae"},
                  std::filesystem::current_path())
{
}

UiActions drawPanels(UiState& ui, Simulation& sim, DebugViews& views, Log& log, const FrameInfo& info)
{
    UiActions actions;
    loadingOverlay(sim);
    if (!ui.visible)
        return actions;
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(viewport->WorkPos.x + 10, viewport->WorkPos.y + 10));
    ImGui::SetNextWindowSize(ImVec2(350, viewport->WorkSize.y - 20));
    ImGui::Begin("Shatter", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
    ImGui::TextColored(kMutedColor, "real-time brittle fracture for Bullet");
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen))
        sceneSection(ui, sim, log, actions);
    if (ImGui::CollapsingHeader("Objects and balls", ImGuiTreeNodeFlags_DefaultOpen))
        objectsSection(ui, sim);
    if (ImGui::CollapsingHeader("Material"))
        materialSection(ui, sim);
    if (ImGui::CollapsingHeader("Collision"))
        collisionSection(sim);
    if (ImGui::CollapsingHeader("Fracture"))
        fractureSection(sim);
    if (ImGui::CollapsingHeader("Debug views", ImGuiTreeNodeFlags_DefaultOpen))
        actions.normalsChanged = viewsSection(ui, views);
    if (ImGui::CollapsingHeader("Controls", ImGuiTreeNodeFlags_DefaultOpen))
        controlsSection();
    ImGui::End();

    statisticsWindow(ui, sim, info);
    logWindow(ui, log);

    // What the current drag does, and the pause state, at the top centre.
    if (info.hint || sim.paused)
    {
        ImGui::SetNextWindowPos(
            ImVec2(viewport->WorkPos.x + viewport->WorkSize.x / 2, viewport->WorkPos.y + 10),
            ImGuiCond_Always, ImVec2(0.5f, 0));
        ImGui::SetNextWindowBgAlpha(0.6f);
        ImGui::Begin("##hint", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                         ImGuiWindowFlags_NoInputs);
        if (sim.paused)
            ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1), "paused (space: run, S: step)");
        if (info.hint)
            ImGui::TextUnformatted(info.hint);
        ImGui::End();
    }
    return actions;
}

} // namespace shatter::demo
