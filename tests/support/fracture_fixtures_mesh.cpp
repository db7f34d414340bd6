// AnalyticFracture's fragment surfaces: the closed boundary of each fragment, read off its per-tet
// convex regions (fracture_fixtures_state.h).
//
// Every face of a region polytope is one of three kinds. A face on a tet face with no neighbour tet is
// a piece of the original surface (the tet mesh's boundary is the asset's surface). A face on a crack
// plane (clip tag ≥ 4, kept through every later split) separates the fragment from another one: a
// crack face. A face on a tet face with a neighbour tet is interior: the partition is the same on both
// sides of the shared face, so the neighbour's region of the same fragment carries the same polygon
// with the opposite orientation, and both are dropped. (If the neighbour holds no region of the
// fragment at all, which only a dropped sliver can cause, the face is kept as a crack face so the
// surface stays closed.) The kept faces are fan-triangulated; corners are welded where their
// coordinates are bit-identical (within one polytope they are), not across tets, so the surface is
// closed as a set but not one welded manifold. By the divergence theorem the interior faces' fluxes
// cancel, so its enclosed volume is the sum of the region volumes to round-off.
#include "fracture_fixtures_state.h"

#include "shatter/error.h"

#include <map>

namespace shatter::test
{

FragmentMesh buildFragmentMesh(const AnalyticFracture::State& s, FragmentId f)
{
    FragmentMesh out;
    std::map<std::array<Real, 3>, Index> ids;
    const auto vertex = [&](const Vec3& p)
    {
        const auto [it, inserted] =
            ids.try_emplace({p.x(), p.y(), p.z()}, Index(out.surface.vertices.size()));
        if (inserted)
            out.surface.vertices.push_back(p);
        return it->second;
    };
    for (Index t : s.fragments[f].tets)
    {
        const int r = s.regionOf(t, f);
        if (r < 0)
            continue;
        const ConvexPolytope& poly = s.regions[t][std::size_t(r)].poly;
        for (const PolytopeFace& face : poly.faces)
        {
            bool crack = face.tag >= 4;
            if (!crack)
            {
                const Index neighbor = s.faceNeighbors[t][std::size_t(face.tag)];
                if (neighbor != kInvalidIndex && s.regionOf(neighbor, f) >= 0)
                    continue; // interior: the fragment goes on across this tet face
                crack = neighbor != kInvalidIndex;
            }
            const Index first = vertex(poly.corners[face.first]);
            for (Index k = 1; k + 1 < face.count; ++k)
            {
                out.surface.triangles.push_back(
                    {first, vertex(poly.corners[face.first + k]), vertex(poly.corners[face.first + k + 1])});
                out.crack.push_back(crack ? 1 : 0);
            }
        }
    }
    return out;
}

FragmentMesh AnalyticFracture::fragmentMesh(FragmentId f) const
{
    if (!alive(f))
        throw Error("AnalyticFracture", "fragmentMesh: fragment " + std::to_string(f) + " is not alive");
    return buildFragmentMesh(*state, f);
}

} // namespace shatter::test
