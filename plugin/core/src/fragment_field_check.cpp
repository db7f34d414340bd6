// Validation of a FractureResult against the field before anything changes (bad input is a
// shatter::Error, never an assert: a caller can recover from it). Everything here is proportional to
// the parent's region.
#include "fragment_field.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace shatter
{

namespace
{

[[noreturn]] void fail(const std::string& problem)
{
    throw Error("FractureResult", problem);
}

std::string str(std::uint64_t v)
{
    return std::to_string(v);
}

} // namespace

void FragmentField::check(const FractureResult& result)
{
    const FragmentId parent = result.parent;
    if (parent >= nodeCounts.size())
        fail("parent " + str(parent) + " does not exist (the object has " + str(nodeCounts.size()) +
             " fragments)");
    if (result.fragments.size() < 2)
        fail("a fracture of fragment " + str(parent) + " must create at least two fragments");
    const FragmentId first = FragmentId(nodeCounts.size());
    for (std::size_t i = 0; i < result.fragments.size(); ++i)
        if (result.fragments[i] != first + i)
            fail("new fragment ids must be the next free ids " + str(first) + ", " + str(first + 1) +
                 ", ... in order; entry " + str(i) + " is " + str(result.fragments[i]));
    const FragmentId count = FragmentId(result.fragments.size());
    auto isNew = [&](FragmentId f)
    {
        return f >= first && f - first < count;
    };

    ++epoch;
    usedFragments.assign(count, 0);

    // Node labels: exactly the parent's nodes, once each, each to a new fragment.
    if (result.nodes.size() != result.nodeFragments.size())
        fail("nodes and nodeFragments differ in length");
    for (std::size_t i = 0; i < result.nodes.size(); ++i)
    {
        const Index node = result.nodes[i];
        if (node >= nodes.size())
            fail("node " + str(node) + " is out of range");
        if (nodes[node].fragment != parent)
            fail("node " + str(node) + " belongs to fragment " + str(nodes[node].fragment) +
                 ", not to the parent " + str(parent));
        if (nodeStamp[node] == epoch)
            fail("node " + str(node) + " is listed twice");
        nodeStamp[node] = epoch;
        const FragmentId label = result.nodeFragments[i];
        if (!isNew(label))
            fail("node " + str(node) + " is labelled " + str(label) + ", which is not a new fragment");
        nodeLabel[node] = label;
        usedFragments[label - first] = 1;
    }
    if (result.nodes.size() != nodeCounts[parent])
        fail("the result labels " + str(result.nodes.size()) + " nodes but fragment " + str(parent) +
             " has " + str(nodeCounts[parent]));

    // Cut records: valid, in tets holding part of the parent, consistent with the node labels.
    for (std::size_t j = 0; j < result.cutTets.size(); ++j)
    {
        const CutTetRecord& rec = result.cutTets[j];
        const Index t = rec.tet;
        if (t >= tetRecords.size())
            fail("cut tet " + str(t) + " is out of range");
        if (tetStamp[t] == epoch)
            fail("tet " + str(t) + " has two cut records");
        tetStamp[t] = epoch;
        tetSlot[t] = Index(j);
        if (rec.count < 1 || rec.count > 4)
            fail("the record of tet " + str(t) + " has " + str(rec.count) + " pieces (1..4 allowed)");
        for (int i = 0; i < rec.count; ++i)
        {
            if (!isNew(rec.fragments[i]))
                fail("the record of tet " + str(t) + " names fragment " + str(rec.fragments[i]) +
                     ", which is not a new fragment");
            for (int h = 0; h < i; ++h)
                if (rec.fragments[h] == rec.fragments[i])
                    fail("the record of tet " + str(t) + " names fragment " + str(rec.fragments[i]) +
                         " twice");
            for (Real v : rec.values[i])
                if (!std::isfinite(v))
                    fail("the record of tet " + str(t) + " has a non-finite value");
            usedFragments[rec.fragments[i] - first] = 1;
        }
        const Tet& tet = tetMesh->tets[t];
        bool hasParentNode = false;
        for (int k = 0; k < 4; ++k)
            hasParentNode |= nodeStamp[tet[k]] == epoch;
        RegionRef region;
        if (!hasParentNode && !findRegion(t, parent, region))
            fail("tet " + str(t) + " has a cut record but no part of fragment " + str(parent));
        for (int k = 0; k < 4; ++k)
        {
            const Index node = tet[k];
            if (nodeStamp[node] != epoch)
                continue;
            const FragmentId label = nodeLabel[node];
            int slot = -1;
            Real smallest = std::numeric_limits<Real>::infinity();
            Real scale = 0;
            for (int i = 0; i < rec.count; ++i)
            {
                if (rec.fragments[i] == label)
                    slot = i;
                smallest = std::min(smallest, rec.values[i][k]);
                scale = std::max(scale, std::abs(rec.values[i][k]));
            }
            if (slot < 0)
                fail("node " + str(node) + " of tet " + str(t) + " is labelled " + str(label) +
                     ", which the tet's record does not list");
            if (rec.values[slot][k] > smallest + Real(1e-12) * scale)
                fail("at node " + str(node) + " of tet " + str(t) + " the function of its fragment " +
                     str(label) + " is not the smallest of the record");
        }
    }

    // Every tet holding part of the parent: through the parent's nodes, or as a record piece.
    regionTetList.clear();
    auto addRegionTet = [&](Index t)
    {
        if (regionStamp[t] != epoch)
        {
            regionStamp[t] = epoch;
            regionTetList.push_back(t);
        }
    };
    if (nodeCounts[parent] == nodes.size() && pieceTets[parent].empty())
    {
        // The parent holds every node and no record piece (an object's first break): every tet, and
        // each once, without walking the nodes' tets.
        regionTetList.resize(tetRecords.size());
        std::iota(regionTetList.begin(), regionTetList.end(), Index(0));
    }
    else
    {
        for (Index node : result.nodes)
            for (Index i = tetMesh->nodeTetOffsets[node]; i < tetMesh->nodeTetOffsets[node + 1]; ++i)
                addRegionTet(tetMesh->nodeTets[i]);
        for (Index t : pieceTets[parent])
            addRegionTet(t);
    }
    for (Index t : regionTetList)
    {
        if (tetStamp[t] == epoch)
            continue;
        FragmentId label = kNoFragment;
        for (Index node : tetMesh->tets[t])
        {
            if (nodeStamp[node] != epoch)
                continue;
            if (label == kNoFragment)
                label = nodeLabel[node];
            else if (label != nodeLabel[node])
                fail("tet " + str(t) + " has no cut record, but its nodes of fragment " + str(parent) +
                     " are labelled " + str(label) + " and " + str(nodeLabel[node]));
        }
        if (label == kNoFragment)
            fail("tet " + str(t) + " holds part of fragment " + str(parent) +
                 " but none of its nodes: the result needs a one-piece record naming the new fragment of "
                 "that part");
        tetSlot[t] = label; // apply() reads it back
    }

    for (FragmentId i = 0; i < count; ++i)
        if (!usedFragments[i])
            fail("new fragment " + str(first + i) + " has neither nodes nor record pieces");

    for (const CutEdge& e : result.cutEdges)
    {
        if (!(e.node0 < e.node1 && e.node1 < nodes.size()))
            fail("cut edge (" + str(e.node0) + ", " + str(e.node1) + ") is not an ordered pair of nodes");
        if (!(e.t > 0 && e.t < 1))
            fail("cut edge (" + str(e.node0) + ", " + str(e.node1) + ") has t outside (0, 1)");
        if (!isNew(e.fragment0) || !isNew(e.fragment1))
            fail("cut edge (" + str(e.node0) + ", " + str(e.node1) + ") names a fragment that is not new");
    }
}

} // namespace shatter
