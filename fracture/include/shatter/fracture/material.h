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
    Real density = 2400;        ///< kg/m³, in [1e-3, 1e6]
    Real youngsModulus = 5e10;  ///< Pa, in (0, 1e13]
    Real poissonRatio = 0.2;    ///< in (−1, 0.5)
    Real toughness = 1.0;       ///< γ: fracture threshold on the distance-weighted energy E_D (CVD eq. 1-2)
    Real energyExponent = 1.0;  ///< α: node weights are W^α (CVD §3.4, Fig. 5); 0 ignores the deformation
    std::vector<Real> weakness; ///< β: optional per-tet weight multiplier (painted), empty = uniform
    MetricWarp warp;            ///< rest-shape warp of the metric (CVD §3.4)
    int maxFragments = 64;      ///< upper bound on the fracture degree N of one event
    /// Fragments smaller than this (model units³) do not break again (FracturePipeline keeps them whole);
    /// the one size limit of the fracture module (0: every fragment may break).
    Real minFragmentVolume = 0;
};

/// Soda-lime glass: ρ = 2500 kg/m³, E = 70 GPa, ν = 0.22, with α = 2 and γ = 1.5e-6 fitted on the
/// procedural plate (assets/meshes/plate.obj: a dish 26 cm across and 2 cm high, in metres) dropped
/// flat-ish (tilted 5-15°) onto a hard floor with FractureSystem's defaults at 120 Hz. α = 2 (CVD §3.4,
/// Fig. 5: W^α sharpens the energy field) makes the pieces finer near the impact and lets E_D grow as
/// the fourth power of the impact speed (∝ h²). Measured E_D(N = 1) over 10 tilts (×10⁻⁶): 0.15 m:
/// 0.04-0.21, 0.5 m: 0.4-3.2, 1 m: 2.6-23, 2 m: 15-91, 4 m: 130-540; mean fragment counts 1.6, 3.4,
/// 9.1 and 30 from 0.5, 1, 2 and 4 m (fracture_system_test with SHATTER_LONG_TESTS=1). The impulses
/// come from the narrow phase and the solver, so refit γ if those change. γ is in the units of
/// E_D = Σ β V W^α ‖x − s‖² (J²·m⁻¹ for α = 2): it depends on the object's size and units, so refit it
/// for other assets rather than reusing the number.
Material glass();

/// Throws shatter::Error naming `source` and the first bad field; `tetCount` checks the weakness size.
void checkMaterial(const Material& material, Index tetCount, const std::string& source = "Material");

} // namespace shatter::fracture
