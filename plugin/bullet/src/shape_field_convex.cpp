// The distance field of a general convex Bullet shape (cylinder, cone, convex hull, multi-sphere, …)
// through btGjkEpaSolver2::SignedDistance: GJK between the shape
// and a zero-radius sphere at the query point, EPA when the point is inside the shape's core.
//
// Which solid. The solver evaluates the core shape (support mapping without margin) and subtracts the
// collision margin in the separated case, and runs EPA on the shape *with* margin when the point is
// inside the core, so the distance is that of core ⊕ margin ball: the rounded solid Bullet's GJK pair
// detector collides. For a convex core K, sdf(K ⊕ B_m) = sdf(K) − m exactly, inside and out, which is
// what the tests compare against.
//
// Polyhedra (btConvexHullShape, btConvexPointCloudShape, …) skip GJK: their hull is computed once
// (btConvexHullComputer) and answered exactly by our SignedDistanceField, minus the margin. Float GJK
// was seen to misjudge points well inside a 40-point hull by several percent of its size.
//
// Accuracy. GJK stops at a relative gap of 1e-4 (float Bullet) and EPA at 1e-4 absolute, or when it has
// used its 128 vertices, which on curved faces (cylinder side, cone) leaves an error of a few 1e-4 of
// the shape's size. `tolerance` bounds it (measured in shape_field_test.cpp); sphereTest adds it as
// slack, and cheap bounding-box rejection runs first so far spheres never reach GJK.
#include "shape_field_detail.h"

#include "shatter/error.h"

#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btPolyhedralConvexShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <LinearMath/btConvexHullComputer.h>

#include <cmath>

namespace shatter::detail
{

namespace
{

btVector3 toBullet(const Vec3& v)
{
    return btVector3(btScalar(v.x()), btScalar(v.y()), btScalar(v.z()));
}

Vec3 fromBullet(const btVector3& v)
{
    return Vec3(Real(v.x()), Real(v.y()), Real(v.z()));
}

// GJK/EPA error bounds: absolute (model units) and relative to the shape's bounding radius. Float
// Bullet: EPA_ACCURACY = 1e-4 and the 128-vertex EPA polytope on curved faces; double Bullet: 1e-12,
// still limited by the EPA polytope on curved faces.
constexpr bool kFloatBullet = sizeof(btScalar) == sizeof(float);
constexpr Real kAbsoluteTolerance = kFloatBullet ? 2e-4 : 1e-9;
constexpr Real kRelativeTolerance = kFloatBullet ? 3e-3 : 1e-3;
// Polyhedra are exact up to the rounding of their vertices to btScalar.
constexpr Real kScalarRounding = kFloatBullet ? 1e-6 : 1e-12;

// Box half extents of the 26 directions (faces, edges, corners of a cube) used to find an interior point.
std::vector<Vec3> cubeDirections()
{
    std::vector<Vec3> dirs;
    for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
            for (int z = -1; z <= 1; ++z)
                if (x != 0 || y != 0 || z != 0)
                    dirs.push_back(Vec3(x, y, z).normalized());
    return dirs;
}

} // namespace

ConvexField ConvexField::make(const btConvexShape& shape)
{
    ConvexField f;
    f.shape = &shape;
    btVector3 lo, hi;
    shape.getAabb(btTransform::getIdentity(), lo, hi);
    const Vec3 min = fromBullet(lo), max = fromBullet(hi);
    if (!min.allFinite() || !max.allFinite() || (max - min).minCoeff() < 0 || (max - min).maxCoeff() <= 0)
        throw Error(shape.getName(), "convex shape has non-finite or empty bounds");
    f.boxCenter = Real(0.5) * (min + max);
    f.boxHalf = Real(0.5) * (max - min);
    f.radius = f.boxHalf.norm();
    for (int k = 0; k < 8; ++k)
    {
        const Vec3 corner((k & 1) ? max.x() : min.x(), (k & 2) ? max.y() : min.y(),
                          (k & 4) ? max.z() : min.z());
        f.originRadius = std::max(f.originRadius, corner.norm());
    }
    // A convex combination of support points lies inside the convex shape (the AABB centre need not).
    Vec3 sum = Vec3::Zero();
    const std::vector<Vec3> dirs = cubeDirections();
    for (const Vec3& d : dirs)
        sum += fromBullet(shape.localGetSupportingVertex(toBullet(d)));
    f.center = sum / Real(dirs.size());
    if (!f.center.allFinite())
        throw Error(shape.getName(), "convex shape has a non-finite support mapping");
    f.tolerance = kAbsoluteTolerance + kRelativeTolerance * f.radius;
    if (shape.isPolyhedral())
        f.makePolytope(static_cast<const btPolyhedralConvexShape&>(shape));
    return f;
}

void ConvexField::makePolytope(const btPolyhedralConvexShape& poly)
{
    // The exact hull of the (scaled) vertices as a closed mesh; flat or degenerate hulls stay on GJK.
    std::vector<Vec3> points;
    for (int i = 0; i < poly.getNumVertices(); ++i)
    {
        btVector3 v;
        poly.getVertex(i, v);
        points.push_back(fromBullet(v));
    }
    if (points.size() < 4)
        return;
    btConvexHullComputer hull;
    hull.compute(points[0].data(), int(sizeof(Vec3)), int(points.size()), 0, 0);
    TriMesh mesh;
    for (int i = 0; i < hull.vertices.size(); ++i)
        mesh.vertices.push_back(fromBullet(hull.vertices[i]));
    for (int i = 0; i < hull.faces.size(); ++i)
    {
        const btConvexHullComputer::Edge* start = &hull.edges[hull.faces[i]];
        const btConvexHullComputer::Edge* e = start;
        std::vector<Index> face;
        do
        {
            face.push_back(Index(e->getTargetVertex()));
            e = e->getNextEdgeOfFace();
        } while (e != start && face.size() <= std::size_t(hull.vertices.size()));
        for (std::size_t k = 1; k + 1 < face.size(); ++k)
            mesh.triangles.push_back({face[0], face[k], face[k + 1]});
    }
    if (mesh.triangles.size() < 4 || !(std::abs(mesh.signedVolume()) > Real(1e-9) * std::pow(radius, 3)))
        return;
    if (mesh.signedVolume() < 0)
        for (Triangle& t : mesh.triangles)
            std::swap(t[1], t[2]);
    try
    {
        polytope = std::make_shared<const SignedDistanceField>(mesh, "convex hull");
    }
    catch (const Error&)
    {
        return; // not a clean closed hull (round-off in the hull computer): GJK it is
    }
    margin = Real(poly.getMargin());
    tolerance = kScalarRounding * radius;
}

Vec3 ConvexField::support(const Vec3& u) const
{
    return fromBullet(shape->localGetSupportingVertex(toBullet(u)));
}

Real ConvexField::supportBound(const Vec3& p, const Vec3& u) const
{
    return u.dot(p) - u.dot(support(u));
}

Real ConvexField::signedDistance(const Vec3& p, Vec3& normal) const
{
    if (polytope)
    {
        // sdf(K ⊕ B_m) = sdf(K) − m for the convex core K.
        const SignedDistance s = polytope->signedDistance(p);
        normal = s.direction;
        return s.distance - margin;
    }
    // For a convex solid, sdf(p) = max over unit u of u·p − h(u) (h: support function, margin
    // included), so every direction gives a lower bound and the right normal gives the exact value.
    // GJK's answer is accepted when its normal reproduces its distance; otherwise (float GJK can
    // stop early with a wrong "separated" verdict for points well inside a hull) the pair solver and
    // EPA with margins propose more normals, and the best bound wins — never above the true distance,
    // so sphereTest stays conservative.
    const btTransform identity = btTransform::getIdentity();
    const btVector3 at = toBullet(p);
    Real best = -std::numeric_limits<Real>::infinity();
    const auto consider = [&](const btVector3& n)
    {
        const Vec3 u = fromBullet(n);
        const Real len = u.norm();
        if (!std::isfinite(len) || !(len > Real(0.5)))
            return;
        const Real bound = supportBound(p, u / len);
        if (bound > best)
        {
            best = bound;
            normal = u / len;
        }
    };
    btGjkEpaSolver2::sResults results;
    const btScalar d = btGjkEpaSolver2::SignedDistance(at, btScalar(0), shape, identity, results);
    if (d < SIMD_INFINITY && std::isfinite(Real(d)))
    {
        consider(results.normal);
        // A consistent answer well outside is certified (GJK's witness gives the upper bound); near or
        // inside, float GJK has been seen to claim a wrong penetration, so the other solvers vote too.
        if (std::abs(best - Real(d)) <= tolerance && Real(d) > tolerance)
            return Real(d);
    }
    const btSphereShape point(0);
    const btTransform pointFrame(btQuaternion::getIdentity(), at);
    const Vec3 guess = (p - center).norm() > 0 ? Vec3(p - center) : Vec3::UnitZ();
    btGjkEpaSolver2::sResults pair;
    // The pair solvers' normals point from one shape to the other; try both senses.
    if (btGjkEpaSolver2::SignedDistance(shape, identity, &point, pointFrame, toBullet(guess), pair))
    {
        consider(pair.normal);
        consider(-pair.normal);
    }
    btGjkEpaSolver2::sResults epa;
    if (btGjkEpaSolver2::Penetration(shape, identity, &point, pointFrame, toBullet(guess), epa, true))
    {
        consider(epa.normal);
        consider(-epa.normal);
    }
    consider(toBullet(guess.normalized()));
    return best;
}

FieldSample ConvexField::sample(const Vec3& p, Real band) const
{
    FieldSample s;
    // Outside the AABB by more than the band: not near, and GJK is not needed.
    const Real boxGap = ((p - boxCenter).cwiseAbs() - boxHalf).cwiseMax(Vec3::Zero()).norm();
    if (boxGap > band + tolerance)
        return s;
    Vec3 n;
    const Real d = signedDistance(p, n);
    if (!std::isfinite(d))
        return s; // the solver failed twice: say nothing rather than something wrong
    s.distance = d;
    s.normal = n;
    s.near = d <= band;
    return s;
}

bool ConvexField::sphereTest(const Vec3& p, Real r) const
{
    const Vec3 gap = ((p - boxCenter).cwiseAbs() - boxHalf).cwiseMax(Vec3::Zero());
    if (gap.norm() > r + tolerance)
        return false; // misses the bounding box (Bullet's AABB holds the margin)
    Vec3 n;
    const Real d = signedDistance(p, n);
    return !std::isfinite(d) || d <= r + tolerance;
}

} // namespace shatter::detail
