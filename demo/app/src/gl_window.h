// The GLFW window with an OpenGL 3.3 core context loaded through glad, and Dear ImGui on top (its GLFW
// and OpenGL3 backends from libimgui-dev). Headless runs use a hidden window: everything is drawn into
// the RenderTarget's framebuffers, which glReadPixels reads whether or not the window is shown.
#pragma once

#include <string>

struct GLFWwindow;

namespace shatter::demo
{

struct WindowSettings
{
    int width = 1600;
    int height = 900;
    bool visible = true;
    bool vsync = true;
    std::string title = "Shatter";
};

class GlWindow
{
public:
    /// Opens the window and the context, loads GL, sets up ImGui. Throws std::runtime_error with the
    /// reason (no display, no GL 3.3) on failure.
    explicit GlWindow(const WindowSettings& settings);
    ~GlWindow();
    GlWindow(const GlWindow&) = delete;
    GlWindow& operator=(const GlWindow&) = delete;

    GLFWwindow* handle() const { return window; }
    bool shouldClose() const;
    void requestClose();
    /// Polls events and starts an ImGui frame.
    void beginFrame();
    /// Renders ImGui's draw data into the currently bound framebuffer.
    void renderUi();
    void swap();

    /// Framebuffer size in pixels (equal to the window size unless the display is scaled).
    int framebufferWidth() const;
    int framebufferHeight() const;
    /// "OpenGL 4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits)".
    std::string glDescription() const;

private:
    GLFWwindow* window = nullptr;
};

/// The demo's ImGui look: a dark, slightly translucent theme with rounded corners and DejaVu Sans when
/// the font is installed.
void applyUiStyle(float scale);

} // namespace shatter::demo
