// Energy-weighted seeding (seeding.h). Sequential draws without replacement by a linear scan of the
// remaining weights: O(count · n), a few hundred thousand additions for 64 sites on 5,000 nodes, far
// below one Lloyd iteration, and free of any order-dependent data structure.
#include "seeding.h"

#include "shatter/error.h"

#include <cmath>
#include <string>

namespace shatter::fracture
{

std::vector<Index> sampleWeighted(std::span<const Real> weights, Index count, std::mt19937_64& rng)
{
    constexpr const char* kSource = "sampleWeighted";
    std::vector<Real> remaining(weights.begin(), weights.end());
    Index positive = 0;
    for (std::size_t i = 0; i < remaining.size(); ++i)
    {
        if (!std::isfinite(remaining[i]) || remaining[i] < 0)
            throw Error(kSource, "weight " + std::to_string(i) + " is not a finite non-negative number");
        positive += remaining[i] > 0 ? 1 : 0;
    }
    if (count > positive)
        throw Error(kSource, "cannot draw " + std::to_string(count) + " distinct sites from " +
                                 std::to_string(positive) + " nodes of positive weight");
    std::vector<Index> drawn;
    drawn.reserve(count);
    for (Index k = 0; k < count; ++k)
    {
        Real total = 0;
        for (Real w : remaining)
            total += w;
        // 53 random bits → u in [0, 1), the same on every platform.
        const Real u = Real(rng() >> 11) * 0x1.0p-53;
        const Real target = u * total;
        std::size_t pick = remaining.size();
        std::size_t lastPositive = remaining.size();
        Real sum = 0;
        for (std::size_t i = 0; i < remaining.size(); ++i)
        {
            if (remaining[i] <= 0)
                continue;
            lastPositive = i;
            sum += remaining[i];
            if (target < sum)
            {
                pick = i;
                break;
            }
        }
        if (pick == remaining.size())
            pick = lastPositive; // rounding: target landed at the very end of the sum
        SHATTER_ASSERT(pick < remaining.size());
        drawn.push_back(Index(pick));
        remaining[pick] = 0;
    }
    return drawn;
}

std::vector<Real> seedSites(std::span<const Real> localCoords, int dimension, std::span<const Real> weights,
                            Index count, std::uint64_t seed)
{
    const std::size_t dim = std::size_t(dimension);
    if (dimension <= 0 || localCoords.size() != dim * weights.size())
        throw Error("seedSites",
                    "coordinates do not hold " + std::to_string(dimension) + " reals per weight");
    std::mt19937_64 rng(seed);
    const std::vector<Index> nodes = sampleWeighted(weights, count, rng);
    std::vector<Real> sites;
    sites.reserve(dim * count);
    for (Index v : nodes)
        for (std::size_t c = 0; c < dim; ++c)
            sites.push_back(localCoords[std::size_t(v) * dim + c]);
    return sites;
}

} // namespace shatter::fracture
