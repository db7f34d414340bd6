// The demo application: owns the window, the simulation, the renderer and the panels, and runs either
// the interactive loop or a fixed number of headless frames ending in a screenshot and a stats file.
#pragma once

#include "camera.h"
#include "cli.h"
#include "debug_views.h"
#include "gl_window.h"
#include "interaction.h"
#include "log.h"
#include "mesh_upload.h"
#include "render_target.h"
#include "renderer.h"
#include "scene_view.h"
#include "simulation.h"
#include "ui_panels.h"

#include <map>
#include <memory>

namespace shatter::demo
{

class App
{
public:
    explicit App(const DemoSettings& options);
    ~App();

    /// Runs until the window closes (interactive) or the frames are done (headless); the exit code.
    int run();

private:
    void startScene();
    /// One frame: input, UI, simulation (interactive), drawing into the render target.
    void frame(double dt, bool interactive);
    void drawScene(const std::vector<BodyView>& views, float sceneScale);
    const GpuMesh& meshFor(const std::shared_ptr<const FragmentMesh>& mesh);
    void frameCamera(const std::vector<BodyView>& views);
    void headlessDrops(int frameIndex);
    void headlessClicks(int frameIndex);
    void writeStats(const std::string& file, double deviation);
    void takeScreenshot(const std::string& file, double* deviation);

    DemoSettings options;
    Log log;
    std::unique_ptr<GlWindow> window;
    std::unique_ptr<Renderer> renderer;
    std::unique_ptr<RenderTarget> target;
    std::unique_ptr<DebugViews> debugViews;
    Simulation simulation;
    OrbitCamera camera;
    Interaction interaction;
    UiState ui;
    struct CachedMesh
    {
        std::shared_ptr<const FragmentMesh> keep; // the key pointer stays valid while cached
        GpuMesh gpu;
        long lastFrame = 0;
    };
    std::map<const FragmentMesh*, CachedMesh> meshes;
    std::unique_ptr<GpuMesh> sphereMesh, boxMesh;
    int seenGeneration = 0;
    int framedGeneration = -1;
    bool cameraFromOptions = false;
    long frameCount = 0;
    double fps = 0;
    /// Headless runs: wall time of each frame, its simulation steps and its drawing, ms (for --stats).
    std::vector<double> frameMs, simulationMs, drawMs;
};

} // namespace shatter::demo
