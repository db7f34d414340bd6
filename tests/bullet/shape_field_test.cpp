// ShapeField (the distance field of a non-fracturable body, the other side of a pair): every field
// against an independent reference on random points inside, outside and near the surface — closed forms
// for the primitives, the core-minus-margin identity sdf(K ⊕ B_m) = sdf(K) − m for GJK shapes (cylinder
// and cone in closed form, a convex hull through btConvexHullComputer + our exact SignedDistanceField),
// brute force for triangle meshes — plus local scaling, sphereTest's conservativeness and culling,
// point shells (on the surface, spread, covering), the cache, and the errors for bad shapes.
#include "test_meshes.h"

#include "shape_field.h"
#include "shatter/error.h"
#include "signed_distance.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btMultiSphereShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <LinearMath/btConvexHullComputer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <thread>

namespace shatter::test
{
namespace
{

using Reference = std::function<Real(const Vec3&)>; // exact signed distance of the solid
// Shape dimensions pass through btScalar: the rounding of a float Bullet build, relative to the size.
constexpr Real kScalarRounding = sizeof(btScalar) == sizeof(float) ? 1e-6 : 1e-12;
constexpr Real kPi = std::numbers::pi;

// A vector as Bullet stores it (rounded to btScalar). Through a volatile: in this Release build a plain
// double → float → double expression in a loop over a mesh's vertices left 2 of 642 vertices
// unrounded (GCC 12, -O3), which made the reference differ from Bullet's mesh by 1e-8.
Vec3 asStored(const Vec3& v)
{
    Vec3 out;
    for (int k = 0; k < 3; ++k)
    {
        volatile btScalar s = btScalar(v[k]);
        out[k] = Real(s);
    }
    return out;
}

btVector3 bt(const Vec3& v)
{
    return btVector3(btScalar(v.x()), btScalar(v.y()), btScalar(v.z()));
}

// Random points around a shape of bounding radius `size` about `center`: a third uniformly in a box
// twice its size, a third near the surface (the reference's zero set, found along random rays), a
// third deep inside or just outside.
std::vector<Vec3> testPoints(const Reference& sdf, const Vec3& center, Real size, int count,
                             std::mt19937_64& rng)
{
    std::uniform_real_distribution<Real> unit(-1, 1);
    std::vector<Vec3> points;
    EXPECT_LT(sdf(center), 0) << "the centre must be inside";
    if (!(sdf(center) < 0))
        return points;
    while (int(points.size()) < count)
    {
        const Vec3 p = center + 2 * size * Vec3(unit(rng), unit(rng), unit(rng));
        const int kind = int(points.size()) % 3;
        if (kind == 0)
            points.push_back(p);
        else
        {
            // Walk from p toward the centre until the reference changes sign, then bisect: a surface
            // point; offset it by a small random amount along the ray.
            Real lo = 0, hi = 1;
            const Real s0 = sdf(p);
            if (!(s0 > 0))
                continue;
            for (int i = 0; i < 60; ++i)
            {
                const Real mid = Real(0.5) * (lo + hi);
                (sdf(p + mid * (center - p)) > 0 ? lo : hi) = mid;
            }
            const Vec3 surface = p + lo * (center - p);
            const Real offset = (kind == 1 ? Real(1e-3) : Real(0.1)) * size * unit(rng);
            points.push_back(surface + offset * (p - center).normalized());
        }
    }
    return points;
}

struct FieldErrors
{
    Real distance = 0;   ///< max |d − d_ref|
    Real projection = 0; ///< max |d_ref(p − d n)|: the normal leads to the surface
    int nearMismatches = 0;
};

// Compares sample() with the reference on `points`; the normal must lead from p to the surface.
FieldErrors compare(const ShapeField& field, const Reference& sdf, const std::vector<Vec3>& points, Real band,
                    Real slack)
{
    FieldErrors e;
    for (const Vec3& p : points)
    {
        const Real ref = sdf(p);
        const FieldSample s = field.sample(p, band);
        const bool shouldBeNear = ref <= band;
        if (std::abs(ref - band) > slack && s.near != shouldBeNear)
            ++e.nearMismatches;
        if (!s.near)
            continue;
        e.distance = std::max(e.distance, std::abs(s.distance - ref));
        EXPECT_NEAR(s.normal.norm(), 1.0, 1e-6);
        e.projection = std::max(e.projection, std::abs(sdf(p - s.distance * s.normal)));
    }
    return e;
}

// sphereTest against the reference: never false for a touching sphere, false for ≥ 80 % of far ones.
void checkSphereTest(const ShapeField& field, const Reference& sdf, const Vec3& center, Real size,
                     std::mt19937_64& rng, const char* name)
{
    std::uniform_real_distribution<Real> unit(-1, 1), positive(0, 1);
    int touching = 0, far = 0, farCulled = 0;
    for (int i = 0; i < 4000; ++i)
    {
        const Vec3 p = center + 2 * size * Vec3(unit(rng), unit(rng), unit(rng));
        const Real r = (i % 4 == 0 ? Real(0) : Real(0.8) * size * positive(rng));
        const Real d = sdf(p);
        const bool hit = field.sphereTest(p, r);
        if (d <= r)
        {
            ++touching;
            ASSERT_TRUE(hit) << name << ": culled a touching sphere at (" << p.transpose() << "), r " << r
                             << ", reference distance " << d;
        }
        if (d - r > Real(0.05) * size)
        {
            ++far;
            farCulled += hit ? 0 : 1;
        }
    }
    EXPECT_GT(touching, 100) << name;
    ASSERT_GT(far, 500) << name;
    EXPECT_GE(Real(farCulled), Real(0.8) * Real(far)) << name;
    std::printf("[ sphereTest ] %-12s touching %d (all kept), far %d culled %.1f %%\n", name, touching, far,
                100.0 * farCulled / far);
}

// Point shell: lies on the surface, a valid one-tree forest, well spread and covering `surface`
// (reference surface samples): every sample within 2 h of a shell point, h = sqrt(area / n).
void checkShell(const ShapeField& field, const Reference& sdf, const std::vector<Vec3>& surface, Real area,
                Index expected, const char* name)
{
    const SphereForest* shell = field.pointShell();
    ASSERT_NE(shell, nullptr) << name;
    EXPECT_EQ(checkSphereForest(*shell), "") << name;
    const std::vector<Vec3>& points = shell->tree().points;
    EXPECT_EQ(points.size(), expected) << name;
    Real off = 0;
    for (const Vec3& p : points)
        off = std::max(off, std::abs(sdf(p)));
    const Real h = std::sqrt(area / Real(points.size()));
    EXPECT_LE(off, field.accuracy() + kScalarRounding * h) << name << ": shell points off the surface";
    Real gap = 0;
    for (const Vec3& s : surface)
    {
        Real best = std::numeric_limits<Real>::infinity();
        for (const Vec3& p : points)
            best = std::min(best, (s - p).norm());
        gap = std::max(gap, best);
    }
    Real closest = std::numeric_limits<Real>::infinity();
    for (std::size_t i = 0; i < points.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            closest = std::min(closest, (points[i] - points[j]).norm());
    EXPECT_LE(gap, 2 * h) << name << ": a surface region without shell points";
    EXPECT_GE(closest, 0.25 * h) << name << ": shell points clustered";
    std::printf(
        "[ shell      ] %-12s %zu points, off-surface %.2e, covering radius %.2f h, closest pair %.2f h\n",
        name, points.size(), off, gap / h, closest / h);
}

// Surface samples of a reference: random rays from the centre, bisected to the zero set.
std::vector<Vec3> surfaceSamples(const Reference& sdf, const Vec3& center, Real size, int count,
                                 std::mt19937_64& rng)
{
    std::normal_distribution<Real> gauss;
    std::vector<Vec3> out;
    while (int(out.size()) < count)
    {
        const Vec3 u = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
        Real lo = 0, hi = 3 * size;
        for (int i = 0; i < 60; ++i)
        {
            const Real mid = Real(0.5) * (lo + hi);
            (sdf(center + mid * u) < 0 ? lo : hi) = mid;
        }
        out.push_back(center + lo * u);
    }
    return out;
}

// --- References -----------------------------------------------------------------------------------

// Solid cylinder of radius r, half height h along `axis`.
Real cylinderSdf(const Vec3& p, int axis, Real r, Real h)
{
    const Real rho = std::sqrt(p.squaredNorm() - p[axis] * p[axis]);
    const Real a = rho - r, b = std::abs(p[axis]) - h;
    return std::min(std::max(a, b), Real(0)) + std::hypot(std::max(a, Real(0)), std::max(b, Real(0)));
}

// Solid cone along y: apex (0, h/2), base radius r at y = −h/2 — a 2-D convex polygon in (ρ, y)
// revolved, so its distance is the polygon's in the (ρ ≥ 0, y) half-plane.
Real coneSdf(const Vec3& p, Real r, Real h)
{
    const Eigen::Vector2d q(std::hypot(p.x(), p.z()), p.y());
    const Eigen::Vector2d poly[3] = {{0, h / 2}, {0, -h / 2}, {r, -h / 2}};
    // Distance to the boundary edges of the half-section that are on the cone's surface (not the axis).
    auto segment = [&](const Eigen::Vector2d& a, const Eigen::Vector2d& b)
    {
        const Eigen::Vector2d ab = b - a;
        const Real t = std::clamp((q - a).dot(ab) / ab.squaredNorm(), Real(0), Real(1));
        return (q - (a + t * ab)).norm();
    };
    const Real d = std::min(segment(poly[1], poly[2]), segment(poly[2], poly[0]));
    const bool inside = q.y() >= -h / 2 && q.x() <= r * (h / 2 - q.y()) / h;
    return inside ? -d : d;
}

// Capsule by brute force over the segment.
Real capsuleSdf(const Vec3& p, int axis, Real r, Real hh)
{
    Real best = std::numeric_limits<Real>::infinity();
    const int n = 20000;
    for (int i = 0; i <= n; ++i)
    {
        Vec3 c = Vec3::Zero();
        c[axis] = -hh + 2 * hh * Real(i) / n;
        best = std::min(best, (p - c).norm());
    }
    return best - r;
}

// The hull of `points` as an outward triangle mesh (btConvexHullComputer).
TriMesh hullMesh(const std::vector<Vec3>& points)
{
    btConvexHullComputer hc;
    hc.compute(points[0].data(), int(sizeof(Vec3)), int(points.size()), 0, 0);
    TriMesh mesh;
    for (int i = 0; i < hc.vertices.size(); ++i)
        mesh.vertices.emplace_back(Real(hc.vertices[i].x()), Real(hc.vertices[i].y()),
                                   Real(hc.vertices[i].z()));
    for (int f = 0; f < hc.faces.size(); ++f)
    {
        const btConvexHullComputer::Edge* start = &hc.edges[hc.faces[f]];
        std::vector<Index> poly;
        const btConvexHullComputer::Edge* e = start;
        do
        {
            poly.push_back(Index(e->getTargetVertex()));
            e = e->getNextEdgeOfFace();
        } while (e != start);
        for (std::size_t k = 1; k + 1 < poly.size(); ++k)
            mesh.triangles.push_back({poly[0], poly[k], poly[k + 1]});
    }
    if (mesh.signedVolume() < 0)
        flipTriangles(mesh);
    return mesh;
}

// --- Primitives -----------------------------------------------------------------------------------

TEST(ShapeField, SphereMatchesTheAnalyticDistance)
{
    btSphereShape shape(0.75);
    const ShapeField field(shape, 0.1, 200);
    EXPECT_EQ(field.kind(), ShapeFieldKind::Sphere);
    const Reference sdf = [](const Vec3& p)
    {
        return p.norm() - 0.75;
    };
    std::mt19937_64 rng(1);
    const FieldErrors e = compare(field, sdf, testPoints(sdf, Vec3::Zero(), 0.75, 3000, rng), 0.01, 1e-9);
    EXPECT_LE(e.distance, 1e-12);
    EXPECT_LE(e.projection, 1e-12);
    EXPECT_EQ(e.nearMismatches, 0);
    EXPECT_DOUBLE_EQ(field.boundingRadius(), 0.75);
    checkSphereTest(field, sdf, Vec3::Zero(), 0.75, rng, "sphere");
    checkShell(field, sdf, surfaceSamples(sdf, Vec3::Zero(), 0.75, 2000, rng), 4 * kPi * 0.75 * 0.75, 200,
               "sphere");
}

TEST(ShapeField, BoxIsTheGeometricBoxWithMarginAndScaling)
{
    btBoxShape shape(btVector3(0.5, 0.3, 0.2));
    shape.setMargin(0.05);
    shape.setLocalScaling(btVector3(1.0, 2.0, 0.5)); // geometric half extents (0.5, 0.6, 0.1)
    const ShapeField field(shape, 0.1, 300);
    EXPECT_EQ(field.kind(), ShapeFieldKind::Box);
    const Vec3 half(0.5, 0.6, 0.1);
    // Reference: our exact mesh signed distance of the box (an independent code path).
    const SignedDistanceField mesh(box(half));
    const Reference sdf = [&](const Vec3& p)
    {
        return mesh.signedDistance(p).distance;
    };
    std::mt19937_64 rng(2);
    const FieldErrors e =
        compare(field, sdf, testPoints(sdf, Vec3::Zero(), half.norm(), 3000, rng), 0.01, 1e-6);
    EXPECT_LE(e.distance, kScalarRounding); // the dimensions pass through btScalar
    EXPECT_LE(e.projection, kScalarRounding);
    EXPECT_EQ(e.nearMismatches, 0);
    checkSphereTest(field, sdf, Vec3::Zero(), half.norm(), rng, "box");
    const Real area = 8 * (half.x() * half.y() + half.y() * half.z() + half.z() * half.x());
    checkShell(field, sdf, surfaceSamples(sdf, Vec3::Zero(), half.norm(), 2000, rng), area, 300, "box");
    // The corners are always in the shell (features first, then farthest-point selection).
    int corners = 0;
    for (const Vec3& p : field.pointShell()->tree().points)
        corners += (p.cwiseAbs() - half).norm() < kScalarRounding;
    EXPECT_EQ(corners, 8);
}

TEST(ShapeField, CapsulesOnEveryAxisMatchBruteForce)
{
    btCapsuleShapeX x(0.3, 1.0);
    btCapsuleShape y(0.25, 0.8);
    btCapsuleShapeZ z(0.2, 1.2);
    z.setLocalScaling(btVector3(1.5, 1.5, 1.5)); // radius 0.3, half height 0.9
    struct Case
    {
        const btCapsuleShape* shape;
        int axis;
        Real radius, halfHeight;
        const char* name;
    };
    const Case cases[] = {
        {&x, 0, 0.3, 0.5, "capsule-x"}, {&y, 1, 0.25, 0.4, "capsule-y"}, {&z, 2, 0.3, 0.9, "capsule-z"}};
    std::mt19937_64 rng(3);
    for (const Case& c : cases)
    {
        const ShapeField field(*c.shape, 0.1, 150);
        EXPECT_EQ(field.kind(), ShapeFieldKind::Capsule);
        const Reference sdf = [&](const Vec3& p)
        {
            return capsuleSdf(p, c.axis, c.radius, c.halfHeight);
        };
        const Reference exact = [&](const Vec3& p)
        {
            Vec3 q = Vec3::Zero();
            q[c.axis] = std::clamp(p[c.axis], -c.halfHeight, c.halfHeight);
            return (p - q).norm() - c.radius;
        };
        const Real size = c.radius + c.halfHeight;
        // Brute force over the segment (sampled at 2·hh/20000: good to ~1e-9) on points placed with the
        // closed form; the dimensions pass through btScalar.
        const FieldErrors e =
            compare(field, sdf, testPoints(exact, Vec3::Zero(), size, 600, rng), 0.01, 1e-6);
        EXPECT_LE(e.distance, 1e-8 + kScalarRounding) << c.name;
        EXPECT_LE(e.projection, 1e-8 + kScalarRounding) << c.name;
        EXPECT_EQ(e.nearMismatches, 0) << c.name;
        EXPECT_NEAR(field.boundingRadius(), size, 1e-6) << c.name;
        checkSphereTest(field, exact, Vec3::Zero(), size, rng, c.name);
        const Real area = 4 * kPi * c.radius * c.radius + 4 * kPi * c.radius * c.halfHeight;
        checkShell(field, exact, surfaceSamples(exact, Vec3::Zero(), size, 1500, rng), area, 150, c.name);
    }
}

TEST(ShapeField, StaticPlaneIsAHalfSpace)
{
    btStaticPlaneShape shape(btVector3(0.3, 1.0, -0.2), 0.7);
    const ShapeField field(shape, 0.1);
    EXPECT_EQ(field.kind(), ShapeFieldKind::Plane);
    EXPECT_EQ(field.pointShell(), nullptr);
    EXPECT_TRUE(std::isinf(field.boundingRadius()));
    const Vec3 n = Vec3(0.3, 1.0, -0.2).normalized();
    const Reference sdf = [&](const Vec3& p)
    {
        return n.dot(p) - 0.7;
    };
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<Real> unit(-5, 5);
    Real worst = 0;
    for (int i = 0; i < 5000; ++i)
    {
        const Vec3 p(unit(rng), unit(rng), unit(rng));
        const FieldSample s = field.sample(p, 0.05);
        EXPECT_EQ(s.near, sdf(p) <= 0.05);
        if (s.near)
        {
            worst = std::max(worst, std::abs(s.distance - sdf(p)));
            EXPECT_LE((s.normal - n).norm(), 1e-6);
        }
        const Real r = std::abs(unit(rng)) * 0.2;
        if (sdf(p) <= r)
        {
            EXPECT_TRUE(field.sphereTest(p, r)) << i;
        }
        else if (sdf(p) > r + 1e-5)
        {
            EXPECT_FALSE(field.sphereTest(p, r)) << i;
        }
    }
    EXPECT_LE(worst, 1e-6); // the normal is stored in btScalar
}

// --- GJK shapes -----------------------------------------------------------------------------------

struct GjkCase
{
    const btConvexShape* shape;
    Reference sdf;
    Vec3 center;
    Real size;
    Real area;
    const char* name;
};

void checkGjk(const GjkCase& c, std::mt19937_64& rng)
{
    const ShapeField field(*c.shape, 0.1, 200);
    EXPECT_EQ(field.kind(), ShapeFieldKind::Convex) << c.name;
    const FieldErrors e =
        compare(field, c.sdf, testPoints(c.sdf, c.center, c.size, 2000, rng), 0.01, field.accuracy());
    EXPECT_LE(e.distance, field.accuracy()) << c.name;
    EXPECT_LE(e.projection, 2 * field.accuracy()) << c.name;
    EXPECT_EQ(e.nearMismatches, 0) << c.name;
    std::printf(
        "[ gjk        ] %-12s max |d - d_ref| %.2e (%.2e of size), projection %.2e, accuracy() %.2e\n",
        c.name, e.distance, e.distance / c.size, e.projection, field.accuracy());
    checkSphereTest(field, c.sdf, c.center, c.size, rng, c.name);
    checkShell(field, c.sdf, surfaceSamples(c.sdf, c.center, c.size, 1500, rng), c.area, 200, c.name);
}

TEST(ShapeField, CylinderIncludesItsMarginAndScaling)
{
    btCylinderShape shape(btVector3(0.4, 0.6, 0.4));
    shape.setMargin(0.05);
    shape.setLocalScaling(btVector3(1.5, 0.5, 1.5)); // radius 0.6, half height 0.3
    // Bullet keeps the core radius − m, half height − m, and collides core ⊕ margin ball.
    const Reference sdf = [](const Vec3& p)
    {
        return cylinderSdf(p, 1, 0.55, 0.25) - 0.05;
    };
    std::mt19937_64 rng(5);
    checkGjk({&shape, sdf, Vec3::Zero(), std::hypot(0.6, 0.3), 2 * kPi * 0.6 * 0.6 + 2 * kPi * 0.6 * 0.6,
              "cylinder"},
             rng);
    btCylinderShapeX x(btVector3(0.8, 0.3, 0.3));
    x.setMargin(0.02);
    const Reference sdfX = [](const Vec3& p)
    {
        return cylinderSdf(p, 0, 0.28, 0.78) - 0.02;
    };
    checkGjk({&x, sdfX, Vec3::Zero(), std::hypot(0.8, 0.3), 2 * kPi * 0.3 * 0.3 + 2 * kPi * 0.3 * 1.6,
              "cylinder-x"},
             rng);
}

TEST(ShapeField, ConeIncludesItsMargin)
{
    btConeShape shape(0.5, 1.2);
    shape.setMargin(0.04);
    // The cone's core is the full cone; its margin inflates it.
    const Reference sdf = [](const Vec3& p)
    {
        return coneSdf(p, 0.5, 1.2) - 0.04;
    };
    std::mt19937_64 rng(6);
    const Real slant = std::hypot(0.5, 1.2);
    checkGjk({&shape, sdf, Vec3(0, -0.3, 0), 0.8, kPi * 0.5 * 0.5 + kPi * 0.5 * slant, "cone"}, rng);
}

TEST(ShapeField, ConvexHullMatchesTheExactHullDistance)
{
    std::mt19937_64 rng(7);
    std::normal_distribution<Real> gauss;
    std::vector<Vec3> points;
    for (int i = 0; i < 40; ++i)
        points.push_back(
            Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized().cwiseProduct(Vec3(0.8, 0.5, 0.4)) +
            Vec3(0.3, -0.1, 0.2));
    btConvexHullShape shape;
    for (const Vec3& p : points)
        shape.addPoint(bt(p), false);
    shape.recalcLocalAabb();
    shape.setMargin(0.03);
    shape.setLocalScaling(btVector3(1.25, 1.0, 0.8));
    std::vector<Vec3> scaled;
    for (const Vec3& p : points)
        scaled.push_back(p.cwiseProduct(Vec3(1.25, 1.0, 0.8)));
    const TriMesh core = hullMesh(scaled);
    const SignedDistanceField exact(core);
    const Reference sdf = [&](const Vec3& p)
    {
        return exact.signedDistance(p).distance - 0.03;
    };
    Real area = 0;
    for (Index t = 0; t < core.triangles.size(); ++t)
        area += core.area(t);
    checkGjk({&shape, sdf, core.bounds().center(), core.bounds().extent().norm() / 2, area, "hull"}, rng);
}

TEST(ShapeField, MultiSphereRunsThroughGjk)
{
    const btVector3 centers[2] = {btVector3(-0.4, 0, 0), btVector3(0.5, 0.1, 0)};
    const btScalar radii[2] = {0.3, 0.2};
    btMultiSphereShape shape(centers, radii, 2);
    const ShapeField field(shape, 0.1, 100);
    EXPECT_EQ(field.kind(), ShapeFieldKind::Convex);
    // Far from the shape the distance is the hull-of-spheres one: on the x axis beyond the spheres.
    EXPECT_NEAR(field.sample(Vec3(-1.0, 0, 0), 1.0).distance, 0.3, 1e-3);
    EXPECT_TRUE(field.sample(Vec3(0.5, 0.1, 0), 0).near);
    EXPECT_LT(field.sample(Vec3(0.5, 0.1, 0), 0).distance, -0.15);
    ASSERT_NE(field.pointShell(), nullptr);
    for (const Vec3& p : field.pointShell()->tree().points)
        EXPECT_LE(std::abs(field.sample(p, 1).distance), field.accuracy());
}

// --- Triangle meshes ------------------------------------------------------------------------------

// Keeps a btTriangleMesh and its BVH shape together.
struct BulletMesh
{
    std::unique_ptr<btTriangleMesh> data;
    std::unique_ptr<btBvhTriangleMeshShape> shape;

    explicit BulletMesh(const TriMesh& mesh)
    {
        data = std::make_unique<btTriangleMesh>();
        for (const Triangle& t : mesh.triangles)
            data->addTriangle(bt(mesh.vertices[t[0]]), bt(mesh.vertices[t[1]]), bt(mesh.vertices[t[2]]));
        shape = std::make_unique<btBvhTriangleMeshShape>(data.get(), true);
    }
};

// An open height field z = h(x, y) over [−1, 1]², triangles facing up.
TriMesh terrain(int n)
{
    TriMesh mesh;
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i)
        {
            const Real x = -1 + 2 * Real(i) / n, y = -1 + 2 * Real(j) / n;
            mesh.vertices.emplace_back(x, y, Real(0.15) * std::sin(3 * x) * std::cos(2 * y));
        }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
        {
            const Index a = Index(j * (n + 1) + i), b = a + 1, c = a + Index(n + 1), d = c + 1;
            mesh.triangles.push_back({a, b, d});
            mesh.triangles.push_back({a, d, c});
        }
    return mesh;
}

// Brute-force unsigned distance to a triangle soup.
Real unsignedDistance(const TriMesh& mesh, const Vec3& p)
{
    Real best = std::numeric_limits<Real>::infinity();
    for (const Triangle& t : mesh.triangles)
        best = std::min(
            best,
            (p -
             closestPointOnTriangle(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]).point)
                .norm());
    return best;
}

// Height of the triangulated terrain above (x, y), by finding the triangle under it.
Real terrainHeight(const TriMesh& mesh, Real x, Real y)
{
    for (const Triangle& t : mesh.triangles)
    {
        const Vec3 &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
        const Real det = (b.x() - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (b.y() - a.y());
        const Real u = ((x - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (y - a.y())) / det;
        const Real v = ((b.x() - a.x()) * (y - a.y()) - (x - a.x()) * (b.y() - a.y())) / det;
        if (u >= -1e-12 && v >= -1e-12 && u + v <= 1 + 1e-12)
            return a.z() + u * (b.z() - a.z()) + v * (c.z() - a.z());
    }
    return std::numeric_limits<Real>::quiet_NaN();
}

TEST(ShapeField, ClosedMeshMatchesTheExactSignedDistance)
{
    const TriMesh mesh = bumpySphere(3, 0.8, 0.2);
    BulletMesh bullet(mesh);
    const ShapeField field(*bullet.shape, std::numeric_limits<Real>::infinity(), 256);
    EXPECT_EQ(field.kind(), ShapeFieldKind::TriangleMesh);
    // Reference: SignedDistanceField on the float-rounded vertices Bullet stores.
    TriMesh stored = mesh;
    for (Vec3& v : stored.vertices)
        v = asStored(v);
    const SignedDistanceField exact(stored);
    const Reference sdf = [&](const Vec3& p)
    {
        return exact.signedDistance(p).distance;
    };
    std::mt19937_64 rng(8);
    const FieldErrors e = compare(field, sdf, testPoints(sdf, Vec3::Zero(), 0.8, 3000, rng), 0.02, 1e-9);
    EXPECT_LE(e.distance, 1e-9);
    EXPECT_LE(e.projection, 1e-9);
    EXPECT_EQ(e.nearMismatches, 0);
    checkSphereTest(field, sdf, Vec3::Zero(), 0.8, rng, "closed-mesh");
    Real area = 0;
    for (Index t = 0; t < stored.triangles.size(); ++t)
        area += stored.area(t);
    checkShell(field, sdf, surfaceSamples(sdf, Vec3::Zero(), 0.8, 2000, rng), area, 256, "closed-mesh");
}

TEST(ShapeField, ClosedMeshWithThicknessIsALayer)
{
    BulletMesh bullet(icosphere(3, 1.0));
    const ShapeField field(*bullet.shape, 0.2, 64);
    // Depth 0.1 inside: in the layer; depth 0.5: below it, outside at 0.3 (a lower bound).
    const FieldSample in = field.sample(Vec3(0, 0, 0.9), 0.01);
    EXPECT_TRUE(in.near);
    EXPECT_NEAR(in.distance, -0.1, 5e-3); // the icosphere is inscribed: its faces are slightly inside
    EXPECT_GT(in.normal.z(), 0.99);
    const FieldSample below = field.sample(Vec3(0, 0, 0.5), 0.01);
    EXPECT_FALSE(below.near);
    EXPECT_FALSE(field.sphereTest(Vec3(0, 0, 0.4), 0.3));
    EXPECT_TRUE(field.sphereTest(Vec3(0, 0, 0.5), 0.35));
    EXPECT_FALSE(field.sphereTest(Vec3(0, 0, 1.5), 0.45));
}

TEST(ShapeField, OpenTerrainHasSignAndThickness)
{
    const TriMesh mesh = terrain(12);
    BulletMesh bullet(mesh);
    const Real thickness = 0.2;
    const ShapeField field(*bullet.shape, thickness, 128);
    TriMesh stored = mesh;
    for (Vec3& v : stored.vertices)
        v = asStored(v);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<Real> inner(-0.7, 0.7), height(-0.6, 0.6);
    int above = 0, inLayer = 0, under = 0;
    const Real band = 0.05;
    for (int i = 0; i < 3000; ++i)
    {
        // Inside the terrain's footprint, far enough from the rim that the closest point is not on it.
        const Vec3 p(inner(rng), inner(rng), height(rng));
        const Real d = unsignedDistance(stored, p);
        const bool isBelow = p.z() < terrainHeight(stored, p.x(), p.y());
        Real expected = d;
        if (isBelow)
            expected = d <= thickness ? -d : d - thickness;
        (isBelow ? (d <= thickness ? inLayer : under) : above) += 1;
        const FieldSample s = field.sample(p, band);
        if (std::abs(expected - band) > 1e-9)
        {
            ASSERT_EQ(s.near, expected <= band) << p.transpose();
        }
        if (s.near)
        {
            ASSERT_NEAR(s.distance, expected, 1e-9) << p.transpose();
            if (expected < 0)
            {
                EXPECT_LE(unsignedDistance(stored, p - s.distance * s.normal), 1e-9); // out through the top
            }
        }
        // Conservative: a sphere reaching the surface, or reaching a point the field calls inside.
        const Real r = std::abs(height(rng)) * 0.5;
        if (d <= r)
        {
            ASSERT_TRUE(field.sphereTest(p, r));
        }
        if (expected <= r && expected < 0)
        {
            ASSERT_TRUE(field.sphereTest(p, r));
        }
        if (!isBelow && d > r + thickness + 1e-9)
        {
            ASSERT_FALSE(field.sphereTest(p, r)) << "a far sphere above the terrain was not culled";
        }
    }
    EXPECT_GT(above, 500);
    EXPECT_GT(inLayer, 200);
    EXPECT_GT(under, 200);
}

TEST(ShapeField, TriangleMeshScalingIsHonoured)
{
    const TriMesh mesh = bumpySphere(2, 0.6, 0.15);
    const Vec3 scale(2.0, 0.5, 1.5);
    TriMesh scaled = mesh;
    for (Vec3& v : scaled.vertices)
        v = asStored(v).cwiseProduct(scale);
    const SignedDistanceField exact(scaled);
    const Reference sdf = [&](const Vec3& p)
    {
        return exact.signedDistance(p).distance;
    };
    std::mt19937_64 rng(10);
    const std::vector<Vec3> points = testPoints(sdf, Vec3::Zero(), 1.2, 1500, rng);

    BulletMesh wrapped(mesh);
    btScaledBvhTriangleMeshShape scaledShape(wrapped.shape.get(), bt(scale));
    const ShapeField a(scaledShape, std::numeric_limits<Real>::infinity(), 64);
    const FieldErrors ea = compare(a, sdf, points, 0.02, 1e-9);
    EXPECT_LE(ea.distance, 1e-6); // float vertices times a float scale
    EXPECT_EQ(ea.nearMismatches, 0);

    BulletMesh direct(mesh);
    direct.shape->setLocalScaling(bt(scale));
    const ShapeField b(*direct.shape, std::numeric_limits<Real>::infinity(), 64);
    const FieldErrors eb = compare(b, sdf, points, 0.02, 1e-9);
    EXPECT_LE(eb.distance, 1e-6);
    EXPECT_EQ(eb.nearMismatches, 0);
    EXPECT_NEAR(b.boundingRadius(), a.boundingRadius(), 1e-6);
}

// --- Cache and errors -----------------------------------------------------------------------------

TEST(ShapeFieldCache, ReusesAndRebuildsOnChange)
{
    ShapeFieldCache cache({0.1, 32});
    btBoxShape boxShape(btVector3(0.5, 0.5, 0.5));
    btSphereShape sphere(0.3);
    const auto a = cache.get(boxShape);
    EXPECT_EQ(cache.get(boxShape), a);
    EXPECT_EQ(cache.buildCount(), 1u);
    const auto s = cache.get(sphere);
    EXPECT_NE(s, a);
    EXPECT_EQ(cache.buildCount(), 2u);

    boxShape.setLocalScaling(btVector3(2, 1, 1));
    const auto b = cache.get(boxShape);
    EXPECT_NE(b, a);
    EXPECT_EQ(cache.buildCount(), 3u);
    EXPECT_NEAR(b->sample(Vec3(1.5, 0, 0), 1).distance, 0.5, 1e-6); // half extent 1 along x now
    EXPECT_NEAR(a->sample(Vec3(1.5, 0, 0), 1).distance, 1.0, 1e-6); // the old field is still valid
    EXPECT_EQ(cache.get(boxShape), b);

    boxShape.setMargin(0.01); // changes the core, not the geometric box, but the fingerprint sees it
    EXPECT_NE(cache.get(boxShape), b);
    EXPECT_EQ(cache.buildCount(), 4u);

    cache.forget(&sphere);
    EXPECT_NE(cache.get(sphere), nullptr);
    EXPECT_EQ(cache.buildCount(), 5u);
    cache.clear();
    cache.get(sphere);
    EXPECT_EQ(cache.buildCount(), 6u);
}

// Shapes deleted without forget() (a program that never calls forgetShape) do not grow the cache
// without bound; a field some pair still holds keeps its entry and is not rebuilt.
TEST(ShapeFieldCache, DropsTheFieldsOfShapesNothingHoldsOnceItHasDoubled)
{
    ShapeFieldCache cache({0.1, 16});
    btSphereShape kept(0.2);
    const std::shared_ptr<const ShapeField> held = cache.get(kept);
    // Kept allocated so that no address is reused (a reused one replaces its entry anyway).
    std::vector<std::unique_ptr<btSphereShape>> removed;
    std::size_t most = 0;
    for (int i = 0; i < 2000; ++i)
    {
        removed.push_back(std::make_unique<btSphereShape>(btScalar(0.1 + 1e-4 * i)));
        (void)cache.get(*removed.back()); // the pair that used it went with its body
        most = std::max(most, cache.size());
    }
    EXPECT_EQ(cache.buildCount(), 2001u);
    EXPECT_LE(most, 256u) << "the cache grew with the deleted shapes";
    EXPECT_EQ(cache.get(kept), held) << "a held field was dropped";
    EXPECT_EQ(cache.buildCount(), 2001u);
}

TEST(ShapeFieldCache, IsThreadSafe)
{
    ShapeFieldCache cache({0.1, 64});
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    for (int i = 0; i < 8; ++i)
        shapes.push_back(std::make_unique<btSphereShape>(btScalar(0.1 + 0.05 * i)));
    std::vector<std::vector<const ShapeField*>> seen(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back(
            [&, t]
            {
                for (int round = 0; round < 50; ++round)
                    for (std::size_t i = 0; i < shapes.size(); ++i)
                    {
                        const auto f = cache.get(*shapes[(i + std::size_t(t)) % shapes.size()]);
                        if (round == 49)
                            seen[t].push_back(f.get());
                    }
            });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(cache.buildCount(), 8u);
    for (int t = 1; t < 4; ++t)
        for (std::size_t i = 0; i < shapes.size(); ++i)
            EXPECT_EQ(seen[t][(i + shapes.size() - std::size_t(t)) % shapes.size()], seen[0][i]);
}

TEST(ShapeField, RejectsBadShapesAndSettings)
{
    btCompoundShape compound;
    EXPECT_FALSE(ShapeField::supports(compound));
    EXPECT_THROW(ShapeField(compound, 0.1), Error);

    btSphereShape nanSphere(std::numeric_limits<btScalar>::quiet_NaN());
    EXPECT_TRUE(ShapeField::supports(nanSphere));
    EXPECT_THROW(ShapeField(nanSphere, 0.1), Error);

    btBoxShape boxShape(btVector3(0.5, 0.5, 0.5));
    boxShape.setLocalScaling(btVector3(1, std::numeric_limits<btScalar>::quiet_NaN(), 1));
    EXPECT_THROW(ShapeField(boxShape, 0.1), Error);

    btCylinderShape cylinder(btVector3(std::numeric_limits<btScalar>::infinity(), 1, 1));
    EXPECT_THROW(ShapeField(cylinder, 0.1), Error);

    // A mesh whose triangles all have zero area is empty for the field.
    TriMesh flat;
    flat.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)};
    flat.triangles = {{0, 1, 2}};
    BulletMesh degenerate(flat);
    EXPECT_THROW(ShapeField(*degenerate.shape, 0.1), Error);

    btSphereShape sphere(1);
    EXPECT_THROW(ShapeField(sphere, -1), Error);
    EXPECT_THROW(ShapeField(sphere, std::numeric_limits<Real>::quiet_NaN()), Error);
    EXPECT_THROW(ShapeField(sphere, 0.1, 0), Error);
    EXPECT_THROW(ShapeFieldCache({-0.1, 16}), Error);
    EXPECT_THROW(ShapeFieldCache({0.1, 0}), Error);
    ShapeFieldCache cache;
    EXPECT_THROW(cache.get(compound), Error);
    EXPECT_EQ(cache.buildCount(), 0u);
}

} // namespace
} // namespace shatter::test
