#include "mesh_checks.h"

#include "mesh_import.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <utility>

namespace shatter::assets
{

bool isClosedManifold(const TriMesh& mesh)
{
    // Each directed edge at most once (consistent orientation, no edge in more than two triangles) and
    // its reverse present (closed).
    std::vector<std::pair<Index, Index>> directed;
    directed.reserve(mesh.triangles.size() * 3);
    for (const Triangle& t : mesh.triangles)
    {
        if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0])
            return false;
        for (int k = 0; k < 3; ++k)
            directed.emplace_back(t[k], t[(k + 1) % 3]);
    }
    std::sort(directed.begin(), directed.end());
    if (std::adjacent_find(directed.begin(), directed.end()) != directed.end())
        return false;
    for (const auto& [a, b] : directed)
        if (!std::binary_search(directed.begin(), directed.end(), std::make_pair(b, a)))
            return false;

    // Around vertex v, triangle (v, x, y) links x to y; the links must form one cycle through all of
    // v's triangles, otherwise two fans meet at v (a pinched, non-manifold vertex).
    std::vector<std::vector<std::pair<Index, Index>>> fans(mesh.vertices.size());
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
            fans[t[k]].emplace_back(t[(k + 1) % 3], t[(k + 2) % 3]);
    for (auto& fan : fans)
    {
        if (fan.empty())
            continue;
        std::sort(fan.begin(), fan.end());
        const auto next = [&fan](Index x)
        {
            const auto it = std::lower_bound(fan.begin(), fan.end(), std::make_pair(x, Index(0)));
            return it != fan.end() && it->first == x ? it->second : kInvalidIndex;
        };
        std::size_t steps = 0;
        Index x = fan.front().first;
        do
        {
            x = next(x);
            ++steps;
        } while (x != kInvalidIndex && x != fan.front().first && steps <= fan.size());
        if (x != fan.front().first || steps != fan.size())
            return false;
    }
    return true;
}

SurfaceReport validateSurface(const TriMesh& mesh, const std::string& name, Real minAngleDegrees)
{
    ImportReport imported;
    const TriMesh checked = checkMesh(mesh, name, {}, &imported);
    if (checked.vertices != mesh.vertices || checked.triangles != mesh.triangles ||
        imported.flippedTriangles > 0)
        throw Error(name, "the mesh checker had to change the generated mesh (welded, dropped or re-wound)");

    SurfaceReport report;
    report.shells = imported.shells;
    report.volume = mesh.signedVolume();
    report.minAngleDegrees = 180;
    Real edgeSum = 0;
    for (const Triangle& tri : mesh.triangles)
        for (int k = 0; k < 3; ++k)
        {
            const Vec3& p = mesh.vertices[tri[k]];
            const Vec3 u = mesh.vertices[tri[(k + 1) % 3]] - p, w = mesh.vertices[tri[(k + 2) % 3]] - p;
            const Real angle = std::atan2(u.cross(w).norm(), u.dot(w)) * 180 / std::numbers::pi_v<Real>;
            report.minAngleDegrees = std::min(report.minAngleDegrees, angle);
            edgeSum += u.norm();
            report.maxEdge = std::max(report.maxEdge, u.norm());
        }
    report.meanEdge = edgeSum / Real(3 * mesh.triangles.size());
    if (report.minAngleDegrees < minAngleDegrees)
        throw Error(name, "generated a sliver triangle (smallest angle " +
                              std::to_string(report.minAngleDegrees) + " degrees)");
    return report;
}

} // namespace shatter::assets
