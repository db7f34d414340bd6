// One fracture event, Bullet-free (CVD §3-§5): impact forces on one live fragment → strain
// energy (FEM or modal, deformation.h) → criterion and degree with a CVD in the chosen metric
// (fracture_degree.h, cvd.h) → tet-lattice tessellation (tessellation.h) → the FractureResult that
// ObjectState::apply consumes. FractureSystem runs it for Bullet worlds; tests and tools call it
// directly.
#pragma once

#include "deformation.h"
#include "fracture_degree.h"
#include "fracture_result.h"
#include "interior_embedding.h"
#include "object_state.h"
#include "shatter/fracture/fracture_settings.h"
#include "shatter/fracture/material.h"
#include "strain_energy.h"
#include "tessellation.h"

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

namespace shatter::fracture
{

struct MetricCoordinates;

/// Settings of the pipeline; checked by FracturePipeline's constructor.
///
/// Fracture degree (plan.mode): with DegreeMode::Model (the default) an unbroken object whose asset
/// carries a degree model trained for the event's material and these settings (a section added by
/// addFracturePrecompute, fracture_precompute.h) gets the model's degree and one CVD (CVD §4.3);
/// without one, the degree search. A fragment always gets the search on its own region: the model's
/// PCA basis spans distributions over the whole object's nodes, learnt from drops of the whole object,
/// and a fragment's distribution (zero outside a sub-region, under a different shape's response) lies
/// outside what it was trained on; the search on a fragment's smaller region is also the cheaper one.
/// DegreeMode::Search always searches.
///
/// Modal model and fragments: a fragment gets its own modal basis, computed by the same code at its
/// first impact and then cached like the object's (modal_deformation.h); there is no FEM fallback, so
/// both models stay what they claim to be. prepare() computes the unbroken object's basis up front.
/// γ was fitted with the FEM model: the modal response of k modes carries less energy (its smooth
/// part), so the same γ breaks less with it.
struct PipelineSettings
{
    DeformationSettings deformation; ///< FEM or modal, contact radius, cache size
    FractureMetric metric = FractureMetric::Auto;
    /// For the interior metric (its warp is replaced by the Material's). The 3-D position is appended
    /// (positionWeight = 1): the landmark embedding alone distorts short distances enough that on the
    /// piggy bank its Voronoi cells split about as often as Euclidean ones (cvd_test,
    /// InteriorMetricSplitsFewerCellsOnThePiggyBank).
    EmbeddingSettings embedding{.positionWeight = 1, .warp = {}};
    PlanSettings plan;                 ///< criterion variant and CVD settings
    TessellationSettings tessellation; ///< threads, margins (its density is replaced by the Material's)
    /// Fill FractureEventStats::splitCells (costs one nearest-site pass over the region per event).
    bool countSplitCells = false;
    /// fracture() first asks mightBreak() and stops there when the impact certainly cannot break the
    /// fragment (modal model only; the FEM model has no bound). Off: every event runs the criterion
    /// (e.g. to read PlanStats::wholeEnergy of a weak impact).
    bool useBound = true;
    /// Build the bound's data for fragments too (prepareFragments, fracture()). Off, a fragment is
    /// bounded only if its data was built by an explicit mightBreak() call: the data cost about as much
    /// as the fragment's modal basis and repay it only after ~100 evaluations (each a full criterion of a
    /// few milliseconds on a worker), more than most fragments ever get.
    bool fragmentBound = false;
};

/// What one event cost and produced; every time in milliseconds.
struct FractureEventStats
{
    FragmentId parent = kNoFragment;
    FractureMetric metric = FractureMetric::Auto; ///< the metric used: Euclidean or Interior
    double deformationMs = 0;
    double metricMs = 0; ///< metric coordinates and interior embedding (each built once per asset and warp)
    double planMs = 0;   ///< criterion, degree search and the CVDs
    double tessellationMs = 0;
    double updateMs = 0; ///< ObjectState::apply (filled by whoever applies the result)
    double totalMs = 0;
    Real strainEnergy = 0; ///< J, total of the region
    PlanStats plan;
    TessellationStats tessellation;
    Index fragments = 0; ///< new fragments (0: no fracture)
    Index cells = 0;     ///< Voronoi cells of the chosen CVD (fragments ≥ cells: a cell may fall apart)
    /// With PipelineSettings::countSplitCells: cells of the plain nearest-site assignment of the final
    /// sites (no flooding) that are disconnected through the tet edges — the CVD §3.2 failure the
    /// interior metric avoids (cvd_test, InteriorMetricSplitsFewerCellsOnThePiggyBank).
    Index splitCells = 0;
    bool belowMinVolume = false; ///< the parent was smaller than Material::minFragmentVolume: kept whole
    /// mightBreak() proved the impact cannot break the fragment: no deformation, no criterion (plan and
    /// strainEnergy stay 0).
    bool boundRejected = false;
    Real energyBound = 0; ///< mightBreak()'s upper bound on E_D(N = 1) (+∞ when there is none)
    double boundMs = 0;   ///< mightBreak()
};

/// The pipeline with its caches (deformation factorisations / bases, interior embeddings per asset).
/// fracture() may be called from several threads for different objects.
class FracturePipeline
{
public:
    explicit FracturePipeline(const PipelineSettings& settings = {});
    ~FracturePipeline();

    const PipelineSettings& settings() const { return pipelineSettings; }
    /// Switches PipelineSettings::useBound between events (not while fracture() runs on another thread).
    void setUseBound(bool on) { pipelineSettings.useBound = on; }

    /// Decides and computes the fracture of live fragment `fragment` of `state` under `forces` (material
    /// frame). std::nullopt when the criterion says it holds. Deterministic for a given seed. Does not
    /// modify `state`: the caller applies the result, and with a result the broken fragment's cached
    /// precomputation is dropped (not applying it only costs a rebuild). Throws shatter::Error on bad input.
    std::optional<FractureResult> fracture(const ObjectState& state, FragmentId fragment,
                                           const Material& material, std::span<const ImpactForce> forces,
                                           std::uint64_t seed, FractureEventStats* stats = nullptr);

    /// False only when `forces` certainly cannot break live fragment `fragment`: an upper bound on the
    /// criterion E_D(N = 1) (fracture_bound.h) is ≤ γ, or Material::maxFragments < 2. Modal model only
    /// (the FEM model always answers true). Costs O(boundary nodes + k) per call once the fragment's
    /// bound data is built (on its first call, by prepare() or prepareFragments()). `bound` receives the
    /// bound (+∞ when there is none). Throws shatter::Error like fracture().
    /// With `build` false the bound data is never computed here: a fragment without it answers true (a
    /// simulation thread asks this way and leaves the building to the fracture job).
    bool mightBreak(const ObjectState& state, FragmentId fragment, const Material& material,
                    std::span<const ImpactForce> forces, Real* bound = nullptr, bool build = true);

    /// Moves the expensive per-asset work (embedding, factorisation / modal basis of the whole object,
    /// the bound's data, the whole-object CVD region and the tessellation's tet neighbours) off the
    /// first fracture event; reads it from the asset's precomputed sections when they are there
    /// (fracture_precompute.h).
    void prepare(const ObjectState& state, const Material& material);

    /// The same for new fragments (e.g. FractureResult::fragments, right after apply()): each live one
    /// gets its modal basis (and its bound data with PipelineSettings::fragmentBound; FEM: its
    /// factorisation), so that its first hit pays only the solve. Dead or unknown ids are skipped. May run on
    /// another thread than fracture(). `stop`, when given, is read between fragments: set, the remaining ones
    /// are skipped.
    void prepareFragments(const ObjectState& state, std::span<const FragmentId> fragments,
                          const Material& material, const std::atomic<bool>* stop = nullptr);

    /// The same for `fragments` (some of result.fragments, in this order) from the result alone, without
    /// the object's state: their regions come from result.nodes / nodeFragments, so it may run while the
    /// state is changed by later events (a fragment broken since then is merely prepared for nothing).
    /// `stop` as above.
    void prepareFragments(const Asset& asset, const FractureResult& result,
                          std::span<const FragmentId> fragments, const Material& material,
                          const std::atomic<bool>* stop = nullptr);

    /// Drops live fragment `fragment`'s cached basis (or factorisation) and bound data: it will never
    /// break again (its body was removed, or its object goes). Nothing for an unbroken object (its
    /// precomputation serves every instance of the asset) or a dead fragment. Runs a field lookup over
    /// the fragment's nodes (O(its tets)).
    void forget(const ObjectState& state, FragmentId fragment, const Material& material);

    /// forget() for `fragments` of `result`, from the result alone (what the second prepareFragments
    /// prepared: a preparation that finished after its piece or object went).
    void forgetFragments(const Asset& asset, const FractureResult& result,
                         std::span<const FragmentId> fragments, const Material& material);

    /// The metric the pipeline uses for `asset` (Euclidean or Interior; resolves Auto, computing the
    /// asset's convex hull once).
    FractureMetric metricFor(const std::shared_ptr<const Asset>& asset);

    /// The deformation model (with its cache).
    Deformation& deformationModel() { return *deformation; }

private:
    struct AssetEntry; // per asset: convexity, embeddings per warp
    struct BoundEntry; // per fragment (and ν, β, warp): its modal basis and bound data
    std::shared_ptr<const BoundEntry> boundFor(const ObjectState& state, FragmentId fragment,
                                               const Material& material, bool build = true);
    /// The metric coordinates of every asset node the CVD of `state` uses (step 3 of fracture()),
    /// computed once per asset, metric and warp. `metric` (optional) receives the metric.
    std::shared_ptr<const MetricCoordinates> coordinatesFor(const ObjectState& state,
                                                            const Material& material, FractureMetric* metric);
    AssetEntry& entryFor(const std::shared_ptr<const Asset>& asset); // with embeddingMutex held
    /// The asset's degree model for `material` under these settings (findDegreeModel, read once per
    /// asset and material), or null.
    std::shared_ptr<const DegreeModel> degreeModelFor(const std::shared_ptr<const Asset>& asset,
                                                      const Material& material);
    /// forget() with the fragment's deformation tets known.
    void forgetRegion(const ObjectState& state, FragmentId fragment, std::span<const Index> tets,
                      const Material& material);
    std::shared_ptr<const FragmentRegion> wholeRegionFor(const std::shared_ptr<const Asset>& asset);
    std::shared_ptr<const InteriorEmbedding> embeddingFor(const std::shared_ptr<const Asset>& asset,
                                                          const MetricWarp& warp);

    PipelineSettings pipelineSettings;
    std::unique_ptr<Deformation> deformation;
    std::mutex embeddingMutex;
    std::map<const Asset*, std::unique_ptr<AssetEntry>> assets;
    std::mutex boundMutex;
    std::list<std::shared_ptr<const BoundEntry>> bounds; // most recently used first
};

} // namespace shatter::fracture
