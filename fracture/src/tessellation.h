// Tessellation of a Voronoi labelling into fragments (CVD §5): the tet-lattice crack
// surfaces, the closed surface of every new fragment, and the FractureResult that ObjectState::apply
// consumes (cut-tet records with the linear crack functions, cut edges, node labels, meshes).
//
// How it works (details in the files named):
//  1. tessellation_values.cpp — one value per (node, site) near the parent region: eq. 13's node-to-site
//     distance D (or its square, see TessellationSettings::squaredDistances). Values are then adjusted
//     so the record contract and "each edge cut at most once" hold: the own site's value is lowered
//     where flooding disagrees with the nearest site, and a third site that dips below the two sites of
//     an edge (or of a three-site face) is raised at the nodes where it is not the label.
//  2. tessellation_tet.cpp — whole tets of the parent whose nodes carry two or more sites: the four
//     canonical schemes (3+1, 2+2, 2+1+1, 1+1+1+1) as one collapsed barycentric subdivision; fracture
//     vertices by eq. 13, keyed by their sorted nodes and sites so neighbouring tets weld bit-for-bit
//     (fracture_vertex.cpp). A tet of one site is not tessellated: it only contributes its faces on
//     the parent's surface, as triangles of mesh nodes (fragment_assembly.cpp).
//  3. tessellation_region.cpp — tets an earlier fracture cut (repeated fracture): the parent's piece
//     polytope clipped by the new functions (exact argmin), vertices keyed the same way.
//  4. fragment_components.cpp — connected components of equally labelled pieces → new fragment ids.
//  5. fragment_assembly.cpp — welding per fragment, crack flags, mass properties.
// The face neighbours of the tets depend only on the asset and are cached per asset
// (tessellation_faces.cpp).
#pragma once

#include "fragment_mesh.h"
#include "object_state.h"
#include "voronoi_labelling.h"

#include <vector>

namespace shatter::fracture
{

/// Settings of tessellate(); checked by it.
struct TessellationSettings
{
    unsigned threads = 0; ///< worker threads (0: all cores); the result does not depend on it
    /// Fewer cut tets than this are tessellated on the calling thread: threads cost more than they save
    /// there (and each worker's run repeats the fracture vertices it shares with its neighbours).
    Index parallelCutTets = 4096;
    bool squaredDistances = false; ///< use D² instead of eq. 13's D: Euclidean bisectors become exact planes
    /// Smallest fraction of an edge between a node and the crack crossing it (0 < x < 0.5): nearer
    /// crossings are pushed away by raising the other site's value at that node (no sliver triangles).
    Real edgeMargin = 1e-4;
    /// A raised site clears the crossing it dipped below by this fraction of the value jump along the
    /// edge (keeps face fracture vertices away from edges).
    Real dipMargin = 1e-3;
    int maxAdjustPasses = 32; ///< passes of the raise loop before giving up (counted in the stats)
    Real density = 1;         ///< for TessellationStats::mass
};

/// What one tessellate() did; for tests, benchmarks and the closing note.
struct TessellationStats
{
    Index regionTets = 0;             ///< tets holding part of the parent
    Index wholeTets = 0;              ///< of those: entirely the parent's (canonical schemes)
    Index precutTets = 0;             ///< of those: cut by an earlier fracture (polytope clipping)
    std::array<Index, 4> schemes{};   ///< whole cut tets per scheme: 3+1, 2+2, 2+1+1, 1+1+1+1
    Index loweredOwnValues = 0;       ///< own-site values lowered (flooding label not the nearest site)
    Index raisedDipValues = 0;        ///< third-site values raised so that no edge/face is cut twice
    Index raisedMarginValues = 0;     ///< values raised to keep crossings edgeMargin away from nodes
    Index adjustPasses = 0;           ///< passes of the raise loop
    bool adjustConverged = true;      ///< false if maxAdjustPasses were not enough
    Index fractureVertices = 0;       ///< distinct fracture vertices (edge, face, tet, mixed)
    Index constrainedVertices = 0;    ///< distinct vertices whose eq. 13 solution was clamped (CVD §5)
    Index singularVertices = 0;       ///< distinct vertices with a singular eq. 13 system (centroid)
    Index weldedVertices = 0;         ///< merged by position after the key weld (fragment_assembly.cpp)
    Index slivers = 0;                ///< earlier-cut tets holding the parent but none of its nodes
    Index triangles = 0;              ///< triangles in all fragment meshes
    std::vector<MassProperties> mass; ///< per new fragment (TessellationSettings::density)
    double milliseconds = 0;          ///< wall time of the whole call
};

/// Tessellates `labels` (a labelling of the live fragment labels.parent of `state`) into the fragments
/// of one fracture event. The result passes ObjectState::apply; its meshes are closed, outward and
/// welded. Throws shatter::Error for a labelling that does not match the state. Deterministic: the
/// same input gives a bitwise-identical result for any thread count.
FractureResult tessellate(const ObjectState& state, const VoronoiLabelling& labels,
                          TessellationStats* stats = nullptr, const TessellationSettings& options = {});

} // namespace shatter::fracture
