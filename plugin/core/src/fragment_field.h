// The fragment distance field of TVCG §4: one {fragment, distance, direction} sample per tet node
// (§4.1) plus, in tets the cracks pass through, the exact crack geometry as a short chain of records
// (the crack functions of fracture_result.h). Updated at fracture events by front propagation (§4.2);
// queried per tet by ObjectState's insideTest / penetration / sphereTest (§4.3-4.5).
//
// Records of one tet form a hierarchy in event order: the first record splits the fragment that owned
// the whole tet; a later record splits one piece of an earlier split (its `parent`) by that piece's own
// functions, inside that piece only. When a fragment breaks without its region in the tet being cut
// again, its piece is relabelled in place to the new fragment. A fragment is therefore a "live piece"
// of at most one record per tet, and a point's fragment is found by walking the chain.
#pragma once

#include "crack_geometry.h"
#include "fracture_result.h"
#include "tet_mesh.h"

#include <span>
#include <vector>

namespace shatter
{

/// Per-node sample of the field (TVCG §4.1).
struct FieldNode
{
    Vec3 direction = Vec3::Zero(); ///< unit, toward the closest surface point of `fragment` (outward)
    Real distance = 0;             ///< approximate distance to the surface of `fragment`, ≥ 0
    FragmentId fragment = 0;       ///< the fragment holding the node
    Index reserved = 0;
};
static_assert(sizeof(FieldNode) == 40, "FieldNode is read four at a time by every query; keep it compact");

/// One split of a fragment's region inside one tet, as the field stores it.
struct FieldRecord
{
    std::array<std::array<Real, 4>, 4> values{}; ///< values[i][k]: g of piece i at local node k
    std::array<FragmentId, 4> fragments{};       ///< current fragment of each piece
    FragmentId parent = kNoFragment;             ///< the fragment whose region in the tet is split
    Index next = kInvalidIndex;                  ///< the tet's next (later) record
    Index firstPlane = 0;                        ///< see planes()
    std::array<std::uint8_t, 5> planeStart{};    ///< piece i owns planes [planeStart[i], planeStart[i+1])
    std::uint8_t count = 0;                      ///< pieces, 2..4
};
static_assert(sizeof(FieldRecord) == 168, "FieldRecord is walked by insideTest; keep it compact");

/// Where a live fragment's region lies in a tet: a piece of a record, or the whole tet.
struct RegionRef
{
    Index record = kInvalidIndex; ///< kInvalidIndex: the tet is uncut and all of it belongs to the fragment
    int slot = 0;
};

/// One new fragment's region in a cut tet (a record piece), reported by FragmentField::apply for
/// bounds and grid marks.
struct RegionBox
{
    FragmentId fragment = kNoFragment;
    Index tet = kInvalidIndex;
    Aabb box; ///< bounds of the piece (exact; the whole tet if its clipped region came out empty)
};

/// An uncut tet that joins a new fragment as a whole, reported by FragmentField::apply: its region is
/// the whole tet, so the caller bounds and marks it from the mesh (no box is computed for it).
struct RegionTet
{
    FragmentId fragment = kNoFragment;
    Index tet = kInvalidIndex;
};

/// The last propagation update of one node (FieldUpdateReport::trace).
struct FrontUpdate
{
    Index node = kInvalidIndex;
    Index step = 0;             ///< front step that set the node's final value (1 = next to the seeds)
    Real distance = 0;          ///< the value it set
    Real minSourceDistance = 0; ///< smallest distance among the neighbours it was propagated from
};

/// Statistics of one FragmentField::apply (and, on request, the propagation trace for tests).
struct FieldUpdateReport
{
    bool keepTrace = false;         ///< set before the call to fill `trace`
    Index regionTets = 0;           ///< tets holding part of the parent
    Index newRecords = 0;           ///< cut records appended
    Index relabelled = 0;           ///< pieces relabelled in place
    Index seeds = 0;                ///< nodes initialised from the new crack planes
    Index steps = 0;                ///< front propagation steps
    Index updates = 0;              ///< node updates by propagation (a node may be updated repeatedly)
    std::vector<Index> seedNodes;   ///< the seeds (only with keepTrace)
    std::vector<FrontUpdate> trace; ///< final propagation update per node reached (only with keepTrace)
};

/// Node samples and cut-tet records of one object; see the file comment. Reads go through const
/// methods that never allocate; apply() is the only mutator.
class FragmentField
{
public:
    FragmentField() = default;
    /// Fragment 0 everywhere, distances and directions from the asset's exact values (TVCG §4.1).
    /// `mesh` must outlive the field (it lives in the shared Asset).
    FragmentField(const TetMesh& mesh, std::span<const Real> nodeDistance,
                  std::span<const Vec3> nodeDirection);

    const TetMesh& mesh() const { return *tetMesh; }
    const FieldNode& node(Index i) const { return nodes[i]; }
    std::span<const FieldNode> nodeSamples() const { return nodes; }
    /// Number of nodes of fragment f (0 once it is retired).
    Index fragmentNodeCount(FragmentId f) const { return f < nodeCounts.size() ? nodeCounts[f] : 0; }

    bool isCut(Index tet) const { return tetRecords[tet] != kInvalidIndex; }
    /// First (earliest) record of a tet, kInvalidIndex if it is uncut; follow FieldRecord::next.
    Index firstRecord(Index tet) const { return tetRecords[tet]; }
    const FieldRecord& record(Index r) const { return records[r]; }
    Index recordCount() const { return Index(records.size()); }
    /// The crack planes bounding piece `slot` of a record inside its tet, normals pointing out of it.
    std::span<const Plane> planes(const FieldRecord& r, int slot) const
    {
        return {planePool.data() + r.firstPlane + r.planeStart[slot],
                std::size_t(r.planeStart[slot + 1] - r.planeStart[slot])};
    }

    /// The fragment holding barycentric point b of tet t (the record chain, TVCG §4.3).
    FragmentId fragmentAt(Index t, const Bary& b) const;
    /// Where live fragment f lies in tet t; false if it has no region there.
    bool findRegion(Index t, FragmentId f, RegionRef& region) const;
    /// Distance from p (in tet t, inside f) to f's surface as far as the field knows it: eqs. 1-2 over
    /// f's nodes of the tet with weights 1/|p_j − p|² (a coinciding node is used as is), and in a cut tet
    /// the crack planes bounding f's region there (TVCG §4.4). The surface grid is the caller's. Returns
    /// false, leaving d and n alone, when f has neither nodes nor a region in the tet.
    bool distanceInTet(Index t, const Vec3& p, FragmentId f, Real& d, Vec3& n) const;

    /// Checks `result` against the current state (node labels, records, new ids; see the definition)
    /// and throws shatter::Error naming the problem. Touches only scratch memory.
    void check(const FractureResult& result);
    /// check(), then the update (TVCG §4.2): node labels, records (appended or relabelled), crack
    /// initialisation and front propagation. Appends the regions of the new fragments to `boxes`
    /// (record pieces) and `wholeTets` (uncut tets). Work is proportional to the parent's region.
    /// Nothing changes if check() throws.
    void apply(const FractureResult& result, std::vector<RegionBox>& boxes, std::vector<RegionTet>& wholeTets,
               FieldUpdateReport* report = nullptr);

private:
    void propagate(const std::vector<Index>& seeds, FieldUpdateReport* report);
    void appendRecord(Index t, const CutTetRecord& input, FragmentId parent, std::vector<RegionBox>& boxes,
                      std::vector<Index>& seeds);

    const TetMesh* tetMesh = nullptr;
    std::vector<FieldNode> nodes;
    std::vector<Index> tetRecords; // first record per tet
    std::vector<FieldRecord> records;
    std::vector<Plane> planePool;
    std::vector<Index> nodeCounts;             // per fragment
    std::vector<std::vector<Index>> pieceTets; // per fragment: tets where it is a live record piece
    Real coincide2 = 0;                        // squared distance under which p "is" a node
    Real progressEpsilon = 0;                  // smallest decrease that propagation accepts

    // Scratch for check/apply, indexed by node or tet and valid where the stamp equals `epoch`.
    Index epoch = 0;
    std::vector<Index> nodeStamp, tetStamp, regionStamp, seedStamp;
    std::vector<FragmentId> nodeLabel;
    std::vector<Index> tetSlot; // region tet: its cutTets entry if it has one, else its nodes' label
    std::vector<Index> regionTetList;
    std::vector<std::uint8_t> usedFragments;
    TetRegionScratch regionScratch;
    std::vector<Plane> parentPlaneScratch, constraintScratch;
    std::vector<std::uint8_t> boundingScratch;
    // Propagation scratch, stamped per front step.
    Index stepEpoch = 0;
    std::vector<Index> frontStamp, candidateStamp;
    std::vector<Index> front, candidates;
    struct Pending
    {
        Index node;
        Real distance;
        Real minSource;
        Vec3 direction;
    };
    std::vector<Pending> pending;
};

} // namespace shatter
