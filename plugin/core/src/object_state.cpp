// ObjectState construction (and makeObjectState, its public entry point in shatter/asset.h) and
// fracture application. The queries are in object_state_query.cpp.
#include "object_state.h"

#include "shatter/error.h"

#include <algorithm>
#include <string>

namespace shatter
{

std::shared_ptr<ObjectState> makeObjectState(std::shared_ptr<const Asset> asset)
{
    if (!asset)
        throw Error("makeObjectState", "needs an asset, got a null pointer");
    return std::make_shared<ObjectState>(std::move(asset));
}

ObjectState::ObjectState(std::shared_ptr<const Asset> asset, const ObjectStateSettings& objectSettings)
    : sharedAsset(std::move(asset)), settings(objectSettings)
{
    if (!sharedAsset)
        throw Error("ObjectState", "needs an asset");
    if (!(settings.sphereTestMargin >= 0))
        throw Error("ObjectStateSettings", "sphereTestMargin must be >= 0");
    const Asset& a = *sharedAsset;
    const std::string source = a.name.empty() ? std::string("<asset>") : a.name;
    if (a.tetMesh.tets.empty())
        throw Error(source, "the asset has no tets");
    meanEdge = a.tetMesh.meanEdgeLength();
    tetMargin.resize(a.tetMesh.tetCount());
    for (Index t = 0; t < a.tetMesh.tetCount(); ++t)
    {
        Real longest = 0;
        for (const auto& e : kTetEdges)
            longest = std::max(
                longest,
                (a.tetMesh.nodes[a.tetMesh.tets[t][e[0]]] - a.tetMesh.nodes[a.tetMesh.tets[t][e[1]]]).norm());
        tetMargin[t] = float(settings.sphereTestMargin * longest);
    }
    tetLocator = a.locator && settings.locator == TetLocatorSettings{}
                     ? a.locator
                     : std::make_shared<const TetLocator>(a.tetMesh, settings.locator);
    fieldData = FragmentField(a.tetMesh, a.nodeDistance, a.nodeDirection);
    forest = SphereForest(a);

    Aabb bounds;
    for (const Vec3& p : a.tetMesh.nodes)
        bounds.grow(p);
    fragmentGrid = MultilevelGrid(bounds, settings.grid.cellFactor * meanEdge, settings.grid);
    fragmentList.push_back({bounds, kNoFragment, true});
    meshes.push_back(std::make_shared<const FragmentMesh>(FragmentMesh{a.surface, {}}));
    auto cells = std::make_shared<std::vector<CellRange>>(a.tetMesh.tetCount());
    for (Index t = 0; t < a.tetMesh.tetCount(); ++t)
    {
        bool fits = true;
        CellRange& range = (*cells)[t];
        range = fragmentGrid.cellRange(tetBox(t), fits);
        if (!fits)
            range.lo[0] = kInvalidIndex;
    }
    tetCells = std::move(cells);
    for (Index t = 0; t < a.tetMesh.tetCount(); ++t)
        markTet(t, 0);
    const FragmentId zero = 0;
    fragmentGrid.propagate(dirtyScratch, std::span<const FragmentId>(&zero, 1));
}

Aabb ObjectState::tetBox(Index t) const
{
    const TetMesh& mesh = sharedAsset->tetMesh;
    Aabb box;
    for (Index n : mesh.tets[t])
        box.grow(mesh.nodes[n]);
    return box;
}

void ObjectState::markTet(Index t, FragmentId f)
{
    const CellRange& range = (*tetCells)[t];
    if (range.lo[0] == kInvalidIndex)
        fragmentGrid.mark(tetBox(t), f, dirtyScratch);
    else
        fragmentGrid.mark(range, f, dirtyScratch);
}

std::vector<FragmentId> ObjectState::liveFragments() const
{
    std::vector<FragmentId> live;
    for (FragmentId f = 0; f < fragmentCount(); ++f)
        if (fragmentList[f].alive)
            live.push_back(f);
    return live;
}

void ObjectState::apply(const FractureResult& result, FieldUpdateReport* report,
                        ForestUpdateReport* forestReport)
{
    if (result.parent >= fragmentCount())
        throw Error("FractureResult", "parent " + std::to_string(result.parent) + " does not exist");
    if (!fragmentList[result.parent].alive)
        throw Error("FractureResult", "parent " + std::to_string(result.parent) + " has already broken");
    // The forest and the field check everything else (ids, node labels, records, cut edges) before
    // either changes anything, so a malformed result leaves the whole state as it was.
    if (!result.meshes.empty() && result.meshes.size() != result.fragments.size())
        throw Error("FractureResult", std::to_string(result.meshes.size()) + " meshes for " +
                                          std::to_string(result.fragments.size()) + " fragments");
    for (const auto& mesh : result.meshes)
        if (!mesh)
            throw Error("FractureResult", "a fragment mesh is missing (null)");
    forest.check(result, sharedAsset->tetMesh);
    boxScratch.clear();
    wholeTetScratch.clear();
    fieldData.apply(result, boxScratch, wholeTetScratch, report);

    const FragmentId parent = result.parent;
    fragmentList[parent].alive = false;
    for (std::size_t i = 0; i < result.fragments.size(); ++i)
    {
        fragmentList.push_back({Aabb{}, parent, true});
        meshes.push_back(result.meshes.empty() ? nullptr : result.meshes[i]);
    }
    // Bounds and grid masks (TVCG §4.5), in one pass over the new fragments' regions: mark them at
    // the finest level, then update the coarser levels bottom-up. The parent's bits stay (it is dead;
    // sphereTest never asks for it).
    fragmentGrid.reserveFragments(fragmentCount());
    dirtyScratch.clear();
    for (const RegionBox& r : boxScratch)
    {
        fragmentList[r.fragment].bounds.grow(r.box);
        fragmentGrid.mark(r.box, r.fragment, dirtyScratch);
    }
    // A tet never cut has all four nodes in one fragment, so the corners of a new fragment's uncut tets
    // are its nodes; and each of its nodes lies in its region (in an uncut tet, or in the box of its
    // piece of a cut one). Its bounds are therefore its nodes plus its pieces' boxes, without reading
    // the corners of every uncut tet. Tets cut before that now go whole to a fragment add their corners.
    const TetMesh& mesh = sharedAsset->tetMesh;
    for (std::size_t i = 0; i < result.nodes.size(); ++i)
        fragmentList[result.nodeFragments[i]].bounds.grow(mesh.nodes[result.nodes[i]]);
    const std::vector<CellRange>& cells = *tetCells;
    const CellRange* previous = nullptr; // neighbouring tets often overlap the same cells
    FragmentId previousFragment = kNoFragment;
    for (const RegionTet& r : wholeTetScratch)
    {
        if (fieldData.isCut(r.tet))
            for (Index n : mesh.tets[r.tet])
                fragmentList[r.fragment].bounds.grow(mesh.nodes[n]);
        const CellRange& range = cells[r.tet];
        if (previous && !range.empty() && r.fragment == previousFragment && range.lo == previous->lo &&
            range.count == previous->count)
            continue;
        previous = &range;
        previousFragment = r.fragment;
        markTet(r.tet, r.fragment);
    }
    fragmentGrid.propagate(dirtyScratch, result.fragments);

    // Sphere trees (TVCG §6.2-6.3): split the parent's tree, restructure, insert the crack points.
    forest.applyChecked(result, sharedAsset->tetMesh, settings.restructure, forestReport);
}

} // namespace shatter
