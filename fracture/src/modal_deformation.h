// Modal deformation (modal analysis used as a deformation model in place of CVD §3.3's FEM): the k lowest
// elastic modes of K φ = λ M φ (Spectra, shift-invert around a small negative shift), M-normalised; an
// event projects the contact load on them and takes the static modal response
// u = Σ_i φ_i (φ_iᵀ f) / λ_i, then the strain energy per tet from u exactly as the FEM model does. With
// every mode kept this is the FEM solution (up to a rigid motion, which carries no energy); with k
// modes it is its smooth part, at O(k · DOFs) per event instead of a sparse back-substitution.
//
// Units: the basis is computed for the unit material (E = 1, ρ = 1, the object's ν). For a homogeneous
// material K scales with E and M with ρ, so the real modes are φ/√ρ with eigenvalues λ E/ρ, and the
// static response Σ φ φᵀ f / λ of the real material is the unit one divided by E (ρ cancels). One basis
// thus serves every E and ρ, and can be stored with the asset (fracture_precompute.h).
//
// Where the basis lives: in this object's region cache, keyed by the asset's geometry, the region's
// tets, ν and the mode count. The whole object's basis is read from the asset's precomputed section
// when it has one (fracture_precompute.h) instead of being computed. A FractureSystem keeps one
// ModalDeformation for all its objects, so instances of one asset share one basis; prepare() gets it
// at registration time.
//
// Fragments: a fragment's basis is computed on first need by the same code path (its region is its
// own free body), then cached; fragments are much smaller than the object, so this costs a fraction of
// the object's precomputation, paid once at the fragment's first impact.
#pragma once

#include "deformation.h"
#include "deformation_region.h"

#include <Eigen/Core>

#include <memory>
#include <vector>

namespace shatter::fracture
{

/// The modal basis of one region for the unit material (E = 1, ρ = 1; see the file comment).
struct ModalBasis
{
    std::shared_ptr<const detail::ElasticRegion> region;
    Real poissonRatio = 0;
    /// DOFs × k, M-orthonormal for ρ = 1. Row-major: a load on a few nodes (modalLoad) reads their rows
    /// contiguously.
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> modes;
    Eigen::VectorXd eigenvalues; ///< k, increasing, > 0, for E = 1 and ρ = 1

    int modeCount() const { return int(eigenvalues.size()); }
};

/// Computes the basis of `tets` (normalised: increasing, unique, in range) of `asset`: the
/// min(modeCount, elastic DOFs) lowest elastic modes. Throws shatter::Error if the eigensolver fails.
std::shared_ptr<const ModalBasis> computeModalBasis(const Asset& asset, std::vector<Index> tets,
                                                    Real poissonRatio, int modeCount);

/// g = Φᵀ f for the unit basis: the spread, inertia-relieved contact load (as compute() builds it)
/// projected on the modes; the unit modal coordinates are g_j / λ_j. Only the loaded DOFs are read.
Eigen::VectorXd modalLoad(const ModalBasis& basis, Real contactRadius, std::span<const ImpactForce> forces);

class ModalDeformation final : public Deformation
{
public:
    /// Throws shatter::Error for bad options (`options.model` is ignored).
    explicit ModalDeformation(const DeformationSettings& options = {});
    ~ModalDeformation() override;

    DeformationModel model() const override { return DeformationModel::Modal; }
    StrainEnergy compute(const Asset& asset, std::span<const Index> tets, const Material& material,
                         std::span<const ImpactForce> forces) override;
    void prepare(const Asset& asset, std::span<const Index> tets, const Material& material) override;
    void forget(const Asset& asset, std::span<const Index> tets, const Material& material) override;
    void clearCache() override;
    std::size_t cachedRegions() const override;

    /// The region's elastic eigenvalues λ_i = ω_i² (1/s², increasing), computing the basis if needed.
    std::vector<Real> eigenvalues(const Asset& asset, std::span<const Index> tets, const Material& material);

    /// The region's unit basis (cached; from the asset's precomputed section for the whole object when
    /// present, computed otherwise).
    std::shared_ptr<const ModalBasis> basis(const Asset& asset, std::span<const Index> tets,
                                            const Material& material);

    const DeformationSettings& options() const { return settings; }

private:
    DeformationSettings settings;
    struct Cache;
    std::unique_ptr<Cache> cache;
};

} // namespace shatter::fracture
