// Self-intersection test: which pairs of triangles of a mesh intersect?
//
// Candidates come from a bounding-volume hierarchy over the triangles' boxes (median split on the
// longest axis of the centroids, four triangles per leaf): each triangle queries it once, so an
// ordinary mesh costs O(n log n). Each candidate pair then gets the test matching what it shares:
//
//  * nothing: the interval test of Möller ("A fast triangle-triangle intersection test", 1997).
//    Both triangles must straddle the other's plane; then their intersections with the line where
//    the planes meet must overlap. Coplanar pairs fall back to 2D edge and containment tests.
//  * one vertex v: both triangles are convex and contain v, so they meet anywhere else exactly when
//    they meet arbitrarily close to v, i.e. when their corner cones at v share a ray. In general
//    position T1's cone cuts T2's plane in one ray, which must lie strictly inside T2's corner.
//    This catches a fan that folds through itself, which a test skipping pairs with a shared
//    vertex would miss.
//  * an edge: unless the two are coplanar with their third vertices on the same side of the edge
//    (folded flat onto each other) they meet only in that edge.
//
// Plane distances below kEps × (longest edge of the pair) count as zero (all of them: coplanar);
// touching counts as intersecting. Degenerate triangles are removed before this runs.
#include "mesh_validate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shatter
{

namespace
{

constexpr Real kEps = 1e-12;
constexpr Index kLeafSize = 4;

bool overlaps(const Aabb& a, const Aabb& b)
{
    return (a.min.array() <= b.max.array()).all() && (b.min.array() <= a.max.array()).all();
}

// Flat BVH in depth-first order: a node's left child follows it; `next` is the right child of an
// inner node (count == 0) or the first triangle slot of a leaf.
class OverlapTree
{
public:
    explicit OverlapTree(const std::vector<Aabb>& boxes) : boxes(boxes), order(boxes.size())
    {
        std::iota(order.begin(), order.end(), Index(0));
        if (!boxes.empty())
            build(0, Index(boxes.size()));
    }

    template <class Visit>
    void query(const Aabb& box, Visit&& visit) const
    {
        Index stack[64];
        int size = 0;
        if (!nodes.empty())
            stack[size++] = 0;
        while (size > 0)
        {
            const Index n = stack[--size];
            const Node& node = nodes[n];
            if (!overlaps(node.box, box))
                continue;
            if (node.count > 0)
            {
                for (Index i = node.next; i < node.next + node.count; ++i)
                    if (overlaps(boxes[order[i]], box))
                        visit(order[i]);
                continue;
            }
            stack[size++] = node.next;
            stack[size++] = n + 1;
        }
    }

private:
    struct Node
    {
        Aabb box;
        Index next = 0;
        Index count = 0;
    };

    Index build(Index first, Index count)
    {
        const Index n = Index(nodes.size());
        nodes.emplace_back();
        Aabb box;
        Aabb centroids;
        for (Index i = first; i < first + count; ++i)
        {
            box.grow(boxes[order[i]]);
            centroids.grow(boxes[order[i]].center());
        }
        nodes[n].box = box;
        if (count <= kLeafSize)
        {
            nodes[n].next = first;
            nodes[n].count = count;
            return n;
        }
        // Halving by count bounds the depth by log2(n) whatever the geometry (the stack holds 64).
        int axis = 0;
        centroids.extent().maxCoeff(&axis);
        const Index half = count / 2;
        std::nth_element(order.begin() + first, order.begin() + first + half, order.begin() + first + count,
                         [&](Index a, Index b)
                         {
                             const Real ca = boxes[a].center()[axis];
                             const Real cb = boxes[b].center()[axis];
                             return ca < cb || (ca == cb && a < b);
                         });
        build(first, half);
        const Index right = build(first + half, count - half);
        nodes[n].next = right;
        return n;
    }

    const std::vector<Aabb>& boxes;
    std::vector<Index> order;
    std::vector<Node> nodes;
};

Real snap(Real d, Real eps)
{
    return std::abs(d) <= eps ? Real(0) : d;
}

// Is r strictly inside the corner spanned by c and d (angle below pi), seen along n = c x d?
bool insideCorner(const Vec3& r, const Vec3& c, const Vec3& d, const Vec3& n)
{
    return c.cross(r).dot(n) > kEps * c.norm() * r.norm() * n.norm() &&
           r.cross(d).dot(n) > kEps * r.norm() * d.norm() * n.norm();
}

bool sameRay(const Vec3& a, const Vec3& b)
{
    return a.cross(b).norm() <= kEps * a.norm() * b.norm() && a.dot(b) > 0;
}

// Two coplanar corners at a common apex (edge vectors a1, a2 and b1, b2) share a ray.
bool cornersOverlap(Vec3 a1, Vec3 a2, const Vec3& b1, const Vec3& b2, const Vec3& n)
{
    if (a1.cross(a2).dot(n) < 0)
        std::swap(a1, a2);
    const Vec3 na = a1.cross(a2);
    return insideCorner(a1, b1, b2, n) || insideCorner(a2, b1, b2, n) || insideCorner(b1, a1, a2, na) ||
           insideCorner(b2, a1, a2, na) || (sameRay(a1, b1) && sameRay(a2, b2));
}

bool sharedVertexIntersect(const Vec3& v, const Vec3& a1, const Vec3& a2, const Vec3& b1, const Vec3& b2,
                           Real eps)
{
    const Vec3 n = (b1 - v).cross(b2 - v);
    const Vec3 unit = n.normalized();
    const Real d1 = snap(unit.dot(a1 - v), eps);
    const Real d2 = snap(unit.dot(a2 - v), eps);
    if (d1 == 0 && d2 == 0)
        return cornersOverlap(a1 - v, a2 - v, b1 - v, b2 - v, n);
    if ((d1 > 0 && d2 > 0) || (d1 < 0 && d2 < 0))
        return false; // T1 touches T2's plane only at v
    const Vec3 q = d1 == 0 ? a1 : d2 == 0 ? a2 : Vec3(a1 + (a2 - a1) * (d1 / (d1 - d2)));
    return insideCorner(q - v, b1 - v, b2 - v, n);
}

bool sharedEdgeIntersect(const Vec3& u, const Vec3& w, const Vec3& a, const Vec3& b, Real eps)
{
    const Vec3 n = (w - u).cross(a - u).normalized();
    if (std::abs(n.dot(b - u)) > eps)
        return false;
    return (w - u).cross(b - u).dot(n) > kEps * (w - u).norm() * (b - u).norm();
}

using Vec2 = Eigen::Vector2d;

Real orient2(const Vec2& a, const Vec2& b, const Vec2& c)
{
    return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}

bool onSegment(const Vec2& a, const Vec2& b, const Vec2& p)
{
    return std::min(a.x(), b.x()) <= p.x() && p.x() <= std::max(a.x(), b.x()) &&
           std::min(a.y(), b.y()) <= p.y() && p.y() <= std::max(a.y(), b.y());
}

bool segmentsIntersect(const Vec2& p1, const Vec2& p2, const Vec2& q1, const Vec2& q2)
{
    const Real d1 = orient2(q1, q2, p1);
    const Real d2 = orient2(q1, q2, p2);
    const Real d3 = orient2(p1, p2, q1);
    const Real d4 = orient2(p1, p2, q2);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return true;
    return (d1 == 0 && onSegment(q1, q2, p1)) || (d2 == 0 && onSegment(q1, q2, p2)) ||
           (d3 == 0 && onSegment(p1, p2, q1)) || (d4 == 0 && onSegment(p1, p2, q2));
}

bool insideTriangle(const Vec2& p, const Vec2 t[3])
{
    const Real d0 = orient2(t[0], t[1], p);
    const Real d1 = orient2(t[1], t[2], p);
    const Real d2 = orient2(t[2], t[0], p);
    return (d0 >= 0 && d1 >= 0 && d2 >= 0) || (d0 <= 0 && d1 <= 0 && d2 <= 0);
}

bool coplanarIntersect(const Vec3 a[3], const Vec3 b[3], const Vec3& n)
{
    int drop = 0;
    n.cwiseAbs().maxCoeff(&drop);
    const int u = (drop + 1) % 3;
    const int w = (drop + 2) % 3;
    Vec2 pa[3];
    Vec2 pb[3];
    for (int k = 0; k < 3; ++k)
    {
        pa[k] = Vec2(a[k][u], a[k][w]);
        pb[k] = Vec2(b[k][u], b[k][w]);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (segmentsIntersect(pa[i], pa[(i + 1) % 3], pb[j], pb[(j + 1) % 3]))
                return true;
    return insideTriangle(pa[0], pb) || insideTriangle(pb[0], pa);
}

// The interval [lo, hi] along coordinate `axis` of the part of a triangle on the other's plane.
std::array<Real, 2> planeInterval(const Vec3 t[3], const Real d[3], int axis)
{
    std::array<Real, 2> interval{std::numeric_limits<Real>::infinity(),
                                 -std::numeric_limits<Real>::infinity()};
    auto add = [&](Real x)
    {
        interval[0] = std::min(interval[0], x);
        interval[1] = std::max(interval[1], x);
    };
    for (int k = 0; k < 3; ++k)
    {
        const int l = (k + 1) % 3;
        if (d[k] == 0)
            add(t[k][axis]);
        if ((d[k] < 0 && d[l] > 0) || (d[k] > 0 && d[l] < 0))
            add(t[k][axis] + (t[l][axis] - t[k][axis]) * (d[k] / (d[k] - d[l])));
    }
    return interval;
}

bool separateTrianglesIntersect(const Vec3 a[3], const Vec3 b[3], Real eps)
{
    const Vec3 na = (a[1] - a[0]).cross(a[2] - a[0]).normalized();
    const Vec3 nb = (b[1] - b[0]).cross(b[2] - b[0]).normalized();
    Real da[3];
    Real db[3];
    Real farthest = 0;
    for (int k = 0; k < 3; ++k)
    {
        da[k] = nb.dot(a[k] - b[0]);
        db[k] = na.dot(b[k] - a[0]);
        farthest = std::max({farthest, std::abs(da[k]), std::abs(db[k])});
    }
    if (farthest <= eps)
        return coplanarIntersect(a, b, na);
    // Distances are not snapped to zero here: with nearly parallel planes a snapped vertex could sit
    // far from the line where the planes meet, while unsnapped tiny distances still interpolate
    // consistently along the triangles' edges.
    auto oneSide = [](const Real d[3])
    {
        return (d[0] > 0 && d[1] > 0 && d[2] > 0) || (d[0] < 0 && d[1] < 0 && d[2] < 0);
    };
    if (oneSide(da) || oneSide(db))
        return false;
    int axis = 0;
    na.cross(nb).cwiseAbs().maxCoeff(&axis);
    const std::array<Real, 2> ia = planeInterval(a, da, axis);
    const std::array<Real, 2> ib = planeInterval(b, db, axis);
    return ia[0] <= ib[1] && ib[0] <= ia[1];
}

bool trianglesIntersect(const TriMesh& mesh, Index i, Index j)
{
    const Triangle& ti = mesh.triangles[i];
    const Triangle& tj = mesh.triangles[j];
    Vec3 a[3];
    Vec3 b[3];
    Real longest = 0;
    for (int k = 0; k < 3; ++k)
    {
        a[k] = mesh.vertices[ti[k]];
        b[k] = mesh.vertices[tj[k]];
    }
    for (int k = 0; k < 3; ++k)
        longest = std::max({longest, (a[(k + 1) % 3] - a[k]).norm(), (b[(k + 1) % 3] - b[k]).norm()});
    const Real eps = kEps * longest;

    int sharedA[3];
    int sharedB[3];
    int shared = 0;
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
            if (ti[k] == tj[l])
            {
                sharedA[shared] = k;
                sharedB[shared] = l;
                ++shared;
            }
    if (shared == 0)
        return separateTrianglesIntersect(a, b, eps);
    if (shared == 1)
    {
        const int k = sharedA[0];
        const int l = sharedB[0];
        return sharedVertexIntersect(a[k], a[(k + 1) % 3], a[(k + 2) % 3], b[(l + 1) % 3], b[(l + 2) % 3],
                                     eps);
    }
    if (shared == 2)
    {
        const int freeA = 3 - sharedA[0] - sharedA[1];
        const int freeB = 3 - sharedB[0] - sharedB[1];
        return sharedEdgeIntersect(a[sharedA[0]], a[sharedA[1]], a[freeA], b[freeB], eps);
    }
    return true; // the same three vertices: coincident triangles
}

} // namespace

MeshDefect findSelfIntersections(const TriMesh& mesh)
{
    std::vector<Aabb> boxes(mesh.triangles.size());
    for (Index t = 0; t < mesh.triangles.size(); ++t)
        for (Index v : mesh.triangles[t])
            boxes[t].grow(mesh.vertices[v]);
    const OverlapTree bvh(boxes);

    MeshDefect defect;
    std::array<Index, 2> first{kInvalidIndex, kInvalidIndex};
    for (Index i = 0; i < mesh.triangles.size(); ++i)
    {
        bvh.query(boxes[i],
                  [&](Index j)
                  {
                      if (j <= i || !trianglesIntersect(mesh, i, j))
                          return;
                      ++defect.count;
                      if (first[0] == kInvalidIndex || (first[0] == i && j < first[1]))
                          first = {i, j};
                  });
    }
    if (defect)
    {
        const Triangle& a = mesh.triangles[first[0]];
        const Triangle& b = mesh.triangles[first[1]];
        defect.detail = std::to_string(defect.count) + (defect.count == 1 ? " pair" : " pairs") +
                        " of triangles intersect, first triangles " + std::to_string(first[0]) +
                        " (vertices " + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " +
                        std::to_string(a[2]) + ") and " + std::to_string(first[1]) + " (vertices " +
                        std::to_string(b[0]) + ", " + std::to_string(b[1]) + ", " + std::to_string(b[2]) +
                        ")";
    }
    return defect;
}

} // namespace shatter
