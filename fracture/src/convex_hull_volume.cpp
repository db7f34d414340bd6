// Incremental 3-D convex hull (the textbook beneath-beyond method): start from a tetrahedron of extreme
// points, then add the points one by one; the faces a point sees are replaced by a cone from the point
// to their horizon. O(n · hull faces), run once per asset by FracturePipeline (FractureMetric::Auto), so
// a few thousand surface vertices cost milliseconds. Faces a point sees within a tolerance of 1e-10 ×
// the set's diameter are treated as seen from the plane: nearly coplanar points are dropped, which can
// only make the volume smaller by that tolerance times the area.
#include "convex_hull_volume.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace shatter::fracture
{
namespace
{

struct Face
{
    std::array<Index, 3> v;
    Vec3 normal; // unit, outward
    Real offset; // normal · x for x on the face
};

Face makeFace(std::span<const Vec3> p, Index a, Index b, Index c)
{
    Face f{{a, b, c}, (p[b] - p[a]).cross(p[c] - p[a]), 0};
    const Real n = f.normal.norm();
    f.normal = n > 0 ? Vec3(f.normal / n) : Vec3::Zero();
    f.offset = f.normal.dot(p[a]);
    return f;
}

Index farthest(std::span<const Vec3> p, auto&& distance)
{
    Index best = 0;
    Real bestDistance = -1;
    for (Index i = 0; i < p.size(); ++i)
        if (const Real d = distance(p[i]); d > bestDistance)
        {
            bestDistance = d;
            best = i;
        }
    return best;
}

} // namespace

Real convexHullVolume(std::span<const Vec3> p)
{
    if (p.size() < 4)
        return 0;
    // Initial tetrahedron: an extreme point, the point farthest from it, the one farthest from their
    // line, the one farthest from their plane.
    const Index i0 = farthest(p, [&](const Vec3& x) { return -x.x(); });
    const Index i1 = farthest(p, [&](const Vec3& x) { return (x - p[i0]).squaredNorm(); });
    const Real diameter = (p[i1] - p[i0]).norm();
    if (!(diameter > 0))
        return 0;
    const Real eps = 1e-10 * diameter;
    const Vec3 axis = (p[i1] - p[i0]) / diameter;
    const Index i2 =
        farthest(p, [&](const Vec3& x) { return (x - p[i0] - axis * axis.dot(x - p[i0])).squaredNorm(); });
    const Vec3 planeNormal = (p[i1] - p[i0]).cross(p[i2] - p[i0]).normalized();
    const Index i3 = farthest(p, [&](const Vec3& x) { return std::abs(planeNormal.dot(x - p[i0])); });
    if (!(std::abs(planeNormal.dot(p[i3] - p[i0])) > eps) || !planeNormal.allFinite())
        return 0; // flat

    std::vector<Face> faces;
    const Vec3 inside = (p[i0] + p[i1] + p[i2] + p[i3]) / 4;
    for (const std::array<Index, 3>& t : {std::array<Index, 3>{i0, i1, i2}, std::array<Index, 3>{i0, i1, i3},
                                          std::array<Index, 3>{i0, i2, i3}, std::array<Index, 3>{i1, i2, i3}})
    {
        Face f = makeFace(p, t[0], t[1], t[2]);
        if (f.normal.dot(inside) > f.offset)
            f = makeFace(p, t[0], t[2], t[1]); // orient outward
        faces.push_back(f);
    }

    std::vector<std::uint8_t> visible;
    std::map<std::pair<Index, Index>, int> edges; // directed edges of the visible faces
    for (Index i = 0; i < p.size(); ++i)
    {
        visible.assign(faces.size(), 0);
        bool any = false;
        for (std::size_t f = 0; f < faces.size(); ++f)
            if (faces[f].normal.dot(p[i]) - faces[f].offset > eps)
            {
                visible[f] = 1;
                any = true;
            }
        if (!any)
            continue; // inside (or on) the current hull
        // Horizon: directed edges of visible faces whose twin belongs to a hidden face.
        edges.clear();
        for (std::size_t f = 0; f < faces.size(); ++f)
            if (visible[f])
                for (int k = 0; k < 3; ++k)
                    edges[{faces[f].v[k], faces[f].v[(k + 1) % 3]}] = 1;
        std::vector<Face> kept;
        kept.reserve(faces.size());
        for (std::size_t f = 0; f < faces.size(); ++f)
            if (!visible[f])
                kept.push_back(faces[f]);
        for (const auto& [edge, unused] : edges)
            if (!edges.contains({edge.second, edge.first}))
                kept.push_back(makeFace(p, edge.first, edge.second, i));
        faces = std::move(kept);
    }

    Real volume = 0;
    for (const Face& f : faces)
        volume += (p[f.v[0]] - inside).dot((p[f.v[1]] - inside).cross(p[f.v[2]] - inside));
    return volume / 6;
}

} // namespace shatter::fracture
