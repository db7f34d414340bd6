// Shells of a closed mesh and how they nest, by the generalized winding number (Jacobson et al.,
// "Robust inside-outside segmentation using generalized winding numbers", 2013): exact for closed
// surfaces, and unlike a ray-parity test it cannot be fooled by a ray grazing an edge or a vertex.
#include "mesh_validate.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shatter
{

std::vector<Shell> findShells(const TriMesh& mesh, const EdgeTable& edges)
{
    // Breadth-first through shared edges, seeded in triangle order: shells come out ordered by
    // their first triangle.
    const Index n = Index(mesh.triangles.size());
    std::vector<Shell> shells;
    std::vector<bool> seen(n, false);
    for (Index seed = 0; seed < n; ++seed)
    {
        if (seen[seed])
            continue;
        Shell& shell = shells.emplace_back();
        shell.triangles.push_back(seed);
        seen[seed] = true;
        for (std::size_t next = 0; next < shell.triangles.size(); ++next)
        {
            const Index t = shell.triangles[next];
            for (Index k = 0; k < 3; ++k)
            {
                const Index e = edges.cornerEdge[3 * t + k];
                for (Index h = edges.offsets[e]; h < edges.offsets[e + 1]; ++h)
                {
                    const Index other = edges.halfEdges[h].triangle;
                    if (!seen[other])
                    {
                        seen[other] = true;
                        shell.triangles.push_back(other);
                    }
                }
            }
        }
        std::sort(shell.triangles.begin(), shell.triangles.end());
        for (Index t : shell.triangles)
        {
            const Triangle& tri = mesh.triangles[t];
            shell.volume +=
                mesh.vertices[tri[0]].dot(mesh.vertices[tri[1]].cross(mesh.vertices[tri[2]])) / Real(6);
        }
    }
    if (shells.size() < 2)
        return shells;

    std::vector<Aabb> bounds(shells.size());
    for (std::size_t s = 0; s < shells.size(); ++s)
        for (Index t : shells[s].triangles)
            for (Index v : mesh.triangles[t])
                bounds[s].grow(mesh.vertices[v]);
    for (std::size_t a = 0; a < shells.size(); ++a)
    {
        // Shells do not intersect, so one vertex decides for the whole shell.
        const Vec3& p = mesh.vertices[mesh.triangles[shells[a].triangles.front()][0]];
        for (std::size_t b = 0; b < shells.size(); ++b)
            if (b != a && bounds[b].distance(p) == 0 &&
                std::abs(windingNumber(mesh, shells[b].triangles, p)) > 0.5)
                ++shells[a].depth;
    }
    return shells;
}

Real windingNumber(const TriMesh& mesh, const std::vector<Index>& triangles, const Vec3& p)
{
    Real solidAngle = 0;
    for (Index t : triangles)
    {
        const Triangle& tri = mesh.triangles[t];
        const Vec3 a = mesh.vertices[tri[0]] - p;
        const Vec3 b = mesh.vertices[tri[1]] - p;
        const Vec3 c = mesh.vertices[tri[2]] - p;
        const Real la = a.norm();
        const Real lb = b.norm();
        const Real lc = c.norm();
        const Real numerator = a.dot(b.cross(c));
        const Real denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        solidAngle += 2 * std::atan2(numerator, denominator);
    }
    return solidAngle / (4 * std::numbers::pi_v<Real>);
}

} // namespace shatter
