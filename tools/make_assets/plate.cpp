// The dinner plate of TVCG's plates scenario (Table 1: 5,392 triangles): a surface of revolution.
//
// Profile (radius r, height y): a mid-surface that is flat over the well, rises through the marly and
// flattens into a gently sloping rim; the plate is that curve offset by +-2 mm, closed by a round lip
// at the rim, with a foot ring under the well on which it stands. Frame: metres, +Y up, axis = y,
// resting on y = 0; 26 cm across, 2 cm tall.
//
// Triangulation: the closed profile is resampled at uniform arc length ds; each sample becomes a ring
// of round(2 pi r / dt) vertices (the poles a single vertex) and consecutive rings are zipped together.
// With ds = dt sqrt(3) / 2 and every other ring rotated by half a step, the triangles are close to
// equilateral everywhere, including at the centre (a pentagon or hexagon fan) where a fixed angular
// count would make needles. The count is 2 * (vertices - 2), so it is tuned exactly through dt.
#include "procedural.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shatter::assets
{

namespace
{

constexpr Real kPi = std::numbers::pi_v<Real>;
constexpr Real kRimRadius = 0.13;
constexpr Real kWellRadius = 0.075;
constexpr Real kThickness = 0.004;
constexpr Real kFootRadius = 0.056;
constexpr Real kFootHeight = 0.003;
constexpr Real kFootHalfWidth = 0.008;
constexpr Real kMarlyRise = 0.0105; // over the first 45 % of the way from well to rim
constexpr Real kRimRise = 0.0035;   // quadratic, for the sloping flange

using Point2 = Eigen::Vector2d; // (r, y)

Real smoothstep(Real x)
{
    x = std::clamp(x, Real(0), Real(1));
    return x * x * (3 - 2 * x);
}

Real midHeight(Real r)
{
    const Real u = std::max(Real(0), (r - kWellRadius) / (kRimRadius - kWellRadius));
    return kFootHeight + kThickness / 2 + kMarlyRise * smoothstep(u / Real(0.45)) + kRimRise * u * u;
}

Real footBump(Real r)
{
    const Real x = (r - kFootRadius) / kFootHalfWidth;
    return std::abs(x) < 1 ? kFootHeight * std::pow(std::cos(kPi / 2 * x), 2) : Real(0);
}

// The closed profile as a dense polyline from the top pole over the lip to the bottom pole.
std::vector<Point2> denseProfile()
{
    constexpr int kSamples = 4000;
    constexpr Real kStep = kRimRadius / kSamples;
    std::vector<Point2> top, bottom;
    Point2 rimTangent;
    for (int k = 0; k <= kSamples; ++k)
    {
        const Real r = k * kStep;
        const Real slope = (midHeight(r + kStep / 2) - midHeight(std::max(Real(0), r - kStep / 2))) /
                           (r + kStep / 2 - std::max(Real(0), r - kStep / 2));
        const Point2 tangent = Point2(1, slope).normalized();
        const Point2 normal(-tangent.y(), tangent.x());
        const Point2 mid(r, midHeight(r));
        // At r = 0 the slope is 0, so both offsets stay on the axis.
        top.push_back(mid + kThickness / 2 * normal);
        bottom.push_back(mid - kThickness / 2 * normal - Point2(0, footBump(r)));
        rimTangent = tangent;
    }
    std::vector<Point2> profile = top;
    const Point2 rimMid(kRimRadius, midHeight(kRimRadius));
    const Point2 rimNormal(-rimTangent.y(), rimTangent.x());
    constexpr int kLipSamples = 64;
    for (int k = 1; k < kLipSamples; ++k)
    {
        const Real phi = kPi * k / kLipSamples;
        profile.push_back(rimMid + kThickness / 2 * (std::cos(phi) * rimNormal + std::sin(phi) * rimTangent));
    }
    profile.insert(profile.end(), bottom.rbegin(), bottom.rend());
    return profile;
}

// segments + 1 points at uniform arc length along the polyline, both ends included.
std::vector<Point2> resample(const std::vector<Point2>& line, int segments)
{
    std::vector<Real> length(line.size(), 0);
    for (std::size_t k = 1; k < line.size(); ++k)
        length[k] = length[k - 1] + (line[k] - line[k - 1]).norm();
    std::vector<Point2> out;
    std::size_t k = 1;
    for (int i = 0; i <= segments; ++i)
    {
        const Real s = length.back() * i / segments;
        while (k + 1 < line.size() && length[k] < s)
            ++k;
        const Real t = std::clamp((s - length[k - 1]) / (length[k] - length[k - 1]), Real(0), Real(1));
        out.push_back(line[k - 1] + t * (line[k] - line[k - 1]));
    }
    out.front().x() = 0; // the poles sit exactly on the axis
    out.back().x() = 0;
    return out;
}

struct Ring
{
    Index first = 0;
    long count = 1;
    Real phase = 0; // rotation in units of one angular step
};

// Triangles between ring A and the next ring B along the profile; A's edges run with increasing
// angle and B's against, which makes the band outward-facing for a profile walked with the solid on
// its right. The next vertex with the smaller angle is consumed first.
void zip(const Ring& A, const Ring& B, std::vector<Triangle>& out)
{
    const auto vertex = [](const Ring& ring, long i)
    {
        return ring.first + Index(((i % ring.count) + ring.count) % ring.count);
    };
    if (A.count == 1 || B.count == 1)
    {
        const bool poleFirst = A.count == 1;
        const Ring& ring = poleFirst ? B : A;
        const Index pole = poleFirst ? A.first : B.first;
        for (long i = 0; i < ring.count; ++i)
            out.push_back(poleFirst ? Triangle{pole, vertex(ring, i + 1), vertex(ring, i)}
                                    : Triangle{vertex(ring, i), vertex(ring, i + 1), pole});
        return;
    }
    const auto angleA = [&](long a)
    {
        return (Real(a) + A.phase) / Real(A.count);
    };
    const auto angleB = [&](long b)
    {
        return (Real(b) + B.phase) / Real(B.count);
    };
    const long b0 = long(std::floor(angleA(0) * Real(B.count) - B.phase));
    long a = 0, b = b0;
    while (a < A.count || b < b0 + B.count)
    {
        if (a < A.count && (b == b0 + B.count || angleA(a + 1) <= angleB(b + 1)))
        {
            out.push_back({vertex(A, a), vertex(A, a + 1), vertex(B, b)});
            ++a;
        }
        else
        {
            out.push_back({vertex(A, a), vertex(B, b + 1), vertex(B, b)});
            ++b;
        }
    }
}

TriMesh revolve(const std::vector<Point2>& profile, Real angularSpacing)
{
    TriMesh mesh;
    std::vector<Ring> rings;
    for (std::size_t i = 0; i < profile.size(); ++i)
    {
        Ring ring;
        ring.first = Index(mesh.vertices.size());
        const Real r = profile[i].x();
        const bool pole = i == 0 || i + 1 == profile.size();
        ring.count = pole ? 1 : std::max(3L, std::lround(2 * kPi * r / angularSpacing));
        ring.phase = pole ? 0 : Real(0.5) * Real(i % 2);
        for (long j = 0; j < ring.count; ++j)
        {
            const Real theta = 2 * kPi * (Real(j) + ring.phase) / Real(ring.count);
            mesh.vertices.emplace_back(r * std::cos(theta), profile[i].y(), r * std::sin(theta));
        }
        rings.push_back(ring);
    }
    for (std::size_t i = 0; i + 1 < rings.size(); ++i)
        zip(rings[i], rings[i + 1], mesh.triangles);
    return mesh;
}

TriMesh plateWithSpacing(const std::vector<Point2>& dense, Real length, Real spacing)
{
    const int segments = std::max(2, int(std::lround(length / (spacing * std::sqrt(Real(3)) / 2))));
    return revolve(resample(dense, segments), spacing);
}

} // namespace

TriMesh makePlate(const Target& target)
{
    const Index targetTriangles = target.triangles;
    if (targetTriangles < 8)
        throw Error("plate", "needs a triangle target of at least 8");
    const std::vector<Point2> dense = denseProfile();
    Real length = 0;
    for (std::size_t k = 1; k < dense.size(); ++k)
        length += (dense[k] - dense[k - 1]).norm();

    // Triangles ~ swept area / equilateral-triangle area, so the spacing scales with 1/sqrt(count); a
    // few secant steps land within a fraction of a percent.
    Real area = 0;
    for (std::size_t k = 1; k < dense.size(); ++k)
        area += kPi * (dense[k].x() + dense[k - 1].x()) * (dense[k] - dense[k - 1]).norm();
    Real spacing = std::sqrt(area / (std::sqrt(Real(3)) / 4 * Real(targetTriangles)));
    TriMesh best;
    for (int step = 0; step < 12; ++step)
    {
        TriMesh mesh = plateWithSpacing(dense, length, spacing);
        const Real ratio = Real(mesh.triangles.size()) / Real(targetTriangles);
        if (best.triangles.empty() || std::abs(Real(mesh.triangles.size()) - Real(targetTriangles)) <
                                          std::abs(Real(best.triangles.size()) - Real(targetTriangles)))
            best = std::move(mesh);
        if (std::abs(ratio - 1) < Real(0.002))
            break;
        spacing *= std::sqrt(ratio);
    }
    // The samples straddle the foot ring's lowest circle; set the plate down on it exactly.
    const Real lowest = best.bounds().min.y();
    for (Vec3& v : best.vertices)
        v.y() -= lowest;
    return best;
}

} // namespace shatter::assets
