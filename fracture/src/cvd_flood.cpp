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
#include <limits>
#include <queue>
#include <tuple>

namespace shatter::fracture
{
namespace
{

constexpr std::uint32_t kUnlabelled = std::numeric_limits<std::uint32_t>::max();

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

struct HeapEntry
{
    Real key;           // squared metric distance from the node to the site
    std::uint32_t site; // the site whose cell would take the node
    Index node;         // local node

    bool operator>(const HeapEntry& o) const
    {
        return std::tie(key, site, node) > std::tie(o.key, o.site, o.node);
    }
};

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

std::vector<std::uint32_t> floodLabels(const FragmentRegion& region, std::span<const Real> localCoords,
                                       int dimension, std::span<const Real> sites, unsigned threads,
                                       std::span<const std::uint32_t> previous)
{
    const Index n = region.nodeCount();
    const std::size_t dim = std::size_t(dimension);
    SHATTER_ASSERT(localCoords.size() == dim * n);
    const std::size_t siteCount = sites.size() / dim;
    SHATTER_ASSERT(siteCount > 0 && n > 0);
    SHATTER_ASSERT(previous.empty() || previous.size() == n);

    // Each site's start node: its nearest node among those `previous` gives it (one pass over the
    // nodes), else among all nodes (sites in parallel: independent, so deterministic). Lowest node on ties.
    std::vector<Index> seedNode(siteCount, kInvalidIndex);
    std::vector<Real> seedKey(siteCount, std::numeric_limits<Real>::infinity());
    if (!previous.empty())
    {
        for (Index v = 0; v < n; ++v)
        {
            const std::uint32_t s = previous[v];
            if (s >= siteCount)
                continue;
            const Real d = squaredDistance(&localCoords[v * dim], &sites[s * dim], dimension);
            if (d < seedKey[s])
            {
                seedKey[s] = d;
                seedNode[s] = v;
            }
        }
    }
    std::vector<std::uint32_t> homeless;
    for (std::size_t s = 0; s < siteCount; ++s)
        if (seedNode[s] == kInvalidIndex)
            homeless.push_back(std::uint32_t(s));
    parallelFor(homeless.size(), threads,
                [&](std::size_t begin, std::size_t end)
                {
                    for (std::size_t h = begin; h < end; ++h)
                    {
                        const std::size_t s = homeless[h];
                        for (Index v = 0; v < n; ++v)
                        {
                            const Real d = squaredDistance(&localCoords[v * dim], &sites[s * dim], dimension);
                            if (d < seedKey[s])
                            {
                                seedKey[s] = d;
                                seedNode[s] = v;
                            }
                        }
                    }
                });

    std::vector<std::uint32_t> labels(n, kUnlabelled);
    std::vector<Real> bestKey(n, std::numeric_limits<Real>::infinity());
    std::vector<std::uint32_t> bestSite(n, kUnlabelled);
    std::vector<HeapEntry> storage;
    storage.reserve(std::size_t(n) * 2);
    std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap(std::greater<>(),
                                                                                std::move(storage));
    auto offer = [&](Real key, std::uint32_t site, Index v)
    {
        if (key < bestKey[v] || (key == bestKey[v] && site < bestSite[v]))
        {
            bestKey[v] = key;
            bestSite[v] = site;
            heap.push({key, site, v});
        }
    };
    auto flood = [&]
    {
        while (!heap.empty())
        {
            const HeapEntry top = heap.top();
            heap.pop();
            if (labels[top.node] != kUnlabelled)
                continue;
            labels[top.node] = top.site;
            const Real* site = &sites[std::size_t(top.site) * dim];
            for (Index w : region.neighbors(top.node))
                if (labels[w] == kUnlabelled)
                    offer(squaredDistance(&localCoords[w * dim], site, dimension), top.site, w);
        }
    };
    for (std::size_t s = 0; s < siteCount; ++s)
        offer(seedKey[s], std::uint32_t(s), seedNode[s]);
    flood();

    // Components of the region that hold no site's nearest node (possible after earlier fractures, when
    // a fragment's material connects through tets without its nodes): each is flooded from its node
    // nearest to any site, in order of that distance.
    std::vector<Index> missing;
    for (Index v = 0; v < n; ++v)
        if (labels[v] == kUnlabelled)
            missing.push_back(v);
    if (missing.empty())
        return labels;
    std::vector<HeapEntry> starts;
    starts.reserve(missing.size());
    for (Index v : missing)
    {
        HeapEntry e{std::numeric_limits<Real>::infinity(), 0, v};
        for (std::size_t s = 0; s < siteCount; ++s)
        {
            const Real d = squaredDistance(&localCoords[v * dim], &sites[s * dim], dimension);
            if (d < e.key)
            {
                e.key = d;
                e.site = std::uint32_t(s);
            }
        }
        starts.push_back(e);
    }
    std::sort(starts.begin(), starts.end(), [](const HeapEntry& a, const HeapEntry& b) { return b > a; });
    for (const HeapEntry& e : starts)
    {
        if (labels[e.node] != kUnlabelled)
            continue;
        offer(e.key, e.site, e.node);
        flood();
    }
    return labels;
}

} // namespace shatter::fracture
