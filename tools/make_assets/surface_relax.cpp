// Mesh improvement on an implicit surface: tangential relaxation and intrinsic Delaunay flips. Together
// they are a cheap stand-in for isotropic remeshing that keeps the triangle count fixed, which is what
// lets meshImplicit() hit Table 1's counts exactly.
#include "surface_nets.h"

#include <cmath>
#include <map>
#include <numbers>
#include <utility>

namespace shatter::assets
{

namespace
{

Real cornerAngle(const Vec3& corner, const Vec3& a, const Vec3& b)
{
    const Vec3 u = a - corner, v = b - corner;
    return std::atan2(u.cross(v).norm(), u.dot(v));
}

Vec3 triangleNormal(const Vec3& a, const Vec3& b, const Vec3& c)
{
    return (b - a).cross(c - a).normalized();
}

} // namespace

void relaxOnSurface(TriMesh& mesh, const ImplicitFunction& f, int sweeps)
{
    // A step below 1 damps the oscillation a full Jacobi step to the centroid shows on regular grids.
    constexpr Real kStep = Real(0.8);
    const std::size_t n = mesh.vertices.size();
    std::vector<Vec3> weighted(n);
    std::vector<Real> weight(n);
    std::vector<Vec3> next(n);
    for (int sweep = 0; sweep < sweeps; ++sweep)
    {
        std::fill(weighted.begin(), weighted.end(), Vec3::Zero());
        std::fill(weight.begin(), weight.end(), Real(0));
        for (Index t = 0; t < mesh.triangles.size(); ++t)
        {
            const Triangle& tri = mesh.triangles[t];
            const Real area = mesh.area(t);
            const Vec3 centroid =
                (mesh.vertices[tri[0]] + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]) / Real(3);
            for (Index v : tri)
            {
                weighted[v] += area * centroid;
                weight[v] += area;
            }
        }
        for (std::size_t v = 0; v < n; ++v)
        {
            const Vec3& p = mesh.vertices[v];
            if (!(weight[v] > 0))
            {
                next[v] = p;
                continue;
            }
            const Vec3 normal = gradient(f, p).normalized();
            Vec3 move = weighted[v] / weight[v] - p;
            move -= move.dot(normal) * normal;
            next[v] = projectToSurface(f, p + kStep * move);
        }
        mesh.vertices.swap(next);
    }
}

Index flipToDelaunay(TriMesh& mesh)
{
    // Flips only where the two triangles are within 25 degrees of coplanar and the new pair is too,
    // so the surface keeps its shape; intrinsic angles then decide.
    const Real kMinCos = std::cos(Real(25) * std::numbers::pi_v<Real> / 180);
    constexpr int kMaxPasses = 20;

    std::map<std::pair<Index, Index>, Index> halfEdge; // directed edge (a, b) -> triangle holding it
    std::vector<Index> valence(mesh.vertices.size(), 0);
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        for (int k = 0; k < 3; ++k)
        {
            halfEdge[{mesh.triangles[t][k], mesh.triangles[t][(k + 1) % 3]}] = t;
            ++valence[mesh.triangles[t][k]];
        }

    Index flips = 0;
    for (int pass = 0; pass < kMaxPasses; ++pass)
    {
        Index passFlips = 0;
        for (Index t = 0; t < mesh.triangles.size(); ++t)
            for (int k = 0; k < 3; ++k)
            {
                // t = (a, b, c) and its neighbour u = (b, a, d) become (a, d, c) and (d, b, c).
                const Index a = mesh.triangles[t][k], b = mesh.triangles[t][(k + 1) % 3];
                const Index c = mesh.triangles[t][(k + 2) % 3];
                const auto across = halfEdge.find({b, a});
                if (across == halfEdge.end())
                    continue;
                const Index u = across->second;
                const Triangle& tu = mesh.triangles[u];
                const Index d = tu[0] != a && tu[0] != b ? tu[0] : (tu[1] != a && tu[1] != b ? tu[1] : tu[2]);
                if (valence[a] <= 4 || valence[b] <= 4 || halfEdge.count({c, d}) || halfEdge.count({d, c}))
                    continue;
                const auto& x = mesh.vertices;
                if (cornerAngle(x[c], x[a], x[b]) + cornerAngle(x[d], x[a], x[b]) <=
                    std::numbers::pi_v<Real> + 1e-9)
                    continue;
                const Vec3 nt = triangleNormal(x[a], x[b], x[c]), nu = triangleNormal(x[b], x[a], x[d]);
                const Vec3 n1 = triangleNormal(x[a], x[d], x[c]), n2 = triangleNormal(x[d], x[b], x[c]);
                const Vec3 mean = (nt + nu).normalized();
                if (nt.dot(nu) < kMinCos || n1.dot(n2) < kMinCos || n1.dot(mean) < kMinCos ||
                    n2.dot(mean) < kMinCos)
                    continue;

                halfEdge.erase({a, b});
                halfEdge.erase({b, a});
                mesh.triangles[t] = {a, d, c};
                mesh.triangles[u] = {d, b, c};
                halfEdge[{a, d}] = t;
                halfEdge[{d, c}] = t;
                halfEdge[{c, a}] = t;
                halfEdge[{d, b}] = u;
                halfEdge[{b, c}] = u;
                halfEdge[{c, d}] = u;
                --valence[a];
                --valence[b];
                ++valence[c];
                ++valence[d];
                ++passFlips;
            }
        flips += passFlips;
        if (passFlips == 0)
            break;
    }
    return flips;
}

} // namespace shatter::assets
