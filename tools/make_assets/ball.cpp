// The ball dropped on plates: an icosphere (subdivided icosahedron projected onto the sphere), whose
// triangles are all close to equilateral, unlike a latitude-longitude sphere's polar fans.
#include "procedural.h"

#include <cmath>
#include <map>
#include <utility>

namespace shatter::assets
{

TriMesh makeBall(const Target& target)
{
    const Index targetTriangles = target.triangles;
    constexpr Real kRadius = 0.055;
    TriMesh mesh;
    // The icosahedron: (0, +-1, +-g) and its cyclic permutations, g the golden ratio.
    const Real g = (1 + std::sqrt(Real(5))) / 2;
    const Real c[12][3] = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                           {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
    for (const auto& p : c)
        mesh.vertices.push_back(Vec3(p[0], p[1], p[2]).normalized() * kRadius);
    mesh.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};

    // Each 4-to-1 split quadruples the count: stop at the level closest to the target (1,280 for
    // ~1,000-2,000), splitting each edge once through an ordered midpoint cache.
    while (std::abs(Real(4 * mesh.triangles.size()) - Real(targetTriangles)) <
           std::abs(Real(mesh.triangles.size()) - Real(targetTriangles)))
    {
        std::map<std::pair<Index, Index>, Index> midpoint;
        const auto split = [&](Index a, Index b)
        {
            const auto [it, inserted] =
                midpoint.try_emplace({std::min(a, b), std::max(a, b)}, Index(mesh.vertices.size()));
            if (inserted)
                mesh.vertices.push_back((mesh.vertices[a] + mesh.vertices[b]).normalized() * kRadius);
            return it->second;
        };
        std::vector<Triangle> finer;
        for (const Triangle& t : mesh.triangles)
        {
            const Index ab = split(t[0], t[1]), bc = split(t[1], t[2]), ca = split(t[2], t[0]);
            finer.push_back({t[0], ab, ca});
            finer.push_back({t[1], bc, ab});
            finer.push_back({t[2], ca, bc});
            finer.push_back({ab, bc, ca});
        }
        mesh.triangles = std::move(finer);
    }
    return mesh;
}

} // namespace shatter::assets
