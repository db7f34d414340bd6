// Internal data of the tessellation (tessellation.h): the per-(node, site) value table, fracture-vertex
// keys, per-chunk output. Shared by tessellation*.cpp, fracture_vertex.cpp and fragment*.cpp only.
#pragma once

#include "tessellation.h"

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace shatter::fracture::detail
{

inline constexpr std::uint32_t kNoSite = 0xffffffffu;

/// Most functions a VertexKey holds. A corner of a clipped polytope in an earlier-cut tet lies on up
/// to three planes in general position, each an equality of two functions (an earlier crack plane, or a
/// new one): up to six functions — e.g. a new triple line (g_i = g_j = g_k) through an earlier crack
/// plane (g_a = g_b) has five. Eight leaves room for a corner on one more plane.
inline constexpr int kMaxKeyFunctions = 8;

/// Values g_s(node) of every site s that is present in some region tet around the node (CSR over mesh
/// nodes, sites increasing per node). These are the D_kf of eq. 13 after the adjustments of
/// tessellation_values.cpp; records, cut edges and fracture vertices all read them, so they agree.
struct ValueTable
{
    std::vector<Index> offsets; // per mesh node + 1
    std::vector<std::uint32_t> sites;
    std::vector<Real> values;

    Index find(Index node, std::uint32_t site) const;
    Real value(Index node, std::uint32_t site) const { return values[find(node, site)]; }
};

/// Face neighbours of every tet of an asset's tet mesh: they depend on the mesh only, so they are built
/// once per asset and shared by every tessellation of its fragments (tessellation_faces.cpp).
struct TetFaces
{
    std::vector<std::array<Index, 4>>
        across; ///< per tet: neighbour across local face k (kInvalidIndex: surface)
    std::vector<std::array<std::int8_t, 4>>
        acrossFace; ///< per tet: the neighbour's face matching k (-1: none)
};
/// The face neighbours of `state`'s asset, built on first use and cached while the asset lives.
std::shared_ptr<const TetFaces> tetFaces(const ObjectState& state);

/// The parent's region and its pieces.
struct Region
{
    std::vector<Index> tets;               ///< region tets, increasing
    std::vector<std::uint8_t> precut;      ///< per region tet: cut by an earlier fracture
    std::shared_ptr<const TetFaces> faces; ///< face neighbours by mesh tet (not by region slot)
    std::vector<std::array<Index, 4>>
        acrossSlot; ///< per region tet: region tet across face k, or kInvalidIndex
    /// Per region tet: bit k, face k is on the original surface; bit 4 + k, it faces a tet without the
    /// parent (an earlier crack). Both are faces of the parent's surface.
    std::vector<std::uint8_t> boundary;
    /// Region tets that need the tessellation proper, increasing: cut by an earlier fracture, or with
    /// nodes of two or more sites. Every other region tet lies wholly in one piece and contributes only
    /// its boundary faces, whose corners are mesh nodes (fragment_assembly.cpp).
    std::vector<Index> cutSlots;
    std::vector<std::uint8_t> cut; ///< per region tet: listed in cutSlots
    std::vector<Index> pieceStart; ///< per region tet + 1: its pieces
    std::vector<std::uint32_t>
        pieceSite; ///< site of each piece (kNoSite: sliver, see tessellation_region.cpp)
    std::vector<std::uint8_t>
        pieceTouch;               ///< bit k: touches local face k with positive area; bit 7: not empty
    std::vector<Index> tetSlot;   ///< per mesh tet: region index or kInvalidIndex
    std::vector<Index> nodeEntry; ///< per mesh node: entry in the labelling or kInvalidIndex
    /// Per mesh node of a region tet: its site — the label for a parent node, the nearest site by the
    /// extrapolated coordinates for another fragment's node (tessellation_values.cpp); else kNoSite.
    std::vector<std::uint32_t> nodeSite;
};

/// A fracture vertex, identified by the simplex it lies in and the crack functions equal there
/// (CVD §5: "computed from its sorted node ids only"). Functions are identified by their values at the
/// simplex's nodes, so the same point reached from two tets (or from a canonical scheme and a clipped
/// polytope) has the same key and the same position bit for bit. The key holds every function equal
/// there, never a subset: a truncated key can name two different points (tessellation_region.cpp).
/// nodeCount 0 marks a vertex local to one tet: a polygon centre (nodes = {tet, tag, index, 0}) or a
/// corner on too many planes for a key (nodes = {tet, kInvalidIndex, piece, corner}).
struct VertexKey
{
    std::array<Index, 4> nodes{};
    std::uint8_t nodeCount = 0;
    std::uint8_t functionCount = 0;
    std::array<std::uint8_t, kMaxKeyFunctions> classOf{}; ///< functions in one class are equal at the vertex
    std::array<std::array<Real, 4>, kMaxKeyFunctions> values{}; ///< values[f][i]: function f at nodes[i]

    bool operator==(const VertexKey& o) const;
};

struct VertexKeyHash
{
    std::size_t operator()(const VertexKey& k) const;
};

/// Sorts nodes and functions into the canonical order (functions by values, classes by first use).
void canonicalize(VertexKey& key);

enum class VertexStatus : std::uint8_t
{
    Exact,
    Constrained, ///< solution outside the simplex, clamped to b ≥ 0 and renormalised (CVD §5)
    Singular,    ///< singular system: the fallback position (centroid for eq. 13 vertices)
};

/// Position of a keyed vertex: eq. 13 (with the distance d eliminated) generalised to several classes
/// of equal functions. `fallback` is used for a singular or mis-sized system.
Vec3 solveVertex(const VertexKey& key, const std::vector<Vec3>& meshNodes, const Vec3* fallback,
                 VertexStatus& status);

struct OutTriangle
{
    Index piece = 0;
    std::array<Index, 3> v{}; ///< indices into ChunkOutput::refs
    std::uint8_t crack = 0;
};

/// Output of a run of consecutive cut tets (Region::cutSlots), merged in region order (deterministic
/// for any thread count and any runs). Vertices are numbered in the order they are first asked for
/// (`refs`); a node vertex is only looked up among the current tet's four nodes, a keyed vertex in the
/// chunk's maps, and fragment_assembly.cpp merges the chunks into one numbering.
struct ChunkOutput
{
    static constexpr Index kNodeRef = 0x80000000u; ///< refs entry of a node vertex: node id | kNodeRef

    std::vector<Index> slots;            ///< the cut tets of the chunk, increasing
    std::vector<Index> refEnd;           ///< per tet of `slots`: end of its entries in `refs`
    std::vector<Index> triangleEnd;      ///< per tet of `slots`: end of its entries in `triangles`
    std::vector<Index> refs;             ///< per vertex: node id | kNodeRef, or an index into `keys`
    std::vector<Vec3> positions;         ///< per vertex (refs)
    std::vector<VertexKey> keys;         ///< keyed (non-node) vertices, each once
    std::vector<VertexStatus> keyStatus; ///< per key: how solveVertex placed it
    std::vector<OutTriangle> triangles;
    std::unordered_map<VertexKey, Index, VertexKeyHash> lookup; ///< key → vertex (refs index)
    /// Site vertices of whole tets (siteVertexKey over a simplex and its nodes' sites) by the simplex's
    /// sorted nodes alone — the sites are the nodes' (Region::nodeSite) — so a repeated edge, face or
    /// tet vertex is found without building, sorting and hashing its key. Open addressing; a miss goes
    /// through the full key, so the numbering is the same as with `lookup` alone.
    struct SimplexEntry
    {
        std::array<Index, 4> nodes{kInvalidIndex, kInvalidIndex, kInvalidIndex, kInvalidIndex};
        Index vertex = kInvalidIndex;
    };
    std::vector<SimplexEntry> simplexTable;
    std::size_t simplexCount = 0;
    std::array<Index, 4> tetNodes{}, tetNodeRefs{}; ///< node vertices of the current tet
    std::array<Index, 4> schemes{};

    /// Starts the next tet of `slots` (its node vertices are looked up among `nodes`).
    void beginTet(const Tet& nodes);
    /// Ends the current tet (records its ranges).
    void endTet();
    Index vertex(const VertexKey& key, const std::vector<Vec3>& meshNodes, const Vec3* fallback = nullptr);
    /// The vertex of mesh node `node`, a node of the current tet.
    Index node(Index node, const std::vector<Vec3>& meshNodes);
    /// The vertex where the sites of `count` (2..4) nodes are equal (eq. 13): siteVertexKey over the
    /// nodes and their sites `sites`, found by the sorted nodes first.
    Index siteVertex(const ValueTable& table, const Index* nodes, const std::uint32_t* sites, int count,
                     const std::vector<Vec3>& meshNodes);
    void triangle(Index piece, Index a, Index b, Index c, std::uint8_t crack);
};

/// Everything a tet needs (read-only, shared by the workers).
struct TessContext
{
    const ObjectState& state;
    const VoronoiLabelling& labels;
    const TessellationSettings& options;
    const Region& region;
    const ValueTable& table;
    const std::vector<Vec3>& meshNodes;
};

/// Fills Region::nodeSite (tessellation_values.cpp).
void assignNodeSites(const ObjectState& state, const VoronoiLabelling& labels,
                     const TessellationSettings& options, Region& region);
/// Builds the value table and applies the adjustments (tessellation_values.cpp).
void buildValueTable(const TessContext& ctx, ValueTable& table, TessellationStats& stats);
/// Canonical schemes in a whole tet (tessellation_tet.cpp).
void emitWholeTet(const TessContext& ctx, Index slot, ChunkOutput& out);
/// Clipped parent piece in an earlier-cut tet (tessellation_region.cpp); sets pieceTouch of its pieces.
void emitPrecutTet(const TessContext& ctx, Index slot, ChunkOutput& out, std::vector<std::uint8_t>& touch);
/// Key of a point where the sites all take equal values on the simplex `nodes` (eq. 13).
VertexKey siteVertexKey(const ValueTable& table, const Index* nodes, int nodeCount,
                        const std::uint32_t* sites, int siteCount);
VertexKey nodeKey(Index node);
/// True for a key made by nodeKey() (one node, no functions).
inline bool isNodeKey(const VertexKey& key)
{
    return key.nodeCount == 1 && key.functionCount == 0 && key.nodes[1] == 0 && key.nodes[2] == 0 &&
           key.nodes[3] == 0;
}

/// Connected components of pieces → new fragment index per piece (fragment_components.cpp). Returns
/// the number of fragments.
Index pieceComponents(const Region& region, const TetMesh& mesh, std::vector<Index>& pieceFragment);
/// Position weld of fragment_assembly.cpp: target[i] is the earliest kept vertex within eps of vertex i
/// (found among the 27 cells of size eps around it), or i if none; returns the number merged.
Index weldPositions(const std::vector<Vec3>& positions, Real eps, std::vector<Index>& target);
/// Welds the chunks and the boundary faces of the uncut region tets into one mesh per fragment
/// (fragment_assembly.cpp).
void assembleMeshes(const TessContext& ctx, const std::vector<ChunkOutput>& chunks,
                    const std::vector<Index>& pieceFragment, Index fragmentCount, FractureResult& result,
                    TessellationStats& stats);

} // namespace shatter::fracture::detail
