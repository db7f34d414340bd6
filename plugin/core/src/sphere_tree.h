// The fracturable sphere tree (TVCG §5.1, §6.1): spheres centred at the points of an object, taken
// in maximum-distance order so that a breadth-first walk samples the object ever more finely.
//
// Layout. Nodes live in one flat array of 32-byte structs and refer to each other by uint32
// indices; point positions live in a separate array (a point is shared by its copies on several
// levels, and Algorithm 1's per-point inside cache is indexed by it). Children are a singly linked
// sibling list (firstChild / nextSibling) rather than a CSR range: fracture (TVCG §6.2-6.3) splits
// the tree into a forest, replicates splitting nodes, re-parents subtrees and inserts new surface
// points under existing nodes, and with links each of those is O(1) or O(siblings) in place, while a
// CSR layout would have to be rebuilt after every event. Traversal cost is the same: Algorithm 1
// visits the children of a node one at a time anyway (its nextChild cursor is a node index that
// advances along nextSibling), and sibling lists are kept in max-distance order.
#pragma once

#include "shatter/math.h"

#include <span>
#include <string>
#include <vector>

namespace shatter
{

/// One sphere: centred at a point of the set, enclosing the points of all its descendants.
struct SphereNode
{
    Index point = kInvalidIndex;       ///< centre, an index into SphereTree::points
    Index parent = kInvalidIndex;      ///< kInvalidIndex for a root
    Index firstChild = kInvalidIndex;  ///< kInvalidIndex for a leaf
    Index nextSibling = kInvalidIndex; ///< next child of the parent, in max-distance order
    Index childCount = 0;              ///< length of the child list
    Index level = 0;                   ///< depth in the original tree: 0 for its root
    Real radius = 0; ///< distance from the centre to the farthest descendant point, 0 for a leaf
};
static_assert(sizeof(SphereNode) == 32, "SphereNode is a hot struct: keep it at 32 bytes");

/// Iterates the children of a node in their stored (max-distance) order.
class ChildRange
{
public:
    struct Iterator
    {
        const SphereNode* nodes;
        Index node;
        Index operator*() const { return node; }
        Iterator& operator++()
        {
            node = nodes[node].nextSibling;
            return *this;
        }
        bool operator==(const Iterator& other) const { return node == other.node; }
    };
    ChildRange(const SphereNode* nodes, Index first) : nodes(nodes), first(first) {}
    Iterator begin() const { return {nodes, first}; }
    Iterator end() const { return {nodes, kInvalidIndex}; }

private:
    const SphereNode* nodes;
    Index first;
};

/// A forest of sphere trees over one point set: one tree (root) per fragment. buildSphereTree makes a
/// single tree; fracture splits it and grows it in place (new nodes and points are appended).
///
/// Right after buildSphereTree: level l holds the first min(2^l, n) points of the max-distance order,
/// nodes are stored level by level and, within a level, by order position (so node index order is
/// order-position order), node 0 is the root, and the last level is made of all n points as leaves.
struct SphereTree
{
    std::vector<Vec3> points;      ///< point positions (material frame)
    std::vector<SphereNode> nodes; ///< all nodes of all trees
    std::vector<Index> roots;      ///< one root node per tree
    std::vector<Index> pointNode;  ///< per point, its highest node (where the point first appears)

    Index nodeCount() const { return Index(nodes.size()); }
    Index pointCount() const { return Index(points.size()); }
    /// The centre of a node.
    const Vec3& center(Index node) const { return points[nodes[node].point]; }
    /// The children of a node, in max-distance order.
    ChildRange children(Index node) const { return {nodes.data(), nodes[node].firstChild}; }
    /// Appends an unlinked node (no parent, no children, radius 0) and returns its index.
    Index addNode(Index point, Index level);
    /// Links `child` (currently parentless) as the last child of `parent`: O(children of parent).
    void appendChild(Index parent, Index child);
};

/// Builds the sphere tree of TVCG §5.1 over `points` taken in `maxDistanceOrder` (a permutation of
/// [0, n), normally orderByMaxDistance(points)). The parent of a node on level l+1 is the closest node
/// on level l, ties to the lowest order position; a point already present on level l always hangs
/// under its own copy (distance 0), also when a duplicate point with a lower position exists.
/// Children are ordered by order position, so a point's own copy is its first child. About
/// O(n log n): a k-d tree over each level answers the closest-node queries. Throws Error when the
/// order is not a permutation of the points.
SphereTree buildSphereTree(std::span<const Vec3> points, std::span<const Index> maxDistanceOrder);

/// A point shell for an arbitrary shape given as surface samples (used for convex shapes at the
/// Bullet boundary): orderByMaxDistance followed by buildSphereTree.
SphereTree buildPointShell(std::span<const Vec3> points);

/// What checkSphereTree verifies besides the always-checked structure and sphere containment.
struct SphereTreeCheck
{
    Real tolerance = 1e-9; ///< absolute slack (length units) for "descendant inside ancestor sphere"
    /// Every point is present, once per level, from its first level down to its tree's deepest level.
    bool completeLevels = true;
    /// The parent of every node is the closest node of the level above (own copy first, then ties
    /// to the lowest node index). Holds right after buildSphereTree; costs O(n²), meant for tests.
    bool closestParents = true;
};

/// Validates a sphere forest: finite points, links agree (parent/child/sibling, child counts, levels,
/// pointNode), every node is reached exactly once from the roots (so no cycle), radii are finite and
/// ≥ 0 with leaves at 0, and every node's point lies inside the sphere of each of its ancestors; plus the
/// optional checks of `options`. Returns an empty string when the tree is valid, otherwise a description of
/// the first problem found.
std::string checkSphereTree(const SphereTree& tree, const SphereTreeCheck& options = {});

} // namespace shatter
