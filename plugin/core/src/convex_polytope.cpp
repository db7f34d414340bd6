// ConvexPolytope: the small convex clipper of crack_geometry.h (tet ∩ half-spaces → polytope with
// tagged faces, volumes, face areas, point distance).
#include "crack_geometry_detail.h"
#include "shatter/error.h"
#include "tet_mesh.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

using detail::crossing;
using detail::pseudoAngle;

Real ConvexPolytope::volume() const
{
    if (faces.empty())
        return 0;
    const Vec3& r = corners[faces[0].first];
    Real sixV = 0;
    for (const PolytopeFace& f : faces)
    {
        const Vec3 a = corners[f.first] - r;
        for (Index k = 1; k + 1 < f.count; ++k)
            sixV += a.dot((corners[f.first + k] - r).cross(corners[f.first + k + 1] - r));
    }
    return sixV / Real(6);
}

Real ConvexPolytope::faceArea(std::size_t face) const
{
    const PolytopeFace& f = faces[face];
    const Vec3& a = corners[f.first];
    Vec3 sum = Vec3::Zero();
    for (Index k = 1; k + 1 < f.count; ++k)
        sum += (corners[f.first + k] - a).cross(corners[f.first + k + 1] - a);
    return Real(0.5) * sum.norm();
}

Aabb ConvexPolytope::bounds() const
{
    Aabb box;
    for (const Vec3& c : corners)
        box.grow(c);
    return box;
}

Real ConvexPolytope::taggedArea(int tag) const
{
    Real area = 0;
    for (std::size_t f = 0; f < faces.size(); ++f)
        if (faces[f].tag == tag)
            area += faceArea(f);
    return area;
}

Real ConvexPolytope::distance(const Vec3& p) const
{
    Real best = std::numeric_limits<Real>::infinity();
    bool inside = true;
    for (const PolytopeFace& f : faces)
    {
        if (f.plane.signedDistance(p) <= 0)
            continue;
        inside = false;
        best = std::min(best, polygonDistance(p, &corners[f.first], f.count, f.plane.normal));
    }
    return inside ? Real(0) : best;
}

Real polygonDistance(const Vec3& p, const Vec3* corners, Index count, const Vec3& normal)
{
    bool inside = true;
    for (Index k = 0; k < count && inside; ++k)
    {
        const Vec3& a = corners[k];
        const Vec3& b = corners[(k + 1) % count];
        inside = (b - a).cross(p - a).dot(normal) >= 0;
    }
    if (inside)
        return std::abs(normal.dot(p - corners[0]));
    Real best = std::numeric_limits<Real>::infinity();
    for (Index k = 0; k < count; ++k)
    {
        const Vec3& a = corners[k];
        const Vec3 ab = corners[(k + 1) % count] - a;
        const Real len2 = ab.squaredNorm();
        const Real t = len2 > 0 ? std::clamp(ab.dot(p - a) / len2, Real(0), Real(1)) : Real(0);
        best = std::min(best, (a + t * ab - p).norm());
    }
    return best;
}

void makeTetPolytope(const TetCorners& corners, ConvexPolytope& out)
{
    out.clear();
    for (int k = 0; k < 4; ++k)
    {
        PolytopeFace face;
        face.tag = k;
        face.first = Index(out.corners.size());
        face.count = 3;
        // Wind each face counter-clockwise seen from outside, whatever kTetFaces' convention.
        const Vec3& a = corners[kTetFaces[k][0]];
        Vec3 n = (corners[kTetFaces[k][1]] - a).cross(corners[kTetFaces[k][2]] - a).normalized();
        const bool inward = n.dot(corners[k] - a) > 0;
        out.corners.push_back(a);
        out.corners.push_back(corners[kTetFaces[k][inward ? 2 : 1]]);
        out.corners.push_back(corners[kTetFaces[k][inward ? 1 : 2]]);
        if (inward)
            n = -n;
        face.plane = {n, n.dot(a)};
        out.faces.push_back(face);
    }
}

void clipPolytope(ConvexPolytope& poly, const Plane& plane, int tag, Real tolerance, ConvexPolytope& scratch)
{
    // Signed distances once per corner (kept in scratch.distances, reused storage).
    std::vector<Real>& distance = scratch.distances;
    distance.resize(poly.corners.size());
    bool anyOutside = false;
    bool anyInside = false;
    for (std::size_t i = 0; i < poly.corners.size(); ++i)
    {
        const Real d = plane.signedDistance(poly.corners[i]);
        distance[i] = d;
        anyOutside |= d > tolerance;
        anyInside |= d < -tolerance;
    }
    if (!anyOutside)
        return;
    if (!anyInside)
    {
        poly.clear();
        return;
    }

    ConvexPolytope& out = scratch;
    out.clear();
    // Corners of the new cap face, collected in `scratch.work` (reused storage, no allocation once warm).
    std::vector<Vec3>& cap = out.work;
    cap.clear();
    bool coplanarFace = false;
    for (const PolytopeFace& f : poly.faces)
    {
        PolytopeFace kept = f;
        kept.first = Index(out.corners.size());
        bool allOn = true;
        for (Index k = 0; k < f.count; ++k)
        {
            const Index ia = f.first + k;
            const Index ib = f.first + (k + 1 == f.count ? 0 : k + 1);
            const Vec3& a = poly.corners[ia];
            const Vec3& b = poly.corners[ib];
            const Real da = distance[ia];
            const Real db = distance[ib];
            allOn &= std::abs(da) <= tolerance;
            if (da <= tolerance)
            {
                out.corners.push_back(a);
                if (da >= -tolerance)
                    cap.push_back(a);
            }
            if ((da < -tolerance && db > tolerance) || (da > tolerance && db < -tolerance))
            {
                const Vec3 x = crossing(a, da, b, db);
                out.corners.push_back(x);
                cap.push_back(x);
            }
        }
        kept.count = Index(out.corners.size()) - kept.first;
        coplanarFace |= allOn;
        if (kept.count >= 3)
            out.faces.push_back(kept);
        else
            out.corners.resize(kept.first);
    }

    if (!coplanarFace)
    {
        // Deduplicate in place (shared corners are bit-identical, near-duplicates within tolerance),
        // then order counter-clockwise around the plane normal.
        std::size_t unique = 0;
        for (std::size_t i = 0; i < cap.size(); ++i)
        {
            bool seen = false;
            for (std::size_t j = 0; j < unique && !seen; ++j)
                seen = (cap[j] - cap[i]).squaredNorm() <= tolerance * tolerance;
            if (!seen)
                cap[unique++] = cap[i];
        }
        cap.resize(unique);
        if (unique >= 3)
        {
            Vec3 center = Vec3::Zero();
            for (const Vec3& u : cap)
                center += u;
            center /= Real(unique);
            const Vec3 e0 = plane.normal.unitOrthogonal();
            const Vec3 e1 = plane.normal.cross(e0);
            std::sort(cap.begin(), cap.end(),
                      [&](const Vec3& p, const Vec3& q)
                      {
                          return pseudoAngle(e1.dot(p - center), e0.dot(p - center)) <
                                 pseudoAngle(e1.dot(q - center), e0.dot(q - center));
                      });
            PolytopeFace face;
            face.plane = plane;
            face.tag = tag;
            face.first = Index(out.corners.size());
            face.count = Index(unique);
            out.corners.insert(out.corners.end(), cap.begin(), cap.end());
            out.faces.push_back(face);
        }
    }
    if (out.faces.size() < 4)
        out.clear();
    std::swap(poly.corners, out.corners);
    std::swap(poly.faces, out.faces);
}

} // namespace shatter
