// AnalyticFracture's exact split of one fragment by a labelling (plane sides or Voronoi cells): exact
// (tet, label) pieces by clipping, connected components across tet faces, node labels, records, cut
// edges. See fracture_fixtures.h for what "exact" means.
#include "fracture_fixtures_state.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shatter::test
{

namespace
{

struct Sub
{
    Index tet = kInvalidIndex;
    int label = 0;
    ConvexPolytope poly;
    Real volume = 0;
};

Index findRoot(std::vector<Index>& parent, Index i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

} // namespace

std::optional<FractureResult> splitFragment(AnalyticFracture::State& s, FragmentId parent,
                                            const FixtureLabeling& labels)
{
    const TetMesh& mesh = s.mesh;
    const std::vector<Index> tets = s.fragments[parent].tets; // a copy: fragments grows below
    const int tagBase = 4 + 1024 * s.eventCount;
    const int labelCount = labels.count();

    // 1. Exact (tet, label) pieces of the parent's region.
    std::vector<Sub> subs;
    std::vector<Index> firstSub(tets.size() + 1, 0);
    ConvexPolytope scratch;
    for (std::size_t i = 0; i < tets.size(); ++i)
    {
        const Index t = tets[i];
        firstSub[i] = Index(subs.size());
        const FixtureRegion& region = s.regions[t][s.regionOf(t, parent)];
        const TetCorners c = mesh.corners(t);
        const Vec3 center = Real(0.25) * (c[0] + c[1] + c[2] + c[3]);
        Real radius = 0;
        for (const Vec3& p : c)
            radius = std::max(radius, (p - center).norm());
        const Real tolerance = clipTolerance(c);
        const Real volumeEpsilon = Real(1e-12) * std::abs(mesh.tetVolume(t));
        // Labels of the tet's nodes of the parent: a piece holding one of them is kept however thin.
        std::array<int, 4> nodeLabels{-1, -1, -1, -1};
        for (int k = 0; k < 4; ++k)
        {
            const Index n = mesh.tets[t][k];
            Real margin = 0;
            if (s.nodeFragment[n] == parent)
                nodeLabels[k] = labels.label(mesh.nodes[n], margin);
        }
        Sub fallback;
        for (int L = 0; L < labelCount; ++L)
        {
            if (!labels.candidate(L, center, radius))
                continue;
            Sub sub{t, L, region.poly, 0};
            for (int j = 0; j < labelCount && !sub.poly.empty(); ++j)
                if (j != L && labels.candidate(j, center, radius))
                    clipPolytope(sub.poly, labels.bisector(L, j), tagBase + j, tolerance, scratch);
            sub.volume = sub.poly.volume();
            const bool holdsNode = std::find(nodeLabels.begin(), nodeLabels.end(), L) != nodeLabels.end();
            if (sub.volume > volumeEpsilon || (holdsNode && !sub.poly.empty()))
                subs.push_back(std::move(sub));
            else if (sub.volume > fallback.volume)
                fallback = std::move(sub);
        }
        if (subs.size() ==
            firstSub[i]) // the region is a sliver below the volume threshold: keep its largest part
        {
            if (fallback.tet == kInvalidIndex)
                return std::nullopt;
            subs.push_back(std::move(fallback));
        }
        if (subs.size() - firstSub[i] > 4)
            return std::nullopt; // a record holds at most four pieces
    }
    firstSub[tets.size()] = Index(subs.size());
    auto subOf = [&](Index t, int label) -> int
    {
        const auto it = std::lower_bound(tets.begin(), tets.end(), t);
        if (it == tets.end() || *it != t)
            return -1;
        const std::size_t i = std::size_t(it - tets.begin());
        for (Index k = firstSub[i]; k < firstSub[i + 1]; ++k)
            if (subs[k].label == label)
                return int(k);
        return -1;
    };

    // 2. Components: equal labels joined across tet faces both pieces touch with positive area.
    std::vector<Index> root(subs.size());
    std::iota(root.begin(), root.end(), Index(0));
    for (std::size_t k = 0; k < subs.size(); ++k)
    {
        const Sub& sub = subs[k];
        const TetCorners c = mesh.corners(sub.tet);
        const Real edge = clipTolerance(c) * Real(1e12);
        const Real areaEpsilon = Real(1e-12) * edge * edge;
        for (int face = 0; face < 4; ++face)
        {
            const Index other = s.faceNeighbors[sub.tet][face];
            if (other == kInvalidIndex || sub.poly.taggedArea(face) <= areaEpsilon)
                continue;
            const int match = subOf(other, sub.label);
            if (match < 0)
                continue;
            int otherFace = 0;
            while (s.faceNeighbors[other][otherFace] != sub.tet)
                ++otherFace;
            if (subs[match].poly.taggedArea(otherFace) > areaEpsilon)
                root[findRoot(root, Index(k))] = findRoot(root, Index(match));
        }
    }
    const FragmentId first = FragmentId(s.fragments.size());
    std::vector<FragmentId> component(subs.size(), kNoFragment);
    std::vector<FragmentId> rootId(subs.size(), kNoFragment);
    FragmentId pieces = 0;
    for (std::size_t k = 0; k < subs.size(); ++k)
    {
        const Index r = findRoot(root, Index(k));
        if (rootId[r] == kNoFragment)
            rootId[r] = first + pieces++;
        component[k] = rootId[r];
    }
    if (pieces < 2)
        return std::nullopt;

    // 3. Node labels.
    FractureResult result;
    result.parent = parent;
    for (FragmentId i = 0; i < pieces; ++i)
        result.fragments.push_back(first + i);
    for (Index n = 0; n < mesh.nodeCount(); ++n)
    {
        if (s.nodeFragment[n] != parent)
            continue;
        Real margin = 0; // the callers checked it against the clearance
        const int L = labels.label(mesh.nodes[n], margin);
        FragmentId f = kNoFragment;
        for (Index i = mesh.nodeTetOffsets[n]; i < mesh.nodeTetOffsets[n + 1] && f == kNoFragment; ++i)
        {
            const int k = subOf(mesh.nodeTets[i], L);
            if (k >= 0)
                f = component[k];
        }
        if (f == kNoFragment)
            return std::nullopt;
        result.nodes.push_back(n);
        result.nodeFragments.push_back(f);
    }

    // 4. Records: every tet where the parent's region is split, and a one-piece record where it lies
    //    whole in a new fragment but holds none of the parent's nodes.
    for (std::size_t i = 0; i < tets.size(); ++i)
    {
        const Index t = tets[i];
        const Index count = firstSub[i + 1] - firstSub[i];
        bool hasParentNode = false;
        for (Index n : mesh.tets[t])
            hasParentNode |= s.nodeFragment[n] == parent;
        if (count == 1 && hasParentNode)
            continue;
        CutTetRecord rec;
        rec.tet = t;
        rec.count = std::uint8_t(count);
        for (Index k = 0; k < count; ++k)
        {
            const Sub& sub = subs[firstSub[i] + k];
            rec.fragments[k] = component[firstSub[i] + k];
            for (int v = 0; v < 4; ++v)
                rec.values[k][v] = labels.g(sub.label, mesh.nodes[mesh.tets[t][v]]);
        }
        result.cutTets.push_back(rec);
    }

    // 5. Cut edges: the new crack's crossings of the edges inside the parent's region.
    std::vector<std::array<Index, 3>> edges; // (low, high, tet)
    for (Index t : tets)
        for (const auto& e : kTetEdges)
        {
            const Index a = mesh.tets[t][e[0]];
            const Index b = mesh.tets[t][e[1]];
            edges.push_back({std::min(a, b), std::max(a, b), t});
        }
    std::sort(edges.begin(), edges.end());
    SplitStats stats;
    for (std::size_t i = 0; i < edges.size();)
    {
        std::size_t j = i;
        while (j < edges.size() && edges[j][0] == edges[i][0] && edges[j][1] == edges[i][1])
            ++j;
        const Vec3& a = mesh.nodes[edges[i][0]];
        const Vec3& b = mesh.nodes[edges[i][1]];
        const FixtureRegion& region = s.regions[edges[i][2]][s.regionOf(edges[i][2], parent)];
        Real t0 = 0, t1 = 1;
        for (const Plane& p : region.planes)
        {
            const Real da = p.signedDistance(a), db = p.signedDistance(b);
            if (da > 0 && db > 0)
                t1 = -1;
            else if (da > 0)
                t0 = std::max(t0, da / (da - db));
            else if (db > 0)
                t1 = std::min(t1, da / (da - db));
        }
        auto fragmentOf = [&](int label)
        {
            for (std::size_t k = i; k < j; ++k)
                if (const int sub = subOf(edges[k][2], label); sub >= 0)
                    return component[sub];
            return kNoFragment;
        };
        Index crossings = 0;
        if (t1 - t0 > 1e-12)
        {
            Real margin = 0;
            Real t = t0;
            int L = labels.label(a + (t0 + Real(1e-9) * (t1 - t0)) * (b - a), margin);
            for (;;)
            {
                Real next = std::numeric_limits<Real>::infinity();
                int nextLabel = -1;
                for (int h = 0; h < labelCount; ++h)
                {
                    if (h == L)
                        continue;
                    const Plane bis = labels.bisector(L, h);
                    const Real da = bis.signedDistance(a), db = bis.signedDistance(b);
                    if (db > da)
                    {
                        const Real tc = -da / (db - da);
                        if (tc > t + Real(1e-12) && tc < next)
                        {
                            next = tc;
                            nextLabel = h;
                        }
                    }
                }
                if (!(next < t1) || next >= 1)
                    break;
                const FragmentId f0 = fragmentOf(L), f1 = fragmentOf(nextLabel);
                if (f0 != kNoFragment && f1 != kNoFragment && f0 != f1 && next > 0)
                {
                    result.cutEdges.push_back({edges[i][0], edges[i][1], next, f0, f1});
                    ++crossings;
                }
                t = next;
                L = nextLabel;
            }
        }
        stats.multiCrossedEdges += crossings > 1;
        i = j;
    }

    // 6. Commit.
    ++s.eventCount;
    s.fragments[parent].alive = false;
    s.fragments.resize(first + pieces);
    for (FragmentId i = 0; i < pieces; ++i)
    {
        FixtureFragment& f = s.fragments[first + i];
        f.alive = true;
        f.parent = parent;
        f.history = s.fragments[parent].history;
    }
    std::vector<std::uint8_t> historyDone(pieces, 0);
    for (std::size_t k = 0; k < subs.size(); ++k)
    {
        const FragmentId f = component[k];
        FixtureFragment& frag = s.fragments[f];
        if (!historyDone[f - first])
        {
            historyDone[f - first] = 1;
            for (int j = 0; j < labelCount; ++j)
                if (j != subs[k].label)
                    frag.history.push_back(labels.bisector(subs[k].label, j));
        }
        Sub& sub = subs[k];
        FixtureRegion region;
        region.fragment = f;
        region.volume = sub.volume;
        for (const PolytopeFace& face : sub.poly.faces)
            if (face.tag >= 4)
                region.planes.push_back(face.plane);
        region.poly = std::move(sub.poly);
        std::vector<FixtureRegion>& list = s.regions[sub.tet];
        const int old = s.regionOf(sub.tet, parent);
        Index slot;
        if (old >= 0)
        {
            list[old] = std::move(region);
            slot = Index(old);
        }
        else
        {
            list.push_back(std::move(region));
            slot = Index(list.size() - 1);
        }
        frag.volume += sub.volume;
        if (frag.tets.empty() || frag.tets.back() != sub.tet)
            frag.tets.push_back(sub.tet);
        frag.refs.push_back({sub.tet, slot, list[slot].poly.bounds()});
    }
    for (FragmentId i = 0; i < pieces; ++i)
        s.fragments[first + i].sortRefs();
    for (std::size_t i = 0; i < result.nodes.size(); ++i)
        s.nodeFragment[result.nodes[i]] = result.nodeFragments[i];
    s.fragments[parent].tets.clear();
    s.fragments[parent].refs.clear();

    stats.regionTets = Index(tets.size());
    stats.records = Index(result.cutTets.size());
    stats.cutEdges = Index(result.cutEdges.size());
    s.stats = stats;
    if (s.buildMeshes)
        for (FragmentId i = 0; i < pieces; ++i)
            result.meshes.push_back(std::make_shared<const FragmentMesh>(buildFragmentMesh(s, first + i)));
    return result;
}

} // namespace shatter::test
