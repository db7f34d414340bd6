// Farthest-point contact selection (contact_selection.h explains why).
#include "contact_selection.h"

#include <algorithm>
#include <limits>

namespace shatter
{

namespace
{

/// The candidate's class of the file comment: 0 kept from last step, 1 new, 2 speculative.
int rank(const SelectionCandidate& c)
{
    return c.speculative ? 2 : (c.persisted ? 0 : 1);
}

} // namespace

void selectSpreadContacts(std::span<const SelectionCandidate> candidates, Index keep,
                          std::vector<Index>& kept, std::vector<Real>& minDistance)
{
    kept.clear();
    const Index n = Index(candidates.size());
    if (n <= keep)
    {
        for (Index i = 0; i < n; ++i)
            kept.push_back(i);
        return;
    }
    if (keep == 0)
        return;

    // The deepest candidate of the first class.
    Index next = 0;
    for (Index i = 1; i < n; ++i)
    {
        const int r = rank(candidates[i]), best = rank(candidates[next]);
        if (r < best || (r == best && candidates[i].depth < candidates[next].depth))
            next = i;
    }

    // Farthest-point sampling within the first class that has candidates left: minDistance[i] is the
    // squared distance from i to the kept set (−1 once kept).
    minDistance.assign(n, std::numeric_limits<Real>::infinity());
    while (true)
    {
        kept.push_back(next);
        minDistance[next] = -1;
        if (Index(kept.size()) == keep)
            return;
        const Vec3& p = candidates[next].point;
        Real farthest = -1;
        int farthestRank = 3;
        for (Index i = 0; i < n; ++i)
        {
            if (minDistance[i] < 0)
                continue;
            minDistance[i] = std::min(minDistance[i], (candidates[i].point - p).squaredNorm());
            const int r = rank(candidates[i]);
            if (r < farthestRank || (r == farthestRank && minDistance[i] > farthest))
            {
                farthest = minDistance[i];
                farthestRank = r;
                next = i;
            }
        }
    }
}

} // namespace shatter
