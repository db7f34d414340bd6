// FragmentMesh → GPU: one vertex per triangle corner with a flat or crease-aware smooth normal and the
// triangle's crack flag, so crack faces can be shaded apart from the original surface.
#pragma once

#include "fragment_mesh.h"

#include <glad/gl.h>

#include <Eigen/Geometry>

#include <cstdint>
#include <vector>

namespace shatter::demo
{

enum class NormalMode
{
    Flat,   ///< the triangle's normal (faceted look)
    Smooth, ///< averaged over neighbouring triangles within the crease angle and of the same kind
};

struct MeshVertex
{
    float position[3];
    float normal[3];
    float crack; ///< 1 on crack triangles, 0 on the original surface
};
static_assert(sizeof(MeshVertex) == 28);

/// Corner vertices of `mesh` (3 per triangle, material frame). Smooth normals never blend across a
/// crease sharper than `creaseDegrees` nor between a crack triangle and an original one, so crack
/// edges stay crisp.
std::vector<MeshVertex> buildMeshVertices(const FragmentMesh& mesh, NormalMode mode,
                                          float creaseDegrees = 40);

/// A vertex array on the GPU, drawn as triangles. Move-only; frees its buffers.
class GpuMesh
{
public:
    GpuMesh() = default;
    explicit GpuMesh(const std::vector<MeshVertex>& vertices);
    ~GpuMesh();
    GpuMesh(GpuMesh&& other) noexcept;
    GpuMesh& operator=(GpuMesh&& other) noexcept;
    GpuMesh(const GpuMesh&) = delete;
    GpuMesh& operator=(const GpuMesh&) = delete;

    void draw() const;
    GLsizei vertexCount() const { return count; }
    /// Bounds of the vertices (the mesh's own frame).
    const Eigen::AlignedBox3f& bounds() const { return box; }

private:
    void release();
    GLuint vao = 0, vbo = 0;
    GLsizei count = 0;
    Eigen::AlignedBox3f box;
};

} // namespace shatter::demo
