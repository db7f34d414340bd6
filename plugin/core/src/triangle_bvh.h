// A static AABB tree over the triangles of a mesh, answering closest-point queries: the engine under
// the exact signed distance (signed_distance.h) and the surface distance grid (TVCG §4.4).
#pragma once

#include "shatter/mesh.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace shatter
{

/// Which part of a triangle a closest point lies on. Edge k joins local vertices k and (k + 1) % 3;
/// vertex k is local vertex k. The signed distance picks the matching pseudonormal from it.
enum class TriangleFeature : std::uint8_t
{
    Face,
    Edge0,
    Edge1,
    Edge2,
    Vertex0,
    Vertex1,
    Vertex2,
};

/// The closest point of one triangle to a query point, and the feature it lies on.
struct TrianglePoint
{
    Vec3 point;
    TriangleFeature feature;
};

/// Closest point of triangle (a, b, c) to p, by Voronoi regions (Ericson, Real-Time Collision
/// Detection §5.1.5). Degenerate triangles are handled through their edges.
TrianglePoint closestPointOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// The answer of TriangleBvh::closestPoint. `triangle` is kInvalidIndex when nothing was within reach.
struct ClosestPoint
{
    Real distance = std::numeric_limits<Real>::infinity(); ///< Euclidean distance to `point`, ≥ 0
    Vec3 point = Vec3::Zero();                             ///< closest surface point
    Index triangle = kInvalidIndex;                        ///< index into the mesh's triangles
    TriangleFeature feature = TriangleFeature::Face;       ///< part of `triangle` that holds `point`

    bool found() const { return triangle != kInvalidIndex; }
};

/// Static bounding-volume hierarchy over a triangle mesh. Inner nodes live in a flat, depth-first
/// array and carry the boxes of both children (in float, rounded outward), so a visit reads one cache
/// line and tests both children before touching either; leaves hold at most kMaxLeafTriangles
/// triangles whose vertices are copied in leaf order, one contiguous read per leaf. Built once by
/// binned SAH in O(n log n); queries are const, allocation-free and safe from many threads at once.
class TriangleBvh
{
public:
    /// Most triangles in one leaf.
    static constexpr Index kMaxLeafTriangles = 4;
    /// Depth bound that the build guarantees, and the size of the fixed query stack.
    static constexpr Index kMaxDepth = 60;

    /// A subtree: an inner node (count 0, `index` into nodes()) or a leaf (`count` triangles from
    /// leaf slot `index`).
    struct NodeRef
    {
        Index index = 0; ///< inner node index, or first leaf slot
        Index count = 0; ///< 0 for an inner node, else the leaf's triangle count (1..kMaxLeafTriangles)
        bool leaf() const { return count != 0; }
    };

    /// An inner node: its two children and their bounds.
    struct Node
    {
        float min[2][3];  ///< lower corners of the children's boxes (rounded down from double)
        float max[2][3];  ///< upper corners (rounded up)
        NodeRef child[2]; ///< the two subtrees
    };
    static_assert(sizeof(Node) == 64, "an inner node is one cache line");

    /// An empty tree: every query finds nothing.
    TriangleBvh() = default;
    /// What a tree keeps besides its nodes and leaf order.
    enum class Storage : std::uint8_t
    {
        Vertices, ///< a copy of the triangle corners in leaf order (72 bytes a triangle): closest points
        Indices,  ///< only the leaf order: box queries that read the mesh (about a fifth of the memory)
    };
    /// Builds the tree over all triangles of `mesh`. Vertex indices must be in range (asserted).
    explicit TriangleBvh(const TriMesh& mesh, Storage storage = Storage::Vertices);

    /// Closest point of the mesh to p among the triangles within `maxDistance` of it (exclusive of
    /// farther ones); `found()` is false when there is none. Ties go to the first triangle met, so the
    /// answer is deterministic. Needs Storage::Vertices (asserted), as does the brute-force reference.
    ClosestPoint closestPoint(const Vec3& p, Real maxDistance = std::numeric_limits<Real>::infinity()) const;
    /// The same answer by testing every triangle: the reference for tests and benchmarks.
    ClosestPoint closestPointBruteForce(const Vec3& p) const;

    bool empty() const { return triangleIds.empty(); } ///< true when built from no triangles
    Index triangleCount() const { return Index(triangleIds.size()); }
    /// Inner-node levels on the longest root-to-leaf path (0 when the whole mesh is one leaf).
    Index depth() const { return treeDepth; }
    /// Bounds of the whole mesh; empty for an empty tree.
    Aabb bounds() const { return rootBox; }
    /// The whole tree: an inner node, or a single leaf for meshes of at most kMaxLeafTriangles.
    NodeRef root() const { return rootRef; }
    const std::vector<Node>& nodes() const { return innerNodes; } ///< inner nodes, depth-first
    /// Mesh triangle index held in a leaf slot.
    Index leafTriangle(Index slot) const { return triangleIds[slot]; }
    /// Bounds of every leaf (conservative: rounded outward), in the order of their parents.
    std::vector<Aabb> leafBounds() const;

private:
    std::vector<Node> innerNodes;
    std::vector<std::array<Vec3, 3>> triangleVertices; // triangle corners in leaf order
    std::vector<Index> triangleIds;                    // mesh triangle index of each leaf slot
    NodeRef rootRef;
    Aabb rootBox;
    Index treeDepth = 0;
};

} // namespace shatter
