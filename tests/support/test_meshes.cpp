#include "test_meshes.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <utility>

namespace shatter::test
{

TriMesh icosphere(int subdivisions, Real radius, const Vec3& center)
{
    const Real t = (1 + std::sqrt(Real(5))) / 2;
    TriMesh mesh;
    mesh.vertices = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                     {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    mesh.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (Vec3& v : mesh.vertices)
        v.normalize();
    for (int s = 0; s < subdivisions; ++s)
    {
        // Split every triangle in four; the edge-midpoint map makes neighbours share the new vertex.
        std::map<std::pair<Index, Index>, Index> midpoints;
        auto midpoint = [&](Index a, Index b)
        {
            const auto key = std::minmax(a, b);
            const auto [it, inserted] = midpoints.try_emplace(key, Index(mesh.vertices.size()));
            if (inserted)
                mesh.vertices.push_back((mesh.vertices[a] + mesh.vertices[b]).normalized());
            return it->second;
        };
        std::vector<Triangle> finer;
        finer.reserve(mesh.triangles.size() * 4);
        for (const Triangle& tri : mesh.triangles)
        {
            const Index ab = midpoint(tri[0], tri[1]);
            const Index bc = midpoint(tri[1], tri[2]);
            const Index ca = midpoint(tri[2], tri[0]);
            finer.push_back({tri[0], ab, ca});
            finer.push_back({tri[1], bc, ab});
            finer.push_back({tri[2], ca, bc});
            finer.push_back({ab, bc, ca});
        }
        mesh.triangles = std::move(finer);
    }
    for (Vec3& v : mesh.vertices)
        v = center + radius * v;
    return mesh;
}

TriMesh bumpySphere(int subdivisions, Real radius, Real amplitude)
{
    TriMesh mesh = icosphere(subdivisions);
    for (Vec3& v : mesh.vertices)
        v *= radius *
             (1 + amplitude * std::sin(7 * v.x() + 1) * std::sin(5 * v.y() + 2) * std::sin(6 * v.z() + 3));
    return mesh;
}

TriMesh tetrahedron(Real radius)
{
    TriMesh mesh;
    const Real s = radius / std::sqrt(Real(3));
    mesh.vertices = {{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}};
    mesh.triangles = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    if (mesh.signedVolume() < 0)
        flipTriangles(mesh);
    return mesh;
}

TriMesh box(const Vec3& halfExtents, const Vec3& center)
{
    TriMesh mesh;
    for (int corner = 0; corner < 8; ++corner)
        mesh.vertices.push_back(center + Vec3((corner & 1) ? halfExtents.x() : -halfExtents.x(),
                                              (corner & 2) ? halfExtents.y() : -halfExtents.y(),
                                              (corner & 4) ? halfExtents.z() : -halfExtents.z()));
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side)
        {
            // (u, v, axis) is a right-handed frame, so (0,0), (1,0), (1,1), (0,1) in (u, v) is
            // counter-clockwise seen from +axis; the low side reverses it.
            const int u = (axis + 1) % 3;
            const int v = (axis + 2) % 3;
            auto corner = [&](int iu, int iv)
            {
                return Index((side << axis) | (iu << u) | (iv << v));
            };
            Index quad[4] = {corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)};
            if (side == 0)
                std::swap(quad[1], quad[3]);
            mesh.triangles.push_back({quad[0], quad[1], quad[2]});
            mesh.triangles.push_back({quad[0], quad[2], quad[3]});
        }
    return mesh;
}

TriMesh boxWithCavity(const Vec3& outerHalfExtents, const Vec3& innerHalfExtents)
{
    TriMesh mesh = box(outerHalfExtents);
    TriMesh cavity = box(innerHalfExtents);
    flipTriangles(cavity);
    appendMesh(mesh, cavity);
    return mesh;
}

TriMesh torus(Real majorRadius, Real minorRadius, int majorSegments, int minorSegments)
{
    TriMesh mesh;
    const Real step = 2 * std::numbers::pi_v<Real>;
    for (int i = 0; i < majorSegments; ++i)
        for (int j = 0; j < minorSegments; ++j)
        {
            const Real theta = step * i / majorSegments;
            const Real phi = step * j / minorSegments;
            const Real ring = majorRadius + minorRadius * std::cos(phi);
            mesh.vertices.emplace_back(ring * std::cos(theta), ring * std::sin(theta),
                                       minorRadius * std::sin(phi));
        }
    auto id = [&](int i, int j)
    {
        return Index((i % majorSegments) * minorSegments + (j % minorSegments));
    };
    for (int i = 0; i < majorSegments; ++i)
        for (int j = 0; j < minorSegments; ++j)
        {
            mesh.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
            mesh.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
        }
    if (mesh.signedVolume() < 0)
        flipTriangles(mesh);
    return mesh;
}

void appendMesh(TriMesh& mesh, const TriMesh& part)
{
    const Index offset = Index(mesh.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), part.vertices.begin(), part.vertices.end());
    for (const Triangle& tri : part.triangles)
        mesh.triangles.push_back({tri[0] + offset, tri[1] + offset, tri[2] + offset});
}

void flipTriangles(TriMesh& mesh)
{
    for (Triangle& tri : mesh.triangles)
        std::swap(tri[1], tri[2]);
}

Real boxSignedDistance(const Vec3& p, const Vec3& halfExtents)
{
    const Vec3 q = p.cwiseAbs() - halfExtents;
    return q.cwiseMax(Vec3::Zero()).norm() + std::min(q.maxCoeff(), Real(0));
}

} // namespace shatter::test
