#include "voronoi_labels.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace shatter::test
{

SurfaceCheck checkFragmentSurface(const TriMesh& mesh)
{
    SurfaceCheck out;
    if (mesh.triangles.empty())
    {
        out.problem = "no triangles";
        return out;
    }
    for (const Vec3& v : mesh.vertices)
        if (!v.allFinite())
        {
            out.problem = "NaN vertex";
            return out;
        }
    std::map<std::pair<Index, Index>, int> directed;
    std::vector<std::vector<std::pair<Index, Index>>> fans(mesh.vertices.size());
    for (Index t = 0; t < mesh.triangles.size(); ++t)
    {
        const Triangle& tri = mesh.triangles[t];
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
        {
            out.problem = "triangle with repeated corners";
            return out;
        }
        const Vec3 a = mesh.vertices[tri[0]], b = mesh.vertices[tri[1]], c = mesh.vertices[tri[2]];
        const Real longest = std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
        const Real quality = (b - a).cross(c - a).norm() / longest;
        out.minQuality = std::min(out.minQuality, quality);
        if (!(quality > 1e-12))
        {
            out.problem = "degenerate triangle " + std::to_string(t);
            return out;
        }
        for (int i = 0; i < 3; ++i)
        {
            if (++directed[{tri[i], tri[(i + 1) % 3]}] > 1)
            {
                out.problem = "directed edge used twice (not manifold or inconsistently oriented)";
                return out;
            }
            fans[tri[i]].push_back({tri[(i + 1) % 3], tri[(i + 2) % 3]});
        }
    }
    for (const auto& [e, n] : directed)
        if (!directed.count({e.second, e.first}))
        {
            out.problem = "open edge " + std::to_string(e.first) + "-" + std::to_string(e.second);
            return out;
        }
    // Vertex manifoldness: the link of every vertex is one cycle.
    for (std::size_t v = 0; v < fans.size(); ++v)
    {
        const auto& fan = fans[v];
        if (fan.empty())
            continue;
        std::map<Index, Index> next;
        for (const auto& [a, b] : fan)
            next[a] = b;
        Index cur = fan[0].first;
        std::size_t steps = 0;
        do
        {
            cur = next[cur];
            ++steps;
        } while (cur != fan[0].first && steps <= fan.size());
        if (steps != fan.size())
        {
            out.problem = "non-manifold vertex " + std::to_string(v);
            return out;
        }
    }
    out.volume = mesh.signedVolume();
    if (!(out.volume > 0))
        out.problem = "not outward (volume " + std::to_string(out.volume) + ")";
    return out;
}

Real windingNumber(const TriMesh& mesh, const Vec3& p)
{
    // Van Oosterom & Strackee solid angles.
    Real sum = 0;
    for (const Triangle& t : mesh.triangles)
    {
        const Vec3 a = mesh.vertices[t[0]] - p, b = mesh.vertices[t[1]] - p, c = mesh.vertices[t[2]] - p;
        const Real la = a.norm(), lb = b.norm(), lc = c.norm();
        const Real num = a.dot(b.cross(c));
        const Real den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        sum += 2 * std::atan2(num, den);
    }
    return sum / (4 * M_PI);
}

} // namespace shatter::test
