// The three elementary queries of TVCG §3 against the fragment distance field D(f), all in the
// object's material frame. Algorithm 1 calls them for every sphere-tree node it visits, so they are
// const, allocation-free and thread-safe: they only read the field, the locator and the grids.
// insideTest (§4.3) is exact: in a cut tet it walks the record chain (fragment_field.h) and the linear
// crack functions reproduce the fracture's partition. penetration (§4.4) is eq. 1 over the tet's nodes
// of f, the minimum with the crack planes in a cut tet and with the surface grid near the original
// surface. sphereTest (§4.5) culls by f's box, the multilevel grid and a lower bound of dist(p, f),
// the last one lowered by ObjectStateSettings::sphereTestMargin because the field can overestimate.
// Why each bound is safe: docs/algorithms.md, "The elementary queries".
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

bool ObjectState::mayReach(const Vec3& p, Real radius, FragmentId f) const
{
    return !(fragmentList[f].bounds.distance(p) > radius) && fragmentGrid.mayIntersect(p, radius, f);
}

bool ObjectState::sphereTest(const Vec3& p, Real radius, FragmentId f) const
{
    Real lowerBound = std::numeric_limits<Real>::quiet_NaN();
    return sphereTest(p, radius, f, lowerBound);
}

bool ObjectState::sphereTest(const Vec3& p, Real radius, FragmentId f, Real& lowerBound) const
{
    return sphereTest(p, radius, f, lowerBound, nullptr);
}

bool ObjectState::sphereTest(const Vec3& p, Real radius, FragmentId f, Real& lowerBound,
                             const TetLocation* where) const
{
    if (!alive(f) || !mayReach(p, radius, f))
        return false;
    if (std::isnan(lowerBound)) // p is located only when the cheaper tests could not cull
        lowerBound = distanceLowerBound(p, where ? *where : tetLocator->locate(p), f);
    return !(lowerBound > radius);
}

Real ObjectState::distanceLowerBound(const Vec3& p, const TetLocation& where, FragmentId f) const
{
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
