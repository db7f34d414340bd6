// Crack geometry inside one tet, the one representation of cracks (see fracture_result.h): the linear
// crack functions g_f(b) = Σ_k b_k values[f][k] of a cut-tet record, the crack planes g_f = g_h they
// define in material coordinates (TVCG §4.1's "at most six plane equations"), tetRegion() (which crack
// planes really bound a piece inside its tet, and its exact bounds; used by the distance field at
// fracture time), and a small convex clipper (tet ∩ half-spaces → polytope with tagged faces, volumes,
// face areas) that the test utilities use to compute exact regions and that the fracture module can
// reuse for fragment surfaces and mass properties.
#pragma once

#include "fracture_result.h"
#include "shatter/math.h"

#include <array>
#include <span>
#include <vector>

namespace shatter
{

/// Barycentric coordinates of a point with respect to a tet's four nodes (they sum to 1).
using Bary = Eigen::Matrix<Real, 4, 1>;

/// The four corner positions of a tet, in the order of its nodes.
using TetCorners = std::array<Vec3, 4>;

/// An oriented plane {x : normal·x = offset} with a unit normal. As a half-space it keeps the side
/// normal·x ≤ offset, so `normal` is the outward normal of what it keeps.
struct Plane
{
    Vec3 normal = Vec3::UnitZ();
    Real offset = 0;

    /// Positive on the discarded (outer) side, in model units.
    Real signedDistance(const Vec3& x) const { return normal.dot(x) - offset; }
};

/// g(b) = Σ_k b_k values[k]: one fragment's crack function of a cut-tet record at barycentric b.
inline Real evaluateCrackFunction(const std::array<Real, 4>& values, const Bary& b)
{
    return b[0] * values[0] + b[1] * values[1] + b[2] * values[2] + b[3] * values[3];
}

/// The slot (0..count-1) whose function is smallest at b; ties go to the lowest slot, so the answer
/// on a crack plane is deterministic.
int argminCrackFunction(const std::array<std::array<Real, 4>, 4>& values, int count, const Bary& b);

/// How crackPlane() found the set {g_i ≤ g_j} inside the tet's affine hull.
enum class CrackPlaneKind : std::uint8_t
{
    Plane,  ///< a proper plane; `plane` keeps g_i ≤ g_j
    Always, ///< g_i − g_j is constant ≤ 0 (to round-off): no constraint
    Never,  ///< g_i − g_j is constant > 0: the region of i is empty
};

/// The plane g_i = g_j in material coordinates for a tet with corners `corners`, oriented so that it
/// keeps g_i ≤ g_j (its normal points from i's region into j's). When g_i − g_j is constant to
/// round-off (relative 1e-12) there is no plane: the kind says whether i always or never wins (an
/// exact tie counts as "always" when i < j, following argminCrackFunction's rule).
CrackPlaneKind crackPlane(const TetCorners& corners, const std::array<Real, 4>& gi,
                          const std::array<Real, 4>& gj, bool iBeforeJ, Plane& plane);

/// crackPlane() for every ordered pair (i, j), i ≠ j, of a record's `count` pieces at once (one 3×3
/// inverse per tet); planes[j][i] is planes[i][j] flipped. Entries with i == j are left alone.
void crackPlanes(const TetCorners& corners, const std::array<std::array<Real, 4>, 4>& values, int count,
                 std::array<std::array<Plane, 4>, 4>& planes,
                 std::array<std::array<CrackPlaneKind, 4>, 4>& kinds);

/// Barycentric coordinates of x in the tet (exact up to round-off, also outside the tet).
Bary barycentric(const TetCorners& corners, const Vec3& x);

/// One face of a ConvexPolytope: a convex polygon, counter-clockwise seen from outside.
struct PolytopeFace
{
    Plane plane;     ///< the face's supporting plane, normal pointing out of the polytope
    int tag = -1;    ///< what made the face: 0..3 for tet faces (kTetFaces order), else the clip tag
    Index first = 0; ///< first corner in ConvexPolytope::corners
    Index count = 0; ///< number of corners, ≥ 3
};

/// A convex polytope as a list of tagged polygonal faces. Corners are duplicated per face; a corner
/// shared by several faces has bit-identical coordinates in each of them.
struct ConvexPolytope
{
    std::vector<Vec3> corners;
    std::vector<PolytopeFace> faces;
    std::vector<Vec3> work;      ///< scratch of clipPolytope when this polytope is its `scratch` argument
    std::vector<Real> distances; ///< scratch of clipPolytope, likewise

    bool empty() const { return faces.empty(); }
    void clear()
    {
        corners.clear();
        faces.clear();
    }
    Real volume() const; ///< by the divergence theorem
    Real faceArea(std::size_t face) const;
    Aabb bounds() const;
    /// Total area of the faces carrying `tag`.
    Real taggedArea(int tag) const;
    /// Euclidean distance from p to the polytope (0 inside), exact for a convex polytope.
    Real distance(const Vec3& p) const;
};

/// The tet as a polytope; face k (tag k) is kTetFaces[k], opposite to corner k, wound outward
/// whichever way the corners are oriented.
void makeTetPolytope(const TetCorners& corners, ConvexPolytope& out);

/// Keeps the part of `poly` with plane.signedDistance(x) ≤ 0; the new face gets `tag`. Corners within
/// `tolerance` (model units) of the plane count as lying on it. `scratch` is reused storage. A plane
/// that leaves only a lower-dimensional sliver (everything within tolerance) empties the polytope.
void clipPolytope(ConvexPolytope& poly, const Plane& plane, int tag, Real tolerance, ConvexPolytope& scratch);

/// Reused storage for tetRegion().
struct TetRegionScratch
{
    std::vector<Vec3> polygon, clipped;
};

/// The region {x in the tet : planes[q].signedDistance(x) ≤ 0 for all q} without building a polytope:
/// returns its exact bounding box (empty if the region is empty) and sets bounding[q] (size ≥ planes)
/// to whether plane q bounds it with area > areaEpsilon. Every vertex of the region is a tet corner
/// or a vertex of one of its faces on the planes, so the box is the corners kept plus the vertices
/// of each plane's section of the tet clipped by the other planes. `tolerance` as in clipPolytope.
Aabb tetRegion(const TetCorners& corners, std::span<const Plane> planes, Real tolerance, Real areaEpsilon,
               std::span<std::uint8_t> bounding, TetRegionScratch& scratch);

/// tetRegion() of both sides of one plane at once, {x : plane.signedDistance(x) ≤ 0} into `below` and
/// the other side into `above` (what tetRegion gives for {plane} and for the opposite plane), with
/// `bounding` for both. Returns false, leaving the outputs unset, for sections whose area the
/// opposite plane could round differently (corners on the plane and crossings both); use tetRegion.
bool tetHalves(const TetCorners& corners, const Plane& plane, Real tolerance, Real areaEpsilon, Aabb& below,
               Aabb& above, bool& bounding, TetRegionScratch& scratch);

/// Clipping tolerance for a tet: 1e-12 × its longest edge.
Real clipTolerance(const TetCorners& corners);

/// Point-in-polygon-plane helper for the tests and the fracture module: distance from p to the
/// convex polygon `corners` (counter-clockwise around `normal`).
Real polygonDistance(const Vec3& p, const Vec3* corners, Index count, const Vec3& normal);

} // namespace shatter
