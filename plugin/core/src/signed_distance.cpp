// Signed distance by angle-weighted pseudonormals.
//
// The magnitude is the distance to the closest point the BVH finds. For the sign, Bærentzen & Aanæs
// ("Signed distance computation using the angle weighted pseudonormal", TVCG 2005) show that if c is
// the closest surface point to p and n the pseudonormal of the feature holding c — the face normal
// inside a face, the sum of the two face normals on an edge, the sum of incident face normals weighted
// by their angles at a vertex — then (p - c) · n > 0 exactly when p is outside. Unlike a ray parity
// test this has no unlucky directions, and unlike the face normal alone it is right near convex and
// concave edges and at saddle vertices. All pseudonormals are precomputed, so a query costs one BVH
// descent and a dot product. Cavities need nothing special: their shells face into the cavity, so the
// solid stays on the negative side of every pseudonormal.
//
// Two corner cases fall back to something cruder but safe. Points within surfaceTolerance() of the
// surface have no meaningful sign; they get distance 0 and the face normal. A zero pseudonormal (a
// degenerate triangle, or a fin where two faces fold flat onto each other) or an exactly zero dot
// product decides by the generalized winding number, O(n) but vanishingly rare.
#include "signed_distance.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shatter
{

namespace
{

// One directed triangle edge, sorted by its undirected key to find the edge's other triangles.
struct HalfEdge
{
    Index low;
    Index high;
    Index triangle;
    std::uint8_t local; // edge k of the triangle, from vertex k to vertex (k + 1) % 3
    bool forward;       // runs from low to high
    bool operator<(const HalfEdge& o) const
    {
        return low != o.low ? low < o.low : high != o.high ? high < o.high : triangle < o.triangle;
    }
};

Real cornerAngle(const Vec3& corner, const Vec3& a, const Vec3& b)
{
    const Vec3 e1 = a - corner;
    const Vec3 e2 = b - corner;
    return std::atan2(e1.cross(e2).norm(), e1.dot(e2)); // robust for tiny and obtuse angles alike
}

} // namespace

SignedDistanceField::SignedDistanceField(const TriMesh& mesh, const std::string& sourceName)
{
    const Index triangleCount = Index(mesh.triangles.size());
    const Index vertexCount = Index(mesh.vertices.size());
    if (triangleCount == 0)
        throw Error(sourceName, "signed distance needs a mesh with at least one triangle");
    for (Index v = 0; v < vertexCount; ++v)
        if (!mesh.vertices[v].allFinite())
            throw Error(sourceName, "vertex " + std::to_string(v) + " has a non-finite coordinate");
    for (const Triangle& tri : mesh.triangles)
        for (Index v : tri)
            if (v >= vertexCount)
                throw Error(sourceName, "triangle vertex index " + std::to_string(v) + " is out of range (" +
                                            std::to_string(vertexCount) + " vertices)");

    faceNormals.resize(triangleCount);
    for (Index t = 0; t < triangleCount; ++t)
        faceNormals[t] = mesh.normal(t);

    // Edge pseudonormals: the sum of the normals of the triangles sharing the edge. Closed, oriented
    // meshes use every undirected edge equally often in both directions; anything else has no sign.
    std::vector<HalfEdge> halfEdges;
    halfEdges.reserve(3 * std::size_t(triangleCount));
    for (Index t = 0; t < triangleCount; ++t)
        for (std::uint8_t k = 0; k < 3; ++k)
        {
            const Index a = mesh.triangles[t][k];
            const Index b = mesh.triangles[t][(k + 1) % 3];
            halfEdges.push_back({std::min(a, b), std::max(a, b), t, k, a < b});
        }
    std::sort(halfEdges.begin(), halfEdges.end());
    edgeNormals.resize(triangleCount);
    Real edgeLengthSum = 0;
    std::size_t edgeCount = 0;
    for (std::size_t begin = 0; begin < halfEdges.size();)
    {
        std::size_t end = begin;
        Vec3 sum = Vec3::Zero();
        int balance = 0;
        while (end < halfEdges.size() && halfEdges[end].low == halfEdges[begin].low &&
               halfEdges[end].high == halfEdges[begin].high)
        {
            sum += faceNormals[halfEdges[end].triangle];
            balance += halfEdges[end].forward ? 1 : -1;
            ++end;
        }
        const HalfEdge& e = halfEdges[begin];
        auto edgeName = [&]
        {
            return "edge (" + std::to_string(e.low) + ", " + std::to_string(e.high) + ")";
        };
        if (end - begin == 1)
            throw Error(sourceName, "mesh is not closed: " + edgeName() + " has only one triangle");
        if (balance != 0)
            throw Error(sourceName, "mesh is not consistently oriented at " + edgeName());
        const Real length = sum.norm();
        const Vec3 normal = length > 0 ? Vec3(sum / length) : Vec3::Zero();
        for (std::size_t i = begin; i < end; ++i)
            edgeNormals[halfEdges[i].triangle][halfEdges[i].local] = normal;
        edgeLengthSum += (mesh.vertices[e.low] - mesh.vertices[e.high]).norm();
        ++edgeCount;
        begin = end;
    }
    meanEdge = edgeLengthSum / Real(edgeCount);

    vertexNormals.assign(vertexCount, Vec3::Zero());
    for (Index t = 0; t < triangleCount; ++t)
        for (int k = 0; k < 3; ++k)
        {
            const Triangle& tri = mesh.triangles[t];
            const Vec3& corner = mesh.vertices[tri[k]];
            const Real angle =
                cornerAngle(corner, mesh.vertices[tri[(k + 1) % 3]], mesh.vertices[tri[(k + 2) % 3]]);
            vertexNormals[tri[k]] += angle * faceNormals[t];
        }
    for (Vec3& n : vertexNormals)
    {
        const Real length = n.norm();
        n = length > 0 ? Vec3(n / length) : Vec3::Zero();
    }

    if (!(mesh.signedVolume() > 0))
        throw Error(sourceName, "mesh is inside out (its signed volume is not positive)");

    vertices = mesh.vertices;
    triangles = mesh.triangles;
    tree = TriangleBvh(mesh);
    const Aabb box = tree.bounds();
    tolerance = Real(1e-12) * std::max(box.extent().norm(), std::numeric_limits<Real>::min());
}

const Vec3& SignedDistanceField::pseudonormal(const ClosestPoint& hit) const
{
    switch (hit.feature)
    {
    case TriangleFeature::Face:
        return faceNormals[hit.triangle];
    case TriangleFeature::Edge0:
    case TriangleFeature::Edge1:
    case TriangleFeature::Edge2:
        return edgeNormals[hit.triangle][int(hit.feature) - int(TriangleFeature::Edge0)];
    case TriangleFeature::Vertex0:
    case TriangleFeature::Vertex1:
    case TriangleFeature::Vertex2:
        break;
    }
    return vertexNormals[triangles[hit.triangle][int(hit.feature) - int(TriangleFeature::Vertex0)]];
}

SignedDistance SignedDistanceField::finish(const Vec3& p, const ClosestPoint& hit) const
{
    SignedDistance result;
    if (!hit.found())
        return result;
    result.closestPoint = hit.point;
    result.triangle = hit.triangle;
    if (hit.distance <= tolerance)
    {
        result.distance = 0;
        const Vec3& face = faceNormals[hit.triangle];
        result.direction = face.squaredNorm() > 0 ? face : pseudonormal(hit);
        return result;
    }
    const Vec3 offset = p - hit.point;
    const Real side = offset.dot(pseudonormal(hit));
    const bool inside = side != 0 ? side < 0 : windingNumber(vertices, triangles, p) > Real(0.5);
    result.distance = inside ? -hit.distance : hit.distance;
    result.direction = (inside ? -offset : offset) / hit.distance;
    return result;
}

SignedDistance SignedDistanceField::signedDistance(const Vec3& p, Real maxDistance) const
{
    return finish(p, tree.closestPoint(p, maxDistance));
}

SignedDistance SignedDistanceField::signedDistanceBruteForce(const Vec3& p) const
{
    return finish(p, tree.closestPointBruteForce(p));
}

Real windingNumber(const std::vector<Vec3>& vertices, const std::vector<Triangle>& triangles, const Vec3& p)
{
    // Solid angle of each triangle seen from p by Van Oosterom & Strackee's formula.
    Real total = 0;
    for (const Triangle& tri : triangles)
    {
        const Vec3 a = vertices[tri[0]] - p;
        const Vec3 b = vertices[tri[1]] - p;
        const Vec3 c = vertices[tri[2]] - p;
        const Real la = a.norm();
        const Real lb = b.norm();
        const Real lc = c.norm();
        const Real numerator = a.dot(b.cross(c));
        const Real denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        total += Real(2) * std::atan2(numerator, denominator);
    }
    return total / (Real(4) * std::numbers::pi_v<Real>);
}

} // namespace shatter
