// Triangle BVH: binned-SAH build and an ordered, pruned closest-point traversal.
//
// Build. Every node splits its triangles by centroid, choosing among 16 bins on each axis the plane
// that minimises the surface-area heuristic (area × count of both sides). Binning makes each level
// O(n), so the build is O(n log n) on any sensible mesh. A pathological mesh could make SAH peel off
// a few triangles per level; below depth kSahDepth the build therefore switches to median splits,
// which halve the count and bound the depth by kSahDepth + 31 ≤ kMaxDepth. That bound is what lets
// a query use a fixed stack instead of allocating.
//
// Layout. Random closest-point queries on a 20K-triangle mesh are bound by cache misses, not
// arithmetic, so an inner node holds both children's boxes in float (64 bytes, one line): a visit
// decides which children to enter from the one line it has already loaded. Float boxes are rounded
// outward, so box distances stay lower bounds and pruning stays exact; the triangles stay in double.
//
// Query. Depth-first, nearer child first, with the farther child pushed together with its box
// distance so it can be dropped on pop once a closer triangle has been found. Distances are compared
// squared; the distance of the winner is taken as the norm of its difference vector, so it is exact
// to round-off (the magnitude of the signed distance must be).
#include "triangle_bvh.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>

namespace shatter
{

namespace
{

constexpr int kBinCount = 16;
constexpr Index kSahDepth = 24;

TrianglePoint closestPointOnSegment(const Vec3& p, const Vec3& a, const Vec3& b, TriangleFeature edge,
                                    TriangleFeature vertexA, TriangleFeature vertexB)
{
    const Vec3 ab = b - a;
    const Real length2 = ab.squaredNorm();
    const Real t = length2 > 0 ? (p - a).dot(ab) / length2 : Real(0);
    if (t <= 0)
        return {a, vertexA};
    if (t >= 1)
        return {b, vertexB};
    return {a + t * ab, edge};
}

// Closest of the three edges, for triangles too thin for the barycentric face test.
TrianglePoint closestPointOnDegenerate(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c)
{
    using F = TriangleFeature;
    const TrianglePoint candidates[3] = {closestPointOnSegment(p, a, b, F::Edge0, F::Vertex0, F::Vertex1),
                                         closestPointOnSegment(p, b, c, F::Edge1, F::Vertex1, F::Vertex2),
                                         closestPointOnSegment(p, c, a, F::Edge2, F::Vertex2, F::Vertex0)};
    int best = 0;
    Real bestDistance2 = (p - candidates[0].point).squaredNorm();
    for (int i = 1; i < 3; ++i)
    {
        const Real d2 = (p - candidates[i].point).squaredNorm();
        if (d2 < bestDistance2)
        {
            bestDistance2 = d2;
            best = i;
        }
    }
    return candidates[best];
}

// Squared distance from p to child `c`'s box; the float corners widen to double exactly.
inline Real childDistanceSquared(const Vec3& p, const TriangleBvh::Node& node, int c)
{
    const Real dx = std::max(std::max(Real(node.min[c][0]) - p.x(), p.x() - Real(node.max[c][0])), Real(0));
    const Real dy = std::max(std::max(Real(node.min[c][1]) - p.y(), p.y() - Real(node.max[c][1])), Real(0));
    const Real dz = std::max(std::max(Real(node.min[c][2]) - p.z(), p.z() - Real(node.max[c][2])), Real(0));
    return dx * dx + dy * dy + dz * dz;
}

float roundDown(Real x)
{
    const float f = static_cast<float>(x);
    return Real(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}

float roundUp(Real x)
{
    const float f = static_cast<float>(x);
    return Real(f) < x ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
}

Real halfArea(const Aabb& box)
{
    if (box.empty())
        return 0;
    const Vec3 e = box.extent();
    return e.x() * e.y() + e.y() * e.z() + e.z() * e.x();
}

struct BuildTriangle
{
    Aabb box;
    Vec3 centroid;
};

struct Builder
{
    const std::vector<BuildTriangle>& triangles;
    std::vector<Index>& order; // permuted in place into leaf order
    std::vector<TriangleBvh::Node>& nodes;
    Index maxDepth = 0;

    // Returns the split position in [begin, end), or `begin` if SAH found no plane with both sides used.
    Index sahSplit(Index begin, Index end, const Aabb& centroids) const
    {
        struct Bin
        {
            Aabb box;
            Index count = 0;
        };
        Real bestCost = std::numeric_limits<Real>::infinity();
        int bestAxis = -1;
        int bestBin = 0;
        const Vec3 extent = centroids.extent();
        for (int axis = 0; axis < 3; ++axis)
        {
            if (!(extent[axis] > 0))
                continue;
            const Real scale = Real(kBinCount) / extent[axis];
            Bin bins[kBinCount];
            for (Index i = begin; i < end; ++i)
            {
                const BuildTriangle& t = triangles[order[i]];
                const int b = std::min(int((t.centroid[axis] - centroids.min[axis]) * scale), kBinCount - 1);
                bins[b].box.grow(t.box);
                ++bins[b].count;
            }
            // Sweep from the right to get the right side's area and count for every plane.
            Real rightCost[kBinCount];
            Aabb right;
            Index rightCount = 0;
            for (int b = kBinCount - 1; b > 0; --b)
            {
                right.grow(bins[b].box);
                rightCount += bins[b].count;
                rightCost[b] = rightCount > 0 ? halfArea(right) * Real(rightCount) : Real(-1);
            }
            Aabb left;
            Index leftCount = 0;
            for (int b = 0; b < kBinCount - 1; ++b)
            {
                left.grow(bins[b].box);
                leftCount += bins[b].count;
                if (leftCount == 0 || rightCost[b + 1] < 0)
                    continue;
                const Real cost = halfArea(left) * Real(leftCount) + rightCost[b + 1];
                if (cost < bestCost)
                {
                    bestCost = cost;
                    bestAxis = axis;
                    bestBin = b;
                }
            }
        }
        if (bestAxis < 0)
            return begin;
        const Real scale = Real(kBinCount) / extent[bestAxis];
        const auto middle = std::partition(order.begin() + begin, order.begin() + end,
                                           [&](Index id)
                                           {
                                               const Real c = triangles[id].centroid[bestAxis];
                                               return std::min(int((c - centroids.min[bestAxis]) * scale),
                                                               kBinCount - 1) <= bestBin;
                                           });
        return Index(middle - order.begin());
    }

    Index medianSplit(Index begin, Index end, const Aabb& centroids)
    {
        int axis = 0;
        centroids.extent().maxCoeff(&axis);
        const Index middle = begin + (end - begin) / 2;
        std::nth_element(order.begin() + begin, order.begin() + middle, order.begin() + end,
                         [&](Index a, Index b)
                         { return triangles[a].centroid[axis] < triangles[b].centroid[axis]; });
        return middle;
    }

    // Builds the subtree of order[begin, end) and returns it with its bounds.
    TriangleBvh::NodeRef build(Index begin, Index end, Index depth, Aabb& box)
    {
        Aabb centroids;
        for (Index i = begin; i < end; ++i)
        {
            box.grow(triangles[order[i]].box);
            centroids.grow(triangles[order[i]].centroid);
        }
        if (end - begin <= TriangleBvh::kMaxLeafTriangles)
            return {begin, end - begin};
        maxDepth = std::max(maxDepth, depth + 1);
        const Index nodeIndex = Index(nodes.size());
        nodes.push_back({});
        Index middle = depth < kSahDepth ? sahSplit(begin, end, centroids) : begin;
        if (middle == begin || middle == end)
            middle = medianSplit(begin, end, centroids);
        const Index ranges[2][2] = {{begin, middle}, {middle, end}};
        for (int c = 0; c < 2; ++c)
        {
            Aabb childBox;
            const TriangleBvh::NodeRef child = build(ranges[c][0], ranges[c][1], depth + 1, childBox);
            TriangleBvh::Node& node = nodes[nodeIndex]; // after the recursion: it may have reallocated
            node.child[c] = child;
            for (int a = 0; a < 3; ++a)
            {
                node.min[c][a] = roundDown(childBox.min[a]);
                node.max[c][a] = roundUp(childBox.max[a]);
            }
        }
        return {nodeIndex, 0};
    }
};

} // namespace

TrianglePoint closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c)
{
    using F = TriangleFeature;
    const Vec3 ab = b - a;
    const Vec3 ac = c - a;
    const Vec3 ap = p - a;
    const Real d1 = ab.dot(ap);
    const Real d2 = ac.dot(ap);
    if (d1 <= 0 && d2 <= 0)
        return {a, F::Vertex0};

    const Vec3 bp = p - b;
    const Real d3 = ab.dot(bp);
    const Real d4 = ac.dot(bp);
    if (d3 >= 0 && d4 <= d3)
        return {b, F::Vertex1};

    const Real vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0)
    {
        const Real denom = d1 - d3;
        return {denom > 0 ? Vec3(a + (d1 / denom) * ab) : a, F::Edge0};
    }

    const Vec3 cp = p - c;
    const Real d5 = ab.dot(cp);
    const Real d6 = ac.dot(cp);
    if (d6 >= 0 && d5 <= d6)
        return {c, F::Vertex2};

    const Real vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0)
    {
        const Real denom = d2 - d6;
        return {denom > 0 ? Vec3(a + (d2 / denom) * ac) : a, F::Edge2};
    }

    const Real va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    {
        const Real denom = (d4 - d3) + (d5 - d6);
        return {denom > 0 ? Vec3(b + ((d4 - d3) / denom) * (c - b)) : b, F::Edge1};
    }

    const Real denom = va + vb + vc;
    if (!(denom > 0))
        return closestPointOnDegenerate(p, a, b, c);
    const Real v = vb / denom;
    const Real w = vc / denom;
    return {a + v * ab + w * ac, F::Face};
}

TriangleBvh::TriangleBvh(const TriMesh& mesh, Storage storage)
{
    const Index count = Index(mesh.triangles.size());
    if (count == 0)
        return;
    std::vector<BuildTriangle> build(count);
    for (Index t = 0; t < count; ++t)
    {
        const Triangle& tri = mesh.triangles[t];
        for (Index v : tri)
        {
            SHATTER_ASSERT(v < mesh.vertices.size(), "triangle vertex index out of range");
            build[t].box.grow(mesh.vertices[v]);
        }
        build[t].centroid = (mesh.vertices[tri[0]] + mesh.vertices[tri[1]] + mesh.vertices[tri[2]]) / Real(3);
    }

    triangleIds.resize(count);
    for (Index t = 0; t < count; ++t)
        triangleIds[t] = t;
    innerNodes.reserve(count / 2 + 1);
    Builder builder{build, triangleIds, innerNodes};
    rootRef = builder.build(0, count, 0, rootBox);
    innerNodes.shrink_to_fit();
    treeDepth = builder.maxDepth;
    SHATTER_ASSERT(treeDepth <= kMaxDepth, "BVH deeper than the query stack");

    if (storage == Storage::Indices)
        return;
    triangleVertices.resize(count);
    for (Index slot = 0; slot < count; ++slot)
    {
        const Triangle& tri = mesh.triangles[triangleIds[slot]];
        triangleVertices[slot] = {mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]};
    }
}

std::vector<Aabb> TriangleBvh::leafBounds() const
{
    std::vector<Aabb> boxes;
    if (empty())
        return boxes;
    if (rootRef.leaf())
        return {rootBox};
    for (const Node& node : innerNodes)
        for (int c = 0; c < 2; ++c)
            if (node.child[c].leaf())
            {
                Aabb& box = boxes.emplace_back();
                box.min = Vec3(node.min[c][0], node.min[c][1], node.min[c][2]);
                box.max = Vec3(node.max[c][0], node.max[c][1], node.max[c][2]);
            }
    return boxes;
}

ClosestPoint TriangleBvh::closestPoint(const Vec3& p, Real maxDistance) const
{
    ClosestPoint result;
    SHATTER_ASSERT(empty() || !triangleVertices.empty(), "closestPoint needs TriangleBvh::Storage::Vertices");
    if (empty() || !(maxDistance >= 0))
        return result;
    // Strictly-closer comparisons keep the first triangle met on ties; nudging the bound up one ulp
    // makes a triangle at exactly maxDistance count as within reach.
    Real best2 = std::nextafter(maxDistance * maxDistance, std::numeric_limits<Real>::infinity());
    Index bestSlot = kInvalidIndex;
    TrianglePoint bestPoint{Vec3::Zero(), TriangleFeature::Face};

    struct Entry
    {
        NodeRef ref;
        Real distance2;
    };
    Entry stack[kMaxDepth + 2];
    int top = 0;
    const Real rootDistance = rootBox.distance(p);
    stack[top++] = {rootRef, rootDistance * rootDistance};
    while (top > 0)
    {
        const Entry entry = stack[--top];
        if (!(entry.distance2 < best2))
            continue;
        NodeRef ref = entry.ref;
        bool pruned = false;
        while (!ref.leaf())
        {
            const Node& node = innerNodes[ref.index];
            const Real d0 = childDistanceSquared(p, node, 0);
            const Real d1 = childDistanceSquared(p, node, 1);
            const int nearChild = d1 < d0 ? 1 : 0;
            const Real near2 = nearChild == 0 ? d0 : d1;
            const Real far2 = nearChild == 0 ? d1 : d0;
            if (!(near2 < best2))
            {
                pruned = true;
                break;
            }
            if (far2 < best2)
            {
                SHATTER_ASSERT(top < int(kMaxDepth + 2), "BVH query stack overflow");
                stack[top++] = {node.child[1 - nearChild], far2};
            }
            ref = node.child[nearChild];
        }
        if (pruned)
            continue;
        for (Index slot = ref.index; slot < ref.index + ref.count; ++slot)
        {
            const std::array<Vec3, 3>& v = triangleVertices[slot];
            const TrianglePoint q = closestPointOnTriangle(p, v[0], v[1], v[2]);
            const Real d2 = (p - q.point).squaredNorm();
            if (d2 < best2)
            {
                best2 = d2;
                bestSlot = slot;
                bestPoint = q;
            }
        }
    }
    if (bestSlot != kInvalidIndex)
    {
        result.distance = (p - bestPoint.point).norm();
        result.point = bestPoint.point;
        result.triangle = triangleIds[bestSlot];
        result.feature = bestPoint.feature;
    }
    return result;
}

ClosestPoint TriangleBvh::closestPointBruteForce(const Vec3& p) const
{
    ClosestPoint result;
    SHATTER_ASSERT(empty() || !triangleVertices.empty(), "closestPoint needs TriangleBvh::Storage::Vertices");
    Real best2 = std::numeric_limits<Real>::infinity();
    for (Index slot = 0; slot < triangleCount(); ++slot)
    {
        const std::array<Vec3, 3>& v = triangleVertices[slot];
        const TrianglePoint q = closestPointOnTriangle(p, v[0], v[1], v[2]);
        const Real d2 = (p - q.point).squaredNorm();
        // Ties go to the lowest mesh triangle index, independent of the leaf order.
        if (d2 < best2 || (d2 == best2 && triangleIds[slot] < result.triangle))
        {
            best2 = d2;
            result.point = q.point;
            result.triangle = triangleIds[slot];
            result.feature = q.feature;
        }
    }
    if (result.found())
        result.distance = (p - result.point).norm();
    return result;
}

} // namespace shatter
