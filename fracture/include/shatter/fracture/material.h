// The material of a fracturable object (CVD §3.1, §3.4): elasticity for the deformation models, the
// toughness that decides whether and how much it breaks, and the artist controls.
#pragma once

#include "shatter/math.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace shatter::fracture
{

/// Rest-shape warp of the fracture metric (CVD §3.4): stretches the space the Voronoi sites live in, so
/// fragments come out elongated (anisotropic) or with wavy cracks.
struct MetricWarp
{
    /// Linear map applied to positions before the metric (identity: no anisotropy). Scaling one axis
    /// by s < 1 makes fragments s⁻¹ times longer along it.
    Eigen::Matrix3d linear = Eigen::Matrix3d::Identity();
    Real waveAmplitude = 0;             ///< wavy cracks: displacement amplitude, model units (0: off)
    Real waveLength = 1;                ///< wavy cracks: wavelength, model units
    Vec3 waveDirection = Vec3::UnitX(); ///< direction of the displacement
    /// The displacement varies as sin(2π (p · ĉ) / waveLength) along this direction ĉ; choose it across
    /// waveDirection for wavy cracks (along it, the wave only stretches the metric unevenly).
    Vec3 wavePhaseDirection = Vec3::UnitZ();
};

struct Material
{
    Real density = 2400;        ///< kg/m³
    Real youngsModulus = 5e10;  ///< Pa
    Real poissonRatio = 0.2;    ///< in (−1, 0.5)
    Real toughness = 1.0;       ///< γ: fracture threshold on the distance-weighted energy E_D (CVD eq. 1-2)
    Real energyExponent = 1.0;  ///< α: node weights are W^α (CVD §3.4, Fig. 5); 0 ignores the deformation
    std::vector<Real> weakness; ///< β: optional per-tet weight multiplier (painted), empty = uniform
    MetricWarp warp;            ///< rest-shape warp of the metric (CVD §3.4)
    int maxFragments = 64;      ///< upper bound on the fracture degree N of one event
    Real minFragmentVolume = 0; ///< fragments below this volume are merged into a neighbour (model units³)
};

/// Throws shatter::Error naming `source` and the first bad field; `tetCount` checks the weakness size.
void checkMaterial(const Material& material, Index tetCount, const std::string& source = "Material");

} // namespace shatter::fracture
