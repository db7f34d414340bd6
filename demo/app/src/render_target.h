// Where a frame is drawn: a multisampled framebuffer for the 3-D scene, resolved into a plain one on
// which the UI is drawn; that one is shown in the window and read for screenshots. Drawing never
// touches the window's own framebuffer until present(), so hidden (headless) windows capture too.
#pragma once

#include <glad/gl.h>

namespace shatter::demo
{

class RenderTarget
{
public:
    RenderTarget() = default;
    ~RenderTarget();
    RenderTarget(const RenderTarget&) = delete;
    RenderTarget& operator=(const RenderTarget&) = delete;

    /// (Re)allocates for the size if it changed. `samples` is clamped to what the driver allows.
    void resize(int width, int height, int samples);
    /// Binds the multisampled framebuffer for the scene.
    void bindScene() const;
    /// Resolves the scene into the final framebuffer and binds that for the UI.
    void resolveAndBindFinal() const;
    /// Copies the final image into the window (framebuffer 0).
    void present() const;
    /// Binds the final framebuffer for reading (screenshots).
    void bindForRead() const;

    int width() const { return w; }
    int height() const { return h; }
    int samples() const { return msaa; }

private:
    void release();
    int w = 0, h = 0, msaa = 0;
    GLuint sceneFbo = 0, sceneColor = 0, sceneDepth = 0;
    GLuint finalFbo = 0, finalColor = 0;
};

} // namespace shatter::demo
