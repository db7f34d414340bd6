// The three elementary queries of TVCG §3 against the fragment distance field D(f), all in the
// object's material frame. Algorithm 1 calls them for every sphere-tree node it visits, so they are
// const, allocation-free and thread-safe: they only read the field, the locator and the grids.
//
// insideTest (§4.3). The paper finds the enclosing tet with a k-d tree; TetLocator's uniform grid does
// it in O(1) expected. In an uncut tet all four nodes carry the same fragment and the answer is
// trivial. In a cut tet we walk the tet's record chain (DESIGN.md §4): the first record splits the
// fragment that owned the tet, argmin_i g_i(b) picks the piece holding the point, and a later record
// refines the answer only if it splits that very piece. Each g_i is linear in the barycentric
// coordinates, so the test is exact: it reproduces the fracture's partition, not an approximation.
//
// penetration (§4.4). In an uncut tet the distance is eq. 1 over the tet's four nodes with
// N(p) = those nodes and weights 1/|p_j − p|² (eq. 2 for the direction); a node that coincides
// with p is used as is. In a cut tet we use only f's nodes and take the minimum with the distance to
// the crack planes bounding f's region in the tet — exact near the crack, where it matters most.
// Finally, close to the original surface the precomputed regular-grid distance is more accurate
// than the mesh field; it is never smaller than the true distance to f's surface (a segment from p
// to the original surface must leave f), so the minimum of both is the better estimate — and where no
// crack is nearer than the original surface (an uncut tet whose nodes keep the asset's distances) the
// grid alone is used, distance and normal, since the mesh field's error there is pure error. The grid is
// read only when the asset's exact node distances (minus |p − p_j|, a lower bound of the distance to
// the original surface) do not already exceed the field's value.
//
// sphereTest (§4.5). Three culling tests, cheapest first; the sphere (p, r) is culled if any proves
// it cannot touch f:
//  1. the distance from p to f's bounding box is larger than r;
//  2. the multilevel grid: at the finest level whose cells are larger than 2r, none of the eight cells
//     around the grid point closest to p holds f (the eight cells cover the whole sphere);
//  3. a lower bound d_lower of dist(p, f) larger than r. If p lies in another fragment g, every path
//     from p to f leaves g, so dist(p, f) ≥ dist(p, ∂g), the interior distance of g at p. If p is
//     outside the object, dist(p, f) ≥ dist(p, object), which the surface grid gives near the
//     surface; where the grid has no valid sample, p is at least (band − cell diagonal) away.
// Tests 1 and 2 are conservative by construction. Test 3 reads an approximate field, which can
// overestimate a little (the weighted extrapolation of eq. 1 over-shoots near ridges of the distance
// function, by a fraction of the local edge length), so it first subtracts
// ObjectStateSettings::sphereTestMargin times the longest edge of the tet holding p.
#include "object_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shatter
{

namespace
{

Penetration& finish(Penetration& result, Real d, const Vec3& n)
{
    if (std::isfinite(d))
    {
        result.depth = d;
        result.normal = n;
    }
    return result;
}

} // namespace

FragmentId ObjectState::fragmentAt(const TetLocation& where) const
{
    if (!where.found())
        return kNoFragment;
    return fieldData.fragmentAt(where.tet, where.bary);
}

bool ObjectState::insideTest(const TetLocation& where, FragmentId f) const
{
    return where.found() && fieldData.fragmentAt(where.tet, where.bary) == f;
}

Penetration ObjectState::penetration(const Vec3& p, const TetLocation& where, FragmentId f) const
{
    Penetration result;
    if (!where.found())
        return result;
    Real d = std::numeric_limits<Real>::infinity();
    Vec3 n = Vec3::Zero();
    fieldData.distanceInTet(where.tet, p, f, d, n);
    // The grid can only lower d if the original surface is closer than d. The asset's exact node
    // distances bound that from below (distance is 1-Lipschitz), which skips the grid read (a likely
    // cache miss) for points deeper inside.
    const Asset& a = *sharedAsset;
    Real surfaceLowerBound = 0;
    bool untouched = !fieldData.isCut(where.tet); // no crack in the tet, none closer than the surface
    for (Index node : a.tetMesh.tets[where.tet])
    {
        surfaceLowerBound =
            std::max(surfaceLowerBound, a.nodeDistance[node] - (a.tetMesh.nodes[node] - p).norm());
        untouched = untouched && fieldData.node(node).distance >= a.nodeDistance[node];
    }
    if (surfaceLowerBound >= d)
        return finish(result, d, n);
    const GridSample sample = a.surfaceGrid.sample(p);
    if (sample.valid)
    {
        const Real gridDepth = std::max(Real(0), -sample.distance);
        const Real len = sample.gradient.norm();
        // Where fracture has not come closer than the original surface (an uncut tet whose nodes keep
        // their original distances), the grid is the accurate answer, not just a bound: eq. 1-2's
        // weighted node values can underestimate a few tenths of a millimetre below a flat face with
        // a normal a degree or two off, which tilts every resting contact the same way and makes a
        // stack creep sideways.
        if (len > 0 && (gridDepth < d || untouched))
        {
            d = gridDepth;
            n = sample.gradient / len;
        }
    }
    return finish(result, d, n);
}

bool ObjectState::sphereTest(const Vec3& p, Real radius, FragmentId f) const
{
    Real lowerBound = std::numeric_limits<Real>::quiet_NaN();
    return sphereTest(p, radius, f, lowerBound);
}

bool ObjectState::sphereTest(const Vec3& p, Real radius, FragmentId f, Real& lowerBound) const
{
    if (!alive(f))
        return false;
    if (fragmentList[f].bounds.distance(p) > radius)
        return false;
    if (!fragmentGrid.mayIntersect(p, radius, f))
        return false;
    if (std::isnan(lowerBound))
        lowerBound = distanceLowerBound(p, f);
    return !(lowerBound > radius);
}

Real ObjectState::distanceLowerBound(const Vec3& p, FragmentId f) const
{
    const TetLocation where = tetLocator->locate(p);
    if (where.found())
    {
        const FragmentId g = fieldData.fragmentAt(where.tet, where.bary);
        if (g == f)
            return -std::numeric_limits<Real>::infinity();
        return penetration(p, where, g).depth - Real(tetMargin[where.tet]);
    }
    const DistanceGrid& grid = sharedAsset->surfaceGrid;
    if (grid.empty())
        return -std::numeric_limits<Real>::infinity();
    const GridSample sample = grid.sample(p);
    return sample.valid ? sample.distance - settings.sphereTestMargin * grid.cellSize
                        : grid.bandWidth - std::sqrt(Real(3)) * grid.cellSize;
}

} // namespace shatter
