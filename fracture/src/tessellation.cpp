// tessellate() (tessellation.h): checks the labelling, finds the parent's region, builds the adjusted
// values, tessellates the region tets in parallel with oneTBB (fixed chunks, merged in order:
// deterministic for any thread count), numbers the fragments, and fills the FractureResult.
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

namespace shatter::fracture
{

using namespace detail;

namespace
{

void checkInput(const ObjectState& state, const VoronoiLabelling& labels, const TessellationSettings& options)
{
    const char* source = "tessellate";
    if (!state.alive(labels.parent))
        throw Error(source,
                    "the labelling's parent " + std::to_string(labels.parent) + " is not a live fragment");
    if (labels.labels.size() != labels.nodes.size())
        throw Error(source, "the labelling needs one label per node");
    if (labels.dimension < 1 ||
        labels.nodeCoords.size() != labels.nodes.size() * std::size_t(labels.dimension) ||
        labels.siteCoords.size() != std::size_t(labels.siteCount) * std::size_t(labels.dimension))
        throw Error(source, "the labelling's coordinates do not match its dimension, nodes and sites");
    if (labels.nodes.size() != state.field().fragmentNodeCount(labels.parent))
        throw Error(source, "the labelling covers " + std::to_string(labels.nodes.size()) +
                                " nodes but fragment " + std::to_string(labels.parent) + " has " +
                                std::to_string(state.field().fragmentNodeCount(labels.parent)));
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
    {
        if (labels.nodes[i] >= state.asset().tetMesh.nodeCount() ||
            state.field().node(labels.nodes[i]).fragment != labels.parent)
            throw Error(source,
                        "labelling node " + std::to_string(labels.nodes[i]) + " is not a node of the parent");
        if (labels.labels[i] >= labels.siteCount)
            throw Error(source, "a label is not below siteCount");
    }
    for (Real v : labels.nodeCoords)
        if (!std::isfinite(v))
            throw Error(source, "non-finite node coordinate");
    for (Real v : labels.siteCoords)
        if (!std::isfinite(v))
            throw Error(source, "non-finite site coordinate");
    if (!(options.edgeMargin > 0 && options.edgeMargin < 0.5) || !(options.dipMargin >= 0) ||
        options.maxAdjustPasses < 1 || !(options.density > 0))
        throw Error(
            source,
            "bad TessellationSettings (edgeMargin in (0, 0.5), dipMargin ≥ 0, passes ≥ 1, density > 0)");
}

void findRegion(const ObjectState& state, const VoronoiLabelling& labels, Region& region)
{
    const TetMesh& mesh = state.asset().tetMesh;
    const FragmentField& field = state.field();
    region.nodeEntry.assign(mesh.nodeCount(), kInvalidIndex);
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
        region.nodeEntry[labels.nodes[i]] = Index(i);
    if (state.fragmentCount() == 1)
    {
        // The unbroken object: every tet, none cut yet.
        region.tets.resize(mesh.tetCount());
        std::iota(region.tets.begin(), region.tets.end(), Index(0));
        region.tetSlot = region.tets;
        region.precut.assign(mesh.tetCount(), 0);
    }
    else
    {
        region.tetSlot.assign(mesh.tetCount(), kInvalidIndex);
        std::vector<std::uint8_t> in(mesh.tetCount(), 0);
        for (Index node : labels.nodes)
            for (Index i = mesh.nodeTetOffsets[node]; i < mesh.nodeTetOffsets[node + 1]; ++i)
                in[mesh.nodeTets[i]] = 1;
        RegionRef ref;
        for (Index t = 0; t < mesh.tetCount(); ++t)
            if (!in[t] && field.isCut(t) && field.findRegion(t, labels.parent, ref))
                in[t] = 1;
        for (Index t = 0; t < mesh.tetCount(); ++t)
            if (in[t])
            {
                region.tetSlot[t] = Index(region.tets.size());
                region.tets.push_back(t);
                region.precut.push_back(field.isCut(t) ? 1 : 0);
            }
    }
    region.faces = tetFaces(state);
    const TetFaces& faces = *region.faces;
    region.acrossSlot.resize(region.tets.size());
    region.boundary.resize(region.tets.size());
    for (Index slot = 0; slot < region.tets.size(); ++slot)
    {
        const std::array<Index, 4>& across = faces.across[region.tets[slot]];
        std::uint8_t boundary = 0;
        for (int f = 0; f < 4; ++f)
        {
            const Index other = across[f];
            const Index otherSlot = other == kInvalidIndex ? kInvalidIndex : region.tetSlot[other];
            region.acrossSlot[slot][f] = otherSlot;
            if (other == kInvalidIndex)
                boundary |= std::uint8_t(1u << f);
            else if (otherSlot == kInvalidIndex)
                boundary |= std::uint8_t(0x10u << f);
        }
        region.boundary[slot] = boundary;
    }
}

// Pieces: the sites of each region tet's nodes (Region::nodeSite), increasing.
void buildPieces(const TetMesh& mesh, Region& region)
{
    region.pieceStart.assign(1, 0);
    region.pieceStart.reserve(region.tets.size() + 1);
    region.cut.reserve(region.tets.size());
    const std::size_t pieces = region.tets.size() + region.tets.size() / 4; // a guess: most tets are uncut
    region.pieceSite.reserve(pieces);
    region.pieceTouch.reserve(pieces);
    for (Index slot = 0; slot < region.tets.size(); ++slot)
    {
        const Tet& tet = mesh.tets[region.tets[slot]];
        std::array<std::uint32_t, 4> sites;
        int count = 0;
        for (int k = 0; k < 4; ++k)
        {
            const std::uint32_t s = region.nodeSite[tet[k]];
            if (std::find(sites.begin(), sites.begin() + count, s) == sites.begin() + count)
                sites[count++] = s;
        }
        for (int i = 1; i < count; ++i) // insertion sort (≤ 4 entries)
            for (int j = i; j > 0 && sites[j] < sites[j - 1]; --j)
                std::swap(sites[j], sites[j - 1]);
        const bool cut = region.precut[slot] || count >= 2;
        if (cut)
            region.cutSlots.push_back(slot);
        region.cut.push_back(cut ? 1 : 0);
        if (count == 0)
        {
            region.pieceSite.push_back(kNoSite);
            region.pieceTouch.push_back(0);
        }
        for (int i = 0; i < count; ++i)
        {
            region.pieceSite.push_back(sites[i]);
            std::uint8_t touch = 0;
            if (!cut)
                touch = 0xf; // the one piece of an uncut tet: every face
            else if (!region.precut[slot])
                for (int f = 0; f < 4; ++f)
                    for (int j : kTetFaces[f])
                        if (region.nodeSite[tet[j]] == sites[i])
                            touch |= std::uint8_t(1u << f);
            region.pieceTouch.push_back(std::uint8_t(touch | 0x80)); // bit 7: not empty
        }
        region.pieceStart.push_back(Index(region.pieceSite.size()));
    }
}

} // namespace

FractureResult tessellate(const ObjectState& state, const VoronoiLabelling& labels,
                          TessellationStats* statsOut, const TessellationSettings& options)
{
    const auto start = std::chrono::steady_clock::now();
    checkInput(state, labels, options);
    TessellationStats stats;
    const TetMesh& mesh = state.asset().tetMesh;

    Region region;
    findRegion(state, labels, region);
    stats.regionTets = Index(region.tets.size());
    for (std::uint8_t p : region.precut)
        (p ? stats.precutTets : stats.wholeTets)++;

    assignNodeSites(state, labels, options, region);
    buildPieces(mesh, region);

    ValueTable table;
    const TessContext ctx{state, labels, options, region, table, mesh.nodes};
    buildValueTable(ctx, table, stats);

    // Geometry of the cut tets, in runs of consecutive cut tets: one run on one thread (every repeated
    // vertex found in one map), a few per worker otherwise. The merge numbers vertices by first use in
    // region order and every position depends only on its key, so the result does not depend on the
    // runs. The other region tets lie wholly in one piece: their boundary faces are added when the
    // meshes are assembled.
    const Index cutCount = Index(region.cutSlots.size());
    const unsigned workers =
        options.threads == 0 ? unsigned(tbb::info::default_concurrency()) : options.threads;
    const Index chunkCount = workers <= 1 || cutCount < options.parallelCutTets ? std::min<Index>(cutCount, 1)
                                                                                : Index(4 * workers);
    std::vector<ChunkOutput> chunks(chunkCount);
    for (Index c = 0; c < chunkCount; ++c)
        chunks[c].slots.assign(region.cutSlots.begin() + std::size_t(cutCount) * c / chunkCount,
                               region.cutSlots.begin() + std::size_t(cutCount) * (c + 1) / chunkCount);
    std::vector<std::uint8_t> touch(region.pieceTouch);
    // oneTBB over the chunks; each chunk writes only its own output and its own tets' pieces, and
    // the chunks are merged in order, so the result does not depend on the thread count.
    auto emitChunks = [&](const tbb::blocked_range<std::size_t>& range)
    {
        for (std::size_t c = range.begin(); c < range.end(); ++c)
        {
            ChunkOutput& out = chunks[c];
            for (Index slot : out.slots)
            {
                out.beginTet(mesh.tets[region.tets[slot]]);
                if (region.precut[slot])
                    emitPrecutTet(ctx, slot, out, touch);
                else
                    emitWholeTet(ctx, slot, out);
                out.endTet();
            }
        }
    };
    if (chunkCount <= 1)
        emitChunks(tbb::blocked_range<std::size_t>(0, chunkCount));
    else
    {
        tbb::task_arena arena(options.threads == 0 ? tbb::task_arena::automatic : int(options.threads));
        arena.execute([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunkCount), emitChunks); });
    }
    region.pieceTouch = std::move(touch);
    for (const ChunkOutput& c : chunks)
        for (int s = 0; s < 4; ++s)
            stats.schemes[s] += c.schemes[s];
    // Slivers (no parent node) are tets cut earlier: a tet first cut now holds a parent node.
    for (Index slot : region.cutSlots)
    {
        bool parentNode = false;
        for (Index n : mesh.tets[region.tets[slot]])
            parentNode |= region.nodeEntry[n] != kInvalidIndex;
        stats.slivers += !parentNode;
    }

    std::vector<Index> pieceFragment;
    const Index fragmentCount = pieceComponents(region, mesh, pieceFragment);
    if (fragmentCount < 2)
        throw Error("tessellate", "the labelling of fragment " + std::to_string(labels.parent) +
                                      " does not split it (one connected piece)");

    FractureResult result;
    result.parent = labels.parent;
    const FragmentId first = state.fragmentCount();
    for (Index f = 0; f < fragmentCount; ++f)
        result.fragments.push_back(first + f);
    auto pieceOf = [&](Index slot, std::uint32_t site)
    {
        for (Index p = region.pieceStart[slot]; p < region.pieceStart[slot + 1]; ++p)
            if (region.pieceSite[p] == site)
                return p;
        SHATTER_ASSERT(false, "a tet lacks the piece of its node's site");
        return region.pieceStart[slot];
    };
    result.nodes = labels.nodes;
    result.nodeFragments.resize(labels.nodes.size());
    for (std::size_t i = 0; i < labels.nodes.size(); ++i)
    {
        const Index node = labels.nodes[i];
        Index fragment = kInvalidIndex;
        for (Index j = mesh.nodeTetOffsets[node];
             j < mesh.nodeTetOffsets[node + 1] && fragment == kInvalidIndex; ++j)
            fragment = pieceFragment[pieceOf(region.tetSlot[mesh.nodeTets[j]], labels.labels[i])];
        SHATTER_ASSERT(fragment != kInvalidIndex, "a parent node in no non-empty piece");
        result.nodeFragments[i] = first + fragment;
    }

    // Records: every tet with two or more pieces, and one-piece records for slivers (all cut tets).
    for (Index slot : region.cutSlots)
    {
        const Index begin = region.pieceStart[slot], count = region.pieceStart[slot + 1] - begin;
        const Tet& tet = mesh.tets[region.tets[slot]];
        bool parentNode = false;
        for (Index n : tet)
            parentNode |= region.nodeEntry[n] != kInvalidIndex;
        // One-piece record: part of the parent without any of its nodes (apply() needs to be told).
        if (count < 2 && parentNode)
            continue;
        const bool sliver = region.pieceSite[begin] == kNoSite;
        CutTetRecord rec;
        rec.tet = region.tets[slot];
        rec.count = std::uint8_t(count);
        int used = 0;
        for (Index i = 0; i < count; ++i)
        {
            if (pieceFragment[begin + i] == kInvalidIndex)
                continue; // empty inside the parent's piece
            rec.fragments[used] = first + pieceFragment[begin + i];
            if (!sliver)
                for (int k = 0; k < 4; ++k)
                    rec.values[used][k] = table.value(tet[k], region.pieceSite[begin + i]);
            ++used;
        }
        rec.count = std::uint8_t(used);
        if (used == 0 || (used < 2 && parentNode))
            continue;
        result.cutTets.push_back(rec);
    }

    // Cut edges: parent edges whose nodes carry different sites (each crossed once, see values file);
    // their tets have two or more pieces, so they are cut tets.
    std::vector<std::array<Index, 2>> edges;
    std::vector<std::uint8_t> edgeSeen(mesh.neighbors.size(), 0);
    for (Index slot : region.cutSlots)
    {
        const Tet& tet = mesh.tets[region.tets[slot]];
        for (const auto& e : kTetEdges)
        {
            Index a = tet[e[0]], b = tet[e[1]];
            const Index ea = region.nodeEntry[a], eb = region.nodeEntry[b];
            if (ea == kInvalidIndex || eb == kInvalidIndex || labels.labels[ea] == labels.labels[eb])
                continue;
            if (a > b)
                std::swap(a, b);
            // Each edge once (it is in every tet around it): flagged at its entry in a's neighbours.
            Index i = mesh.neighborOffsets[a];
            while (mesh.neighbors[i] != b)
                ++i;
            if (edgeSeen[i])
                continue;
            edgeSeen[i] = 1;
            edges.push_back({a, b});
        }
    }
    std::sort(edges.begin(), edges.end());
    for (const auto& e : edges)
    {
        const Index i0 = region.nodeEntry[e[0]], i1 = region.nodeEntry[e[1]];
        const std::uint32_t a = labels.labels[i0], b = labels.labels[i1];
        const Real d0 = table.value(e[0], a) - table.value(e[0], b),
                   d1 = table.value(e[1], a) - table.value(e[1], b);
        CutEdge cut;
        cut.node0 = e[0];
        cut.node1 = e[1];
        cut.t = std::clamp(d0 / (d0 - d1), options.edgeMargin * 0.5, 1 - options.edgeMargin * 0.5);
        cut.fragment0 = result.nodeFragments[i0];
        cut.fragment1 = result.nodeFragments[i1];
        result.cutEdges.push_back(cut);
    }

    assembleMeshes(ctx, chunks, pieceFragment, fragmentCount, result, stats);
    for (Index f = 0; f < fragmentCount; ++f)
        stats.mass.push_back(computeMassProperties(result.meshes[f]->surface, options.density,
                                                   "fragment " + std::to_string(first + f)));
    stats.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (statsOut)
        *statsOut = std::move(stats);
    return result;
}

} // namespace shatter::fracture
