#include "mesh_upload.h"

#include <cmath>
#include <utility>

namespace shatter::demo
{

std::vector<MeshVertex> buildMeshVertices(const FragmentMesh& mesh, NormalMode mode, float creaseDegrees)
{
    const TriMesh& surface = mesh.surface;
    const std::size_t triangleCount = surface.triangles.size();
    std::vector<Vec3> faceNormal(triangleCount);
    std::vector<Real> faceArea(triangleCount);
    for (std::size_t t = 0; t < triangleCount; ++t)
    {
        faceNormal[t] = surface.normal(Index(t));
        faceArea[t] = surface.area(Index(t));
    }

    // Triangles around each vertex (CSR), for the smooth normals.
    std::vector<Index> offsets, incident;
    if (mode == NormalMode::Smooth)
    {
        offsets.assign(surface.vertices.size() + 1, 0);
        for (const Triangle& tri : surface.triangles)
            for (Index v : tri)
                ++offsets[v + 1];
        for (std::size_t i = 1; i < offsets.size(); ++i)
            offsets[i] += offsets[i - 1];
        incident.resize(offsets.back());
        std::vector<Index> fill(offsets.begin(), offsets.end() - 1);
        for (std::size_t t = 0; t < triangleCount; ++t)
            for (Index v : surface.triangles[t])
                incident[fill[v]++] = Index(t);
    }
    const Real cosCrease = std::cos(Real(creaseDegrees) * 3.14159265358979 / 180);

    std::vector<MeshVertex> out;
    out.reserve(3 * triangleCount);
    for (std::size_t t = 0; t < triangleCount; ++t)
    {
        const bool crack = mesh.isCrack(Index(t));
        for (Index v : surface.triangles[t])
        {
            Vec3 n = faceNormal[t];
            if (mode == NormalMode::Smooth)
            {
                Vec3 sum = Vec3::Zero();
                for (Index k = offsets[v]; k < offsets[v + 1]; ++k)
                {
                    const Index other = incident[k];
                    if (mesh.isCrack(other) != crack || faceNormal[other].dot(faceNormal[t]) < cosCrease)
                        continue;
                    sum += faceArea[other] * faceNormal[other];
                }
                if (sum.squaredNorm() > 0)
                    n = sum.normalized();
            }
            const Vec3& p = surface.vertices[v];
            out.push_back({{float(p.x()), float(p.y()), float(p.z())},
                           {float(n.x()), float(n.y()), float(n.z())},
                           crack ? 1.0f : 0.0f});
        }
    }
    return out;
}

GpuMesh::GpuMesh(const std::vector<MeshVertex>& vertices) : count(GLsizei(vertices.size()))
{
    for (const MeshVertex& v : vertices)
        box.extend(Eigen::Vector3f(v.position[0], v.position[1], v.position[2]));
    glGenVertexArrays(1, &vao);
    glGenBuffers(1, &vbo);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertices.size() * sizeof(MeshVertex)), vertices.data(),
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<void*>(offsetof(MeshVertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<void*>(offsetof(MeshVertex, normal)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<void*>(offsetof(MeshVertex, crack)));
    glBindVertexArray(0);
}

GpuMesh::~GpuMesh()
{
    release();
}

GpuMesh::GpuMesh(GpuMesh&& other) noexcept
    : vao(std::exchange(other.vao, 0)), vbo(std::exchange(other.vbo, 0)),
      count(std::exchange(other.count, 0)), box(other.box)
{
}

GpuMesh& GpuMesh::operator=(GpuMesh&& other) noexcept
{
    if (this != &other)
    {
        release();
        vao = std::exchange(other.vao, 0);
        vbo = std::exchange(other.vbo, 0);
        count = std::exchange(other.count, 0);
        box = other.box;
    }
    return *this;
}

void GpuMesh::release()
{
    if (vbo)
        glDeleteBuffers(1, &vbo);
    if (vao)
        glDeleteVertexArrays(1, &vao);
    vao = vbo = 0;
    count = 0;
}

void GpuMesh::draw() const
{
    if (!count)
        return;
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, count);
}

} // namespace shatter::demo
