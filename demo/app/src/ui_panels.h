// The ImGui panels: scene (chooser, file, run controls), objects (user mesh with validation errors and a
// progress bar), material, collision and fracture options, debug views; statistics with live plots and
// counters; the log; the loading overlay and the status bar.
#pragma once

#include "debug_views.h"
#include "file_browser.h"
#include "log.h"
#include "mesh_upload.h"
#include "simulation.h"

#include <string>
#include <vector>

namespace shatter::demo
{

struct UiState
{
    bool visible = true;
    NormalMode normals = NormalMode::Smooth;
    bool shadows = true;
    float plotSeconds = 5;
    int materialObject = 0; ///< index into the scene's objects; -1: new objects (user meshes)
    std::vector<std::string> sceneNames;
    FileBrowser sceneBrowser;
    FileBrowser meshBrowser;
    std::size_t seenErrors = 0;
    bool logOpen = false;

    UiState();
};

/// Frame-level facts shown by the panels.
struct FrameInfo
{
    double fps = 0;
    long bodies = 0;
    std::string gl;
    const char* hint = nullptr; ///< what the current drag does (nullptr when idle)
};

/// What the panels asked the app to do.
struct UiActions
{
    bool frameCamera = false;
    bool normalsChanged = false;
};

UiActions drawPanels(UiState& ui, Simulation& simulation, DebugViews& views, Log& log, const FrameInfo& info);

} // namespace shatter::demo
