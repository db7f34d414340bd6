// A cheap upper bound on the fracture criterion (CVD eq. 1-2 with N = 1, §3.3-3.4) under the modal
// model: FracturePipeline::mightBreak rejects an impact when the bound is ≤ γ, without computing the
// strain energy field. The inequality and its proof are in fracture_bound.cpp. The per-region data is
// precomputed once (O(tets · k²)) for the unit material (E = 1, ρ = 1, modal_deformation.h); an impact
// then costs the contact load's projection on the k modes and O(k).
#pragma once

#include "cvd.h"
#include "modal_deformation.h"
#include "shatter/fracture/material.h"

#include <Eigen/Core>

#include <span>
#include <vector>

namespace shatter::fracture
{

/// The precomputed data of one region's bound, for the unit material. With H_v the k × k matrix of
/// node v's energy in unit modal coordinates (U_v = ½ qᵀ H_v q), V_v its dual volume, and
/// P_v = β_v ‖x_v − p‖² (β_v the node's weakness, x_v its metric coordinates, p a fixed point):
struct FractureBoundData
{
    std::vector<Real> pwMode; ///< per mode j: max_v √(P_v (H_v)_jj / V_v)
    std::vector<Real> wMode;  ///< per mode j: max_v √((H_v)_jj / V_v)
    Real pwPlain = 0;         ///< max_v λ_max(P_v H_v / V_v)
    Real pwScaled = 0;        ///< max_v λ_max(P_v Λ^-½ H_v Λ^-½ / V_v)
    Real wPlain = 0;          ///< max_v λ_max(H_v / V_v)
    Real wScaled = 0;         ///< max_v λ_max(Λ^-½ H_v Λ^-½ / V_v)
    Real pMax = 0;            ///< max_v P_v over nodes with V_v > 0
    Real pMaxBare = 0;        ///< max_v P_v over nodes with V_v = 0 (their weight is β_v U_v)
    Real volume = 0;          ///< Σ_v V_v

    bool operator==(const FractureBoundData&) const = default;
};

/// The bound data of `region` (the fragment's nodes and dual volumes, as planFracture sees them) with
/// `basis` (its elastic region holds every tet touching those nodes). `coords`: the metric coordinates,
/// `dimension` reals per asset node, exactly those planFracture gets; `material` supplies β.
FractureBoundData computeFractureBoundData(const TetMesh& mesh, const ModalBasis& basis,
                                           const FragmentRegion& region, std::span<const Real> coords,
                                           int dimension, const Material& material);

/// P_v = β_v ‖x_v − p‖² per local node of `region`, with p the centre of the nodes' bounding box in the
/// metric space (the bound's fixed point); fills data.pMax, data.pMaxBare and data.volume from them.
/// `coords` and `material` as for computeFractureBoundData.
std::vector<Real> nodeSpreads(const TetMesh& mesh, const FragmentRegion& region, std::span<const Real> coords,
                              int dimension, const Material& material, FractureBoundData& data);

/// An upper bound on E_D(N = 1) (fracture_degree.h, wholeEnergy of nodeWeights) of the impact whose
/// unit modal load is `load` (modalLoad), for `material` (α, E). Never below the value planFracture
/// computes, up to round-off (the caller adds a relative margin).
Real fractureEnergyBound(const FractureBoundData& data, const ModalBasis& basis, const Eigen::VectorXd& load,
                         const Material& material);

} // namespace shatter::fracture
