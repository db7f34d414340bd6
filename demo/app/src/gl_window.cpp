#include "gl_window.h"

#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <filesystem>
#include <stdexcept>

namespace shatter::demo
{
namespace
{
std::string lastGlfwError;

void onGlfwError(int code, const char* description)
{
    lastGlfwError = "GLFW error " + std::to_string(code) + ": " + description;
}
} // namespace

GlWindow::GlWindow(const WindowSettings& settings)
{
    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit())
        throw std::runtime_error("cannot initialise GLFW (no display? run under xvfb-run): " + lastGlfwError);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, settings.visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window = glfwCreateWindow(settings.width, settings.height, settings.title.c_str(), nullptr, nullptr);
    if (!window)
    {
        glfwTerminate();
        throw std::runtime_error("cannot open an OpenGL 3.3 core window: " + lastGlfwError);
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(settings.vsync ? 1 : 0);
    if (!gladLoadGL(glfwGetProcAddress))
    {
        glfwDestroyWindow(window);
        glfwTerminate();
        throw std::runtime_error("glad could not load OpenGL 3.3 core");
    }

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // panels are laid out by the app, not restored from a file
    float xscale = 1, yscale = 1;
    glfwGetWindowContentScale(window, &xscale, &yscale);
    applyUiStyle(std::max(1.0f, xscale));
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");
}

GlWindow::~GlWindow()
{
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

bool GlWindow::shouldClose() const
{
    return glfwWindowShouldClose(window);
}

void GlWindow::requestClose()
{
    glfwSetWindowShouldClose(window, GLFW_TRUE);
}

void GlWindow::beginFrame()
{
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void GlWindow::renderUi()
{
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void GlWindow::swap()
{
    glfwSwapBuffers(window);
}

int GlWindow::framebufferWidth() const
{
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    return w;
}

int GlWindow::framebufferHeight() const
{
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    return h;
}

std::string GlWindow::glDescription() const
{
    auto text = [](GLenum name)
    {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "?");
    };
    return "OpenGL " + text(GL_VERSION) + ", " + text(GL_RENDERER);
}

void applyUiStyle(float scale)
{
    ImGuiIO& io = ImGui::GetIO();
    const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    // Latin-1 alone (ImGui's default) shows the panels' ε, α and γ as '?': add Greek, punctuation
    // (— …), arrows and math operators (≥ −). ImGui keeps the pointer until the atlas is built.
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F,
                                     0x2190, 0x21FF, 0x2200, 0x22FF, 0};
    if (std::filesystem::exists(font))
        io.Fonts->AddFontFromFileTTF(font, 15.0f * scale, nullptr, ranges);

    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 6;
    style.FrameRounding = 4;
    style.GrabRounding = 4;
    style.PopupRounding = 4;
    style.ScrollbarRounding = 6;
    style.TabRounding = 4;
    style.WindowBorderSize = 0;
    style.FrameBorderSize = 0;
    style.WindowPadding = ImVec2(10, 8);
    style.FramePadding = ImVec2(6, 3);
    style.ItemSpacing = ImVec2(8, 5);
    style.ScaleAllSizes(scale);

    ImVec4* c = style.Colors;
    const ImVec4 accent(0.96f, 0.55f, 0.26f, 1.0f); // warm orange, like a crack face
    c[ImGuiCol_WindowBg] = ImVec4(0.10f, 0.11f, 0.13f, 0.90f);
    c[ImGuiCol_ChildBg] = ImVec4(0.08f, 0.09f, 0.10f, 0.60f);
    c[ImGuiCol_PopupBg] = ImVec4(0.10f, 0.11f, 0.13f, 0.97f);
    c[ImGuiCol_TitleBg] = ImVec4(0.13f, 0.14f, 0.17f, 0.95f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.17f, 0.18f, 0.22f, 0.98f);
    c[ImGuiCol_FrameBg] = ImVec4(0.20f, 0.21f, 0.25f, 0.80f);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.27f, 0.28f, 0.33f, 0.90f);
    c[ImGuiCol_FrameBgActive] = ImVec4(0.32f, 0.33f, 0.38f, 1.00f);
    c[ImGuiCol_Header] = ImVec4(0.22f, 0.23f, 0.28f, 0.90f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.30f, 0.31f, 0.37f, 1.00f);
    c[ImGuiCol_HeaderActive] = ImVec4(0.35f, 0.36f, 0.42f, 1.00f);
    c[ImGuiCol_Button] = ImVec4(0.24f, 0.25f, 0.30f, 1.00f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.85f, 0.45f, 0.20f, 0.85f);
    c[ImGuiCol_ButtonActive] = accent;
    c[ImGuiCol_SliderGrab] = accent;
    c[ImGuiCol_SliderGrabActive] = ImVec4(1.0f, 0.68f, 0.40f, 1.0f);
    c[ImGuiCol_CheckMark] = accent;
    c[ImGuiCol_PlotLines] = accent;
    c[ImGuiCol_PlotHistogram] = accent;
    c[ImGuiCol_Separator] = ImVec4(0.30f, 0.31f, 0.36f, 0.60f);
    c[ImGuiCol_Tab] = ImVec4(0.17f, 0.18f, 0.22f, 1.0f);
    c[ImGuiCol_TabHovered] = ImVec4(0.85f, 0.45f, 0.20f, 0.85f);
    c[ImGuiCol_TabActive] = ImVec4(0.30f, 0.24f, 0.20f, 1.0f);
}

} // namespace shatter::demo
