// Training of the example-based fracture degree (CVD §4.2): drop the asset from several heights in many
// orientations (without a rigid-body simulation: the lowest point in the ground plane takes the impulse
// of the fall over one contact time), run the pipeline's deformation model and the degree search (the
// oracle) on each impact, and fit the PCA + RBF model of degree_model.h. Also the held-out evaluation
// and the asset section that stores a model.
#pragma once

#include "degree_model.h"
#include "fracture_pipeline.h"
#include "metric.h"
#include "shatter/progress.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shatter::fracture
{

/// Settings of the example set and the fit; checked by computeDegreeExamples / fitDegreeModel.
struct DegreeTrainingSettings
{
    /// Drop heights (m). Empty: heights chosen so that the median orientation's E_D(N = 1) / γ takes
    /// the values of `energyRatios` (E_D grows as h^α: the deformation models are linear, U ∝ F² ∝ h).
    std::vector<Real> heights;
    std::vector<Real> energyRatios = {1.5, 4, 12, 40, 120, 400};
    /// Uniformly distributed random orientations and degree searches per impact with different site
    /// seeds. CVD §4.2 uses 64 × 3; the default 32 × 1 keeps the piggy bank's training within a minute
    /// on two cores and was as accurate on held-out drops (docs/algorithms.md).
    int orientations = 32;
    int repeats = 1;
    std::uint64_t seed = 1;       ///< orientations and site seeds; held-out sets use another seed
    Real contactTime = 1.0 / 120; ///< s: the impulse m √(2 g h) acts over this (FractureSystem: one step)
    Real gravity = 9.81;          ///< m/s²
    /// p of the PCA's input w^p / Σ w^p (DegreeModel), ≥ 0; 0: 1/(2α), the distribution of √U, the
    /// strain's magnitude, whose broad bumps overlap between nearby impacts where W^α's peaks do not
    /// (piggy bank, held out: p = 1 / 0.5 / 0.25 / 0.125 → 88.6 / 88.6 / 93.2 / 90.9 % within ±25 %).
    Real distributionExponent = 0;
    Real pcaTolerance = 0.02; ///< relative RMS reconstruction error of the PCA (CVD §4.2: 2 %)
    /// Candidates for the RBF smoothing λ and the weights of the shape coordinates and the concentration
    /// (DegreeModel::features); the triple with the best 8-fold cross-validation score (folds grouped
    /// by orientation; DegreeFitStats::crossValidationError) is used.
    std::vector<Real> smoothingCandidates = {1e-2, 0.03, 0.1, 0.3};
    std::vector<Real> shapeWeightCandidates = {0, 0.25, 0.5, 1};
    std::vector<Real> concentrationWeightCandidates = {0};
    /// One CVD per (impact, repeat, N) shared by every height (exact up to rounding: the search's trials
    /// do not depend on the strength, only their energies, which scale with it); false runs
    /// planFracture at every height.
    bool shareTrials = true;
    unsigned threads = 0; ///< worker threads of the example set (0: all cores); results do not depend on it
};

/// One drop impact: the asset rotated by `rotation` touches the ground plane (normal +y) at `point`.
struct DropImpact
{
    int orientation = 0;
    Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
    ImpactForce unitForce; ///< material frame, for a drop from 1 m (the force grows as √h)
};

/// `count` uniformly distributed orientations from `seed` (Shoemake's quaternions; only raw draws of
/// std::mt19937_64, so a seed gives the same impacts everywhere) and their impacts.
std::vector<DropImpact> dropImpacts(const Asset& asset, const Material& material, int count,
                                    std::uint64_t seed, Real contactTime, Real gravity);

/// The metric coordinates FracturePipeline::fracture uses for the unbroken `asset` (its metric resolved
/// as the pipeline does; the interior embedding computed here, rescaled as the pipeline rescales it).
MetricCoordinates pipelineMetricCoordinates(const std::shared_ptr<const Asset>& asset,
                                            const Material& material, const PipelineSettings& pipeline);

/// One example: an impact, a height, a site seed, and what the degree search gave.
struct DegreeExample
{
    int orientation = 0;
    int height = 0;         ///< index into DegreeExamples::heights
    std::uint64_t seed = 0; ///< of the sites (one per orientation and repeat)
    Real energyRatio = 0;   ///< E_D(N = 1) / γ
    Index degree = 0;       ///< the search's N (0: no fracture)
    Index maxDegree = 0;    ///< the cap of the event
    double searchMs = 0;    ///< planFracture with the search
};

/// The example set of one asset, material and pipeline configuration.
struct DegreeExamples
{
    std::vector<Real> heights;                    ///< m
    std::vector<std::vector<Real>> distributions; ///< per orientation: node weights / Σ (CVD §4.1's W)
    std::vector<DegreeExample> examples;
    std::uint64_t configurationHash = 0;
    Real toughness = 0;
    Real energyExponent = 1; ///< α
    int maxFragments = 0;
    double milliseconds = 0; ///< wall time
};

/// Runs the deformation and the degree search on every (orientation, height, repeat), in parallel
/// (oneTBB; each example's result depends only on its inputs). `asset` must be unbroken-object ready
/// (tets, connectivity). Reports through `progress` (stages "deformation", "degree search").
DegreeExamples computeDegreeExamples(const std::shared_ptr<const Asset>& asset, const Material& material,
                                     const PipelineSettings& pipeline, const DegreeTrainingSettings& settings,
                                     const ProgressCallback& progress = {});

/// What fitDegreeModel chose.
struct DegreeFitStats
{
    int examples = 0;   ///< fracturing examples used
    int components = 0; ///< PCA components kept
    int centres = 0;
    Real smoothing = 0;
    Real shapeWeight = 0;
    Real concentrationWeight = 0;
    /// Cross-validation score of the chosen candidates: fraction of examples outside ±25 % + 0.1 × mean
    /// |log N̂ − log N|.
    Real crossValidationError = 0;
    double milliseconds = 0;
};

/// PCA of the distributions (CVD §4.1, `pcaTolerance`) and the RBF network (eq. 12) on the fracturing
/// examples. Throws shatter::Error when fewer than two examples fracture.
DegreeModel fitDegreeModel(const DegreeExamples& examples, const DegreeTrainingSettings& settings,
                           DegreeFitStats* stats = nullptr);

/// computeDegreeExamples then fitDegreeModel, with the progress of both (the fit is the last 5 %).
DegreeModel trainDegreeModel(const std::shared_ptr<const Asset>& asset, const Material& material,
                             const PipelineSettings& pipeline, const DegreeTrainingSettings& settings = {},
                             const ProgressCallback& progress = {}, DegreeFitStats* stats = nullptr,
                             DegreeExamples* examples = nullptr);

/// The model against the search on `examples` (typically a held-out set: other orientations and seeds),
/// over the examples that fracture: the predicted degree is the model's rounded and clamped to
/// [2, maxDegree], as planFracture does.
struct DegreeEvaluation
{
    int examples = 0;
    int withinTolerance = 0;          ///< |N̂ − N| ≤ tolerance · N
    Real meanRelativeError = 0;       ///< mean |N̂ − N| / N
    std::vector<int> modelHistogram;  ///< count per degree (index = N) of the model
    std::vector<int> searchHistogram; ///< count per degree of the search
    double meanPredictMicroseconds = 0;
};
DegreeEvaluation evaluateDegreeModel(const DegreeModel& model, const DegreeExamples& examples,
                                     Real tolerance = 0.25);

/// A hash of everything the degree depends on besides the asset: the material (γ, α, β, elasticity,
/// density, warp, maxFragments) and the pipeline (deformation model and its settings, metric, embedding,
/// criterion, CVD settings).
std::uint64_t degreeModelKey(const Material& material, const PipelineSettings& pipeline);

/// The asset section name of the model for (material, pipeline): names the deformation model and the
/// metric and carries degreeModelKey, e.g. "degree_model.modal.auto.0123456789abcdef".
std::string degreeModelSectionName(const Material& material, const PipelineSettings& pipeline);

/// Stores `model` in `asset` under degreeModelSectionName (replacing one there).
void saveDegreeModel(Asset& asset, const DegreeModel& model, const Material& material,
                     const PipelineSettings& pipeline);

/// The model stored in `asset` for (material, pipeline), if any and if it matches the asset's nodes.
/// Throws shatter::Error for a corrupt section.
std::optional<DegreeModel> findDegreeModel(const Asset& asset, const Material& material,
                                           const PipelineSettings& pipeline);

} // namespace shatter::fracture
