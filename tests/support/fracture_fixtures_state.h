// Internal state of AnalyticFracture, shared by the split code (fracture_fixtures.cpp) and the
// reference queries (fracture_fixtures_reference.cpp). Not part of the fixtures' interface.
#pragma once

#include "fracture_fixtures.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace shatter::test
{

/// One live fragment region inside one tet.
struct FixtureRegion
{
    FragmentId fragment = kNoFragment;
    std::vector<Plane> planes; ///< crack half-spaces (kept side n·x ≤ offset) that bound it in the tet
    ConvexPolytope poly;       ///< the region: the tet clipped by `planes`
    Real volume = 0;
};

/// A region of a fragment, for the distance reference.
struct FixtureRegionRef
{
    Index tet = kInvalidIndex;
    Index region = 0; ///< index into State::regions[tet]
    Aabb box;
};

struct FixtureFragment
{
    bool alive = false;
    FragmentId parent = kNoFragment;
    Real volume = 0;
    std::vector<Plane> history;         ///< every half-space of every split on its history
    std::vector<Index> tets;            ///< tets holding a region of it, increasing
    std::vector<FixtureRegionRef> refs; ///< its regions, sorted by box.min.x (see sortRefs)
    Real maxRefWidthX = 0;              ///< widest region box along x

    void sortRefs()
    {
        std::sort(refs.begin(), refs.end(),
                  [](const FixtureRegionRef& a, const FixtureRegionRef& b)
                  { return a.box.min.x() < b.box.min.x(); });
        maxRefWidthX = 0;
        for (const FixtureRegionRef& r : refs)
            maxRefWidthX = std::max(maxRefWidthX, r.box.extent().x());
    }
};

/// The labels of one split: two sides of a plane, or the cells of a Voronoi diagram.
struct FixtureLabeling
{
    bool voronoi = false;
    Plane plane;
    std::vector<Vec3> sites;

    int count() const { return voronoi ? int(sites.size()) : 2; }
    /// g_L at x: ±signed plane distance, or the squared site distance.
    Real g(int label, const Vec3& x) const
    {
        if (!voronoi)
            return label == 0 ? plane.signedDistance(x) : -plane.signedDistance(x);
        return (x - sites[label]).squaredNorm();
    }
    /// The half-space where g_L ≤ g_j.
    Plane bisector(int label, int j) const
    {
        if (!voronoi)
            return label == 0 ? plane : Plane{-plane.normal, -plane.offset};
        const Vec3 d = sites[j] - sites[label];
        const Real len = d.norm();
        return {d / len, (sites[j].squaredNorm() - sites[label].squaredNorm()) / (2 * len)};
    }
    /// argmin_L g_L(x) (lowest on ties) and the distance from x to the nearest of its bisectors.
    int label(const Vec3& x, Real& margin) const
    {
        int best = 0;
        for (int L = 1; L < count(); ++L)
            if (g(L, x) < g(best, x))
                best = L;
        margin = std::numeric_limits<Real>::infinity();
        for (int j = 0; j < count(); ++j)
            if (j != best)
                margin = std::min(margin, -bisector(best, j).signedDistance(x));
        return best;
    }
    /// False if label L cannot be nearest anywhere in the ball (center, radius).
    bool candidate(int label, const Vec3& center, Real radius) const
    {
        if (!voronoi)
            return std::abs(plane.signedDistance(center)) <= radius ||
                   (label == 0) == (plane.signedDistance(center) < 0);
        Real nearest = std::numeric_limits<Real>::infinity();
        for (const Vec3& s : sites)
            nearest = std::min(nearest, (center - s).norm());
        return (center - sites[label]).norm() - radius <= nearest + radius;
    }
};

struct AnalyticFracture::State
{
    State(const TetMesh& m, const TriMesh& s);

    const TetMesh& mesh;
    const TriMesh& surface;
    TriangleBvh bvh;
    Real meanEdge = 0;
    Real diagonal = 0;
    int eventCount = 0;

    std::vector<std::vector<FixtureRegion>> regions; ///< per tet, live regions
    std::vector<FragmentId> nodeFragment;
    std::vector<FixtureFragment> fragments;
    std::vector<std::array<Index, 4>> faceNeighbors; ///< tet across local face k, or kInvalidIndex
    SplitStats stats;
    bool buildMeshes = true; ///< AnalyticFracture::buildMeshes

    // Brute-force point location: tets sorted by the x of their box minimum.
    std::vector<Aabb> tetBoxes;
    std::vector<Index> tetsByMinX;
    std::vector<float> boxMinX;                ///< in tetsByMinX order, rounded down
    std::vector<std::array<float, 5>> boxRest; ///< max x, min y, max y, min z, max z, rounded outward
    Real maxTetWidthX = 0;

    // Exact distances to the original surface, computed on first use per node.
    std::vector<Aabb> triangleBoxes;
    mutable std::vector<std::uint8_t> surfaceKnown;
    mutable std::vector<ReferenceDistance> surfaceDistance;
    mutable ConvexPolytope scratchPoly;

    /// Index of fragment f's region in tet t, or -1.
    int regionOf(Index t, FragmentId f) const
    {
        for (std::size_t i = 0; i < regions[t].size(); ++i)
            if (regions[t][i].fragment == f)
                return int(i);
        return -1;
    }
    /// A tet holding p (smallest barycentric ≥ −1e-12), by a scan over the x-sorted boxes.
    Index findTet(const Vec3& p) const;
    const ReferenceDistance& surfaceDistanceOf(Index node) const;
};

/// The closed surface of live fragment f from its regions (fracture_fixtures_mesh.cpp).
FragmentMesh buildFragmentMesh(const AnalyticFracture::State& s, FragmentId f);

/// Splits `parent` by `labels` exactly (fracture_fixtures_split.cpp); applied to `s` on success.
std::optional<FractureResult> splitFragment(AnalyticFracture::State& s, FragmentId parent,
                                            const FixtureLabeling& labels);

} // namespace shatter::test
