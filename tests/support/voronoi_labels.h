// Test labellings for the tessellation (tests/fracture/tessellation_test.cpp): nearest-site
// VoronoiLabellings with random sites, in Euclidean space (dimension 3) or with an extra coordinate
// (dimension > 3, standing in for the interior-distance embedding), and checks of fragment surfaces.
// The surface checks live in the support library (Collision only); the labelling helper is inline
// because only fracture tests, which see the fracture headers, use it.
#pragma once

#include "shatter/mesh.h"

#include <string>

namespace shatter::test
{

/// What checkFragmentSurface found; empty `problem` means closed, 2-manifold, outward, no NaN and no
/// degenerate triangle (twice the area ≤ 1e-12 × longest edge², or repeated corners).
struct SurfaceCheck
{
    std::string problem;
    Real volume = 0;
    Real minQuality = 1; ///< smallest 2·area / longest edge² over the triangles
};
SurfaceCheck checkFragmentSurface(const TriMesh& mesh);

/// Generalized winding number of a closed triangle mesh at p (1 inside, 0 outside).
Real windingNumber(const TriMesh& mesh, const Vec3& p);

} // namespace shatter::test

#include "object_state.h"
#include "voronoi_labelling.h"

#include <cmath>
#include <random>

namespace shatter::test
{

/// Nearest-site labelling of the live fragment `parent` with `siteCount` sites placed at random parent
/// nodes (jittered by 0.1 of the mean edge). extraDimensions > 0 appends coordinates
/// extraScale · sin(3x + 5y + 7z + c) per dimension (c differs per dimension) to nodes and sites.
inline fracture::VoronoiLabelling nearestSiteLabelling(const ObjectState& state, FragmentId parent,
                                                       int siteCount, std::mt19937& rng,
                                                       int extraDimensions = 0, Real extraScale = 0)
{
    const TetMesh& mesh = state.asset().tetMesh;
    fracture::VoronoiLabelling l;
    l.parent = parent;
    l.dimension = 3 + extraDimensions;
    l.siteCount = std::uint32_t(siteCount);
    for (Index i = 0; i < mesh.nodeCount(); ++i)
        if (state.field().node(i).fragment == parent)
            l.nodes.push_back(i);
    auto coords = [&](const Vec3& x, std::vector<Real>& out)
    {
        for (int c = 0; c < 3; ++c)
            out.push_back(x[c]);
        for (int d = 0; d < extraDimensions; ++d)
            out.push_back(extraScale * std::sin(3 * x.x() + 5 * x.y() + 7 * x.z() + 1.3 * d));
    };
    for (Index n : l.nodes)
        coords(mesh.nodes[n], l.nodeCoords);
    const Real jitter = 0.1 * state.meanEdgeLength();
    std::uniform_int_distribution<std::size_t> pick(0, l.nodes.size() - 1);
    std::uniform_real_distribution<Real> u(-1, 1);
    for (int s = 0; s < siteCount; ++s)
    {
        const Vec3 x = mesh.nodes[l.nodes[pick(rng)]] + jitter * Vec3(u(rng), u(rng), u(rng));
        coords(x, l.siteCoords);
    }
    l.labels.resize(l.nodes.size());
    for (std::size_t i = 0; i < l.nodes.size(); ++i)
    {
        Real best = std::numeric_limits<Real>::infinity();
        for (int s = 0; s < siteCount; ++s)
        {
            const Real d = l.distance(i, std::uint32_t(s));
            if (d < best)
            {
                best = d;
                l.labels[i] = std::uint32_t(s);
            }
        }
    }
    return l;
}

} // namespace shatter::test
