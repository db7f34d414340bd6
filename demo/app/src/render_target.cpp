#include "render_target.h"

#include <algorithm>
#include <stdexcept>

namespace shatter::demo
{

RenderTarget::~RenderTarget()
{
    release();
}

void RenderTarget::release()
{
    if (sceneFbo)
        glDeleteFramebuffers(1, &sceneFbo);
    if (finalFbo)
        glDeleteFramebuffers(1, &finalFbo);
    GLuint buffers[] = {sceneColor, sceneDepth, finalColor};
    glDeleteRenderbuffers(3, buffers);
    sceneFbo = finalFbo = sceneColor = sceneDepth = finalColor = 0;
}

void RenderTarget::resize(int width, int height, int samples)
{
    width = std::max(width, 1);
    height = std::max(height, 1);
    GLint maxSamples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &maxSamples);
    samples = std::clamp(samples, 0, int(maxSamples));
    if (width == w && height == h && samples == msaa && sceneFbo)
        return;
    release();
    w = width;
    h = height;
    msaa = samples;

    glGenRenderbuffers(1, &sceneColor);
    glBindRenderbuffer(GL_RENDERBUFFER, sceneColor);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, msaa, GL_RGBA8, w, h);
    glGenRenderbuffers(1, &sceneDepth);
    glBindRenderbuffer(GL_RENDERBUFFER, sceneDepth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, msaa, GL_DEPTH_COMPONENT24, w, h);
    glGenFramebuffers(1, &sceneFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, sceneFbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, sceneColor);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, sceneDepth);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw std::runtime_error("the multisampled scene framebuffer is incomplete");

    glGenRenderbuffers(1, &finalColor);
    glBindRenderbuffer(GL_RENDERBUFFER, finalColor);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &finalFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, finalFbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, finalColor);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw std::runtime_error("the final framebuffer is incomplete");
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void RenderTarget::bindScene() const
{
    glBindFramebuffer(GL_FRAMEBUFFER, sceneFbo);
    glViewport(0, 0, w, h);
}

void RenderTarget::resolveAndBindFinal() const
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, sceneFbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, finalFbo);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, finalFbo);
    glViewport(0, 0, w, h);
}

void RenderTarget::present() const
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, finalFbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void RenderTarget::bindForRead() const
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, finalFbo);
}

} // namespace shatter::demo
