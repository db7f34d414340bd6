// The Voronoi update of the discrete CVD (CVD §3.3): "the update of Voronoi cells reduces to finding the
// closest site for each node. We speed up this computation by flooding Voronoi cells from the sites,
// exploiting the graph defined by the tetrahedral mesh."
//
// Flooding is a best-first search over the region's tet edges, run for all sites at once (CVD
// §3.3): each site pushes its nearest node into one min-heap keyed by the squared metric distance to
// that site; a popped, still unlabelled node takes the entry's site and pushes its unlabelled neighbours
// keyed by their distance to the same site. Unlike the nearest-site assignment, a node can only join a
// cell through a neighbour of that cell, so every cell is connected and grows through material only —
// across a concavity the cell stops where the material does, which is what keeps Euclidean sites from
// producing fragments on both sides of a gap. In a convex region with a fine mesh the two agree except
// near bisectors.
//
// Determinism: heap entries compare by (key, site, node), and a node is pushed again only with a
// strictly smaller (key, site), which never changes the first entry popped for it.
#include "cvd.h"

#include "parallel.h"
#include "shatter/error.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace shatter::fracture
{
namespace
{

constexpr std::uint32_t kUnlabelled = 0x7fffffffu; // no offer yet (site counts stay below it)
constexpr std::uint32_t kLabelled = 0x80000000u;   // flag in FloodWorkspace::site: the node took that site

Real squaredDistance(const Real* a, const Real* b, int dimension)
{
    Real sum = 0;
    for (int c = 0; c < dimension; ++c)
    {
        const Real d = a[c] - b[c];
        sum += d * d;
    }
    return sum;
}

FloodHeapKey pack(Real key, std::uint32_t site, Index node)
{
    SHATTER_ASSERT(key >= 0, "flood keys are squared distances");
    return FloodHeapKey(std::bit_cast<std::uint64_t>(key)) << 64 | FloodHeapKey(site) << 32 | node;
}

std::uint32_t packedSite(FloodHeapKey e)
{
    return std::uint32_t(e >> 32);
}

Index packedNode(FloodHeapKey e)
{
    return Index(e);
}

/// Strict (key, site, node) order of heap entries. No two entries of a flood are equal (a node is
/// pushed again only with a strictly smaller (key, site)), so the order of pops is fully determined.
bool before(const FloodEntry& a, const FloodEntry& b)
{
    return pack(a.key, a.site, a.node) < pack(b.key, b.site, b.node);
}

// A 4-ary min-heap: half the levels of a binary heap, and a node's children share a cache line pair.
constexpr std::size_t kArity = 4;

void heapPush(std::vector<FloodHeapKey>& heap, FloodHeapKey e)
{
    std::size_t i = heap.size();
    heap.push_back(e);
    while (i > 0)
    {
        const std::size_t parent = (i - 1) / kArity;
        if (!(e < heap[parent]))
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = e;
}

FloodHeapKey heapPop(std::vector<FloodHeapKey>& heap)
{
    const FloodHeapKey top = heap.front();
    const FloodHeapKey last = heap.back();
    heap.pop_back();
    const std::size_t size = heap.size();
    if (size == 0)
        return top;
    std::size_t i = 0;
    for (;;)
    {
        const std::size_t first = kArity * i + 1;
        if (first >= size)
            break;
        std::size_t child = first;
        FloodHeapKey smallest = heap[first];
        const std::size_t end = std::min(size, first + kArity);
        for (std::size_t c = first + 1; c < end; ++c)
        {
            const bool smaller = heap[c] < smallest;
            child = smaller ? c : child;
            smallest = smaller ? heap[c] : smallest;
        }
        if (!(smallest < last))
            break;
        heap[i] = smallest;
        i = child;
    }
    heap[i] = last;
    return top;
}

} // namespace

std::vector<std::uint32_t> nearestSiteLabels(std::span<const Real> localCoords, int dimension,
                                             std::span<const Real> sites, unsigned threads)
{
    SHATTER_ASSERT(dimension > 0 && localCoords.size() % std::size_t(dimension) == 0);
    const std::size_t n = localCoords.size() / std::size_t(dimension);
    const std::size_t siteCount = sites.size() / std::size_t(dimension);
    std::vector<std::uint32_t> labels(n, 0);
    parallelFor(n, threads,
                [&](std::size_t begin, std::size_t end)
                {
                    for (std::size_t v = begin; v < end; ++v)
                    {
                        Real best = std::numeric_limits<Real>::infinity();
                        for (std::size_t s = 0; s < siteCount; ++s)
                        {
                            const Real d = squaredDistance(&localCoords[v * dimension], &sites[s * dimension],
                                                           dimension);
                            if (d < best)
                            {
                                best = d;
                                labels[v] = std::uint32_t(s);
                            }
                        }
                    }
                });
    return labels;
}

namespace
{

/// The flood proper, with `dist(s, v)` the squared distance of local node v to site s (always the
/// same value for the same pair, computed by squaredDistance or read from the table).
template <class Dist>
void flood(const FragmentRegion& region, std::size_t siteCount, unsigned threads,
           std::span<const std::uint32_t> previous, FloodWorkspace& ws, std::vector<std::uint32_t>& labels,
           const Dist& dist)
{
    const Index n = region.nodeCount();

    // Each site's start node: its nearest node among those `previous` gives it (one pass over the
    // nodes), else among all nodes (sites in parallel: independent, so deterministic). Lowest node on ties.
    ws.seedNode.assign(siteCount, kInvalidIndex);
    ws.seedKey.assign(siteCount, std::numeric_limits<Real>::infinity());
    if (!previous.empty())
    {
        for (Index v = 0; v < n; ++v)
        {
            const std::uint32_t s = previous[v];
            if (s >= siteCount)
                continue;
            const Real d = dist(s, v);
            if (d < ws.seedKey[s])
            {
                ws.seedKey[s] = d;
                ws.seedNode[s] = v;
            }
        }
    }
    ws.homeless.clear();
    for (std::size_t s = 0; s < siteCount; ++s)
        if (ws.seedNode[s] == kInvalidIndex)
            ws.homeless.push_back(std::uint32_t(s));
    parallelFor(ws.homeless.size(), threads,
                [&](std::size_t begin, std::size_t end)
                {
                    for (std::size_t h = begin; h < end; ++h)
                    {
                        const std::uint32_t s = ws.homeless[h];
                        for (Index v = 0; v < n; ++v)
                        {
                            const Real d = dist(s, v);
                            if (d < ws.seedKey[s])
                            {
                                ws.seedKey[s] = d;
                                ws.seedNode[s] = v;
                                if (d == 0)
                                    break; // a site on a node (seeding puts them there): nothing is nearer
                            }
                        }
                    }
                });

    Index degree = 0;
    for (Index v = 0; v < n; ++v)
        degree = std::max(degree, region.adjacencyOffsets[v + 1] - region.adjacencyOffsets[v]);
    ws.open.resize(degree);
    ws.key.assign(n, std::numeric_limits<Real>::infinity());
    ws.site.assign(n, kUnlabelled);
    ws.heap.clear();
    ws.heap.reserve(std::size_t(n) * 2);
    // ws.site[v] holds the site of v's best offer, with kLabelled set once v has taken it (one load
    // tells the neighbour loop both). A node is offered again only with a strictly smaller (key, site).
    // The key of a (site, node) pair is always the same distance, so an offer from the site the node
    // already holds is skipped before its distance is needed: most neighbours of a popped node were
    // offered its site by an earlier member of the same cell.
    auto offer = [&](Real key, std::uint32_t site, Index v)
    {
        if (key < ws.key[v] || (key == ws.key[v] && site < ws.site[v]))
        {
            ws.key[v] = key;
            ws.site[v] = site;
            heapPush(ws.heap, pack(key, site, v));
        }
    };
    auto drain = [&]
    {
        while (!ws.heap.empty())
        {
            const FloodHeapKey top = heapPop(ws.heap);
            const Index node = packedNode(top);
            if (ws.site[node] & kLabelled)
                continue;
            const std::uint32_t site = packedSite(top);
            ws.site[node] = site | kLabelled;
            // Two passes: the neighbours still open to an offer (whether one is varies from neighbour to
            // neighbour, too often for a branch to guess) are gathered without branches, in order.
            std::size_t open = 0;
            for (Index w : region.neighbors(node))
            {
                const std::uint32_t held = ws.site[w];
                ws.open[open] = w;
                open += (held != site) & !(held & kLabelled);
            }
            for (std::size_t i = 0; i < open; ++i)
                offer(dist(site, ws.open[i]), site, ws.open[i]);
        }
    };
    for (std::size_t s = 0; s < siteCount; ++s)
        offer(ws.seedKey[s], std::uint32_t(s), ws.seedNode[s]);
    drain();

    // Components of the region that hold no site's nearest node (possible after earlier fractures, when
    // a fragment's material connects through tets without its nodes): each is flooded from its node
    // nearest to any site, in order of that distance.
    std::vector<FloodEntry> starts;
    for (Index v = 0; v < n; ++v)
    {
        if (ws.site[v] & kLabelled)
            continue;
        FloodEntry e{std::numeric_limits<Real>::infinity(), 0, v};
        for (std::uint32_t s = 0; s < siteCount; ++s)
        {
            const Real d = dist(s, v);
            if (d < e.key)
            {
                e.key = d;
                e.site = s;
            }
        }
        starts.push_back(e);
    }
    std::sort(starts.begin(), starts.end(), before);
    for (const FloodEntry& e : starts)
    {
        if (ws.site[e.node] & kLabelled)
            continue;
        offer(e.key, e.site, e.node);
        drain();
    }
    labels.resize(n);
    for (Index v = 0; v < n; ++v)
        labels[v] = ws.site[v] & ~kLabelled;
}

} // namespace

void setFloodCoordinates(FloodWorkspace& ws, std::span<const Real> localCoords, int dimension)
{
    const std::size_t dim = std::size_t(dimension);
    SHATTER_ASSERT(dim > 0 && localCoords.size() % dim == 0);
    const std::size_t n = localCoords.size() / dim;
    ws.columns.resize(localCoords.size());
    for (std::size_t v = 0; v < n; ++v)
        for (std::size_t c = 0; c < dim; ++c)
            ws.columns[c * n + v] = localCoords[v * dim + c];
}

void floodLabels(const FragmentRegion& region, std::span<const Real> localCoords, int dimension,
                 std::span<const Real> sites, unsigned threads, std::span<const std::uint32_t> previous,
                 FloodWorkspace& ws, std::vector<std::uint32_t>& labels)
{
    const Index n = region.nodeCount();
    const std::size_t dim = std::size_t(dimension);
    SHATTER_ASSERT(localCoords.size() == dim * n && ws.columns.size() == localCoords.size());
    const std::size_t siteCount = sites.size() / dim;
    SHATTER_ASSERT(siteCount > 0 && siteCount < kUnlabelled && n > 0);
    SHATTER_ASSERT(previous.empty() || previous.size() == n);

    if (siteCount > kFloodTableSites)
    {
        flood(region, siteCount, threads, previous, ws, labels,
              [&](std::uint32_t s, Index v)
              { return squaredDistance(&localCoords[v * dim], &sites[std::size_t(s) * dim], dimension); });
        return;
    }
    // The table: per site, Σ_c (x_v,c − s_c)² accumulated over c in increasing order, the order
    // squaredDistance sums in, for kLanes nodes at a time in registers (a loop that vectorizes).
    constexpr std::size_t kLanes = 8;
    ws.table.resize(siteCount * n);
    for (std::size_t s = 0; s < siteCount; ++s)
    {
        const Real* site = &sites[s * dim];
        Real* row = &ws.table[s * n];
        std::size_t v = 0;
        for (; v + kLanes <= n; v += kLanes)
        {
            Real sum[kLanes] = {};
            for (std::size_t c = 0; c < dim; ++c)
            {
                const Real sc = site[c];
                const Real* column = &ws.columns[c * n + v];
                for (std::size_t j = 0; j < kLanes; ++j)
                {
                    const Real d = column[j] - sc;
                    sum[j] += d * d;
                }
            }
            for (std::size_t j = 0; j < kLanes; ++j)
                row[v + j] = sum[j];
        }
        for (; v < n; ++v)
            row[v] = squaredDistance(&localCoords[v * dim], site, dimension);
    }
    const Real* table = ws.table.data();
    flood(region, siteCount, threads, previous, ws, labels,
          [table, n](std::uint32_t s, Index v) { return table[std::size_t(s) * n + v]; });
}

std::vector<std::uint32_t> floodLabels(const FragmentRegion& region, std::span<const Real> localCoords,
                                       int dimension, std::span<const Real> sites, unsigned threads,
                                       std::span<const std::uint32_t> previous)
{
    FloodWorkspace workspace;
    setFloodCoordinates(workspace, localCoords, dimension);
    std::vector<std::uint32_t> labels;
    floodLabels(region, localCoords, dimension, sites, threads, previous, workspace, labels);
    return labels;
}

} // namespace shatter::fracture
