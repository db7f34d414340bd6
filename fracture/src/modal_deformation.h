// Modal deformation (modal analysis used as a deformation model in place of CVD §3.3's FEM): the k lowest
// elastic modes of K φ = λ M φ (Spectra, shift-invert around a small negative shift), M-normalised; an
// event projects the contact load on them and takes the static modal response
// u = Σ_i φ_i (φ_iᵀ f) / λ_i, then the strain energy per tet from u exactly as the FEM model does. With
// every mode kept this is the FEM solution (up to a rigid motion, which carries no energy); with k
// modes it is its smooth part, at O(k · DOFs) per event instead of a sparse back-substitution.
//
// Where the basis lives: in this object's region cache, keyed like the FEM factorisation by the
// asset's geometry, the region's tets and the elastic constants — not in shatter::Asset. The Asset is
// the collision library's immutable, Bullet- and fracture-free cache file (plugin/core), and the modes
// depend on the material (ν, and E/ρ through λ), which is per object, not per mesh. A FractureSystem
// keeps one ModalDeformation for all its objects, so instances of one asset with one material share
// one basis; prepare() computes it at registration time.
//
// Fragments: a fragment's basis is computed on first need by the same code path (its region is its
// own free body), then cached; fragments are much smaller than the object, so this costs a fraction of
// the object's precomputation, paid once at the fragment's first impact.
#pragma once

#include "deformation.h"

#include <memory>
#include <vector>

namespace shatter::fracture
{

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
    void clearCache() override;
    std::size_t cachedRegions() const override;

    /// The region's elastic eigenvalues λ_i = ω_i² (1/s², increasing), computing the basis if needed.
    std::vector<Real> eigenvalues(const Asset& asset, std::span<const Index> tets, const Material& material);

    struct Entry; ///< a region's discretisation and modal basis (private)

private:
    DeformationSettings settings;
    struct Cache;
    std::unique_ptr<Cache> cache;
};

} // namespace shatter::fracture
