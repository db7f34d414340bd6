// Quasi-static linear tetrahedral FEM (CVD §3.3): K u = f on the fragment's tets,
// the free body balanced by inertia relief and its six rigid modes removed by 3-2-1 pinning, solved by
// a sparse Cholesky (Eigen SimplicialLLT) factorised once per region and reused across events.
#pragma once

#include "deformation.h"

#include <memory>

namespace shatter::fracture
{

class FemDeformation final : public Deformation
{
public:
    /// Throws shatter::Error for bad options (`options.model` is ignored).
    explicit FemDeformation(const DeformationSettings& options = {});
    ~FemDeformation() override;

    DeformationModel model() const override { return DeformationModel::Fem; }
    StrainEnergy compute(const Asset& asset, std::span<const Index> tets, const Material& material,
                         std::span<const ImpactForce> forces) override;
    void prepare(const Asset& asset, std::span<const Index> tets, const Material& material) override;
    void forget(const Asset& asset, std::span<const Index> tets, const Material& material) override;
    void clearCache() override;
    std::size_t cachedRegions() const override;

    struct Entry; ///< a region's discretisation and factorisation (private)

private:
    DeformationSettings settings;
    struct Cache;
    std::unique_ptr<Cache> cache;
};

} // namespace shatter::fracture
