// Fragments as connected components (CVD §5): pieces (tet, site) of the parent
// region are joined across a shared tet face when both touch it with positive area and carry the same
// site. A Voronoi cell that falls apart (a concave object with a Euclidean metric) therefore gives
// several fragments. Ids follow the first piece of each component in region order (tets increasing),
// so they are deterministic. Empty pieces (a site of another fragment's node whose cell misses the
// parent's piece, tessellation_region.cpp) get no fragment. A siteless piece (kNoSite; not produced at
// present, kept as a safety net) joins the lowest adjacent piece it touches — only one, so it never
// merges two components.
#include "tessellation_detail.h"

#include <algorithm>
#include <numeric>

namespace shatter::fracture::detail
{

namespace
{

Index findRoot(std::vector<Index>& up, Index i)
{
    while (up[i] != i)
    {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

// Joins the sets of a and b; the root with the lower index stays root (shallow trees in region order).
void unite(std::vector<Index>& up, Index a, Index b)
{
    const Index ra = findRoot(up, a), rb = findRoot(up, b);
    if (ra < rb)
        up[rb] = ra;
    else
        up[ra] = rb;
}

} // namespace

Index pieceComponents(const Region& region, const TetMesh& /*mesh*/, std::vector<Index>& pieceFragment)
{
    const Index pieces = Index(region.pieceSite.size());
    std::vector<Index> up(pieces);
    std::iota(up.begin(), up.end(), Index(0));
    std::vector<std::pair<Index, Index>> sliverLinks; // (sliver piece, lowest neighbour piece)
    // Pieces of two tets touching across face f of `slot` (one of them cut) join when both touch that
    // face with positive area and carry the same site.
    auto linkAcross = [&](Index slot, int f, Index oslot)
    {
        const int g = region.faces->acrossFace[region.tets[slot]][f];
        if (g < 0)
            return;
        for (Index p = region.pieceStart[slot]; p < region.pieceStart[slot + 1]; ++p)
        {
            if (!(region.pieceTouch[p] & (1u << f)) || !(region.pieceTouch[p] & 0x80))
                continue;
            for (Index q = region.pieceStart[oslot]; q < region.pieceStart[oslot + 1]; ++q)
            {
                if (!(region.pieceTouch[q] & (1u << g)))
                    continue;
                const bool sliverP = region.pieceSite[p] == kNoSite, sliverQ = region.pieceSite[q] == kNoSite;
                if (sliverP || sliverQ)
                {
                    if (sliverP && !sliverQ)
                        sliverLinks.emplace_back(p, q);
                    continue;
                }
                if (region.pieceSite[p] == region.pieceSite[q])
                    unite(up, p, q);
            }
        }
    };
    const Index tetCount = Index(region.tets.size());
    for (Index slot = 0; slot < tetCount; ++slot)
    {
        const std::array<Index, 4>& across = region.acrossSlot[slot];
        if (region.cut[slot])
        {
            for (int f = 0; f < 4; ++f)
                if (across[f] != kInvalidIndex)
                    linkAcross(slot, f, across[f]);
            continue;
        }
        // An uncut tet is one piece touching all its faces; so is an uncut neighbour, of the same site
        // (three shared nodes). Each such pair is joined once, from the higher tet.
        const Index piece = region.pieceStart[slot];
        for (int f = 0; f < 4; ++f)
        {
            const Index other = across[f];
            if (other == kInvalidIndex)
                continue;
            if (region.cut[other])
                linkAcross(slot, f, other);
            else if (other < slot)
                unite(up, piece, region.pieceStart[other]);
        }
    }
    std::sort(sliverLinks.begin(), sliverLinks.end());
    for (std::size_t i = 0; i < sliverLinks.size(); ++i)
        if (i == 0 || sliverLinks[i].first != sliverLinks[i - 1].first)
            unite(up, sliverLinks[i].first, sliverLinks[i].second);

    pieceFragment.assign(pieces, kInvalidIndex);
    std::vector<Index> rootFragment(pieces, kInvalidIndex);
    Index count = 0;
    for (Index p = 0; p < pieces; ++p)
    {
        if (!(region.pieceTouch[p] & 0x80))
            continue; // empty piece: no fragment
        const Index r = findRoot(up, p);
        if (rootFragment[r] == kInvalidIndex)
            rootFragment[r] = count++;
        pieceFragment[p] = rootFragment[r];
    }
    return count;
}

} // namespace shatter::fracture::detail
