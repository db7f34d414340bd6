#include "renderer.h"

#include "palette.h"
#include "shaders.h"

#include <algorithm>
#include <cmath>

namespace shatter::demo
{
namespace
{
const Eigen::Vector3f kZenith(0.33f, 0.45f, 0.60f); // display colours of the background
const Eigen::Vector3f kHorizon(0.74f, 0.76f, 0.78f);
const Eigen::Vector3f kSkyLight(0.42f, 0.48f, 0.58f); // linear ambient from above
const Eigen::Vector3f kGroundLight(0.16f, 0.14f, 0.12f);
} // namespace

Mat4f lookAt(const Vec3f& eye, const Vec3f& target, const Vec3f& up)
{
    const Vec3f f = (target - eye).normalized();
    const Vec3f r = f.cross(up).normalized();
    const Vec3f u = r.cross(f);
    Mat4f m = Mat4f::Identity();
    m.block<1, 3>(0, 0) = r.transpose();
    m.block<1, 3>(1, 0) = u.transpose();
    m.block<1, 3>(2, 0) = -f.transpose();
    m(0, 3) = -r.dot(eye);
    m(1, 3) = -u.dot(eye);
    m(2, 3) = f.dot(eye);
    return m;
}

Mat4f orthographic(float l, float r, float b, float t, float n, float f)
{
    Mat4f m = Mat4f::Identity();
    m(0, 0) = 2 / (r - l);
    m(1, 1) = 2 / (t - b);
    m(2, 2) = -2 / (f - n);
    m(0, 3) = -(r + l) / (r - l);
    m(1, 3) = -(t + b) / (t - b);
    m(2, 3) = -(f + n) / (f - n);
    return m;
}

Renderer::Renderer(int shadowMapSize)
    : meshProgram("mesh", shaders::kMeshVertex, shaders::kMeshFragment),
      shadowProgram("shadow", shaders::kShadowVertex, shaders::kShadowFragment),
      groundProgram("ground", shaders::kGroundVertex, shaders::kGroundFragment),
      skyProgram("sky", shaders::kSkyVertex, shaders::kSkyFragment),
      lineProgram("lines", shaders::kLineVertex, shaders::kLineFragment),
      sliceProgram("slice", shaders::kSliceVertex, shaders::kSliceFragment), shadowSize(shadowMapSize)
{
    glGenTextures(1, &shadowTexture);
    glBindTexture(GL_TEXTURE_2D, shadowTexture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, shadowSize, shadowSize, 0, GL_DEPTH_COMPONENT,
                 GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glGenFramebuffers(1, &shadowFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, shadowFbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, shadowTexture, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    glGenVertexArrays(1, &emptyVao);

    glGenVertexArrays(1, &groundVao);
    glGenBuffers(1, &groundVbo);
    glBindVertexArray(groundVao);
    glBindBuffer(GL_ARRAY_BUFFER, groundVbo);
    glBufferData(GL_ARRAY_BUFFER, 6 * 3 * sizeof(float), nullptr, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);

    glGenVertexArrays(1, &sliceVao);
    glGenBuffers(1, &sliceVbo);
    glBindVertexArray(sliceVao);
    glBindBuffer(GL_ARRAY_BUFFER, sliceVbo);
    glBufferData(GL_ARRAY_BUFFER, 6 * 5 * sizeof(float), nullptr, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 5 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 5 * sizeof(float),
                          reinterpret_cast<void*>(3 * sizeof(float)));
    glBindVertexArray(0);
}

Renderer::~Renderer()
{
    glDeleteFramebuffers(1, &shadowFbo);
    glDeleteTextures(1, &shadowTexture);
    glDeleteVertexArrays(1, &emptyVao);
    glDeleteVertexArrays(1, &groundVao);
    glDeleteBuffers(1, &groundVbo);
    glDeleteVertexArrays(1, &sliceVao);
    glDeleteBuffers(1, &sliceVbo);
}

void Renderer::renderShadowMap(const FrameSettings& frame, std::span<const DrawItem> items,
                               Mat4f& lightViewProj)
{
    Eigen::AlignedBox3f box = frame.sceneBounds;
    if (box.isEmpty())
        box = Eigen::AlignedBox3f(Vec3f::Constant(-1), Vec3f::Constant(1));
    const Vec3f center = box.center();
    const float radius = std::max(0.55f * box.diagonal().norm(), 0.1f);
    const Vec3f light = frame.lightDirection.normalized();
    const Vec3f up = std::abs(light.y()) > 0.99f ? Vec3f::UnitZ() : Vec3f::UnitY();
    lightViewProj = orthographic(-radius, radius, -radius, radius, 0.01f * radius, 4 * radius) *
                    lookAt(center + 2 * radius * light, center, up);

    GLint previousFbo = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previousFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, shadowFbo);
    glViewport(0, 0, shadowSize, shadowSize);
    glClear(GL_DEPTH_BUFFER_BIT);
    if (frame.shadows)
    {
        glEnable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE); // fragments are closed, but thin plates need both sides in the map
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.5f, 2.0f);
        shadowProgram.use();
        shadowProgram.set("uLightViewProj", lightViewProj);
        for (const DrawItem& item : items)
        {
            shadowProgram.set("uModel", item.model);
            item.mesh->draw();
        }
        glDisable(GL_POLYGON_OFFSET_FILL);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(previousFbo));
    glViewport(0, 0, frame.width, frame.height);
}

void Renderer::render(const FrameSettings& frame, std::span<const DrawItem> items,
                      std::span<const SliceItem> slices, const LineBatch& depthLines,
                      const LineBatch& overlayLines)
{
    const OrbitCamera& camera = *frame.camera;
    const float aspect = float(frame.width) / float(std::max(frame.height, 1));
    const Mat4f viewProj = camera.projection(aspect) * camera.view();
    Mat4f lightViewProj;
    renderShadowMap(frame, items, lightViewProj);

    glClearColor(kHorizon.x(), kHorizon.y(), kHorizon.z(), 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glDisable(GL_BLEND);

    // Background.
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    skyProgram.use();
    skyProgram.set("uInverseViewProj", Mat4f(viewProj.inverse()));
    skyProgram.set("uZenithColor", kZenith);
    skyProgram.set("uHorizonColor", kHorizon);
    glBindVertexArray(emptyVao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glDepthMask(GL_TRUE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);

    const Eigen::AlignedBox3f& box = frame.sceneBounds;
    const float sceneScale = box.isEmpty() ? 1.0f : std::max(box.diagonal().norm(), 0.05f);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, shadowTexture);

    // Meshes.
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    meshProgram.use();
    meshProgram.set("uViewProj", viewProj);
    meshProgram.set("uLightViewProj", lightViewProj);
    meshProgram.set("uShadowMap", 0);
    meshProgram.set("uShadowTexel", 1.0f / float(shadowSize));
    meshProgram.set("uLightDir", frame.lightDirection);
    meshProgram.set("uCameraPos", camera.position());
    meshProgram.set("uSkyColor", kSkyLight);
    meshProgram.set("uGroundColor", kGroundLight);
    meshProgram.set("uGroundY", frame.ground ? frame.groundY : -1e6f);
    meshProgram.set("uSceneScale", sceneScale);
    triangles = 0;
    for (const DrawItem& item : items)
    {
        meshProgram.set("uModel", item.model);
        meshProgram.set("uBaseColor", srgbToLinear(item.surface));
        meshProgram.set("uCrackColor", srgbToLinear(item.crack));
        meshProgram.set("uGloss", item.gloss);
        meshProgram.set("uHighlight", item.highlight);
        item.mesh->draw();
        triangles += std::size_t(item.mesh->vertexCount() / 3);
    }
    glDisable(GL_CULL_FACE);

    // Ground: a large quad under the camera's target.
    if (frame.ground)
    {
        const Vec3f c = camera.pose.target;
        const float half = std::max({30.0f, 40 * sceneScale, 8 * camera.pose.distance});
        const float y = frame.groundY;
        const float quad[6][3] = {{c.x() - half, y, c.z() - half}, {c.x() - half, y, c.z() + half},
                                  {c.x() + half, y, c.z() + half}, {c.x() - half, y, c.z() - half},
                                  {c.x() + half, y, c.z() + half}, {c.x() + half, y, c.z() - half}};
        glBindBuffer(GL_ARRAY_BUFFER, groundVbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof quad, quad);
        const float gridStep = std::pow(10.0f, std::floor(std::log10(std::max(sceneScale, 0.05f) / 3.0f)));
        groundProgram.use();
        groundProgram.set("uViewProj", viewProj);
        groundProgram.set("uLightViewProj", lightViewProj);
        groundProgram.set("uShadowMap", 0);
        groundProgram.set("uShadowTexel", 1.0f / float(shadowSize));
        groundProgram.set("uCameraPos", camera.position());
        groundProgram.set("uGroundAlbedo", Eigen::Vector3f(0.24f, 0.24f, 0.235f));
        groundProgram.set("uSkyColor", kSkyLight);
        groundProgram.set("uHorizonColor", kHorizon);
        groundProgram.set("uLightDir", frame.lightDirection);
        groundProgram.set("uGridStep", gridStep);
        groundProgram.set("uFadeDistance", std::max(6 * sceneScale, 3 * camera.pose.distance));
        glBindVertexArray(groundVao);
        glDrawArrays(GL_TRIANGLES, 0, 6);
    }

    // Distance-field slices.
    if (!slices.empty())
    {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        sliceProgram.use();
        sliceProgram.set("uViewProj", viewProj);
        sliceProgram.set("uField", 1);
        glActiveTexture(GL_TEXTURE1);
        glBindVertexArray(sliceVao);
        glBindBuffer(GL_ARRAY_BUFFER, sliceVbo);
        for (const SliceItem& s : slices)
        {
            const float uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            const int order[6] = {0, 1, 2, 0, 2, 3};
            float data[6][5];
            for (int i = 0; i < 6; ++i)
            {
                const int k = order[i];
                data[i][0] = s.corners[k].x();
                data[i][1] = s.corners[k].y();
                data[i][2] = s.corners[k].z();
                data[i][3] = uv[k][0];
                data[i][4] = uv[k][1];
            }
            glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof data, data);
            glBindTexture(GL_TEXTURE_2D, s.texture);
            sliceProgram.set("uModel", s.model);
            sliceProgram.set("uFragment", s.fragment);
            sliceProgram.set("uBand", s.band);
            sliceProgram.set("uColor", s.color);
            glDrawArrays(GL_TRIANGLES, 0, 6);
        }
        glActiveTexture(GL_TEXTURE0);
        glDisable(GL_BLEND);
    }

    // Debug lines.
    lineProgram.use();
    lineProgram.set("uViewProj", viewProj);
    lineProgram.set("uModel", Mat4f(Mat4f::Identity()));
    lineProgram.set("uAlpha", 1.0f);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    if (!depthLines.empty())
    {
        depthLineBuffer.upload(depthLines.data());
        depthLineBuffer.draw();
    }
    if (!overlayLines.empty())
    {
        overlayLineBuffer.upload(overlayLines.data());
        // Faint where hidden, full where visible.
        glDepthFunc(GL_GREATER);
        glDepthMask(GL_FALSE);
        lineProgram.set("uAlpha", 0.3f);
        overlayLineBuffer.draw();
        glDepthFunc(GL_LEQUAL);
        lineProgram.set("uAlpha", 1.0f);
        overlayLineBuffer.draw();
        glDepthMask(GL_TRUE);
        glDepthFunc(GL_LESS);
    }
    glDisable(GL_BLEND);
    glBindVertexArray(0);
}

} // namespace shatter::demo
