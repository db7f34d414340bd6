// Test utilities that fracture an object *analytically* and emit the FractureResults ObjectState
// consumes, together with brute-force references for the queries.
//
// An AnalyticFracture keeps, per tet, the live fragment regions as convex polytopes: the tet clipped
// by the half-spaces of every split on the region's history. A split of fragment P is either
//  - a plane cut: labels "kept side" (g = +signed distance) and "other side" (g = −signed distance), or
//  - a Euclidean Voronoi diagram of k sites: label L has g_L = |x − s_L|², whose barycentric
//    interpolation in a tet differs from g_H by exactly the linear bisector function, so the records
//    reproduce the diagram exactly.
// Each (tet, label) piece of P's region is clipped exactly (so a record lists every label whose cell
// really meets the tet, not only the labels of its nodes), and fragments are the connected components
// of equally labelled pieces, joined across shared tet faces where both touch it with positive area. A
// label that falls apart into several components gives several fragments. The representation handed to
// ObjectState is therefore the analytic partition itself, and classify() can check it point by point.
//
// Cut edges: every crossing of the new crack along a tet edge inside P's region is reported as one
// CutEdge (t, fragments on both sides). A Voronoi split can cross one edge several times; each crossing
// is then a separate entry (same node pair, increasing t) and SplitStats::multiCrossedEdges counts
// such edges, so a consumer that needs "each edge cut at most once" can reject the split. Plane cuts
// cross an edge at most once per event.
//
// Fragment surfaces: every FractureResult carries `meshes`, the closed outward surface of each new
// fragment (FragmentMesh, crack triangles flagged): the faces of its regions that lie on the tet mesh's
// boundary (original surface) or on a crack plane, fan-triangulated; faces between two regions of the
// same fragment are dropped. Not welded across tets, but closed: the enclosed volume equals the sum of
// the region volumes to round-off, and it is the exact fragment boundary (fracture_fixtures_mesh.cpp).
//
// Splits are refused (std::nullopt) when a node lies within `clearance` of a new crack plane (nodes
// must have one clear fragment), when some tet would hold more than four labels (a CutTetRecord holds
// four), or when P would not actually split. Callers draw another plane or other sites.
//
// Not thread-safe (reference queries reuse scratch and cache exact surface distances).
#pragma once

#include "asset_data.h"
#include "crack_geometry.h"
#include "fracture_result.h"
#include "triangle_bvh.h"

#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace shatter::test
{

/// Brute-force classification of a point.
struct ReferencePoint
{
    FragmentId fragment = kNoFragment; ///< kNoFragment outside the object
    Real margin = 0;                   ///< distance to the nearest crack plane of its region or the surface
};

/// Exact distance from a node to the surface of its fragment.
struct ReferenceDistance
{
    Real distance = 0;
    Vec3 direction = Vec3::Zero(); ///< unit, from the node toward the closest surface point
    bool ambiguous = false;        ///< another feature is within 1e-9 with a different direction
};

/// What the last successful split did.
struct SplitStats
{
    Index regionTets = 0;        ///< tets holding part of the parent
    Index records = 0;           ///< cut records emitted (including one-piece relabel records)
    Index cutEdges = 0;          ///< CutEdge entries emitted
    Index multiCrossedEdges = 0; ///< edges the new crack crosses more than once
};

class AnalyticFracture
{
public:
    /// `mesh` needs connectivity; `mesh` and `surface` must outlive the fixture.
    AnalyticFracture(const TetMesh& mesh, const TriMesh& surface);
    ~AnalyticFracture();
    AnalyticFracture(const AnalyticFracture&) = delete;
    AnalyticFracture& operator=(const AnalyticFracture&) = delete;

    FragmentId fragmentCount() const;
    bool alive(FragmentId f) const;
    std::vector<FragmentId> liveFragments() const;
    Real volume(FragmentId f) const;
    /// The live fragment of largest volume (lowest id on ties).
    FragmentId largestFragment() const;
    FragmentId nodeFragment(Index node) const;
    Real meanEdgeLength() const;
    /// Distance below which a node counts as lying on a new crack (default 1e-7 × mesh diagonal).
    Real clearance = 0;

    /// Whether splits fill FractureResult::meshes (default true; off for collision-only tests that want
    /// the time back).
    void setBuildMeshes(bool build);
    /// The closed surface of live fragment f (fragment 0: the tet mesh's boundary), built from its
    /// current regions; throws shatter::Error for a fragment that is not alive.
    FragmentMesh fragmentMesh(FragmentId f) const;

    /// Cuts `parent` by the plane (see the file comment). Applied to the fixture on success.
    std::optional<FractureResult> cutWithPlane(FragmentId parent, const Plane& plane);
    /// Cuts every live fragment the plane crosses: one event per fragment, in increasing id order.
    /// Empty if the plane passes within clearance of a node or splits nothing.
    std::vector<FractureResult> cutAll(const Plane& plane);
    /// Euclidean Voronoi split of `parent` by `sites` (at least two).
    std::optional<FractureResult> splitVoronoi(FragmentId parent, std::span<const Vec3> sites);
    const SplitStats& lastStats() const;

    /// The fragment holding p by brute force: a scan of all tets (sorted by x, no grid), then the
    /// analytic partition's half-spaces of the tet's regions; the margin also includes the exact
    /// distance to the surface (BVH), capped at 1e-3 of the mesh diagonal.
    ReferencePoint classify(const Vec3& p) const;
    /// Exact distance from `node` to its fragment's surface: min(distance to the original surface
    /// [brute force over all triangles], distances to the planes of every split on the fragment's
    /// history). For a component C of (object ∩ cell) with cell = ∩ of those half-spaces and x ∈ C,
    /// dist(x, ∂C) = min(dist(x, ∂object), dist(x, ∂cell)): ∂C ⊂ ∂object ∪ ∂cell gives ≥, and the
    /// largest open ball around x inside object ∩ cell lies in C and touches ∂C gives ≤; for a convex
    /// cell, dist(x, ∂cell) is the minimum over its half-spaces' planes.
    ReferenceDistance exactDistance(Index node) const;
    /// Exact distance from a point p inside fragment f to f's surface (same formula as exactDistance,
    /// with the original surface through the BVH). The direction ambiguity flag is not computed.
    ReferenceDistance exactDistanceAt(const Vec3& p, FragmentId f) const;
    /// Exact distance from p to fragment f (0 inside), the minimum over its region polytopes; stops
    /// early once a region is closer than `stopBelow`, and ignores regions farther than `giveUpAbove`
    /// (returning +infinity if all are).
    Real distanceToFragment(const Vec3& p, FragmentId f, Real stopBelow = 0,
                            Real giveUpAbove = std::numeric_limits<Real>::infinity()) const;
    /// The crack faces bounding fragment f, as triangles (fan-triangulated region faces).
    std::vector<std::array<Vec3, 3>> crackTriangles(FragmentId f) const;

    struct State;
    /// The internals (fracture_fixtures_state.h), for white-box checks in tests.
    const State& internals() const { return *state; }

private:
    std::unique_ptr<State> state;
};

/// A box of half extents `half` around the origin whose faces are split into n × n quads (2 triangles
/// each), outward oriented: a surface fine enough for TetGen to produce well-shaped tets.
TriMesh subdividedBox(const Vec3& half, int n);

/// Asset::build with the fixtures' default options (no repair, single thread).
std::shared_ptr<const Asset> buildTestAsset(TriMesh mesh, const std::string& name, Real maxEdgeFactor = 2.0);
/// Imports assets/meshes/<file> and builds it; throws (so the test fails) if the file is missing.
std::shared_ptr<const Asset> loadTestAsset(const std::string& file, Real maxEdgeFactor = 2.0);

/// Expects two states to hold the same fragments, field (node samples and records) and sphere forest,
/// bit for bit: what replaying the same events must give (gtest failures otherwise).
void expectSameObjectState(const ObjectState& a, const ObjectState& b);

/// A uniformly random plane through a random point of `box`'s middle half.
Plane randomPlane(const Aabb& box, std::mt19937_64& rng);
/// `k` random sites at positions of random nodes of fragment f (jittered by 5 % of the mean edge).
std::vector<Vec3> randomSites(const AnalyticFracture& fixture, const TetMesh& mesh, FragmentId f, int k,
                              std::mt19937_64& rng);

/// Splits fragment `parent` by a random Voronoi diagram of k sites, retrying with new sites until
/// the split is accepted (throws after 50 attempts).
FractureResult randomVoronoiSplit(AnalyticFracture& fixture, const TetMesh& mesh, FragmentId parent, int k,
                                  std::mt19937_64& rng);
/// `cuts` consecutive random plane cuts, each splitting every live fragment it crosses; returns all
/// events in order.
std::vector<FractureResult> randomPlaneCuts(AnalyticFracture& fixture, const Aabb& box, int cuts,
                                            std::mt19937_64& rng);

} // namespace shatter::test
