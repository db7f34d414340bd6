// The non-template parts of Algorithm 1 (sphere_tree_query.h, whose comment explains the traversal):
// the scratch, the option checks, and the ObjectState field adapter.
#include "sphere_tree_query.h"

#include "object_state.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace shatter
{

void QueryScratch::begin(Index pointCount)
{
    if (points.size() < pointCount)
        points.resize(pointCount);
    if (++generation == 0) // wrapped: forget every stamp once every 2^32 queries
    {
        std::fill(points.begin(), points.end(), PointState{});
        generation = 1;
    }
    current.clear();
    next.clear();
}

bool querySettingsValid(const QuerySettings& options, Index budget)
{
    return options.tolerance >= 0 && std::isfinite(options.tolerance) && options.speculative >= 0 &&
           std::isfinite(options.speculative) && (options.mode == ContactMode::Full || budget > 0) &&
           options.contactLimit > 0;
}

void checkQuerySettings(const QuerySettings& options, Index budget)
{
    if (!(options.tolerance >= 0) || !std::isfinite(options.tolerance))
        throw Error("QuerySettings", "tolerance must be finite and >= 0");
    if (!(options.speculative >= 0) || !std::isfinite(options.speculative))
        throw Error("QuerySettings", "the speculative band must be finite and >= 0");
    if (options.mode != ContactMode::Full && budget == 0)
        throw Error("QuerySettings", "the contact budget must be at least 1");
    if (options.contactLimit == 0)
        throw Error("QuerySettings", "the contact limit must be at least 1");
}

FragmentFieldView::FragmentFieldView(const ObjectState& objectState, FragmentId f)
    : state(&objectState), fragment(f)
{
    SHATTER_ASSERT(objectState.alive(f), "a field view needs a live fragment");
}

FieldSample FragmentFieldView::sample(const Vec3& p, Real band) const
{
    FieldSample out;
    // A point that cannot be in B or within the band of it needs no location (most points a query
    // meets away from the contact).
    if (!state->mayReach(p, std::max(band, Real(0)), fragment))
        return out;
    const TetLocation where = state->locate(p);
    lastPoint = p;
    lastWhere = where;
    if (state->insideTest(where, fragment))
    {
        const Penetration pen = state->penetration(p, where, fragment);
        out.near = true;
        out.distance = -pen.depth;
        out.normal = pen.normal;
        return out;
    }
    if (!(band > 0))
        return out;
    // Outside B: find the closest surface point q (of the fragment holding p, or of the object) and
    // probe half a band beyond it; if that is B, p is within reach of B's surface at q.
    Real d = 0;
    Vec3 toSurface = Vec3::Zero(); // unit, from p toward q
    if (where.found())
    {
        const FragmentId g = state->fragmentAt(where);
        if (g == kNoFragment)
            return out;
        const Penetration pen = state->penetration(p, where, g);
        d = pen.depth;
        toSurface = pen.normal;
    }
    else
    {
        const GridSample grid = state->asset().surfaceGrid.sample(p);
        const Real length = grid.gradient.norm();
        if (!grid.valid || !(grid.distance >= 0) || !(length > 0))
            return out;
        d = grid.distance;
        toSurface = -grid.gradient / length;
    }
    if (!(d < band) || toSurface.squaredNorm() == 0)
        return out;
    if (state->fragmentAt(p + (d + Real(0.5) * band) * toSurface) != fragment)
        return out;
    out.near = true;
    out.distance = d;
    out.normal = -toSurface;
    return out;
}

bool FragmentFieldView::sphereTest(const Vec3& p, Real radius) const
{
    return state->sphereTest(p, radius, fragment);
}

bool FragmentFieldView::sphereTest(const Vec3& p, Real radius, Real& lowerBound) const
{
    return state->sphereTest(p, radius, fragment, lowerBound, p == lastPoint ? &lastWhere : nullptr);
}

} // namespace shatter
