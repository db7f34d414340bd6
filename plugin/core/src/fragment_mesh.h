// The geometry of one fragment: its closed surface, made of pieces of the
// original surface and crack triangles, and its rigid-body mass properties.
#pragma once

#include "shatter/mesh.h"

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shatter
{

/// Closed, outward-oriented surface of one fragment in the asset's material frame.
struct FragmentMesh
{
    TriMesh surface;
    /// Per triangle: 1 for a crack triangle (made by fracture), 0 for a piece of the original surface.
    /// Empty means "no crack triangles" (fragment 0).
    std::vector<std::uint8_t> crack;

    bool isCrack(Index triangle) const { return !crack.empty() && crack[triangle] != 0; }
};

/// Mass, centre of mass and principal inertia of a solid of uniform density.
struct MassProperties
{
    Real volume = 0;
    Real mass = 0;
    Vec3 centerOfMass = Vec3::Zero();
    /// Principal moments of inertia about the centre of mass, ascending.
    Vec3 principalInertia = Vec3::Zero();
    /// Columns are the principal axes (material frame), a right-handed rotation.
    Eigen::Matrix3d principalAxes = Eigen::Matrix3d::Identity();
};

/// Mass properties of the solid bounded by the closed, outward-oriented `surface`, by the divergence
/// theorem (volume integrals of 1, x, x x^T turned into sums over triangles). Throws shatter::Error
/// naming `source` if the density is not positive and finite or the enclosed volume is not positive
/// (open or inside-out surface).
MassProperties computeMassProperties(const TriMesh& surface, Real density,
                                     const std::string& source = "fragment");

} // namespace shatter
