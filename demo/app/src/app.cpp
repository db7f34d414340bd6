#include "app.h"

#include "palette.h"
#include "primitives.h"

#include <glad/gl.h>

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace shatter::demo
{
namespace
{
Mat4f toMat4f(const Eigen::Isometry3d& t)
{
    return t.matrix().cast<float>();
}

std::optional<scenes::Scene> loadSceneByNameOrFile(const std::string& what, Log& log)
{
    try
    {
        return scenes::loadScene(scenes::resolveScenePath(what));
    }
    catch (const std::exception& e)
    {
        log.error(std::string("scene ") + what + ": " + e.what());
        return std::nullopt;
    }
}
} // namespace

App::App(const DemoSettings& o) : options(o), simulation(log)
{
    if (!options.logFile.empty() && !log.openFile(options.logFile))
        log.warning("cannot open the log file " + options.logFile);
    window = std::make_unique<GlWindow>(WindowSettings{.width = options.width,
                                                       .height = options.height,
                                                       .visible = !options.headless,
                                                       .vsync = !options.headless,
                                                       .title = "Shatter — real-time brittle fracture"});
    log.info(window->glDescription());
    renderer = std::make_unique<Renderer>();
    target = std::make_unique<RenderTarget>();
    debugViews = std::make_unique<DebugViews>();
    sphereMesh =
        std::make_unique<GpuMesh>(buildMeshVertices(FragmentMesh{makeSphereMesh(3), {}}, NormalMode::Smooth));
    boxMesh = std::make_unique<GpuMesh>(
        buildMeshVertices(FragmentMesh{makeBoxMesh(Vec3::Ones()), {}}, NormalMode::Flat));

    ui.visible = !options.hideUi;
    ui.sceneNames = scenes::builtInSceneNames();
    simulation.paused = options.paused;
    if (options.camera)
    {
        camera.pose = *options.camera;
        cameraFromOptions = true;
    }
    simulation.editableSettings().collision = options.collision;
    simulation.editableSettings().contacts = options.contacts;
    simulation.editableSettings().seed = options.seed;
    simulation.editableSettings().workers = options.workers;
    simulation.editableSettings().latencySteps = options.latencySteps;
    simulation.editableSettings().collisionThreads = options.collisionThreads;
    // The panel shows the latest step; an interactive session must not grow with its length (a headless
    // run keeps every step for its summary).
    if (!options.headless)
        simulation.editableSettings().historyLimit = 3600;
    debugViews->settings = options.views;
    startScene();
}

App::~App()
{
    meshes.clear();
    sphereMesh.reset();
    boxMesh.reset();
    debugViews.reset();
    target.reset();
    renderer.reset();
}

void App::startScene()
{
    // A scene that does not load stays an error (logged and shown; a headless run exits non-zero): loading
    // another scene instead would hide it.
    if (auto scene = loadSceneByNameOrFile(options.scene, log))
        simulation.load(*scene, simulation.editableSettings());
}

const GpuMesh& App::meshFor(const std::shared_ptr<const FragmentMesh>& mesh)
{
    auto it = meshes.find(mesh.get());
    if (it == meshes.end())
    {
        CachedMesh entry;
        entry.keep = mesh;
        entry.gpu = GpuMesh(buildMeshVertices(*mesh, ui.normals));
        it = meshes.emplace(mesh.get(), std::move(entry)).first;
    }
    it->second.lastFrame = frameCount;
    return it->second.gpu;
}

void App::frameCamera(const std::vector<BodyView>& views)
{
    Eigen::AlignedBox3d box = sceneBounds(views);
    if (box.isEmpty())
        return;
    // Include the ground under the objects: things fall, and the view should show where they land.
    if (scenes::SceneWorld* world = simulation.world(); world && world->scene().ground.present)
        box.extend(Eigen::Vector3d(box.center().x(), world->scene().ground.height, box.center().z()));
    camera.frame(box.cast<float>());
    log.info("camera framed: --camera " + formatCameraPose(camera.pose));
}

void App::drawScene(const std::vector<BodyView>& views, float sceneScale)
{
    std::vector<DrawItem> items;
    items.reserve(views.size());
    const DebugViewSettings& settings = debugViews->settings;
    const std::optional<Eigen::Vector3d> grabbed =
        simulation.grabbing() ? simulation.grabPoint() : std::nullopt;
    if (!settings.hideMeshes)
        for (const BodyView& v : views)
        {
            DrawItem item;
            if (v.kind == BodyView::Kind::Fragment)
            {
                item.mesh = &meshFor(v.mesh);
                item.model = toMat4f(v.materialToWorld);
                const Appearance look = appearanceFor(v.assetName);
                item.surface = look.surface;
                item.crack = look.crack;
                item.gloss = look.gloss;
                if (settings.fragmentColors)
                {
                    item.surface = distinctColor(v.fragment + 5 * v.object);
                    item.crack = item.surface * 0.75f + Eigen::Vector3f::Constant(0.25f);
                    item.gloss = 0.3f;
                }
            }
            else
            {
                const Appearance look = ballAppearance();
                item.mesh = v.kind == BodyView::Kind::Sphere ? sphereMesh.get() : boxMesh.get();
                Eigen::Matrix4f scale = Eigen::Matrix4f::Identity();
                if (v.kind == BodyView::Kind::Sphere)
                    scale.block<3, 3>(0, 0) *= float(v.radius);
                else
                    scale.block<3, 3>(0, 0) = v.halfExtents.cast<float>().asDiagonal();
                item.model = toMat4f(v.materialToWorld) * scale;
                item.surface = look.surface;
                item.crack = look.crack;
                item.gloss = look.gloss;
            }
            if (grabbed)
            {
                // Highlight the grabbed body: the one whose bounds hold the grab point.
                const Eigen::AlignedBox3f b = item.mesh->bounds();
                const Eigen::Vector3f local =
                    (item.model.inverse() * grabbed->cast<float>().homogeneous()).head<3>();
                if (b.exteriorDistance(local) < 1e-3f * sceneScale)
                    item.highlight = 0.6f;
            }
            items.push_back(item);
        }

    LineBatch depthLines, overlayLines;
    scenes::SceneWorld* world = simulation.world();
    std::vector<SliceItem> slices;
    if (world)
    {
        debugViews->collectLines(*world, views, camera, sceneScale, depthLines, overlayLines);
        slices = debugViews->slices(*world, views);
    }
    interaction.drawOverlay(overlayLines, simulation, sceneScale);

    FrameSettings frameSettings;
    frameSettings.camera = &camera;
    frameSettings.width = target->width();
    frameSettings.height = target->height();
    frameSettings.shadows = ui.shadows;
    if (world)
    {
        frameSettings.ground = world->scene().ground.present;
        frameSettings.groundY = float(world->scene().ground.height);
    }
    Eigen::AlignedBox3d bounds = sceneBounds(views);
    if (!bounds.isEmpty())
    {
        bounds.extend(Eigen::Vector3d(bounds.min().x(), frameSettings.groundY, bounds.min().z()));
        frameSettings.sceneBounds = bounds.cast<float>();
    }
    target->bindScene();
    renderer->render(frameSettings, items, slices, depthLines, overlayLines);
}

void App::frame(double dt, bool interactive)
{
    window->beginFrame();
    simulation.update();
    if (simulation.generation() != seenGeneration)
    {
        seenGeneration = simulation.generation();
        meshes.clear();
        debugViews->clear();
    }
    target->resize(window->framebufferWidth(), window->framebufferHeight(), 4);

    scenes::SceneWorld* world = simulation.world();
    const float groundY = world ? float(world->scene().ground.height) : 0.0f;
    if (interactive)
    {
        const KeyRequests keys = interaction.update(camera, simulation, groundY, float(target->width()),
                                                    float(target->height()), dt);
        if (keys.reset)
            simulation.restart();
        if (keys.toggleUi)
            ui.visible = !ui.visible;
        if (keys.quit)
            window->requestClose();
        if (keys.screenshot)
        {
            const std::string file = "shatter_screenshot.png";
            takeScreenshot(file, nullptr);
        }
        simulation.advance(dt);
        if (keys.frame && simulation.world())
            frameCamera(collectBodies(*simulation.world()));
    }

    world = simulation.world();
    std::vector<BodyView> views = world ? collectBodies(*world) : std::vector<BodyView>{};
    if (world && framedGeneration != seenGeneration)
    {
        framedGeneration = seenGeneration;
        if (!cameraFromOptions)
            frameCamera(views);
    }
    const Eigen::AlignedBox3d box = sceneBounds(views);
    const float sceneScale = box.isEmpty() ? 1.0f : float(std::max(0.1, box.diagonal().norm()));

    FrameInfo info;
    info.fps = fps;
    info.bodies = world ? long(world->world().getNumCollisionObjects()) : 0;
    info.gl = window->glDescription();
    info.hint = interaction.hint();
    const UiActions actions = drawPanels(ui, simulation, *debugViews, log, info);
    if (actions.normalsChanged)
        meshes.clear();
    if (actions.frameCamera)
        cameraFromOptions = false;

    drawScene(views, sceneScale);
    target->resolveAndBindFinal();
    window->renderUi();

    // Free GPU meshes of fragments that are gone.
    if (frameCount % 60 == 0)
        for (auto it = meshes.begin(); it != meshes.end();)
            it = (frameCount - it->second.lastFrame > 120) ? meshes.erase(it) : std::next(it);
    ++frameCount;
}

int App::run()
{
    if (options.headless)
    {
        simulation.finishLoading();
        if (!options.mesh.empty())
        {
            simulation.addMesh(options.mesh);
            simulation.finishLoading();
        }
        scenes::SceneWorld* world = simulation.world();
        const int substeps = world ? world->scene().substeps : 1;
        using Clock = std::chrono::steady_clock;
        const auto ms = [](Clock::time_point a, Clock::time_point b)
        {
            return std::chrono::duration<double, std::milli>(b - a).count();
        };
        for (int f = 0; f < options.frames; ++f)
        {
            const auto start = Clock::now();
            headlessDrops(f);
            headlessClicks(f);
            if (!simulation.paused)
                for (int s = 0; s < substeps; ++s)
                    simulation.stepOnce();
            const auto simulated = Clock::now();
            frame(0, false);
            const auto drawn = Clock::now();
            frameMs.push_back(ms(start, drawn));
            simulationMs.push_back(ms(start, simulated));
            drawMs.push_back(ms(simulated, drawn));
        }
        // One more frame so that the UI shows the final state (ImGui lays windows out a frame late).
        frame(0, false);
        double deviation = 0;
        if (!options.screenshot.empty())
            takeScreenshot(options.screenshot, &deviation);
        if (!options.stats.empty())
            writeStats(options.stats, deviation);
        std::printf("shatter_demo: %s, %d frames, %ld -> %ld fragments%s%s\n",
                    world ? world->scene().name.c_str() : options.scene.c_str(), options.frames,
                    simulation.initialFragments(), simulation.currentFragments(),
                    options.screenshot.empty() ? "" : ", screenshot ", options.screenshot.c_str());
        return simulation.world() ? 0 : 1;
    }

    bool meshRequested = options.mesh.empty();
    auto last = std::chrono::steady_clock::now();
    double fpsTime = 0;
    int fpsFrames = 0;
    while (!window->shouldClose())
    {
        const auto now = std::chrono::steady_clock::now();
        const double dt = std::chrono::duration<double>(now - last).count();
        last = now;
        fpsTime += dt;
        ++fpsFrames;
        if (fpsTime > 0.5)
        {
            fps = fpsFrames / fpsTime;
            fpsTime = 0;
            fpsFrames = 0;
        }
        if (!meshRequested && simulation.world() && !simulation.busy())
            meshRequested = simulation.addMesh(options.mesh);
        frame(dt, true);
        target->present();
        window->swap();
    }
    return 0;
}

} // namespace shatter::demo
