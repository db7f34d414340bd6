// Small measurements on a labelling of a region's nodes: the metric coordinates per local node, the
// distance-weighted energy per cell (the discrete CVD eq. 1) and the connected components of each label
// (what a fragment is made of, and what the interior metric is meant to keep at one, CVD §3.2).
#include "cvd.h"

#include "shatter/error.h"

#include <string>

namespace shatter::fracture
{

std::vector<Real> gatherRegionCoords(const FragmentRegion& region, std::span<const Real> coords,
                                     int dimension)
{
    if (dimension <= 0)
        throw Error("metric coordinates", "dimension must be positive, got " + std::to_string(dimension));
    const std::size_t dim = std::size_t(dimension);
    const std::size_t n = region.nodes.size();
    if (coords.size() == dim * n)
        return {coords.begin(), coords.end()};
    const Index maxNode = region.nodes.empty() ? 0 : region.nodes.back();
    if (coords.size() % dim != 0 || coords.size() / dim <= maxNode)
        throw Error("metric coordinates", std::to_string(coords.size()) + " reals are neither " +
                                              std::to_string(dimension) +
                                              " per region node nor per asset node");
    std::vector<Real> local(dim * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < dim; ++c)
            local[i * dim + c] = coords[std::size_t(region.nodes[i]) * dim + c];
    return local;
}

std::vector<Real> cellEnergies(std::span<const Real> localCoords, int dimension,
                               std::span<const Real> weights, std::span<const std::uint32_t> labels,
                               std::span<const Real> sites)
{
    const std::size_t dim = std::size_t(dimension);
    SHATTER_ASSERT(labels.size() == weights.size() && localCoords.size() == dim * labels.size());
    std::vector<Real> energy(sites.size() / dim, 0);
    for (std::size_t v = 0; v < labels.size(); ++v)
    {
        SHATTER_ASSERT(labels[v] < energy.size());
        Real d2 = 0;
        for (std::size_t c = 0; c < dim; ++c)
        {
            const Real d = localCoords[v * dim + c] - sites[labels[v] * dim + c];
            d2 += d * d;
        }
        energy[labels[v]] += weights[v] * d2;
    }
    return energy;
}

std::vector<Index> labelComponentCounts(const FragmentRegion& region, std::span<const std::uint32_t> labels,
                                        std::uint32_t labelCount)
{
    const Index n = region.nodeCount();
    SHATTER_ASSERT(labels.size() == n);
    std::vector<Index> counts(labelCount, 0);
    std::vector<std::uint8_t> seen(n, 0);
    std::vector<Index> stack;
    for (Index start = 0; start < n; ++start)
    {
        if (seen[start])
            continue;
        const std::uint32_t label = labels[start];
        SHATTER_ASSERT(label < labelCount);
        ++counts[label];
        seen[start] = 1;
        stack.push_back(start);
        while (!stack.empty())
        {
            const Index v = stack.back();
            stack.pop_back();
            for (Index w : region.neighbors(v))
            {
                if (!seen[w] && labels[w] == label)
                {
                    seen[w] = 1;
                    stack.push_back(w);
                }
            }
        }
    }
    return counts;
}

} // namespace shatter::fracture
