// The output of the centroidal Voronoi step (CVD §3.2-3.3) and the input of the tessellation (CVD §5):
// one site label per node of the fragment being split, and the node-to-site distances that eq. 13
// interpolates linearly inside each tet.
#pragma once

#include "fracture_result.h"

#include <cstdint>
#include <vector>

namespace shatter::fracture
{

struct VoronoiLabelling
{
    FragmentId parent = kNoFragment;   ///< the live fragment being split
    std::vector<Index> nodes;          ///< the parent's tet nodes (asset node ids), increasing
    std::vector<std::uint32_t> labels; ///< per entry of `nodes`: its site, in [0, siteCount)
    std::uint32_t siteCount = 0;
    int dimension = 3;            ///< dimension of the metric space (3: Euclidean, more: interior embedding)
    std::vector<Real> nodeCoords; ///< dimension × nodes.size(): each node's point in the metric space
    std::vector<Real> siteCoords; ///< dimension × siteCount: the sites

    /// Metric distance from node entry `i` (an index into `nodes`) to site `s`: the D_ij of eq. 13.
    Real distance(std::size_t i, std::uint32_t s) const
    {
        Real sum = 0;
        for (int c = 0; c < dimension; ++c)
        {
            const Real d = nodeCoords[i * dimension + c] - siteCoords[std::size_t(s) * dimension + c];
            sum += d * d;
        }
        return std::sqrt(sum);
    }
};

} // namespace shatter::fracture
