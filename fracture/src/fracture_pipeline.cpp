// FracturePipeline: one fracture event from forces to FractureResult, in the order of CVD §3-§5:
// region → deformation (CVD §3.3) → metric (§3.2, §3.4) → plan: criterion, degree and CVD (§3.1, §3.3)
// → tetrahedral tessellation (§5), every new fragment checked to be a closed surface. Nothing here
// touches the ObjectState; the caller applies the result. Material::minFragmentVolume is the one size
// limit: a smaller parent is kept whole, and no small new fragment is merged into a neighbour. The
// stages in more detail: docs/algorithms.md, "One fracture event".
#include "fracture_pipeline.h"

#include "cvd.h"
#include "degree_training.h"
#include "fracture_bound.h"
#include "fracture_precompute.h"
#include "metric.h"
#include "modal_deformation.h"
#include "shatter/error.h"
#include "tessellation_detail.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace shatter::fracture
{
namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool sameWarp(const MetricWarp& a, const MetricWarp& b)
{
    return a.linear == b.linear && a.waveAmplitude == b.waveAmplitude && a.waveLength == b.waveLength &&
           a.waveDirection == b.waveDirection && a.wavePhaseDirection == b.wavePhaseDirection;
}

// Relative margin of mightBreak's comparison with γ: the bound and planFracture's E_D round differently.
constexpr Real kBoundMargin = 1e-6;

// Empty when `mesh` is closed and consistently oriented (every directed edge once, its twin once),
// finite and encloses a positive volume; otherwise what is wrong.
std::string closedSurfaceProblem(const TriMesh& mesh)
{
    std::vector<std::pair<Index, Index>> edges;
    edges.reserve(3 * mesh.triangles.size());
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
            edges.emplace_back(t[k], t[(k + 1) % 3]);
    std::sort(edges.begin(), edges.end());
    for (std::size_t i = 0; i < edges.size(); ++i)
    {
        if (i + 1 < edges.size() && edges[i] == edges[i + 1])
            return "edge " + std::to_string(edges[i].first) + "-" + std::to_string(edges[i].second) +
                   " is used twice in one direction";
        if (!std::binary_search(edges.begin(), edges.end(), std::pair{edges[i].second, edges[i].first}))
            return "open edge " + std::to_string(edges[i].first) + "-" + std::to_string(edges[i].second);
    }
    for (const Vec3& v : mesh.vertices)
        if (!v.allFinite())
            return "a non-finite vertex";
    if (!(mesh.signedVolume() > 0))
        return "no positive volume";
    return {};
}

// closedSurfaceProblem() in O(triangles): every directed edge must be unique and have its twin, that
// is, each vertex's outgoing heads (without repeats) must be its incoming tails. Both lists of a vertex
// have one entry per triangle at it, so they share offsets; each is a handful long and sorted in place.
// False if any check fails; the sorting version then names the problem.
bool closedSurfaceFast(const TriMesh& mesh)
{
    const std::size_t n = mesh.vertices.size();
    std::vector<Index> start(n + 1, 0);
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
        {
            if (t[k] >= n)
                return false;
            ++start[t[k] + 1];
        }
    for (std::size_t i = 0; i < n; ++i)
        start[i + 1] += start[i];
    std::vector<Index> fillOut(start.begin(), start.end() - 1), fillIn = fillOut;
    std::vector<Index> heads(3 * mesh.triangles.size()), tails(heads.size());
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
        {
            const Index a = t[k], b = t[(k + 1) % 3];
            heads[fillOut[a]++] = b;
            tails[fillIn[b]++] = a;
        }
    for (std::size_t a = 0; a < n; ++a)
    {
        Index* const out = heads.data() + start[a];
        Index* const in = tails.data() + start[a];
        const std::size_t count = start[a + 1] - start[a];
        std::sort(out, out + count);
        std::sort(in, in + count);
        if (std::adjacent_find(out, out + count) != out + count)
            return false; // an edge used twice in one direction
        if (!std::equal(out, out + count, in))
            return false; // an open edge
    }
    for (const Vec3& v : mesh.vertices)
        if (!v.allFinite())
            return false;
    return mesh.signedVolume() > 0;
}

} // namespace

struct FracturePipeline::AssetEntry
{
    std::weak_ptr<const Asset> asset; // to notice a freed asset whose address was reused
    bool convexityKnown = false;
    bool nonConvex = false;
    std::vector<std::shared_ptr<const InteriorEmbedding>> embeddings; // one per warp
    struct CoordinatesEntry
    {
        FractureMetric metric = FractureMetric::Auto;
        MetricWarp warp;
        std::shared_ptr<const MetricCoordinates> coords;
    };
    std::vector<CoordinatesEntry> coordinates;         // one per metric and warp
    std::shared_ptr<const FragmentRegion> wholeRegion; // the unbroken object's (built once)
    struct DegreeModelEntry
    {
        std::uint64_t key = 0;                    // degreeModelKey of the material and settings
        std::shared_ptr<const DegreeModel> model; // null: the asset has none for them
    };
    std::vector<DegreeModelEntry> degreeModels;
};

struct FracturePipeline::BoundEntry
{
    std::weak_ptr<const Asset> asset;       // to notice a freed asset whose address was reused
    std::weak_ptr<const FragmentMesh> mesh; // the fragment's (its identity); empty for the whole object
    const FragmentMesh* meshKey = nullptr;  // null for the whole object
    std::uint64_t materialKey = 0;          // boundMaterialKey: ν, β, warp
    std::shared_ptr<const ModalBasis> basis;
    FractureBoundData data;
};

FracturePipeline::FracturePipeline(const PipelineSettings& settings)
    : pipelineSettings(settings), deformation(makeDeformation(settings.deformation))
{
    checkEmbeddingSettings(settings.embedding, 2);
    if (settings.plan.cvd.maxIterations < 1)
        throw Error("PipelineSettings", "plan.cvd.maxIterations must be >= 1");
    if (!(settings.tessellation.edgeMargin > 0 && settings.tessellation.edgeMargin < 0.5))
        throw Error("PipelineSettings", "tessellation.edgeMargin must lie in (0, 0.5)");
}

FracturePipeline::~FracturePipeline() = default;

FracturePipeline::AssetEntry& FracturePipeline::entryFor(const std::shared_ptr<const Asset>& asset)
{
    std::unique_ptr<AssetEntry>& entry = assets[asset.get()];
    if (!entry || entry->asset.expired())
    {
        entry = std::make_unique<AssetEntry>();
        entry->asset = asset;
    }
    return *entry;
}

FractureMetric FracturePipeline::metricFor(const std::shared_ptr<const Asset>& asset)
{
    if (!asset)
        throw Error("FracturePipeline", "null asset");
    if (pipelineSettings.metric != FractureMetric::Auto)
        return pipelineSettings.metric;
    const std::lock_guard<std::mutex> lock(embeddingMutex);
    AssetEntry& entry = entryFor(asset);
    if (!entry.convexityKnown)
    {
        const std::optional<bool> stored = loadNonConvex(*asset);
        entry.nonConvex = stored ? *stored : assetNonConvex(*asset);
        entry.convexityKnown = true;
    }
    return entry.nonConvex ? FractureMetric::Interior : FractureMetric::Euclidean;
}

std::shared_ptr<const InteriorEmbedding>
FracturePipeline::embeddingFor(const std::shared_ptr<const Asset>& asset, const MetricWarp& warp)
{
    // Computed under the lock: two objects of one asset breaking at once wait for one embedding
    // instead of computing it twice.
    const std::lock_guard<std::mutex> lock(embeddingMutex);
    AssetEntry& entry = entryFor(asset);
    for (const auto& e : entry.embeddings)
        if (sameWarp(e->warp, warp))
            return e;
    EmbeddingSettings options = pipelineSettings.embedding;
    options.warp = warp;
    std::optional<InteriorEmbedding> stored = loadEmbedding(*asset, options);
    entry.embeddings.push_back(std::make_shared<const InteriorEmbedding>(
        stored ? std::move(*stored) : computeInteriorEmbedding(*asset, options)));
    return entry.embeddings.back();
}

std::shared_ptr<const DegreeModel> FracturePipeline::degreeModelFor(const std::shared_ptr<const Asset>& asset,
                                                                    const Material& material)
{
    const std::uint64_t key = degreeModelKey(material, pipelineSettings);
    const std::lock_guard<std::mutex> lock(embeddingMutex);
    AssetEntry& entry = entryFor(asset);
    for (const AssetEntry::DegreeModelEntry& e : entry.degreeModels)
        if (e.key == key)
            return e.model;
    std::optional<DegreeModel> stored = findDegreeModel(*asset, material, pipelineSettings);
    entry.degreeModels.push_back(
        {key, stored ? std::make_shared<const DegreeModel>(std::move(*stored)) : nullptr});
    return entry.degreeModels.back().model;
}

std::shared_ptr<const FragmentRegion>
FracturePipeline::wholeRegionFor(const std::shared_ptr<const Asset>& asset)
{
    const std::lock_guard<std::mutex> lock(embeddingMutex);
    AssetEntry& entry = entryFor(asset);
    if (!entry.wholeRegion)
        entry.wholeRegion = std::make_shared<const FragmentRegion>(wholeMeshRegion(asset->tetMesh));
    return entry.wholeRegion;
}

std::shared_ptr<const MetricCoordinates>
FracturePipeline::coordinatesFor(const ObjectState& state, const Material& material, FractureMetric* metric)
{
    const std::shared_ptr<const Asset>& asset = state.assetPointer();
    const FractureMetric used = metricFor(asset);
    if (metric)
        *metric = used;
    const auto find = [&]() -> std::shared_ptr<const MetricCoordinates>
    {
        for (const AssetEntry::CoordinatesEntry& e : entryFor(asset).coordinates)
            if (e.metric == used && sameWarp(e.warp, material.warp))
                return e.coords;
        return nullptr;
    };
    {
        const std::lock_guard<std::mutex> lock(embeddingMutex);
        if (std::shared_ptr<const MetricCoordinates> found = find())
            return found;
    }
    // Computed without the lock, so that other objects' events do not wait for it; two threads may
    // compute the same coordinates once each (both are equal) and the first one stored is kept.
    std::shared_ptr<const InteriorEmbedding> embedding;
    if (used == FractureMetric::Interior)
        embedding = embeddingFor(asset, material.warp);
    auto coords = std::make_shared<const MetricCoordinates>(pipelineCoordinates(
        state.asset(), embedding.get(), material.warp, pipelineSettings.embedding.positionWeight));
    const std::lock_guard<std::mutex> lock(embeddingMutex);
    if (std::shared_ptr<const MetricCoordinates> found = find())
        return found;
    entryFor(asset).coordinates.push_back({used, material.warp, coords});
    return coords;
}

std::shared_ptr<const FracturePipeline::BoundEntry> FracturePipeline::boundFor(const ObjectState& state,
                                                                               FragmentId fragment,
                                                                               const Material& material,
                                                                               bool build)
{
    auto* modal = dynamic_cast<ModalDeformation*>(deformation.get());
    if (!modal)
        return nullptr; // FEM: no bound
    const bool whole = state.fragmentCount() == 1;
    const std::shared_ptr<const FragmentMesh>& mesh = whole ? nullptr : state.fragmentMesh(fragment);
    if (!whole && !mesh)
        return nullptr; // no identity to key it by
    const FragmentMesh* meshKey = whole ? nullptr : mesh.get();
    const std::uint64_t materialKey = boundMaterialKey(material);
    const std::shared_ptr<const Asset>& asset = state.assetPointer();
    {
        const std::lock_guard<std::mutex> lock(boundMutex);
        for (auto it = bounds.begin(); it != bounds.end(); ++it)
        {
            const BoundEntry& e = **it;
            if (e.meshKey != meshKey || e.materialKey != materialKey || e.asset.lock() != asset ||
                (meshKey && e.mesh.lock() != mesh))
                continue;
            bounds.splice(bounds.begin(), bounds, it);
            return bounds.front();
        }
    }
    if (!build)
        return nullptr;
    // Built without the lock (two threads may build the same entry once each; both are equal).
    auto entry = std::make_shared<BoundEntry>();
    entry->asset = asset;
    entry->mesh = mesh;
    entry->meshKey = meshKey;
    entry->materialKey = materialKey;
    const TetMesh& tetMesh = state.asset().tetMesh;
    // The whole object's region is only needed when its bound data is not stored with the asset.
    std::shared_ptr<const FragmentRegion> region =
        whole ? nullptr : std::make_shared<const FragmentRegion>(fragmentRegion(state.field(), fragment));
    const std::vector<Index> tets =
        whole ? allTets(state.asset()) : tetsTouchingNodes(tetMesh, region->nodes);
    entry->basis = modal->basis(state.asset(), tets, material);
    std::optional<FractureBoundData> stored;
    if (whole)
        stored = loadBoundData(state.asset(), material, pipelineSettings, metricFor(asset));
    if (stored)
        entry->data = std::move(*stored);
    else
    {
        if (!region)
            region = wholeRegionFor(asset);
        const std::shared_ptr<const MetricCoordinates> coords = coordinatesFor(state, material, nullptr);
        entry->data = computeFractureBoundData(tetMesh, *entry->basis, *region, coords->coords,
                                               coords->dimension, material);
    }
    const std::lock_guard<std::mutex> lock(boundMutex);
    bounds.push_front(entry);
    // Room for every fragment a few events produce; each entry shares its basis with the model's cache.
    // Whole objects' entries are never evicted: built by prepare() when an object is added, their
    // presence is then a function of the simulation's history, not of which thread built what first,
    // which is what lets a simulation thread ask mightBreak(build = false) deterministically.
    constexpr std::size_t capacity = 64;
    auto oldest = bounds.end();
    while (bounds.size() > capacity && oldest != bounds.begin())
    {
        --oldest;
        if ((*oldest)->meshKey)
            oldest = bounds.erase(oldest);
    }
    return entry;
}

bool FracturePipeline::mightBreak(const ObjectState& state, FragmentId fragment, const Material& material,
                                  std::span<const ImpactForce> forces, Real* bound, bool build)
{
    if (bound)
        *bound = std::numeric_limits<Real>::infinity();
    if (!state.alive(fragment))
        throw Error("FracturePipeline", "fragment " + std::to_string(fragment) + " is not alive");
    checkMaterial(material, state.asset().tetMesh.tetCount());
    if (material.maxFragments < 2)
        return false; // planFracture never splits it
    const std::shared_ptr<const BoundEntry> entry = boundFor(state, fragment, material, build);
    if (!entry)
        return true;
    const Eigen::VectorXd load = modalLoad(*entry->basis, pipelineSettings.deformation.contactRadius, forces);
    const Real value = fractureEnergyBound(entry->data, *entry->basis, load, material);
    if (bound)
        *bound = value;
    return !(value * (1 + kBoundMargin) <= material.toughness);
}

void FracturePipeline::prepare(const ObjectState& state, const Material& material)
{
    const Asset& asset = state.asset();
    checkMaterial(material, asset.tetMesh.tetCount());
    if (metricFor(state.assetPointer()) == FractureMetric::Interior)
        embeddingFor(state.assetPointer(), material.warp);
    if (pipelineSettings.plan.mode == DegreeMode::Model && !pipelineSettings.plan.model)
        degreeModelFor(state.assetPointer(), material); // read off the first event
    // The first event's region and the tessellation's tet neighbours (a few ms each, once per asset).
    wholeRegionFor(state.assetPointer());
    detail::tetFaces(state);
    if (deformation->model() == DeformationModel::Modal)
        boundFor(state, 0, material); // the basis and the bound's data
    else
        deformation->prepare(asset, allTets(asset), material);
}

void FracturePipeline::prepareFragments(const ObjectState& state, std::span<const FragmentId> fragments,
                                        const Material& material, const std::atomic<bool>* stop)
{
    const Asset& asset = state.asset();
    checkMaterial(material, asset.tetMesh.tetCount());
    for (FragmentId f : fragments)
    {
        if (stop && stop->load(std::memory_order_relaxed))
            return;
        if (!state.alive(f))
            continue;
        if (pipelineSettings.fragmentBound && deformation->model() == DeformationModel::Modal &&
            boundFor(state, f, material))
            continue;
        const FragmentRegion region =
            state.fragmentCount() == 1 ? wholeMeshRegion(asset.tetMesh) : fragmentRegion(state.field(), f);
        deformation->prepare(asset, tetsTouchingNodes(asset.tetMesh, region.nodes), material);
    }
}

namespace
{

/// The asset nodes of each of `fragments` (new ids of `result`), sorted. apply() labels exactly
/// result.nodes with result.nodeFragments, so these are the node sets fragmentRegion() finds afterwards,
/// and the deformation cache keys match. New ids are consecutive.
std::vector<std::vector<Index>> resultFragmentNodes(const FractureResult& result,
                                                    std::span<const FragmentId> fragments, const char* caller)
{
    if (result.nodes.size() != result.nodeFragments.size() || result.fragments.empty())
        throw Error(caller, "the result has no fragments or unlabelled nodes");
    const FragmentId first = result.fragments.front();
    std::vector<int> slot(result.fragments.size(), -1); // per new id: its place in `fragments`
    for (std::size_t i = 0; i < fragments.size(); ++i)
    {
        if (fragments[i] < first || fragments[i] - first >= slot.size())
            throw Error(caller, "fragment " + std::to_string(fragments[i]) + " is not one of the result's");
        slot[fragments[i] - first] = int(i);
    }
    std::vector<std::vector<Index>> nodes(fragments.size());
    for (std::size_t i = 0; i < result.nodes.size(); ++i)
    {
        const FragmentId label = result.nodeFragments[i];
        if (label >= first && label - first < slot.size() && slot[label - first] >= 0)
            nodes[std::size_t(slot[label - first])].push_back(result.nodes[i]);
    }
    for (std::vector<Index>& n : nodes)
        std::sort(n.begin(), n.end());
    return nodes;
}

} // namespace

void FracturePipeline::prepareFragments(const Asset& asset, const FractureResult& result,
                                        std::span<const FragmentId> fragments, const Material& material,
                                        const std::atomic<bool>* stop)
{
    checkMaterial(material, asset.tetMesh.tetCount());
    for (const std::vector<Index>& n :
         resultFragmentNodes(result, fragments, "FracturePipeline::prepareFragments"))
    {
        if (stop && stop->load(std::memory_order_relaxed))
            return;
        if (!n.empty())
            deformation->prepare(asset, tetsTouchingNodes(asset.tetMesh, n), material);
    }
}

void FracturePipeline::forgetFragments(const Asset& asset, const FractureResult& result,
                                       std::span<const FragmentId> fragments, const Material& material)
{
    for (const std::vector<Index>& n :
         resultFragmentNodes(result, fragments, "FracturePipeline::forgetFragments"))
        if (!n.empty())
            deformation->forget(asset, tetsTouchingNodes(asset.tetMesh, n), material);
}

std::optional<FractureResult> FracturePipeline::fracture(const ObjectState& state, FragmentId fragment,
                                                         const Material& material,
                                                         std::span<const ImpactForce> forces,
                                                         std::uint64_t seed, FractureEventStats* stats)
{
    const auto start = Clock::now();
    FractureEventStats local;
    FractureEventStats& st = stats ? *stats : local;
    st = FractureEventStats{};
    st.parent = fragment;
    const Asset& asset = state.asset();
    const TetMesh& mesh = asset.tetMesh;
    if (!state.alive(fragment))
        throw Error("FracturePipeline", "fragment " + std::to_string(fragment) + " is not alive");
    checkMaterial(material, mesh.tetCount());
    auto finish = [&]
    {
        st.totalMs = msSince(start);
    };

    // 1. Region. An unbroken object is the whole mesh (no field lookups needed).
    const bool whole = state.fragmentCount() == 1;
    const std::shared_ptr<const FragmentRegion> regionPointer =
        whole ? wholeRegionFor(state.assetPointer())
              : std::make_shared<const FragmentRegion>(fragmentRegion(state.field(), fragment));
    const FragmentRegion& region = *regionPointer;
    if (material.minFragmentVolume > 0)
    {
        const auto& parentMesh = state.fragmentMesh(fragment);
        const Real volume =
            whole ? mesh.totalVolume() : (parentMesh ? parentMesh->surface.signedVolume() : region.volume());
        if (volume < material.minFragmentVolume)
        {
            st.belowMinVolume = true;
            finish();
            return std::nullopt;
        }
    }

    // The bound (fracture_bound.h): most impacts are far too weak to break anything.
    if (pipelineSettings.useBound)
    {
        const auto boundStart = Clock::now();
        const bool might = mightBreak(state, fragment, material, forces, &st.energyBound,
                                      whole || pipelineSettings.fragmentBound);
        st.boundMs = msSince(boundStart);
        if (!might)
        {
            st.boundRejected = true;
            finish();
            return std::nullopt;
        }
    }

    // 2. Deformation on the tets touching the region (a cut tet counts whole for each fragment it holds:
    //    the elastic model is the tet mesh, not the crack geometry).
    auto stage = Clock::now();
    const std::vector<Index> tets = whole ? allTets(asset) : tetsTouchingNodes(mesh, region.nodes);
    const StrainEnergy energy = deformation->compute(asset, tets, material, forces);
    st.deformationMs = msSince(stage);
    st.strainEnergy = energy.total;

    // 3. Metric coordinates.
    stage = Clock::now();
    const std::shared_ptr<const MetricCoordinates> coords = coordinatesFor(state, material, &st.metric);
    st.metricMs = msSince(stage);

    // 4-5. Criterion, degree and CVD, then the tessellation. The degree: the asset's trained model for
    //      an unbroken object (CVD §4.3: project, evaluate, one CVD), the search for a fragment (see
    //      PipelineSettings).
    stage = Clock::now();
    const PlanSettings* plan = &pipelineSettings.plan;
    PlanSettings withModel;
    if (whole && plan->mode == DegreeMode::Model && !plan->model)
        if (std::shared_ptr<const DegreeModel> model = degreeModelFor(state.assetPointer(), material))
        {
            withModel = *plan;
            withModel.model = std::move(model);
            plan = &withModel;
        }
    std::optional<VoronoiLabelling> labels = planFracture(asset, region, energy, coords->coords,
                                                          coords->dimension, material, seed, &st.plan, *plan);
    st.planMs = msSince(stage);
    if (!labels)
    {
        finish();
        return std::nullopt;
    }
    st.cells = labels->siteCount;
    if (pipelineSettings.countSplitCells)
    {
        const std::vector<std::uint32_t> nearest =
            nearestSiteLabels(labels->nodeCoords, labels->dimension, labels->siteCoords);
        const std::vector<Index> components = labelComponentCounts(region, nearest, labels->siteCount);
        st.splitCells =
            Index(std::count_if(components.begin(), components.end(), [](Index c) { return c > 1; }));
    }

    stage = Clock::now();
    TessellationSettings tessellation = pipelineSettings.tessellation;
    tessellation.density = material.density;
    FractureResult result = tessellate(state, *labels, &st.tessellation, tessellation);
    st.tessellationMs = msSince(stage);
    // Guard: tessellate() promises closed, outward fragment surfaces (tessellation.h), and an open one
    // must never reach ObjectState::apply. Not expected to fire — 0 in the 200-event stress runs per
    // asset and in 3,827 random tessellations, 2,627 of them repeated (docs/algorithms.md) — so it is an
    // error, not a retry: re-planning from another seed would hide a tessellation bug and silently
    // change the fracture. FractureSystem catches it (the body stays whole,
    // FractureStepStats::failedEvents).
    for (std::size_t f = 0; f < result.meshes.size(); ++f)
        if (closedSurfaceFast(result.meshes[f]->surface))
            continue;
        else if (const std::string problem = closedSurfaceProblem(result.meshes[f]->surface);
                 !problem.empty())
            throw Error("FracturePipeline", "the tessellation of fragment " + std::to_string(fragment) +
                                                " of '" + asset.name +
                                                "' gave an open surface (new fragment " +
                                                std::to_string(result.fragments[f]) + "): " + problem);
    st.fragments = Index(result.fragments.size());
    // The parent is gone once the caller applies the result: its basis (or factorisation) and bound data
    // would only wait for the caches' budgets. A whole object's stay (other instances use them).
    if (!whole)
        forgetRegion(state, fragment, tets, material);
    finish();
    return result;
}

void FracturePipeline::forgetRegion(const ObjectState& state, FragmentId fragment,
                                    std::span<const Index> tets, const Material& material)
{
    deformation->forget(state.asset(), tets, material);
    const FragmentMesh* mesh = state.fragmentMesh(fragment).get();
    const std::lock_guard<std::mutex> lock(boundMutex);
    std::erase_if(bounds, [&](const auto& e) { return mesh && e->meshKey == mesh; });
}

void FracturePipeline::forget(const ObjectState& state, FragmentId fragment, const Material& material)
{
    if (state.fragmentCount() == 1 || !state.alive(fragment))
        return;
    const FragmentRegion region = fragmentRegion(state.field(), fragment);
    forgetRegion(state, fragment, tetsTouchingNodes(state.asset().tetMesh, region.nodes), material);
}

} // namespace shatter::fracture
