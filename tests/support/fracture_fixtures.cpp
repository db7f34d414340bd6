// AnalyticFracture: bookkeeping and the plane-cut and Voronoi entry points; the split itself is in
// fracture_fixtures_split.cpp, the references in fracture_fixtures_reference.cpp.
#include "fracture_fixtures.h"

#include "fracture_fixtures_state.h"
#include "object_state.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace shatter::test
{

AnalyticFracture::AnalyticFracture(const TetMesh& mesh, const TriMesh& surface)
    : state(std::make_unique<State>(mesh, surface))
{
    clearance = Real(1e-7) * state->diagonal;
}

AnalyticFracture::~AnalyticFracture() = default;

FragmentId AnalyticFracture::fragmentCount() const
{
    return FragmentId(state->fragments.size());
}
bool AnalyticFracture::alive(FragmentId f) const
{
    return f < fragmentCount() && state->fragments[f].alive;
}
Real AnalyticFracture::volume(FragmentId f) const
{
    return state->fragments[f].volume;
}
FragmentId AnalyticFracture::nodeFragment(Index node) const
{
    return state->nodeFragment[node];
}
Real AnalyticFracture::meanEdgeLength() const
{
    return state->meanEdge;
}
const SplitStats& AnalyticFracture::lastStats() const
{
    return state->stats;
}
void AnalyticFracture::setBuildMeshes(bool build)
{
    state->buildMeshes = build;
}

std::vector<FragmentId> AnalyticFracture::liveFragments() const
{
    std::vector<FragmentId> live;
    for (FragmentId f = 0; f < fragmentCount(); ++f)
        if (state->fragments[f].alive)
            live.push_back(f);
    return live;
}

FragmentId AnalyticFracture::largestFragment() const
{
    FragmentId best = kNoFragment;
    for (FragmentId f : liveFragments())
        if (best == kNoFragment || volume(f) > volume(best))
            best = f;
    return best;
}

std::optional<FractureResult> AnalyticFracture::cutWithPlane(FragmentId parent, const Plane& plane)
{
    if (!alive(parent))
        throw Error("AnalyticFracture", "cutWithPlane: fragment " + std::to_string(parent) + " is not alive");
    for (Index n = 0; n < state->mesh.nodeCount(); ++n)
        if (state->nodeFragment[n] == parent &&
            std::abs(plane.signedDistance(state->mesh.nodes[n])) < clearance)
            return std::nullopt;
    FixtureLabeling labels;
    labels.plane = plane;
    return splitFragment(*state, parent, labels);
}

std::vector<FractureResult> AnalyticFracture::cutAll(const Plane& plane)
{
    for (const Vec3& p : state->mesh.nodes)
        if (std::abs(plane.signedDistance(p)) < clearance)
            return {};
    std::vector<FractureResult> results;
    for (FragmentId f : liveFragments())
        if (std::optional<FractureResult> r = cutWithPlane(f, plane))
            results.push_back(std::move(*r));
    return results;
}

std::optional<FractureResult> AnalyticFracture::splitVoronoi(FragmentId parent, std::span<const Vec3> sites)
{
    if (!alive(parent))
        throw Error("AnalyticFracture", "splitVoronoi: fragment " + std::to_string(parent) + " is not alive");
    if (sites.size() < 2)
        throw Error("AnalyticFracture", "splitVoronoi needs at least two sites");
    FixtureLabeling labels;
    labels.voronoi = true;
    labels.sites.assign(sites.begin(), sites.end());
    for (std::size_t i = 0; i < sites.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if ((sites[i] - sites[j]).norm() < 100 * clearance)
                return std::nullopt;
    for (Index n = 0; n < state->mesh.nodeCount(); ++n)
    {
        if (state->nodeFragment[n] != parent)
            continue;
        Real margin = 0;
        labels.label(state->mesh.nodes[n], margin);
        if (margin < clearance)
            return std::nullopt;
    }
    return splitFragment(*state, parent, labels);
}

void expectSameObjectState(const ObjectState& a, const ObjectState& b)
{
    ASSERT_EQ(a.fragmentCount(), b.fragmentCount());
    for (FragmentId f = 0; f < a.fragmentCount(); ++f)
    {
        EXPECT_EQ(a.alive(f), b.alive(f)) << f;
        EXPECT_EQ(a.fragment(f).bounds.min, b.fragment(f).bounds.min) << f;
        EXPECT_EQ(a.fragment(f).bounds.max, b.fragment(f).bounds.max) << f;
    }
    ASSERT_EQ(a.field().recordCount(), b.field().recordCount());
    const auto na = a.field().nodeSamples(), nb = b.field().nodeSamples();
    ASSERT_EQ(na.size(), nb.size());
    EXPECT_EQ(std::memcmp(na.data(), nb.data(), na.size_bytes()), 0);
    for (Index r = 0; r < a.field().recordCount(); ++r)
        EXPECT_EQ(std::memcmp(&a.field().record(r), &b.field().record(r), sizeof(FieldRecord)), 0) << r;
    ASSERT_EQ(a.sphereForest().nodeCount(), b.sphereForest().nodeCount());
    for (Index p = 0; p < a.sphereForest().pointCount(); ++p)
        EXPECT_EQ(a.sphereForest().pointFragment(p), b.sphereForest().pointFragment(p));
}

} // namespace shatter::test
