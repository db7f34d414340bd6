// The fracture criterion and the fracture degree (CVD §3.1 eq. 1-3, §3.3): does a fragment break under a
// strain energy field, into how many pieces, and where — the Voronoi labelling the tessellation cuts.
#pragma once

#include "asset_data.h"
#include "cvd.h"
#include "shatter/fracture/material.h"
#include "strain_energy.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace shatter::fracture
{

/// What "the distance-weighted energy does not exceed γ" means for N cells.
enum class DegreeCriterion
{
    /// max_i E_D,i ≤ γ: every fragment could hold its own energy (the "applied recursively while γ is
    /// exceeded" reading of §3.1; the default).
    MaxCell,
    /// Σ_i E_D,i ≤ γ: CVD eq. 2-3 literally.
    Total,
};

struct DegreeModel; // degree_model.h

/// How planFracture chooses the fracture degree N.
enum class DegreeMode
{
    Search, ///< the doubling + bisection search of CVD §3.3, one CVD per trial (exact; the training oracle)
    /// The example-based degree of CVD §4 (PlanSettings::model), then one CVD, where a model is usable;
    /// the search otherwise (the default: FracturePipeline finds the model in the asset's sections).
    Model,
};

/// Settings of planFracture; checked there.
struct PlanSettings
{
    DegreeCriterion criterion = DegreeCriterion::MaxCell;
    CvdSettings cvd; ///< every trial CVD of the degree search
    /// The one CVD of a predicted degree (DegreeMode::Model). No search compares its max_i E_D,i with
    /// other N, so it stops at Lloyd's slow tail (CvdSettings::energyTolerance: a flood gaining < 1 %),
    /// where its sites only creep and E_D falls a few percent more over many floods; not part of the
    /// model's key (training runs the search).
    CvdSettings predictedCvd{.energyTolerance = 1e-2};
    DegreeMode mode = DegreeMode::Model;
    /// DegreeMode::Model: the asset's degree model, trained for this material and these settings
    /// (findDegreeModel, degree_training.h). Without one, or for a region other than the whole asset
    /// (the model covers the unbroken object), planFracture falls back to the search. FracturePipeline
    /// fills it per event from the asset when it is left empty.
    std::shared_ptr<const DegreeModel> model;
};

/// One CVD of the degree search.
struct DegreeTrial
{
    Index sites = 0;        ///< N tried
    Index cells = 0;        ///< non-empty cells of its CVD (≤ N)
    Real maxCellEnergy = 0; ///< max_i E_D,i
    Real totalEnergy = 0;   ///< Σ_i E_D,i
    int iterations = 0;     ///< Lloyd iterations
    double milliseconds = 0;
    bool passed = false; ///< the criterion's value ≤ γ
};

/// What planFracture did.
struct PlanStats
{
    Real wholeEnergy = 0;            ///< E_D of the whole fragment about its weighted centroid (N = 1)
    Real toughness = 0;              ///< γ it was compared with
    Index degree = 0;                ///< N chosen; 0 = no fracture
    Index maxDegree = 0;             ///< the cap: min(Material::maxFragments, nodes of positive weight)
    std::vector<DegreeTrial> trials; ///< in the order they ran (doubling, then bisection)
    CvdStats cvd;                    ///< the chosen CVD's statistics (energies per cell, iterations, ms)
    int cvdIterations = 0;           ///< Σ iterations over all trials
    bool predicted = false;          ///< N came from the degree model (one trial), not the search
    Real predictedDegree = 0;        ///< the model's unrounded, unclamped N (when predicted)
    double milliseconds = 0;         ///< wall time of planFracture
};

/// β_v of nodeWeights: the volume-weighted mean of Material::weakness over asset node `node`'s tets (1
/// without a painted field or without tets).
Real nodeWeakness(const TetMesh& mesh, const Material& material, Index node);

/// Node weights w (per local node of `region`) for the criterion, the seeding and the CVD centroids:
///   w_v = β_v · V_v · (U_v / V_v)^α
/// with U_v the node's strain energy (J; StrainEnergy::perNode, 0 for region nodes it does not list),
/// V_v the node's dual volume (FragmentRegion::nodeVolumes) so U_v / V_v is the energy density W at the
/// node, α = Material::energyExponent and β_v the volume-weighted mean of Material::weakness over the
/// node's tets (1 without a painted field) — the discrete ∫ β W^α dx of CVD §3.3-3.4. For α = 1 it is
/// β_v U_v; for α = 0 it is β_v V_v (the deformation is ignored, Fig. 5). Throws shatter::Error on NaN,
/// negative energies or weakness, or α < 0.
std::vector<Real> nodeWeights(const TetMesh& mesh, const FragmentRegion& region, const StrainEnergy& energy,
                              const Material& material);

/// E_D of one cell holding every node, about the weighted centroid (the N = 1 CVD, eq. 1).
Real wholeEnergy(std::span<const Real> localCoords, int dimension, std::span<const Real> weights);

/// The fracture pipeline's decision step: with w = nodeWeights(...) and the nodes' metric coordinates
/// (`coords`, `dimension` reals per asset node or per region node, as in computeCvd):
///  - no fracture (std::nullopt) if E_D of the whole fragment ≤ γ (CVD eq. 1-2 with N = 1), or if the
///    cap allows fewer than two pieces;
///  - otherwise the degree N by doubling N = 2, 4, 8, … until the criterion holds (or N reaches the cap),
///    then bisection between the last failing and the first passing N (CVD §3.3); each trial seeds N
///    sites by energy-weighted sampling from std::mt19937_64(seed) (seeding.h: a trial's sites extend
///    the previous smaller trial's) and runs computeCvd;
///  - returns the CVD of the smallest passing N (or of the cap).
/// With DegreeMode::Model and a usable model (see PlanSettings::model), the degree is instead the
/// model's prediction rounded and clamped to [2, cap] and one CVD of that N runs (seeded the same way);
/// the N = 1 criterion still decides whether it breaks. Its trial is recorded whether or not it passes.
/// Deterministic for a given seed. Throws shatter::Error on bad input.
std::optional<VoronoiLabelling> planFracture(const Asset& asset, const FragmentRegion& region,
                                             const StrainEnergy& energy, std::span<const Real> coords,
                                             int dimension, const Material& material, std::uint64_t seed,
                                             PlanStats* stats = nullptr, const PlanSettings& settings = {});

} // namespace shatter::fracture
