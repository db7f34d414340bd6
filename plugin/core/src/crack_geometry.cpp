// Crack functions and planes of a cut-tet record, barycentric coordinates, and tetRegion(); the
// polytope clipper is in convex_polytope.cpp.
#include "crack_geometry_detail.h"
#include "shatter/error.h"
#include "tet_mesh.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

using detail::crossing;
using detail::pseudoAngle;

int argminCrackFunction(const std::array<std::array<Real, 4>, 4>& values, int count, const Bary& b)
{
    SHATTER_ASSERT(count >= 1 && count <= 4);
    int best = 0;
    Real bestValue = evaluateCrackFunction(values[0], b);
    for (int i = 1; i < count; ++i)
    {
        const Real g = evaluateCrackFunction(values[i], b);
        if (g < bestValue)
        {
            bestValue = g;
            best = i;
        }
    }
    return best;
}

namespace
{

Mat3 edgeMatrix(const TetCorners& c)
{
    Mat3 m;
    m.col(0) = c[1] - c[0];
    m.col(1) = c[2] - c[0];
    m.col(2) = c[3] - c[0];
    return m;
}

Real longestEdge(const TetCorners& c)
{
    Real longest = 0;
    for (const auto& e : kTetEdges)
        longest = std::max(longest, (c[e[0]] - c[e[1]]).norm());
    return longest;
}

} // namespace

Real clipTolerance(const TetCorners& corners)
{
    return Real(1e-12) * longestEdge(corners);
}

Bary barycentric(const TetCorners& corners, const Vec3& x)
{
    const Vec3 b = edgeMatrix(corners).partialPivLu().solve(x - corners[0]);
    return Bary(1 - b.sum(), b[0], b[1], b[2]);
}

CrackPlaneKind crackPlane(const TetCorners& corners, const std::array<Real, 4>& gi,
                          const std::array<Real, 4>& gj, bool iBeforeJ, Plane& plane)
{
    std::array<Real, 4> delta;
    Real scale = 0;
    for (int k = 0; k < 4; ++k)
    {
        delta[k] = gi[k] - gj[k];
        scale = std::max({scale, std::abs(gi[k]), std::abs(gj[k])});
    }
    // g_i − g_j = δ_0 + c·b_123 with b_123 = M⁻¹(x − p_0), so its gradient a solves Mᵀ a = c.
    const Vec3 c(delta[1] - delta[0], delta[2] - delta[0], delta[3] - delta[0]);
    const Vec3 a = edgeMatrix(corners).transpose().partialPivLu().solve(c);
    const Real tolerance = Real(1e-12) * scale;
    const Real norm = a.norm();
    if (!(norm * longestEdge(corners) > tolerance))
    {
        const Real mean = Real(0.25) * (delta[0] + delta[1] + delta[2] + delta[3]);
        if (mean < -tolerance || (mean <= tolerance && iBeforeJ))
            return CrackPlaneKind::Always;
        return CrackPlaneKind::Never;
    }
    plane.normal = a / norm;
    plane.offset = (a.dot(corners[0]) - delta[0]) / norm;
    return CrackPlaneKind::Plane;
}

namespace
{

// Keeps the part of the convex polygon `in` (vertices in order) with plane.signedDistance ≤ 0.
void clipPolygon(const std::vector<Vec3>& in, const Plane& plane, Real tolerance, std::vector<Vec3>& out)
{
    out.clear();
    const std::size_t n = in.size();
    for (std::size_t k = 0; k < n; ++k)
    {
        const Vec3& a = in[k];
        const Vec3& b = in[k + 1 == n ? 0 : k + 1];
        const Real da = plane.signedDistance(a);
        const Real db = plane.signedDistance(b);
        if (da <= tolerance)
            out.push_back(a);
        if ((da < -tolerance && db > tolerance) || (da > tolerance && db < -tolerance))
            out.push_back(crossing(a, da, b, db));
    }
}

Real polygonArea(const std::vector<Vec3>& poly)
{
    Vec3 sum = Vec3::Zero();
    for (std::size_t k = 1; k + 1 < poly.size(); ++k)
        sum += (poly[k] - poly[0]).cross(poly[k + 1] - poly[0]);
    return Real(0.5) * sum.norm();
}

/// The plane's section of the tet into `poly`, in cyclic order: corners on it (|sd| ≤ tolerance) and
/// crossings of edges. `sd` holds the corners' signed distances to the plane. Returns whether it had
/// to order the section by angle around `normal` (corners on the plane and crossings both): the one
/// case whose vertex order depends on the normal's sign, which tetHalves needs to know.
bool planeSection(const TetCorners& c, const std::array<Real, 4>& sd, const Vec3& normal, Real tolerance,
                  std::vector<Vec3>& poly)
{
    poly.clear();
    int below = 0, above = 0;
    for (int k = 0; k < 4; ++k)
    {
        below += sd[k] < -tolerance;
        above += sd[k] > tolerance;
    }
    if (below == 0 || above == 0)
    {
        if (below + above == 4)
            return false;
        // Corners on the plane (to tolerance): at most a face, an edge or a corner of the tet.
        for (int k = 0; k < 4; ++k)
            if (std::abs(sd[k]) <= tolerance)
                poly.push_back(c[k]);
        return false;
    }
    if (below + above == 4 && below != 2)
    {
        // One corner alone on its side: a triangle of the crossings of its three edges.
        const bool loneBelow = below == 1;
        int lone = 0;
        while ((sd[lone] < -tolerance) != loneBelow)
            ++lone;
        for (int k = 0; k < 4; ++k)
            if (k != lone)
                poly.push_back(crossing(c[lone], sd[lone], c[k], sd[k]));
        return false;
    }
    if (below == 2 && above == 2)
    {
        // Two and two: a quadrilateral, in the cyclic order a-c, a-d, b-d, b-c.
        std::array<int, 2> lo{}, hi{};
        int nl = 0, nh = 0;
        for (int k = 0; k < 4; ++k)
            (sd[k] < 0 ? lo[nl++] : hi[nh++]) = k;
        const int order[4][2] = {{lo[0], hi[0]}, {lo[0], hi[1]}, {lo[1], hi[1]}, {lo[1], hi[0]}};
        for (const auto& e : order)
            poly.push_back(crossing(c[e[0]], sd[e[0]], c[e[1]], sd[e[1]]));
        return false;
    }
    // Corners on the plane and crossings: collect, then order by angle.
    for (int k = 0; k < 4; ++k)
        if (std::abs(sd[k]) <= tolerance)
            poly.push_back(c[k]);
    for (const auto& e : kTetEdges)
        if ((sd[e[0]] < -tolerance && sd[e[1]] > tolerance) ||
            (sd[e[0]] > tolerance && sd[e[1]] < -tolerance))
            poly.push_back(crossing(c[e[0]], sd[e[0]], c[e[1]], sd[e[1]]));
    Vec3 center = Vec3::Zero();
    for (const Vec3& x : poly)
        center += x;
    center /= Real(poly.size());
    const Vec3 e0 = normal.unitOrthogonal();
    const Vec3 e1 = normal.cross(e0);
    std::sort(poly.begin(), poly.end(),
              [&](const Vec3& a, const Vec3& b)
              {
                  return pseudoAngle(e1.dot(a - center), e0.dot(a - center)) <
                         pseudoAngle(e1.dot(b - center), e0.dot(b - center));
              });
    return true;
}

} // namespace

Aabb tetRegion(const TetCorners& c, std::span<const Plane> planes, Real tolerance, Real areaEpsilon,
               std::span<std::uint8_t> bounding, TetRegionScratch& scratch)
{
    SHATTER_ASSERT(bounding.size() >= planes.size());
    Aabb box;
    for (const Vec3& corner : c)
    {
        bool kept = true;
        for (const Plane& plane : planes)
            kept &= plane.signedDistance(corner) <= tolerance;
        if (kept)
            box.grow(corner);
    }
    for (std::size_t p = 0; p < planes.size(); ++p)
    {
        bounding[p] = 0;
        // The plane's section of the tet: corners on it and crossings of edges, in cyclic order.
        std::array<Real, 4> sd;
        for (int k = 0; k < 4; ++k)
            sd[k] = planes[p].signedDistance(c[k]);
        std::vector<Vec3>& poly = scratch.polygon;
        planeSection(c, sd, planes[p].normal, tolerance, poly);
        if (poly.empty())
            continue;
        for (std::size_t q = 0; q < planes.size() && !poly.empty(); ++q)
            if (q != p)
            {
                clipPolygon(poly, planes[q], tolerance, scratch.clipped);
                std::swap(poly, scratch.clipped);
            }
        for (const Vec3& x : poly)
            box.grow(x);
        bounding[p] = poly.size() >= 3 && polygonArea(poly) > areaEpsilon;
    }
    return box;
}

bool tetHalves(const TetCorners& c, const Plane& plane, Real tolerance, Real areaEpsilon, Aabb& below,
               Aabb& above, bool& bounding, TetRegionScratch& scratch)
{
    // The opposite plane's distances are exactly -sd, so tetRegion would see the same corners on each
    // side and the same crossings (crossing() is symmetric); in every case but Sorted it also lists the
    // section in the same or the reversed cyclic order from the same first vertex, which gives the same
    // area bit for bit.
    std::array<Real, 4> sd;
    for (int k = 0; k < 4; ++k)
        sd[k] = plane.signedDistance(c[k]);
    std::vector<Vec3>& poly = scratch.polygon;
    if (planeSection(c, sd, plane.normal, tolerance, poly))
        return false;
    below = Aabb{};
    above = Aabb{};
    for (int k = 0; k < 4; ++k)
    {
        if (sd[k] <= tolerance)
            below.grow(c[k]);
        if (-sd[k] <= tolerance)
            above.grow(c[k]);
    }
    for (const Vec3& x : poly)
    {
        below.grow(x);
        above.grow(x);
    }
    bounding = poly.size() >= 3 && polygonArea(poly) > areaEpsilon;
    return true;
}

void crackPlanes(const TetCorners& corners, const std::array<std::array<Real, 4>, 4>& values, int count,
                 std::array<std::array<Plane, 4>, 4>& planes,
                 std::array<std::array<CrackPlaneKind, 4>, 4>& kinds)
{
    SHATTER_ASSERT(count >= 1 && count <= 4);
    const Mat3 inverseTranspose = edgeMatrix(corners).transpose().inverse();
    const Real longest = longestEdge(corners);
    for (int i = 0; i < count; ++i)
        for (int j = i + 1; j < count; ++j)
        {
            std::array<Real, 4> delta;
            Real scale = 0;
            for (int k = 0; k < 4; ++k)
            {
                delta[k] = values[i][k] - values[j][k];
                scale = std::max({scale, std::abs(values[i][k]), std::abs(values[j][k])});
            }
            const Vec3 a =
                inverseTranspose * Vec3(delta[1] - delta[0], delta[2] - delta[0], delta[3] - delta[0]);
            const Real tolerance = Real(1e-12) * scale;
            const Real norm = a.norm();
            if (!(norm * longest > tolerance))
            {
                // i < j here, so an exact tie goes to i, as in argminCrackFunction.
                const Real mean = Real(0.25) * (delta[0] + delta[1] + delta[2] + delta[3]);
                const bool iWins = mean <= tolerance;
                kinds[i][j] = iWins ? CrackPlaneKind::Always : CrackPlaneKind::Never;
                kinds[j][i] = iWins ? CrackPlaneKind::Never : CrackPlaneKind::Always;
                continue;
            }
            planes[i][j] = {a / norm, (a.dot(corners[0]) - delta[0]) / norm};
            planes[j][i] = {-planes[i][j].normal, -planes[i][j].offset};
            kinds[i][j] = kinds[j][i] = CrackPlaneKind::Plane;
        }
}

} // namespace shatter
