// Tests of the triangle BVH and the exact signed distance (triangle_bvh.h, signed_distance.h).
#include "shatter/error.h"
#include "signed_distance.h"
#include "triangle_bvh.h"

#include "test_meshes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

namespace shatter
{
namespace
{

using test::box;
using test::boxSignedDistance;
using test::boxWithCavity;
using test::icosphere;
using test::torus;

// Uniform points in `region`, a fixed sequence for a given seed.
std::vector<Vec3> randomPoints(const Aabb& region, int count, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> unit(0, 1);
    std::vector<Vec3> points;
    for (int i = 0; i < count; ++i)
    {
        const Vec3 t(unit(rng), unit(rng), unit(rng));
        points.push_back(region.min + t.cwiseProduct(region.extent()));
    }
    return points;
}

Aabb grown(Aabb box, Real margin)
{
    box.min -= Vec3::Constant(margin);
    box.max += Vec3::Constant(margin);
    return box;
}

// Points close to the surface: a random point of a random triangle (inside a face, on an edge or at a
// vertex), pushed off by a random vector of length `offset`.
std::vector<Vec3> nearSurfacePoints(const TriMesh& mesh, int count, Real offset, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<Real> unit(0, 1);
    std::normal_distribution<Real> gauss;
    std::vector<Vec3> points;
    for (int i = 0; i < count; ++i)
    {
        const Triangle& tri = mesh.triangles[rng() % mesh.triangles.size()];
        Real a = unit(rng);
        Real b = unit(rng);
        if (a + b > 1)
        {
            a = 1 - a;
            b = 1 - b;
        }
        switch (i % 4) // snap a quarter each onto an edge and a vertex
        {
        case 1:
            b = 1 - a;
            break;
        case 2:
            a = 1;
            b = 0;
            break;
        default:
            break;
        }
        const Vec3 onSurface =
            (1 - a - b) * mesh.vertices[tri[0]] + a * mesh.vertices[tri[1]] + b * mesh.vertices[tri[2]];
        const Vec3 direction = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
        points.push_back(onSurface + offset * direction);
    }
    return points;
}

TEST(ClosestPointOnTriangle, ReportsTheVoronoiRegion)
{
    const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
    using F = TriangleFeature;
    const struct
    {
        Vec3 p;
        Vec3 expected;
        F feature;
    } cases[] = {
        {{0.2, 0.2, 1}, {0.2, 0.2, 0}, F::Face},  {{-1, -1, 0.5}, a, F::Vertex0},
        {{2, -0.1, -1}, b, F::Vertex1},           {{-0.1, 3, 0}, c, F::Vertex2},
        {{0.5, -1, 0.3}, {0.5, 0, 0}, F::Edge0},  {{1, 1, 0}, {0.5, 0.5, 0}, F::Edge1},
        {{-2, 0.25, -4}, {0, 0.25, 0}, F::Edge2},
    };
    for (const auto& test : cases)
    {
        const TrianglePoint q = closestPointOnTriangle(test.p, a, b, c);
        EXPECT_LT((q.point - test.expected).norm(), 1e-15) << test.p.transpose();
        EXPECT_EQ(q.feature, test.feature) << test.p.transpose();
    }
    // Degenerate triangles answer through their edges, without NaN.
    const TrianglePoint q = closestPointOnTriangle(Vec3(0.5, 1, 0), a, b, Vec3(2, 0, 0));
    EXPECT_TRUE(q.point.allFinite());
    EXPECT_LT((q.point - Vec3(0.5, 0, 0)).norm(), 1e-15);
    const TrianglePoint point = closestPointOnTriangle(Vec3(0, 1, 1), a, a, a);
    EXPECT_EQ(point.point, a);
}

// Walks the subtree of `ref`, checking that `box` bounds it, and counts each leaf slot's triangle.
void checkSubtree(const TriangleBvh& bvh, const TriMesh& mesh, TriangleBvh::NodeRef ref, const Aabb& box,
                  std::vector<int>& seen)
{
    if (ref.leaf())
    {
        EXPECT_LE(ref.count, TriangleBvh::kMaxLeafTriangles);
        for (Index slot = ref.index; slot < ref.index + ref.count; ++slot)
        {
            const Index t = bvh.leafTriangle(slot);
            ++seen[t];
            for (Index v : mesh.triangles[t])
                EXPECT_EQ(box.distance(mesh.vertices[v]), 0) << "triangle " << t << " sticks out of its leaf";
        }
        return;
    }
    ASSERT_LT(ref.index, bvh.nodes().size());
    const TriangleBvh::Node& node = bvh.nodes()[ref.index];
    for (int c = 0; c < 2; ++c)
    {
        Aabb child;
        child.min = Vec3(node.min[c][0], node.min[c][1], node.min[c][2]);
        child.max = Vec3(node.max[c][0], node.max[c][1], node.max[c][2]);
        checkSubtree(bvh, mesh, node.child[c], child, seen);
    }
}

TEST(TriangleBvh, StructureIsSound)
{
    for (const TriMesh& mesh : {icosphere(4), box({1, 2, 3}), torus(1, 0.2, 30, 9)})
    {
        const TriangleBvh bvh(mesh);
        ASSERT_FALSE(bvh.empty());
        EXPECT_EQ(bvh.triangleCount(), mesh.triangles.size());
        EXPECT_LE(bvh.depth(), 16u) << "SAH should keep these trees balanced";
        std::vector<int> seen(mesh.triangles.size(), 0);
        checkSubtree(bvh, mesh, bvh.root(), bvh.bounds(), seen);
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(seen.size()))
            << "each triangle in one leaf";
        Index leafTriangles = 0;
        for (const Aabb& leaf : bvh.leafBounds())
            leafTriangles += leaf.empty() ? 0 : 1;
        EXPECT_GE(leafTriangles * TriangleBvh::kMaxLeafTriangles, mesh.triangles.size());
    }
    const TriMesh single = box({1, 1, 1});
    TriMesh one{single.vertices, {single.triangles[0]}};
    const TriangleBvh leafOnly(one);
    EXPECT_TRUE(leafOnly.root().leaf());
    EXPECT_EQ(leafOnly.depth(), 0u);
    EXPECT_EQ(leafOnly.leafBounds().size(), 1u);
    EXPECT_TRUE(leafOnly.closestPoint(Vec3(5, 5, 5)).found());
    EXPECT_TRUE(TriangleBvh().empty());
    EXPECT_FALSE(TriangleBvh().closestPoint(Vec3::Zero()).found());
}

TEST(TriangleBvh, IndexStorageKeepsTheSameTree)
{
    // Storage::Indices drops only the copied corners: the nodes, their boxes and the leaf order match.
    const TriMesh mesh = torus(1, 0.2, 30, 9);
    const TriangleBvh full(mesh);
    const TriangleBvh slim(mesh, TriangleBvh::Storage::Indices);
    ASSERT_EQ(slim.triangleCount(), full.triangleCount());
    ASSERT_EQ(slim.nodes().size(), full.nodes().size());
    EXPECT_EQ(std::memcmp(slim.nodes().data(), full.nodes().data(),
                          full.nodes().size() * sizeof(TriangleBvh::Node)),
              0);
    for (Index slot = 0; slot < full.triangleCount(); ++slot)
        ASSERT_EQ(slim.leafTriangle(slot), full.leafTriangle(slot));
    std::vector<int> seen(mesh.triangles.size(), 0);
    checkSubtree(slim, mesh, slim.root(), slim.bounds(), seen);
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(seen.size()));
}

TEST(TriangleBvh, StacksOfIdenticalTrianglesStayShallow)
{
    // Identical centroids defeat every split plane; the build must still terminate with bounded depth.
    TriMesh mesh;
    mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    mesh.triangles.assign(5000, Triangle{0, 1, 2});
    const TriangleBvh bvh(mesh);
    EXPECT_LE(bvh.depth(), 14u);
    const ClosestPoint hit = bvh.closestPoint(Vec3(0.25, 0.25, 2));
    EXPECT_EQ(hit.feature, TriangleFeature::Face);
    EXPECT_DOUBLE_EQ(hit.distance, 2);
}

TEST(TriangleBvh, ClosestPointMatchesBruteForce)
{
    for (const TriMesh& mesh : {icosphere(3), torus(1, 0.3, 48, 16),
                                boxWithCavity({1, 1, 1}, {0.5, 0.4, 0.3}), test::bumpySphere(3, 1, 0.5)})
    {
        const TriangleBvh bvh(mesh);
        for (const Vec3& p : randomPoints(grown(mesh.bounds(), 0.5), 3000, 7))
        {
            const ClosestPoint fast = bvh.closestPoint(p);
            const ClosestPoint slow = bvh.closestPointBruteForce(p);
            ASSERT_TRUE(fast.found());
            ASSERT_EQ(fast.distance, slow.distance) << p.transpose();
            EXPECT_LT((fast.point - p).norm() - fast.distance, 1e-15);
            // A reach just above and just below the true distance includes or excludes the answer.
            EXPECT_TRUE(bvh.closestPoint(p, slow.distance * (1 + 1e-12)).found());
            EXPECT_FALSE(bvh.closestPoint(p, slow.distance * (1 - 1e-12)).found());
        }
    }
}

TEST(SignedDistance, BoxIsExact)
{
    const Vec3 half(1, 0.5, 0.75);
    const SignedDistanceField field(box(half));
    for (const Vec3& p : randomPoints(grown(field.bounds(), 1), 20000, 11))
    {
        const SignedDistance d = field.signedDistance(p);
        ASSERT_TRUE(d.found());
        ASSERT_NEAR(d.distance, boxSignedDistance(p, half), 1e-14) << p.transpose();
        EXPECT_NEAR(d.direction.norm(), 1, 1e-14);
        // closestPoint = p - distance · direction: the direction is the outward gradient.
        EXPECT_LT((p - d.distance * d.direction - d.closestPoint).norm(), 1e-14);
        EXPECT_EQ(field.isInside(p), boxSignedDistance(p, half) < 0);
    }
}

TEST(SignedDistance, SphereWithinTessellationError)
{
    const Real radius = 2;
    const TriMesh mesh = icosphere(3, radius);
    const SignedDistanceField field(mesh);
    // The mesh lies between the sphere and the radius of its deepest face point, so its signed distance
    // lies between |p| - radius and |p| - innerRadius.
    Real innerRadius = radius;
    for (const Triangle& t : mesh.triangles)
        innerRadius = std::min(innerRadius, closestPointOnTriangle(Vec3::Zero(), mesh.vertices[t[0]],
                                                                   mesh.vertices[t[1]], mesh.vertices[t[2]])
                                                .point.norm());
    const Real tessellation = radius - innerRadius;
    EXPECT_LT(tessellation, 0.01 * radius);

    std::vector<Vec3> points = randomPoints(grown(mesh.bounds(), 1), 8000, 3);
    const std::vector<Vec3> near = nearSurfacePoints(mesh, 4000, 1e-4, 5);
    points.insert(points.end(), near.begin(), near.end());
    int signChecks = 0;
    for (const Vec3& p : points)
    {
        const SignedDistance d = field.signedDistance(p);
        ASSERT_GE(d.distance, p.norm() - radius - 1e-12) << p.transpose();
        ASSERT_LE(d.distance, p.norm() - innerRadius + 1e-12) << p.transpose();
        ASSERT_EQ(d.distance, field.signedDistanceBruteForce(p).distance);
        if (std::abs(d.distance) > 1e-6)
        {
            const bool inside = d.distance < 0;
            ASSERT_EQ(inside, windingNumber(mesh, p) > 0.5) << p.transpose();
            ++signChecks;
        }
    }
    EXPECT_GT(signChecks, 10000);
}

TEST(SignedDistance, SignIsRightAtEveryFeature)
{
    // Sharp convex edges (tetrahedron), sharp concave creases and saddles (bumpy sphere), smooth
    // saddles (torus); points hug their faces, edges and vertices. A face normal alone fails here.
    for (const TriMesh& mesh : {test::tetrahedron(1), test::bumpySphere(2, 1, 0.6), torus(1, 0.35, 40, 14)})
    {
        const SignedDistanceField field(mesh);
        int signChecks = 0;
        for (Real offset : {1e-1, 1e-3, 1e-5})
            for (const Vec3& p : nearSurfacePoints(mesh, 4000, offset, 17))
            {
                const SignedDistance d = field.signedDistance(p);
                if (std::abs(d.distance) <= 1e-6)
                    continue;
                const bool inside = d.distance < 0;
                const bool windingInside = windingNumber(mesh, p) > 0.5;
                ASSERT_EQ(inside, windingInside)
                    << p.transpose() << " offset " << offset << ", " << mesh.triangles.size() << " triangles";
                ++signChecks;
            }
        EXPECT_GT(signChecks, 10000);
    }
}

TEST(SignedDistance, PointsOnTheSurfaceAreZeroWithTheFaceNormal)
{
    for (const TriMesh& mesh : {box({1, 2, 3}), icosphere(2, 3)})
    {
        const SignedDistanceField field(mesh);
        for (Index t = 0; t < mesh.triangles.size(); ++t)
        {
            const Vec3& a = mesh.vertices[mesh.triangles[t][0]];
            const Vec3& b = mesh.vertices[mesh.triangles[t][1]];
            const Vec3& c = mesh.vertices[mesh.triangles[t][2]];
            for (const Vec3& p : {a, Vec3(0.5 * (a + b)), Vec3((a + b + c) / 3)})
            {
                const SignedDistance d = field.signedDistance(p);
                EXPECT_EQ(d.distance, 0) << p.transpose();
                EXPECT_NEAR(d.direction.norm(), 1, 1e-12);
                EXPECT_EQ(d.direction, mesh.normal(d.triangle));
                EXPECT_FALSE(field.isInside(p));
            }
        }
    }
}

TEST(SignedDistance, CavityIsOutside)
{
    const Vec3 outer(1, 1, 1), inner(0.5, 0.4, 0.3);
    const TriMesh mesh = boxWithCavity(outer, inner);
    const SignedDistanceField field(mesh);
    EXPECT_GT(field.signedDistance(Vec3::Zero()).distance, 0) << "the cavity's centre is outside the solid";
    EXPECT_NEAR(field.signedDistance(Vec3::Zero()).distance, 0.3, 1e-15);
    EXPECT_NEAR(windingNumber(mesh, Vec3::Zero()), 0, 1e-12);
    EXPECT_NEAR(windingNumber(mesh, Vec3(0.8, 0, 0)), 1, 1e-12);
    EXPECT_NEAR(windingNumber(mesh, Vec3(3, 0, 0)), 0, 1e-12);
    for (const Vec3& p : randomPoints(grown(mesh.bounds(), 0.5), 20000, 13))
    {
        const Real expected = std::max(boxSignedDistance(p, outer), -boxSignedDistance(p, inner));
        const SignedDistance d = field.signedDistance(p);
        ASSERT_NEAR(d.distance, expected, 1e-14) << p.transpose();
        EXPECT_LT((p - d.distance * d.direction - d.closestPoint).norm(), 1e-14);
    }
}

TEST(SignedDistance, MaxDistanceLimitsTheReach)
{
    const SignedDistanceField field(icosphere(2));
    EXPECT_FALSE(field.signedDistance(Vec3(3, 0, 0), 1.5).found());
    EXPECT_NEAR(field.signedDistance(Vec3(3, 0, 0), 2.5).distance, 2, 0.05);
    EXPECT_FALSE(SignedDistanceField().signedDistance(Vec3::Zero()).found());
}

TEST(SignedDistance, ConcurrentQueriesAgree)
{
    const TriMesh mesh = torus(1, 0.3, 32, 12);
    const SignedDistanceField field(mesh);
    const std::vector<Vec3> points = randomPoints(grown(mesh.bounds(), 0.3), 4000, 23);
    std::vector<Real> first(points.size()), second(points.size());
    auto run = [&](std::vector<Real>& out)
    {
        for (std::size_t i = 0; i < points.size(); ++i)
            out[i] = field.signedDistance(points[i]).distance;
    };
    std::thread worker(run, std::ref(first));
    run(second);
    worker.join();
    EXPECT_EQ(first, second);
}

TEST(SignedDistance, RejectsMeshesWithoutAnInside)
{
    EXPECT_THROW(SignedDistanceField(TriMesh{}), Error);
    TriMesh badIndex = box({1, 1, 1});
    badIndex.triangles[3][1] = 99;
    EXPECT_THROW(SignedDistanceField(badIndex, "bad.obj"), Error);
    TriMesh notFinite = box({1, 1, 1});
    notFinite.vertices[2].y() = std::numeric_limits<Real>::quiet_NaN();
    EXPECT_THROW(SignedDistanceField(notFinite, "nan.obj"), Error);
    TriMesh open = box({1, 1, 1});
    open.triangles.pop_back();
    EXPECT_THROW(SignedDistanceField{open}, Error);
    TriMesh twisted = box({1, 1, 1});
    std::swap(twisted.triangles[0][1], twisted.triangles[0][2]);
    EXPECT_THROW(SignedDistanceField{twisted}, Error);
    TriMesh insideOut = box({1, 1, 1});
    test::flipTriangles(insideOut);
    try
    {
        SignedDistanceField field(insideOut, "inside_out.obj");
        FAIL() << "an inside-out mesh was accepted";
    }
    catch (const Error& e)
    {
        EXPECT_EQ(e.source(), "inside_out.obj");
        EXPECT_NE(e.problem().find("inside out"), std::string::npos);
    }
}

} // namespace
} // namespace shatter
