// Discrete centroidal Voronoi diagram on the tet nodes of one fragment (CVD §3.2-3.3): Lloyd's method
// in the metric space (3-D positions, possibly warped, or a high-dimensional interior embedding), where
// each Voronoi update floods labels from the sites through the tet edges of the fragment, so every cell
// is one connected set of nodes that grows through material only (CVD §3.3, eqs. 14-15).
#pragma once

#include "fragment_field.h"
#include "tet_mesh.h"
#include "voronoi_labelling.h"

#include <span>
#include <vector>

namespace shatter::fracture
{

/// The part of the tet mesh one fracture event splits: the parent fragment's nodes and the tet edges
/// the flooding may cross. Indices into `nodes` are called local node indices.
struct FragmentRegion
{
    FragmentId parent = 0;
    std::vector<Index> nodes;            ///< the parent's tet nodes (asset node ids), increasing
    std::vector<Real> nodeVolumes;       ///< per local node: ¼ of each incident region tet's volume (m³)
    std::vector<Index> adjacencyOffsets; ///< CSR, nodes.size() + 1 entries
    std::vector<Index> adjacency;        ///< local neighbours of local node i, increasing

    Index nodeCount() const { return Index(nodes.size()); }
    std::span<const Index> neighbors(Index local) const
    {
        return {adjacency.data() + adjacencyOffsets[local],
                std::size_t(adjacencyOffsets[local + 1] - adjacencyOffsets[local])};
    }
    /// Local index of asset node `node`, kInvalidIndex if it is not in the region (binary search).
    Index localIndex(Index node) const;
    /// Σ nodeVolumes (m³).
    Real volume() const;
};

/// The whole mesh as one region (fragment 0 of an unbroken object). `mesh` needs its connectivity.
FragmentRegion wholeMeshRegion(const TetMesh& mesh);

/// The region of live fragment `parent` of an object: the nodes the field assigns to it, and the tet
/// edges between two of them in tets where `parent` has a region (FragmentField::findRegion). A
/// fragment's region inside one tet is convex (an intersection of half-spaces, see fracture_result.h),
/// so such an edge lies in the fragment's material. Node volumes count those tets. Throws
/// shatter::Error if `parent` has no nodes.
FragmentRegion fragmentRegion(const FragmentField& field, FragmentId parent);

/// Settings of computeCvd; checked there.
struct CvdSettings
{
    int maxIterations = 30;    ///< Lloyd iterations (floods) at most, ≥ 1
    Real moveTolerance = 1e-3; ///< stop when every site moves less than this × the region's metric diameter
    /// Stop when a flood lowers E_D by at most this fraction of the previous flood's E_D (0: never), the
    /// tail where Lloyd's sites creep along a flat valley of E_D. Off by default: the degree search
    /// compares max_i E_D,i with γ, and stopping early makes its choice of N noisier.
    Real energyTolerance = 0;
    unsigned threads = 1; ///< threads for the nearest-node search (0: all cores); results do not depend on it
    bool recordEnergies = true; ///< fill CvdStats::energyHistory
};

/// What computeCvd did.
struct CvdStats
{
    int iterations = 0;      ///< floods performed
    bool converged = false;  ///< labels stable, E_D stalled or sites still (false: stopped by maxIterations)
    int reseeded = 0;        ///< empty or weightless cells moved (CVD §3.3)
    double milliseconds = 0; ///< wall time of computeCvd
    Real diameter = 0;       ///< diagonal of the region's bounding box in the metric space
    std::vector<Real> cellEnergy;    ///< E_D,i per site of the result (discrete CVD eq. 1, J·m² for α = 1)
    Real totalEnergy = 0;            ///< Σ cellEnergy: E_D of CVD eq. 3
    std::vector<Real> energyHistory; ///< E_D after each flood, with the sites that flooded
};

/// Lloyd's method with flooding (CVD §3.3). `weights` are the node weights w (per local node, ≥ 0,
/// finite, not all 0; see nodeWeights in fracture_degree.h); `coords` are the nodes' points in the
/// metric space, `dimension` reals each, indexed either by asset node id (size = dimension × asset
/// node count) or by local node (size = dimension × region.nodeCount()); `initialSites` holds the
/// starting sites, `dimension` reals each (at least one site, at most one per node). Per iteration:
///  1. flood labels from each site's nearest node (nearest within its previous cell after the first
///     iteration) with a min-heap keyed by metric distance to the site;
///  2. move each site to its cell's weighted centroid in the metric space (CVD eq. 14-15); an empty or
///     weightless cell is reseeded at the node with the largest energy contribution w·dist² of the
///     cell with the largest E_D,i;
///  3. stop when no label changes, when a flood lowers E_D by at most energyTolerance of the previous
///     flood's E_D (not right after a reseed), when every site moves less than moveTolerance × diameter
///     (after one more flood so labels and sites agree), or after maxIterations.
/// The result's labels are the last flood from its sites. Deterministic: ties break on (distance,
/// site, node). Throws shatter::Error on bad input (sizes, NaN, negative weights, bad site count).
VoronoiLabelling computeCvd(const FragmentRegion& region, std::span<const Real> weights,
                            std::span<const Real> coords, int dimension, std::span<const Real> initialSites,
                            const CvdSettings& settings = {}, CvdStats* stats = nullptr);

/// The nodes' metric coordinates gathered per local node (dimension × region.nodeCount()), from
/// `coords` indexed by asset node or already by local node (see computeCvd). Throws on a size mismatch.
std::vector<Real> gatherRegionCoords(const FragmentRegion& region, std::span<const Real> coords,
                                     int dimension);

/// One entry of the flood's min-heap: node `node` would join site `site`'s cell at squared metric
/// distance `key`. Ordered by (key, site, node), which makes the flood deterministic.
struct FloodEntry
{
    Real key;
    std::uint32_t site;
    Index node;
};

/// A FloodEntry packed into one unsigned integer whose order is the entry's (key, site, node) order: the
/// key's bits on top (a squared distance is never negative or NaN, and the bits of non-negative doubles
/// order as their values do), then the site, then the node. One comparison, without branches.
__extension__ typedef unsigned __int128 FloodHeapKey;

/// Site counts up to which floodLabels computes every node's squared distance to every site up front,
/// one coordinate component at a time over all nodes (a loop that vectorizes, with each sum formed in the
/// same order as one distance at a time, so the keys and labels are the same bits); above it, each
/// distance is computed when an edge offers it (about two per node and flood).
constexpr std::size_t kFloodTableSites = 8;

/// The buffers of floodLabels, kept by computeCvd across its Lloyd iterations so that a flood does not
/// allocate. After a flood, `key[v]` is the squared metric distance of local node v to its own site
/// (what the node contributes to E_D before its weight).
struct FloodWorkspace
{
    std::vector<Real> columns;           ///< the flood's coordinates component-major (setFloodCoordinates)
    std::vector<Real> table;             ///< site-major squared distances (≤ kFloodTableSites sites)
    std::vector<Real> key;               ///< per node: the best (key, site) offered so far
    std::vector<std::uint32_t> site;     ///< per node: the site of that offer
    std::vector<Index> seedNode;         ///< per site: its start node
    std::vector<Real> seedKey;           ///< per site: squared distance to its start node
    std::vector<std::uint32_t> homeless; ///< sites whose start node is searched among all nodes
    std::vector<FloodHeapKey> heap;      ///< 4-ary min-heap
    std::vector<Index> open;             ///< a popped node's neighbours that may take an offer
};

/// Prepares `workspace` for floods over `localCoords` (dimension reals per local node); call again
/// whenever the coordinates change.
void setFloodCoordinates(FloodWorkspace& workspace, std::span<const Real> localCoords, int dimension);

/// floodLabels into `labels` (resized to region.nodeCount()) with the buffers of `workspace`, which
/// setFloodCoordinates prepared for `localCoords`.
void floodLabels(const FragmentRegion& region, std::span<const Real> localCoords, int dimension,
                 std::span<const Real> sites, unsigned threads, std::span<const std::uint32_t> previous,
                 FloodWorkspace& workspace, std::vector<std::uint32_t>& labels);

/// One flood (step 1 of computeCvd) from `sites` over local coordinates `localCoords`: a label per local
/// node; every label is one connected set of nodes (nodes of region components no site's flood reaches
/// are flooded from their node nearest to any site). Each site starts at its nearest node — among the
/// nodes `previous` gives that site, when `previous` (the last labels) is not empty and gives it any;
/// this keeps a site in its own cell and costs O(n·d) instead of O(n·N·d). Cells may be empty.
std::vector<std::uint32_t> floodLabels(const FragmentRegion& region, std::span<const Real> localCoords,
                                       int dimension, std::span<const Real> sites, unsigned threads = 1,
                                       std::span<const std::uint32_t> previous = {});

/// The plain Voronoi assignment without flooding: each local node's nearest site (lowest site on ties).
std::vector<std::uint32_t> nearestSiteLabels(std::span<const Real> localCoords, int dimension,
                                             std::span<const Real> sites, unsigned threads = 1);

/// E_D,i = Σ_{v in cell i} w_v ‖x_v − s_i‖² per site (discrete CVD eq. 1) of a labelling.
std::vector<Real> cellEnergies(std::span<const Real> localCoords, int dimension,
                               std::span<const Real> weights, std::span<const std::uint32_t> labels,
                               std::span<const Real> sites);

/// Connected components of each label over the region's edges (an edge joins two nodes only if both
/// carry the label): the component count per label, 0 for an empty label.
std::vector<Index> labelComponentCounts(const FragmentRegion& region, std::span<const std::uint32_t> labels,
                                        std::uint32_t labelCount);

} // namespace shatter::fracture
