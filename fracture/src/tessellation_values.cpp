// The per-(node, site) values behind every crack function (CVD eq. 13; the record contract of
// fracture_result.h), and the two adjustments that make the record contract and the canonical schemes
// hold.
//
// Values. A parent node k gets D_kf = distance(k, site f) for every site f present at a parent node of
// a region tet around k (optionally squared: then a Euclidean Voronoi diagram is reproduced exactly,
// because the quadratic term cancels in g_f − g_h). A node of another fragment in
// an earlier-cut tet has no metric coordinates; it gets the mean coordinates of its parent neighbours,
// once per node, so that every tet sees the same function (watertight clipping in
// tessellation_region.cpp). The values are global per node — never per tet — for the same reason.
//
// Own-label fix. Flooding (CVD §3.3) may label a node with a site that is not its nearest; the record
// contract needs the node's own function to be the argmin there, so the own value is lowered just
// below the others (counted: loweredOwnValues).
//
// Raises (the "constrained approximation" spirit of CVD §5). Along an edge (k, l) labelled a ≠ b the
// functions are linear, so min(g_a, g_b) is concave and a third site c cuts the edge a second time iff
// g_c < g_a at the crossing t* of g_a and g_b. Then c is raised at k and l (where it is not the label)
// until it clears the crossing by dipMargin of the jump of g_a − g_b. On a face labelled a, b, c with a
// fourth site d at the tet's other node, d likewise must not dip below the face's triple point. With
// both conditions, every cell is a convex region meeting exactly the simplices the labels say, the
// eq. 13 vertices lie inside their simplices, and the canonical schemes coincide with the exact argmin
// of the recorded functions (so collision queries and meshes agree). Raising c can make another site
// dip elsewhere, so the passes repeat until nothing changes (maxAdjustPasses). Finally each crossing
// is kept edgeMargin away from the nodes by raising the other site at the near node.
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace shatter::fracture::detail
{

namespace
{

// Metric coordinates of a region node: its own for a parent node; for another fragment's node (in an
// earlier-cut tet) the mean of its parent neighbours' — once per node, so every tet agrees.
const Real* nodeCoordinates(const TetMesh& mesh, const VoronoiLabelling& labels, const Region& region,
                            Index node, std::vector<Real>& buffer)
{
    const int dim = labels.dimension;
    const Index entry = region.nodeEntry[node];
    if (entry != kInvalidIndex)
        return labels.nodeCoords.data() + std::size_t(entry) * dim;
    buffer.assign(std::size_t(dim), Real(0));
    int n = 0;
    for (Index i = mesh.neighborOffsets[node]; i < mesh.neighborOffsets[node + 1]; ++i)
    {
        const Index e = region.nodeEntry[mesh.neighbors[i]];
        if (e == kInvalidIndex)
            continue;
        for (int c = 0; c < dim; ++c)
            buffer[c] += labels.nodeCoords[std::size_t(e) * dim + c];
        ++n;
    }
    for (int c = 0; c < dim; ++c)
        buffer[c] /= Real(std::max(n, 1));
    return buffer.data();
}

Real siteValue(const VoronoiLabelling& labels, const Real* x, std::uint32_t s, bool squared)
{
    Real sum = 0;
    for (int c = 0; c < labels.dimension; ++c)
    {
        const Real d = x[c] - labels.siteCoords[std::size_t(s) * labels.dimension + c];
        sum += d * d;
    }
    return squared ? sum : std::sqrt(sum);
}

struct Adjuster
{
    const TessContext& ctx;
    ValueTable& table;
    TessellationStats& stats;
    bool changed = false;

    Real& at(Index node, std::uint32_t site) { return table.values[table.find(node, site)]; }
    std::uint32_t label(Index node) const { return ctx.region.nodeSite[node]; }

    void raise(Real& v, Real target, Index& counter)
    {
        if (target > v)
        {
            v = target;
            ++counter;
            changed = true;
        }
    }

    // A cut tet of the raise passes: its labels, its distinct sites, and the table entry of every
    // (node, site) pair of the tet, found once instead of on every access of every pass.
    struct CutTet
    {
        Index tet = 0;
        std::array<std::uint32_t, 4> lab{};
        std::array<std::uint32_t, 4> sites{};
        int count = 0;
        std::array<std::array<Index, 4>, 4> entry{}; // entry[k][i]: (node k, sites[i])
    };

    // Edge (local k, l) of tet c with labels sites[ia] at k and sites[ib] at l.
    void edge(const CutTet& c, int k, int l, int ia, int ib)
    {
        Real* v = table.values.data();
        const auto& atK = c.entry[k];
        const auto& atL = c.entry[l];
        const Real eps = ctx.options.edgeMargin;
        // Keep the crossing away from the nodes: raise b at k, a at l.
        {
            const Real dl = v[atL[ia]] - v[atL[ib]]; // > 0: b wins at l
            raise(v[atK[ib]], v[atK[ia]] + eps * dl / (1 - eps), stats.raisedMarginValues);
            const Real ek = v[atK[ib]] - v[atK[ia]]; // > 0: a wins at k
            raise(v[atL[ia]], v[atL[ib]] + eps * ek / (1 - eps), stats.raisedMarginValues);
        }
        const Real dk = v[atK[ia]] - v[atK[ib]], dl = v[atL[ia]] - v[atL[ib]];
        if (!(dk < 0 && dl > 0))
            return;
        const Real t = dk / (dk - dl);
        const Real ga = (1 - t) * v[atK[ia]] + t * v[atL[ia]];
        const Real margin = ctx.options.dipMargin * (dl - dk);
        for (int i = 0; i < c.count; ++i)
        {
            if (i == ia || i == ib)
                continue;
            Real& ck = v[atK[i]];
            Real& cl = v[atL[i]];
            const Real gc = (1 - t) * ck + t * cl;
            if (gc < ga + margin)
            {
                // Overshoot by half the margin so that round-off never re-triggers the same raise.
                const Real delta = ga + 1.5 * margin - gc;
                ck += delta;
                cl += delta;
                stats.raisedDipValues += 2;
                changed = true;
            }
        }
    }

    // Face nodes f[0..2] labelled with distinct sites s[0..2]; d is the tet's other site.
    void face(const Index* f, const std::uint32_t* s, std::uint32_t d)
    {
        const VertexKey key = siteVertexKey(table, f, 3, s, 3);
        VertexStatus status;
        const Vec3 p = solveVertex(key, ctx.meshNodes, nullptr, status);
        if (status != VertexStatus::Exact)
            return;
        // Barycentric coordinates of p on the face, from the key's sorted nodes.
        const Vec3 x0 = ctx.meshNodes[key.nodes[0]], x1 = ctx.meshNodes[key.nodes[1]],
                   x2 = ctx.meshNodes[key.nodes[2]];
        const Vec3 n = (x1 - x0).cross(x2 - x0);
        const Real area2 = n.squaredNorm();
        if (!(area2 > 0))
            return;
        std::array<Real, 3> b;
        b[1] = (p - x0).cross(x2 - x0).dot(n) / area2;
        b[2] = (x1 - x0).cross(p - x0).dot(n) / area2;
        b[0] = 1 - b[1] - b[2];
        Real ga = 0, gd = 0, spread = 0;
        for (int i = 0; i < 3; ++i)
        {
            ga += b[i] * at(key.nodes[i], s[0]);
            gd += b[i] * at(key.nodes[i], d);
            for (int j = 1; j < 3; ++j)
                spread = std::max(spread, std::abs(at(key.nodes[i], s[0]) - at(key.nodes[i], s[j])));
        }
        const Real margin = ctx.options.dipMargin * spread;
        if (gd < ga + margin)
        {
            const Real delta = ga + 1.5 * margin - gd;
            for (int i = 0; i < 3; ++i)
                at(f[i], d) += delta;
            stats.raisedDipValues += 3;
            changed = true;
        }
    }

    // Region tets whose nodes carry two or more sites: the only ones a pass looks at (labels do not
    // change between passes, only values), listed once instead of rescanning the region every pass.
    std::vector<CutTet> cutTets;

    void findCutTets()
    {
        const TetMesh& mesh = ctx.state.asset().tetMesh;
        cutTets.clear();
        for (Index slot : ctx.region.cutSlots)
        {
            const Index t = ctx.region.tets[slot];
            const Tet& tet = mesh.tets[t];
            CutTet c;
            c.tet = t;
            for (int k = 0; k < 4; ++k)
            {
                c.lab[k] = label(tet[k]);
                if (c.lab[k] != kNoSite && std::find(c.sites.begin(), c.sites.begin() + c.count, c.lab[k]) ==
                                               c.sites.begin() + c.count)
                    c.sites[c.count++] = c.lab[k];
            }
            if (c.count < 2)
                continue;
            for (int k = 0; k < 4; ++k)
                for (int i = 0; i < c.count; ++i)
                    c.entry[k][i] = table.find(tet[k], c.sites[i]);
            cutTets.push_back(c);
        }
    }

    void pass()
    {
        const TetMesh& mesh = ctx.state.asset().tetMesh;
        for (const CutTet& c : cutTets)
        {
            const Tet& tet = mesh.tets[c.tet];
            const auto& lab = c.lab;
            auto siteIndex = [&](std::uint32_t s)
            {
                int i = 0;
                while (c.sites[i] != s)
                    ++i;
                return i;
            };
            for (const auto& e : kTetEdges)
                if (lab[e[0]] != kNoSite && lab[e[1]] != kNoSite && lab[e[0]] != lab[e[1]])
                    edge(c, e[0], e[1], siteIndex(lab[e[0]]), siteIndex(lab[e[1]]));
            if (c.count < 4)
                continue;
            for (int opposite = 0; opposite < 4; ++opposite)
            {
                std::array<Index, 3> f;
                std::array<std::uint32_t, 3> s;
                int j = 0;
                for (int k = 0; k < 4; ++k)
                    if (k != opposite)
                    {
                        f[j] = tet[k];
                        s[j] = lab[k];
                        ++j;
                    }
                face(f.data(), s.data(), lab[opposite]);
            }
        }
    }
};

} // namespace

void assignNodeSites(const ObjectState& state, const VoronoiLabelling& labels,
                     const TessellationSettings& options, Region& region)
{
    const TetMesh& mesh = state.asset().tetMesh;
    region.nodeSite.assign(mesh.nodeCount(), kNoSite);
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
        region.nodeSite[labels.nodes[i]] = labels.labels[i];
    // Another fragment's node of an earlier-cut tet: the nearest of the sites of the parent nodes
    // around it, by its extrapolated coordinates. Giving it a site makes the whole tet carry the
    // canonical structure (and the raises), so the argmin restricted to the parent's piece agrees with
    // every neighbour on shared faces.
    std::vector<Real> buffer;
    for (Index t : region.tets)
        for (Index node : mesh.tets[t])
        {
            if (region.nodeSite[node] != kNoSite)
                continue;
            std::vector<std::uint32_t> candidates;
            for (Index i = mesh.nodeTetOffsets[node]; i < mesh.nodeTetOffsets[node + 1]; ++i)
            {
                const Index u = mesh.nodeTets[i];
                if (region.tetSlot[u] == kInvalidIndex)
                    continue;
                for (Index m : mesh.tets[u])
                    if (region.nodeEntry[m] != kInvalidIndex)
                        candidates.push_back(labels.labels[region.nodeEntry[m]]);
            }
            std::sort(candidates.begin(), candidates.end());
            const Real* x = nodeCoordinates(mesh, labels, region, node, buffer);
            Real best = std::numeric_limits<Real>::infinity();
            std::uint32_t site = candidates.empty() ? 0 : candidates[0];
            for (std::uint32_t s : candidates)
            {
                const Real v = siteValue(labels, x, s, options.squaredDistances);
                if (v < best)
                {
                    best = v;
                    site = s;
                }
            }
            region.nodeSite[node] = site;
        }
}

void buildValueTable(const TessContext& ctx, ValueTable& table, TessellationStats& stats)
{
    const TetMesh& mesh = ctx.state.asset().tetMesh;
    const Region& region = ctx.region;
    const VoronoiLabelling& labels = ctx.labels;

    // (node, site) pairs: the sites of each region tet's nodes, at all four of its nodes. Gathered per
    // node from its region tets (a node sees few distinct sites), which gives the same sorted CSR as
    // sorting all 16 pairs of every region tet, without that sort. A node of no cut tet
    // (Region::cutSlots) sees only its own site, and nothing reads that value (records, cut edges,
    // raises and fracture vertices all belong to cut tets): it gets an entry without a value (NaN).
    std::vector<std::uint8_t> kind(mesh.nodeCount(), 0); // 1: region node, 2: node of a cut tet
    for (Index t : region.tets)
        for (Index m : mesh.tets[t])
            kind[m] = 1;
    for (Index slot : region.cutSlots)
        for (Index m : mesh.tets[region.tets[slot]])
            kind[m] = 2;
    table.offsets.assign(mesh.nodeCount() + 1, 0);
    table.sites.clear();
    table.values.clear();
    table.sites.reserve(2 * std::size_t(mesh.nodeCount()));
    table.values.reserve(2 * std::size_t(mesh.nodeCount()));
    std::vector<Real> buffer;
    std::array<std::uint32_t, 64> local;
    std::vector<std::uint32_t> spill;
    for (Index node = 0; node < mesh.nodeCount(); ++node)
    {
        table.offsets[node + 1] = table.offsets[node];
        if (kind[node] == 0)
            continue;
        if (kind[node] == 1)
        {
            table.sites.push_back(region.nodeSite[node]);
            table.values.push_back(std::numeric_limits<Real>::quiet_NaN());
            ++table.offsets[node + 1];
            continue;
        }
        int count = 0;
        spill.clear();
        auto add = [&](std::uint32_t site)
        {
            for (int i = 0; i < count; ++i)
                if (local[i] == site)
                    return;
            if (count < int(local.size()))
                local[count++] = site;
            else if (std::find(spill.begin(), spill.end(), site) == spill.end())
                spill.push_back(site);
        };
        for (Index i = mesh.nodeTetOffsets[node]; i < mesh.nodeTetOffsets[node + 1]; ++i)
        {
            const Index t = mesh.nodeTets[i];
            if (region.tetSlot[t] == kInvalidIndex)
                continue;
            for (Index m : mesh.tets[t])
                add(region.nodeSite[m]);
        }
        spill.insert(spill.end(), local.begin(), local.begin() + count);
        std::sort(spill.begin(), spill.end());
        const Real* x = nodeCoordinates(mesh, labels, region, node, buffer);
        for (std::uint32_t site : spill)
        {
            table.sites.push_back(site);
            table.values.push_back(siteValue(labels, x, site, ctx.options.squaredDistances));
        }
        table.offsets[node + 1] += Index(spill.size());
    }

    // Own-label fix: the node's own site strictly below every other (a node with one site has none).
    for (Index node = 0; node < mesh.nodeCount(); ++node)
    {
        if (table.offsets[node + 1] - table.offsets[node] < 2)
            continue;
        const std::uint32_t own = region.nodeSite[node];
        Real other = std::numeric_limits<Real>::infinity();
        for (Index q = table.offsets[node]; q < table.offsets[node + 1]; ++q)
            if (table.sites[q] != own)
                other = std::min(other, table.values[q]);
        Real& v = table.values[table.find(node, own)];
        const Real target = other - Real(1e-9) * std::max(Real(1), std::abs(other));
        if (std::isfinite(other) && v > target)
        {
            v = target;
            ++stats.loweredOwnValues;
        }
    }

    Adjuster adjust{ctx, table, stats, false, {}};
    adjust.findCutTets();
    stats.adjustConverged = false;
    for (int p = 0; p < ctx.options.maxAdjustPasses; ++p)
    {
        adjust.changed = false;
        adjust.pass();
        ++stats.adjustPasses;
        if (!adjust.changed)
        {
            stats.adjustConverged = true;
            break;
        }
    }
}

} // namespace shatter::fracture::detail
