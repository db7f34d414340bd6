// Example-based fracture degree (CVD §4, eq. 10-12): a PCA basis of the node-weight distributions of
// an asset's training impacts and an RBF network that maps the projected distribution (and the
// impact's strength) to the fracture degree N, replacing the degree search's ≈ 2 log₂ N CVDs by one
// projection and one sum. Plain arrays, serialised into a named section of the asset.
#pragma once

#include "shatter/math.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shatter::fracture
{

/// The learned f̂_N of CVD eq. 11-12 for one asset, material and pipeline configuration.
///
/// Input features x (dimension 2 + components):
///   x₀ = log(E_D(N = 1) / γ), the strength of the impact relative to the toughness (the criterion's
///        own value, which planFracture computes anyway);
///   x₁ = concentrationScale · log(n Σu²), how concentrated the distribution u is (0 when uniform; it
///        does not depend on where the impact is, which a PCA of a few dozen impact sites cannot tell
///        apart from what it is);
///   x₂.. = shapeScale · Π (u − mean): the PCA coefficients (CVD eq. 11) of the distribution
///        u = w^p / Σ w^p of the node weights w (nodeWeights), p = distributionExponent (p < 1 widens
///        the peaked W^α weights so that distributions of nearby impacts overlap).
/// Splitting strength from shape is what makes the regression well posed over heights: a drop from h
/// scales every weight by h^α (the deformation models are linear), which moves x₀ only.
/// Output: log N ≈ Σ_i weights_i ‖x − c_i‖ + polynomial₀ + polynomial₁ x₀ — the RBF φ(r) = r of CVD
/// eq. 12 with global support; its bias b is extended by a slope in the strength, the trend the
/// degree follows over heights (φ(r) = r alone grows linearly away from the centres anyway).
struct DegreeModel
{
    static constexpr std::uint32_t kVersion = 1;

    // What it was trained for (checked by findDegreeModel's section name and by planFracture's sizes).
    std::uint64_t configurationHash = 0; ///< degreeModelKey of the material and pipeline settings
    Index nodeCount = 0;                 ///< tet nodes of the asset: the model covers the unbroken object
    Real toughness = 0;                  ///< γ it was trained with
    int maxDegree = 0;                   ///< Material::maxFragments it was trained with

    // PCA (CVD §4.1): basis rows are orthonormal principal directions of the normalised distributions.
    int components = 0;
    std::vector<Real> mean;        ///< nodeCount: the mean normalised distribution
    std::vector<Real> basis;       ///< components × nodeCount, row-major
    Real shapeScale = 1;           ///< multiplies the PCA coefficients (balances them against x₀)
    Real concentrationScale = 0;   ///< multiplies x₁
    Real distributionExponent = 1; ///< p of u = w^p / Σ w^p

    // RBF network (CVD eq. 12).
    int centreCount = 0;
    std::vector<Real> centres;    ///< centreCount × featureCount()
    std::vector<Real> weights;    ///< centreCount
    std::vector<Real> polynomial; ///< 2: the bias and the slope in x₀

    int featureCount() const { return 2 + components; }

    /// The features x of an event: `nodeWeights` per asset node (nodeCount entries, ≥ 0, not all 0),
    /// `energyRatio` = E_D(N = 1) / γ (> 0). Asserts the sizes.
    std::vector<Real> features(std::span<const Real> nodeWeights, Real energyRatio) const;
    /// The network's value at features x: log N (not rounded or clamped).
    Real evaluate(std::span<const Real> x) const;
    /// The predicted fracture degree N (real, not rounded or clamped; planFracture rounds it and clamps
    /// it to [2, maxDegree]). Costs one pass over the weights per component and one per centre.
    Real predict(std::span<const Real> nodeWeights, Real energyRatio) const;
};

/// u = w^p / Σ w^p (w ≥ 0, not all 0).
std::vector<Real> shapeDistribution(std::span<const Real> nodeWeights, Real exponent);

/// log of n Σu² for a distribution u summing to 1 over n nodes (given as that product): x₁ before scaling.
Real distributionConcentration(Real participation);

/// The model's bytes (the version first, then the fields), for an asset section.
std::vector<std::byte> serializeDegreeModel(const DegreeModel& model);
/// Reads serializeDegreeModel's bytes. Throws shatter::Error naming `source` for another version,
/// truncated or inconsistent data.
DegreeModel deserializeDegreeModel(std::span<const std::byte> bytes,
                                   const std::string& source = "DegreeModel");

} // namespace shatter::fracture
