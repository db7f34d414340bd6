// What a deformation model hands to the fracture criterion and the CVD (CVD §3.3): strain energy
// integrated per tet, and per node one quarter of the energy of its incident tets.
#pragma once

#include "shatter/math.h"

#include <vector>

namespace shatter::fracture
{

/// Forces of one impact on one fragment, in the asset's material frame.
struct ImpactForce
{
    Vec3 point = Vec3::Zero(); ///< where it acts (on or near the fragment's surface)
    Vec3 force = Vec3::Zero(); ///< N (impulse / contact duration)
};

struct StrainEnergy
{
    std::vector<Index> tets;   ///< the tets of the deformed region (asset tet ids)
    std::vector<Real> perTet;  ///< J, per entry of `tets`
    std::vector<Index> nodes;  ///< the nodes of those tets (asset node ids), increasing
    std::vector<Real> perNode; ///< J, per entry of `nodes`: ¼ of each incident tet's energy
    Real total = 0;            ///< J, Σ perTet
};

} // namespace shatter::fracture
