#include "primitives.h"

#include <map>
#include <utility>

namespace shatter::demo
{

TriMesh makeSphereMesh(int subdivisions)
{
    const Real t = (1 + std::sqrt(Real(5))) / 2;
    TriMesh mesh;
    for (const Vec3& v :
         {Vec3(-1, t, 0), Vec3(1, t, 0), Vec3(-1, -t, 0), Vec3(1, -t, 0), Vec3(0, -1, t), Vec3(0, 1, t),
          Vec3(0, -1, -t), Vec3(0, 1, -t), Vec3(t, 0, -1), Vec3(t, 0, 1), Vec3(-t, 0, -1), Vec3(-t, 0, 1)})
        mesh.vertices.push_back(v.normalized());
    mesh.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (int s = 0; s < subdivisions; ++s)
    {
        std::map<std::pair<Index, Index>, Index> midpoints;
        auto midpoint = [&](Index a, Index b)
        {
            const auto key = std::minmax(a, b);
            auto it = midpoints.find(key);
            if (it != midpoints.end())
                return it->second;
            mesh.vertices.push_back((mesh.vertices[a] + mesh.vertices[b]).normalized());
            const Index id = Index(mesh.vertices.size() - 1);
            midpoints.emplace(key, id);
            return id;
        };
        std::vector<Triangle> refined;
        refined.reserve(4 * mesh.triangles.size());
        for (const Triangle& tri : mesh.triangles)
        {
            const Index ab = midpoint(tri[0], tri[1]), bc = midpoint(tri[1], tri[2]),
                        ca = midpoint(tri[2], tri[0]);
            refined.push_back({tri[0], ab, ca});
            refined.push_back({tri[1], bc, ab});
            refined.push_back({tri[2], ca, bc});
            refined.push_back({ab, bc, ca});
        }
        mesh.triangles = std::move(refined);
    }
    return mesh;
}

TriMesh makeBoxMesh(const Vec3& h)
{
    TriMesh mesh;
    for (int i = 0; i < 8; ++i)
        mesh.vertices.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                                   (i & 4) ? h.z() : -h.z());
    // Two triangles per face, counter-clockwise seen from outside.
    mesh.triangles = {{0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}, {0, 1, 5}, {0, 5, 4},
                      {2, 6, 7}, {2, 7, 3}, {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}};
    return mesh;
}

} // namespace shatter::demo
