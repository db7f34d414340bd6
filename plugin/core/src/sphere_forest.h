// The fracturable sphere forest (TVCG §6): one adaptive sphere tree (§5.1) per live fragment of an
// object, all in one flat node array, updated in place at every fracture event by splitting,
// restructuring and inserting new crack surface points (§6.2-6.3). The how and why are in the essay
// at the top of sphere_forest.cpp.
#pragma once

#include "fracture_result.h"
#include "sphere_tree.h"
#include "tet_mesh.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace shatter
{

struct Asset;

/// How SphereForest::apply rebuilds the parent's tree into one tree per new fragment.
enum class RestructureMethod : std::uint8_t
{
    /// TVCG §6.2-6.3: replicate splitting nodes per fragment, drop single-child nodes, give each copy
    /// the point of its subtree closest to the original centre, insert new points by radius (Fig. 8).
    Tvcg2013,
    /// SCA'12 §5.2: hang each node whose parent changed fragment under its closest ancestor of its own
    /// fragment, insert new points under the highest instance of their edge point. For comparison.
    Sca2012,
    /// No update: every new fragment gets a fresh tree over its points, built as the asset's was
    /// (§5.1), in place of the parent's. The "full recomputation" of TVCG §7.3 and Fig. 15, for
    /// comparing both update cost and culling.
    Rebuild,
};

/// A point added on a crack (TVCG §6.3): it lies on tet edge (node0, node1) at (1 − t)·p0 + t·p1.
struct CrackPoint
{
    Index node0 = kInvalidIndex; ///< tet mesh node, node0 < node1
    Index node1 = kInvalidIndex; ///< tet mesh node
    Real t = 0;                  ///< edge parameter in (0, 1)
};

/// What one SphereForest::apply did (for tests, benchmarks and logs).
struct ForestUpdateReport
{
    Index parentPoints = 0;   ///< points of the parent's tree (what a rebuild would have to order)
    Index splittingNodes = 0; ///< Tvcg2013: nodes whose subtree spans several fragments (the split
                              ///< visits these and their children, no other node of the parent's tree)
    Index copies = 0;         ///< Tvcg2013: nodes created by replicating splitting nodes
    Index removed = 0;        ///< Tvcg2013: single-child nodes spliced out (and put on the free list)
    Index reparented = 0;     ///< Sca2012: nodes hung under another ancestor
    Index insertedPoints = 0; ///< new crack surface points (two per cut edge)
    Index nearestParents = 0; ///< new points whose edge had no endpoint in their fragment (see apply)
};

/// One sphere tree per live fragment over one point set; see the file comment.
///
/// Points: [0, tetNodeCount()) are the tet mesh nodes (point index = node index, as in the asset's
/// tree), the rest are crack surface points appended by apply() in pairs, the two sides of one cut
/// edge: same position and CrackPoint, each with its own fragment tag.
/// Invariants (checkSphereForest verifies them): every point of a live fragment lies in that
/// fragment's tree only; a point's nodes form a chain from pointNode[p] downward, each the first child
/// of the previous ("own copy first", the max-distance order of §5.1); every internal node has its own
/// copy among its children; radii are exact (distance to the farthest descendant point). Nodes freed by
/// an update are kept on a free list (isFree) and reused; they are never reachable from a root.
class SphereForest
{
public:
    SphereForest() = default;
    /// A forest with one tree, fragment 0, copied from `initial` (a buildSphereTree result over the tet
    /// nodes) with the same spheres, laid out breadth first, and with the own-copy-only tails below
    /// leaf points dropped (node indices differ from `initial`'s; its root stays node 0). Throws
    /// shatter::Error if it is not a single tree.
    explicit SphereForest(const SphereTree& initial);
    /// SphereForest(asset.sphereTree); checks that its points are the asset's tet nodes.
    explicit SphereForest(const Asset& asset);

    /// Nodes, points and pointNode of all trees. `tree().roots` lists the live roots in fragment order.
    const SphereTree& tree() const { return data; }
    /// Root node of fragment f's tree; kInvalidIndex for a retired, unknown or empty fragment.
    Index root(FragmentId f) const { return f < fragmentRoot.size() ? fragmentRoot[f] : kInvalidIndex; }
    /// Number of fragment ids used so far (live and retired).
    FragmentId fragmentCount() const { return FragmentId(fragmentRoot.size()); }
    bool alive(FragmentId f) const { return f < fragmentLive.size() && fragmentLive[f] != 0; }
    Index pointCount() const { return data.pointCount(); }
    Index nodeCount() const { return data.nodeCount(); }
    /// The fragment point p belongs to (its latest tag; retired fragments' ids never appear).
    FragmentId pointFragment(Index p) const { return pointTag[p]; }
    /// Tet nodes come first among the points.
    Index tetNodeCount() const { return tetNodes; }
    /// Where crack point p (≥ tetNodeCount()) lies.
    const CrackPoint& crackPoint(Index p) const { return crackPoints[(p - tetNodes) / 2]; }
    /// True for a node on the free list (its point is kInvalidIndex).
    bool isFree(Index node) const { return data.nodes[node].point == kInvalidIndex; }
    Index freeNodeCount() const { return Index(freeNodes.size()); }

    /// Checks `result` against the forest (parent alive, new ids next in line, node labels cover the
    /// parent's tet nodes exactly, cut edges well formed, every old crack point of the parent
    /// classifiable, and, when there are such points, the cut tet records that classify them well
    /// formed) and throws shatter::Error naming the problem. Touches only scratch memory; apply()
    /// calls it first, so a caller that must validate before changing other state calls it.
    void check(const FractureResult& result, const TetMesh& mesh);

    /// Applies one fracture event to the parent's tree only (TVCG §6.2-6.3 or SCA'12 §5.2, see
    /// RestructureMethod): tags its points, splits it into one tree per new fragment, inserts two new
    /// crack points per cut edge, updates radii along the changed paths. `mesh` is the asset's tet mesh
    /// (tets for the records, connectivity); crack points are placed between the forest's own copies
    /// of the node positions, its first points. Work is proportional to the parent's points, the nodes
    /// whose subtree spans several new fragments (Tvcg2013; Sca2012 walks the parent's whole tree) and
    /// the new points, plus one pass over the parent's tree the first time a fragment other than the
    /// initial one breaks (its depth-first numbering, see sphere_forest.cpp). Throws shatter::Error
    /// (and changes nothing) if check() fails.
    ///
    /// A crack point hangs under the endpoint of its edge on its own side; when neither endpoint is in
    /// its fragment (an edge crossed several times by a Voronoi crack), under the closest node of its
    /// fragment adjacent to both endpoints, else under the closest point of the fragment's tree as
    /// the split left it (both cases counted in ForestUpdateReport::nearestParents); a fragment with
    /// no tet node gets its tree from its crack points, each under the closest one inserted before. Both
    /// points of a cut edge sit exactly at the crack point, tagged with different fragments; see
    /// sphere_forest.cpp for why.
    void apply(const FractureResult& result, const TetMesh& mesh,
               RestructureMethod method = RestructureMethod::Tvcg2013, ForestUpdateReport* report = nullptr);

private:
    friend struct ForestEditor;
    friend class ObjectState; // validates every part of the state first, then calls applyChecked

    /// apply() for a `result` that check() has just accepted, with nothing changed in between (the
    /// scratch still holds what check() found): ObjectState checks the forest and the field before
    /// changing either, so apply() would check everything twice.
    void applyChecked(const FractureResult& result, const TetMesh& mesh, RestructureMethod method,
                      ForestUpdateReport* report);

    FragmentId classifyCrackPoint(Index p, const FractureResult& result, const TetMesh& mesh) const;
    /// The anchor of a crack point with no edge endpoint in its fragment (an edge crossed several
    /// times by a Voronoi crack): the highest node of the closest node of its fragment adjacent to both
    /// endpoints (which includes every node of the tets around the edge), else of the closest point of
    /// the fragment's tree.
    Index findAnchor(Index point, const TetMesh& mesh);
    /// Inserts the crack points [firstPoint, pointCount()) under their anchors (scratch.anchors) and
    /// updates the radii (TVCG §6.3); see sphere_forest.cpp.
    void insertCrackPoints(Index firstPoint, RestructureMethod method, ForestUpdateReport& report);
    /// Hangs the crack points firstPoint + k, k in `group`, in the chain of `anchor` (the highest
    /// node of a point of their fragment), each at its Fig. 8 level, and grows the anchor's radius.
    void insertGroup(Index anchor, std::span<const Index> group, Index firstPoint, RestructureMethod method);
    /// Grows the radii of `node` and its ancestors to reach the crack points firstPoint + k, k in
    /// `group` (nothing for kInvalidIndex).
    void growRadiiFrom(Index node, Index firstPoint, std::span<const Index> group);
    /// RestructureMethod::Rebuild, once the parent's tree is freed and the crack points
    /// [firstPoint, pointCount()) are in place: a fresh tree for each new fragment over its points
    /// (sphere_forest_rebuild.cpp).
    void rebuildTrees(Index firstPoint, FragmentId firstNew, FragmentId count, ForestUpdateReport& report);

    SphereTree data;
    std::vector<FragmentId> pointTag; // per point
    std::vector<Index> fragmentRoot;  // per fragment id
    std::vector<std::uint8_t> fragmentLive;
    std::vector<CrackPoint> crackPoints; // per pair of crack points (see crackPoint)
    std::vector<Index> freeNodes;
    Index tetNodes = 0;

    // A range of depth-first point positions (sphere_forest_edit.h, number()).
    struct Span
    {
        Index begin = 0;
        Index end = 0;
    };
    // Update scratch (sphere_forest_edit.h), reused from event to event; indexed by point or node and
    // valid where the matching stamp equals `epoch`, so it is never cleared.
    struct Scratch
    {
        Index epoch = 0;
        // The depth-first numbering of one fragment's tree (kNoFragment: none): per node, the positions
        // of the points first met in its subtree; per position, its point. Made for the initial tree
        // at construction and for any other fragment's tree when it breaks.
        FragmentId numbered = kNoFragment;
        std::vector<Span> spans;                // per node of the numbered tree
        std::vector<Index> positionPoint;       // per position
        std::vector<Index> tagChanges;          // per position: tag changes among positions [0, i]
        std::vector<Index> cap;                 // Tvcg2013: the nodes whose subtree spans several fragments
        std::vector<Index> pointStamp;          // per point: labelled in this event
        std::vector<FragmentId> newTag;         // per point: its tag after this event
        std::vector<Index> nodeStamp;           // per node: dirty in this event (Sca2012)
        std::vector<Index> originalParent;      // per node (Sca2012)
        std::vector<Index> order;               // Sca2012: the parent's tree, breadth first
        std::vector<Index> crackPointsOfParent; // its crack points, classified by check()
        std::vector<Index> tetStamp, tetRecord; // per tet: its record in this event's result
        std::vector<Index> children, topLevel, branch, newRoots;
        std::vector<FragmentId> childTags; // per entry of children
        std::vector<Real> searchKeys;      // branch-and-bound stack: the bound that orders an entry
        std::vector<Index> searchNodes;    // and its node
        std::vector<Index> tail;           // per node: the last child appended to it
        std::vector<Index> copyOf;         // per node: for a copy made in this event, its original's point
        std::vector<Index> copies;         // the copies made in this event
        std::vector<Index> anchors;        // per new crack point: its anchor (or kInvalidIndex)
        std::vector<Index> anchorStart;    // per anchor candidate + 1: counting sort of new crack points
        std::vector<Index> insertOrder;    // the new crack points (minus firstPoint) grouped by anchor
        std::vector<std::pair<Index, Index>> installQueue; // install(): (built node, forest node)
        std::vector<Index> fragmentStart, fragmentPoints;  // Rebuild: the points grouped by fragment
        std::vector<Vec3> fragmentPositions;               // Rebuild: one fragment's points
        const FractureResult* checked = nullptr;           // the result check() accepted in this epoch
    };
    Scratch scratch;
};

/// What checkSphereForest verifies besides links, reachability, the free list, point ownership,
/// chains and containment.
struct ForestCheck
{
    Real tolerance = 1e-9;  ///< absolute slack (length units) for containment and exact radii
    bool exactRadii = true; ///< every radius equals the distance to the farthest descendant point
};

/// Validates the forest's invariants (see SphereForest). O(n · depth). Returns an empty string when
/// valid, otherwise a description of the first problem found. For tests.
std::string checkSphereForest(const SphereForest& forest, const ForestCheck& options = {});

} // namespace shatter
