// Fracture's per-asset precomputation, stored in the asset's cache file as named sections (Asset::
// sections): the convexity flag (metric choice, CVD §3.2), the interior embedding (CVD §3.2), the modal
// basis of the whole object and the data of the criterion's bound (fracture_bound.h). Computed once by
// addFracturePrecompute (the scene loader and `shatter_asset precompute` call it and re-save the
// cache); the pipeline reads a section when it is present and computes the same numbers otherwise.
//
// Each section's bytes start with a format version (a mismatch, or bytes that do not fit the asset,
// read as absent) and its name says what the data depends on besides the mesh, so a material or
// setting change finds no section instead of a wrong one:
//   fracture/convexity                               geometry only
//   fracture/embedding d=… L=… w=… warp=…            EmbeddingSettings and the warp
//   fracture/modal nu=… k=…                          ν and the mode count (unit E and ρ, see
//                                                    modal_deformation.h: they only scale the basis)
//   fracture/bound nu=… k=… metric=… … mat=…         the basis, the metric coordinates, β and the warp
//   degree_model.<model>.<metric>.<key>              the whole material and pipeline configuration
//                                                    (degreeModelKey: γ, α, β, E, ρ, ν, warp, cap,
//                                                    deformation, metric, criterion, CVD settings)
// A new kind of data adds its own name, version and load/save pair here and one step to
// addFracturePrecompute.
#pragma once

#include "asset_data.h"
#include "degree_training.h"
#include "fracture_bound.h"
#include "fracture_pipeline.h"
#include "interior_embedding.h"
#include "modal_deformation.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace shatter::fracture
{

/// True when `asset` fills less than 95 % of its convex hull: its Euclidean CVD cells could reach
/// across the missing material (CVD §3.2, Fig. 4), so FractureMetric::Auto picks the interior metric.
bool assetNonConvex(const Asset& asset);

/// A hash of what the bound's data depends on in a Material: ν, β (weakness) and the warp.
std::uint64_t boundMaterialKey(const Material& material);

/// The stored values, or nothing when the section is absent, of another version, or does not fit.
std::optional<bool> loadNonConvex(const Asset& asset);
std::optional<InteriorEmbedding> loadEmbedding(const Asset& asset, const EmbeddingSettings& settings);
std::shared_ptr<const ModalBasis> loadModalBasis(const Asset& asset, Real poissonRatio, int modeCount);
/// The whole object's bound data for `material` under `settings` with the resolved `metric`.
std::optional<FractureBoundData> loadBoundData(const Asset& asset, const Material& material,
                                               const PipelineSettings& settings, FractureMetric metric);

/// Called with a short description of each step addFracturePrecompute starts.
using PrecomputeProgress = std::function<void(const std::string& step)>;

/// What addFracturePrecompute computes besides the sections every event reads.
struct PrecomputeSettings
{
    /// Train the example-based fracture degree (CVD §4) for the material and pipeline settings, so
    /// that FracturePipeline replaces the unbroken object's degree search by one prediction and one
    /// CVD. By far the longest step (the example set runs the degree search on every training drop:
    /// about half a minute for the piggy bank on two cores with the default `training`). Skipped for a
    /// material that never splits (Material::maxFragments < 2).
    bool degreeModel = true;
    DegreeTrainingSettings training;
    /// The training's progress (stages "deformation", "degree search", "fit", fraction of the
    /// training); called from worker threads, serialised.
    ProgressCallback trainingProgress;
};

/// True when every section fracture needs for an object of `asset` with `material` under `settings`
/// is present (the modal ones only for the modal model; the degree model when `precompute` asks
/// for it).
bool hasFracturePrecompute(const Asset& asset, const Material& material, const PipelineSettings& settings,
                           const PrecomputeSettings& precompute = {});

/// Computes the missing sections and adds them to `asset` (the caller saves it). Throws
/// shatter::Error for a bad material or settings, or when the degree model cannot be fitted (fewer
/// than two training drops break).
void addFracturePrecompute(Asset& asset, const Material& material, const PipelineSettings& settings,
                           const PrecomputeProgress& progress = {},
                           const PrecomputeSettings& precompute = {});

} // namespace shatter::fracture
