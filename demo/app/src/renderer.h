// Draws one frame of the scene: background, shadow map from a directional key light, lit meshes,
// the ground, distance-field slices and debug lines. Knows nothing about Bullet or scenes: the
// caller hands it draw items (a mesh, a model matrix, colours) each frame.
#pragma once

#include "camera.h"
#include "line_batch.h"
#include "mesh_upload.h"
#include "shader.h"

#include <Eigen/Geometry>

#include <span>

namespace shatter::demo
{

/// One mesh instance. Colours are sRGB.
struct DrawItem
{
    const GpuMesh* mesh = nullptr;
    Mat4f model = Mat4f::Identity(); ///< mesh frame → world
    Eigen::Vector3f surface = Eigen::Vector3f::Constant(0.8f);
    Eigen::Vector3f crack = Eigen::Vector3f::Constant(0.6f);
    float gloss = 0.5f;
    float highlight = 0; ///< 0..1 warm tint (picked body)
};

/// A quad textured with a distance-field slice (RG32F: fragment id, distance), drawn for one fragment.
struct SliceItem
{
    GLuint texture = 0;
    Mat4f model = Mat4f::Identity();
    Eigen::Vector3f corners[4]; ///< material frame, in uv order (0,0) (1,0) (1,1) (0,1)
    float fragment = 0;
    float band = 0.01f;                              ///< isoline spacing, m
    Eigen::Vector3f color = Eigen::Vector3f::Ones(); ///< sRGB
};

struct FrameSettings
{
    const OrbitCamera* camera = nullptr;
    int width = 1, height = 1;
    bool ground = true;
    float groundY = 0;
    Eigen::AlignedBox3f sceneBounds; ///< what the shadow map must cover (objects, not the ground)
    Eigen::Vector3f lightDirection = Eigen::Vector3f(0.45f, 1.0f, 0.32f).normalized(); ///< toward the light
    bool shadows = true;
};

class Renderer
{
public:
    /// Compiles the programs and allocates the shadow map; needs a current GL 3.3 context.
    explicit Renderer(int shadowMapSize = 2048);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /// Draws into the currently bound framebuffer (viewport = width × height). `depthLines` are hidden by
    /// geometry, `overlayLines` are drawn on top.
    void render(const FrameSettings& frame, std::span<const DrawItem> items,
                std::span<const SliceItem> slices, const LineBatch& depthLines,
                const LineBatch& overlayLines);

    /// Draws `items` with the same lighting (used by the render test without a ground).
    std::size_t lastTriangleCount() const { return triangles; }

private:
    void renderShadowMap(const FrameSettings& frame, std::span<const DrawItem> items, Mat4f& lightViewProj);

    ShaderProgram meshProgram, shadowProgram, groundProgram, skyProgram, lineProgram, sliceProgram;
    GLuint shadowFbo = 0, shadowTexture = 0;
    int shadowSize = 0;
    GLuint emptyVao = 0, groundVao = 0, groundVbo = 0, sliceVao = 0, sliceVbo = 0;
    GpuLines depthLineBuffer, overlayLineBuffer;
    std::size_t triangles = 0;
};

/// Right-handed look-at view matrix.
Mat4f lookAt(const Vec3f& eye, const Vec3f& target, const Vec3f& up);
/// Orthographic projection onto [-1, 1]³.
Mat4f orthographic(float left, float right, float bottom, float top, float nearPlane, float farPlane);

} // namespace shatter::demo
