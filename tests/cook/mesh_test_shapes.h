// Small meshes and helpers shared by the mesh import, validation and repair tests (on top of the
// procedural meshes of tests/support/test_meshes.h).
#pragma once

#include "mesh_import.h"
#include "mesh_repair.h"

#include "test_meshes.h"
#include "test_paths.h"

#include <array>
#include <cmath>
#include <map>

namespace shatter::test
{

inline std::filesystem::path goodMesh(const std::string& name)
{
    return dataDir() / "good" / name;
}
inline std::filesystem::path badMesh(const std::string& name)
{
    return dataDir() / "bad" / name;
}

inline bool hasNote(const ImportReport& report, const std::string& text)
{
    for (const std::string& note : report.notes)
        if (note.find(text) != std::string::npos)
            return true;
    return false;
}

/// Surface of the cube [-1, 1]^3 with an n x n grid of quads on each face, wound outward.
inline TriMesh gridCube(int n)
{
    TriMesh mesh;
    std::map<std::array<int, 3>, Index> index;
    auto vertex = [&](const std::array<int, 3>& g)
    {
        const auto [it, inserted] = index.try_emplace(g, Index(mesh.vertices.size()));
        if (inserted)
            mesh.vertices.push_back(Vec3(g[0], g[1], g[2]) * (Real(2) / n) - Vec3::Ones());
        return it->second;
    };
    for (int a = 0; a < 3; ++a)
        for (int side : {0, n})
            for (int u = 0; u < n; ++u)
                for (int v = 0; v < n; ++v)
                {
                    std::array<Index, 4> q;
                    const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                    for (int k = 0; k < 4; ++k)
                    {
                        std::array<int, 3> g;
                        g[a] = side;
                        g[(a + 1) % 3] = u + corner[k][0];
                        g[(a + 2) % 3] = v + corner[k][1];
                        q[side == 0 ? 3 - k : k] = vertex(g);
                    }
                    mesh.triangles.push_back({q[0], q[1], q[2]});
                    mesh.triangles.push_back({q[0], q[2], q[3]});
                }
    return mesh;
}

/// Cube of half-size `half`: 8 vertices, 12 triangles, wound outward unless `inward`.
inline TriMesh cube(const Vec3& center, Real half, bool inward = false)
{
    TriMesh mesh;
    for (int i = 0; i < 8; ++i)
        mesh.vertices.push_back(center + half * Vec3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1));
    mesh.triangles = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                      {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    if (inward)
        flipTriangles(mesh, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    return mesh;
}

inline TriMesh combine(const TriMesh& a, const TriMesh& b)
{
    TriMesh mesh = a;
    const Index base = Index(a.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), b.vertices.begin(), b.vertices.end());
    for (Triangle tri : b.triangles)
        mesh.triangles.push_back({tri[0] + base, tri[1] + base, tri[2] + base});
    return mesh;
}

} // namespace shatter::test
