// FractureResult: the one data structure through which a fracture reaches the collision state, so the
// collision structures do not depend on how the fracture was computed. The fracture module's
// tessellation and the test utilities produce it; ObjectState::apply consumes it (distance field TVCG
// §4.2, sphere trees TVCG §6.2-6.3, grid §4.5).
//
// Crack representation: inside a cut tet every fragment f of a split has a *linear* function g_f(b) =
// Σ_k b_k values[f][k] over the tet's barycentric coordinates b. A point of the split region belongs to
// argmin_f g_f, and the crack between f and h is the plane g_f = g_h (TVCG §4.1's "at most six plane
// equations"). With plane cuts the values are signed plane distances, with a Euclidean Voronoi diagram
// squared site distances (their differences are exactly the bisectors), with the CVD of the fracture
// module the node-to-site distances of CVD eq. 13.
//
// Requirements on a FractureResult, all checked by apply(), which throws shatter::Error naming the
// problem and changes nothing:
//  - `fragments` has at least two entries: the next free ids, in order.
//  - Repeated fracture: a record splits the parent's region *inside the tet* — the whole tet, or the
//    parent's piece of an earlier record — and the consumer evaluates argmin only over the listed
//    pieces. So a record must list every new fragment whose region meets the tet (not only those at
//    its nodes), and at each tet node that belongs to the parent the node's new fragment must be the
//    argmin (ties within 1e-12 relative accepted).
//  - A tet that holds part of the parent but none of the parent's nodes (possible after an earlier
//    split) needs a record even when this event does not cut it: a one-piece record (count = 1,
//    values ignored) naming the new fragment that part joins. Tets with parent nodes and no record
//    must have all those nodes in one new fragment.
//  - A new fragment may own no node at all (a sliver between nodes) as long as some record lists it.
//  - CutEdge: the fracture module's tessellation cuts each edge at most once; the test utilities
//    (tests/support/fracture_fixtures.h) may report several crossings of one edge by a Voronoi
//    split as separate entries with increasing t.
#pragma once

#include "fragment_mesh.h"
#include "shatter/math.h"

#include <memory>

#include <vector>

namespace shatter
{

/// Fragment ids of one object are dense and never reused: the unbroken object is fragment 0, and each
/// fracture retires its parent and appends its pieces at the next free ids.
using FragmentId = std::uint32_t;
inline constexpr FragmentId kNoFragment = std::numeric_limits<FragmentId>::max();

/// One split of the parent fragment's region inside one tet.
struct CutTetRecord
{
    Index tet = kInvalidIndex;
    std::uint8_t count = 0;                      ///< pieces, 2..4 (1: relabel only, see above)
    std::array<FragmentId, 4> fragments{};       ///< the fragments of the split
    std::array<std::array<Real, 4>, 4> values{}; ///< values[i][k]: g of fragments[i] at local node k
};

/// A tet edge crossed by the crack (each edge is cut at most once, TVCG §4.1). The sphere trees get two
/// new surface points here, one per side (TVCG §6.3).
struct CutEdge
{
    Index node0 = kInvalidIndex, node1 = kInvalidIndex; ///< tet mesh nodes, node0 < node1
    Real t = 0;                                         ///< crack point = (1 − t)·p0 + t·p1, t in (0, 1)
    FragmentId fragment0 = kNoFragment;                 ///< fragment on node0's side
    FragmentId fragment1 = kNoFragment;                 ///< fragment on node1's side
};

/// The outcome of one fracture event: one live fragment split into two or more new fragments.
struct FractureResult
{
    FragmentId parent = kNoFragment;       ///< the fragment that broke; retired by apply()
    std::vector<FragmentId> fragments;     ///< the new fragments: the next free ids, in order
    std::vector<Index> nodes;              ///< every tet node of the parent ...
    std::vector<FragmentId> nodeFragments; ///< ... and the new fragment it belongs to
    std::vector<CutTetRecord> cutTets;     ///< tets in which the parent's region is split
    std::vector<CutEdge> cutEdges;         ///< tet edges crossed by the new crack
    /// The closed surface of each new fragment, in the order of `fragments` (what Bullet's ray tests,
    /// debug drawing, rendering and mass properties use). Empty when the producer has no surfaces
    /// (collision-only tests); then the new fragments have no mesh.
    std::vector<std::shared_ptr<const FragmentMesh>> meshes;
};

} // namespace shatter
