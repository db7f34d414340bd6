// ObjectState: the runtime state of one placed object and all its fragments. It owns the fragment
// distance field (TVCG §4), the fragment list and the multilevel grid masks (§4.5), and answers the
// three elementary queries of TVCG §3 in material coordinates. It is mutated only by apply(), at
// fracture events between simulation steps; all queries are const, allocation-free and safe from
// several threads at once.
#pragma once

#include "asset_data.h"
#include "fracture_result.h"
#include "fragment_field.h"
#include "multilevel_grid.h"
#include "sphere_forest.h"
#include "tet_locator.h"

#include <memory>
#include <span>
#include <vector>

namespace shatter
{

/// Settings of an ObjectState; checked by its constructor.
struct ObjectStateSettings
{
    TetLocatorSettings locator;  ///< point location grid
    MultilevelGridSettings grid; ///< fragment occupancy grid (TVCG §4.5)
    /// sphereTest culls with a distance lower bound taken from the (approximate) field; it first
    /// subtracts this many times the longest edge of the tet holding the point (outside the object:
    /// the surface grid's cell size), so that the field's overestimates never cull a sphere that
    /// touches the fragment (≥ 0; fragment_field_test measures the overestimates).
    Real sphereTestMargin = 0.75;
    /// How apply() splits the parent's sphere tree (TVCG §6.2-6.3, or SCA'12 §5.2 for comparison).
    RestructureMethod restructure = RestructureMethod::Tvcg2013;
};

/// One fragment of the object.
struct FragmentInfo
{
    Aabb bounds;                     ///< conservative bounds of its region, material frame
    FragmentId parent = kNoFragment; ///< the fragment it broke from (kNoFragment for fragment 0)
    bool alive = false;              ///< false once it has broken into pieces
};

/// Answer of ObjectState::penetration.
struct Penetration
{
    Real depth = 0;             ///< distance from p to the fragment's surface, ≥ 0
    Vec3 normal = Vec3::Zero(); ///< unit direction from p toward that surface (out of the fragment)
};

/// The shared runtime state of one object and its fragments; see the file comment. Copying gives an
/// independent state over the same (shared, immutable) asset.
class ObjectState
{
public:
    /// Fragment 0 = the whole object, with the asset's exact node distances. Throws shatter::Error
    /// for a null or inconsistent asset or bad settings.
    explicit ObjectState(std::shared_ptr<const Asset> asset, const ObjectStateSettings& settings = {});

    const Asset& asset() const { return *sharedAsset; }
    const std::shared_ptr<const Asset>& assetPointer() const { return sharedAsset; }
    FragmentId fragmentCount() const { return FragmentId(fragmentList.size()); }
    const FragmentInfo& fragment(FragmentId f) const { return fragmentList[f]; }
    /// The closed surface of fragment f (fragment 0: the asset's surface); null if its FractureResult
    /// carried no meshes.
    const std::shared_ptr<const FragmentMesh>& fragmentMesh(FragmentId f) const { return meshes[f]; }
    bool alive(FragmentId f) const { return f < fragmentList.size() && fragmentList[f].alive; }
    /// Ids of the live fragments, increasing.
    std::vector<FragmentId> liveFragments() const;
    const FragmentField& field() const { return fieldData; }
    const TetLocator& locator() const { return *tetLocator; }
    const MultilevelGrid& grid() const { return fragmentGrid; }
    Real meanEdgeLength() const { return meanEdge; }
    /// The fracturable sphere trees, one per live fragment (TVCG §5-6).
    const SphereForest& sphereForest() const { return forest; }

    /// Applies one fracture event: validates `result` (throws shatter::Error naming the problem and
    /// leaves the state unchanged if it is malformed), then updates the distance field (TVCG §4.2),
    /// the fragment list, the grid masks (§4.5) and the sphere trees (§6.2-6.3). Work is proportional
    /// to the parent's region.
    void apply(const FractureResult& result, FieldUpdateReport* report = nullptr,
               ForestUpdateReport* forestReport = nullptr);

    /// Where p lies in the tet mesh (material frame).
    TetLocation locate(const Vec3& p) const { return tetLocator->locate(p); }
    /// The fragment holding p, kNoFragment outside the object.
    FragmentId fragmentAt(const TetLocation& where) const;
    FragmentId fragmentAt(const Vec3& p) const { return fragmentAt(locate(p)); }
    /// insideTest(p, D(f)) of TVCG §4.3: is p inside fragment f? Exact in cut tets.
    bool insideTest(const TetLocation& where, FragmentId f) const;
    bool insideTest(const Vec3& p, FragmentId f) const { return insideTest(locate(p), f); }
    /// penetration(p, D(f)) of TVCG §4.4: distance from p to f's surface and the direction to it, for a
    /// p inside f (elsewhere the answer is meaningless but harmless; depth 0 outside the object).
    Penetration penetration(const Vec3& p, const TetLocation& where, FragmentId f) const;
    Penetration penetration(const Vec3& p, FragmentId f) const { return penetration(p, locate(p), f); }
    /// sphereTest(p, r, D(f)) of TVCG §4.5: false only if the sphere cannot touch fragment f.
    bool sphereTest(const Vec3& p, Real radius, FragmentId f) const;
    /// The two cheap tests of sphereTest (f's bounds and the multilevel grid), which need no point
    /// location: false only if the ball of `radius` ≥ 0 about p neither holds nor touches a point of f.
    bool mayReach(const Vec3& p, Real radius, FragmentId f) const;
    /// The same test for a point tested again with other radii (a point's nodes on several levels):
    /// `lowerBound` caches test 3's lower bound of dist(p, f), the part that locates p; pass NaN the
    /// first time, and it is filled in when needed.
    bool sphereTest(const Vec3& p, Real radius, FragmentId f, Real& lowerBound) const;
    /// The same with p's location when the caller knows it (`where` = &locate(p)), which saves locating
    /// it again; null locates p if test 3 needs it.
    bool sphereTest(const Vec3& p, Real radius, FragmentId f, Real& lowerBound,
                    const TetLocation* where) const;

private:
    /// Bounds of tet t.
    Aabb tetBox(Index t) const;
    /// Sets f's bit in the finest cells of tet t's box (tetCells), appending new ones to dirtyScratch.
    void markTet(Index t, FragmentId f);
    /// Test 3 of sphereTest: a lower bound of dist(p, f), −∞ where it proves nothing.
    Real distanceLowerBound(const Vec3& p, const TetLocation& where, FragmentId f) const;

    std::shared_ptr<const Asset> sharedAsset;
    ObjectStateSettings settings;
    std::shared_ptr<const TetLocator> tetLocator; // the asset's, unless the settings differ
    FragmentField fieldData;
    MultilevelGrid fragmentGrid;
    std::vector<FragmentInfo> fragmentList;
    std::vector<std::shared_ptr<const FragmentMesh>> meshes; // per fragment
    Real meanEdge = 0;
    std::vector<float> tetMargin; // sphereTestMargin × longest edge, per tet
    // Per tet: the finest grid cells its box overlaps (lo[0] = kInvalidIndex: too many, mark its box).
    // Fixed by the mesh and the grid, so copies share it.
    std::shared_ptr<const std::vector<CellRange>> tetCells;
    // apply() scratch.
    std::vector<RegionBox> boxScratch;
    std::vector<RegionTet> wholeTetScratch;
    std::vector<Index> dirtyScratch;

    SphereForest forest; // one fracturable sphere tree per fragment (TVCG §6)
};

} // namespace shatter
