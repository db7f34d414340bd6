// The fracture choices a production program makes (CVD §3.2, §3.3): the deformation model that turns
// impact forces into strain energy and the metric the Voronoi cells of the fracture pattern are
// measured in. FractureSystemSettings (shatter/fracture_system.h) carries them.
#pragma once

namespace shatter::fracture
{

/// The deformation model (CVD §3.3).
enum class DeformationModel
{
    Fem,   ///< quasi-static linear FEM, one sparse Cholesky back-substitution per event
    Modal, ///< static response of the k lowest elastic modes of K φ = λ M φ
};

/// Which metric the CVD measures distances in (CVD §3.2).
enum class FractureMetric
{
    Auto,      ///< Interior for non-convex assets (volume < 0.95 × convex hull volume), else Euclidean
    Euclidean, ///< warped rest positions
    Interior,  ///< the interior-distance embedding of the asset (computed once per asset and warp)
};

} // namespace shatter::fracture
