// Node weights of the discrete CVD (fracture_degree.h) and the energy of the unbroken fragment.
//
// CVD §3.3 sets node weights "by summing one fourth of the strain energy over their incident tetrahedra"
// (StrainEnergy::perNode, J). Eq. 1 integrates the density W (J/m³) over a cell, so the sum over a cell's
// nodes of U_v is already ∫ W dx; the artist controls of §3.4 act on the density — W^α, then β W — so
// the weight is the integral over the node's dual volume of β W^α: β_v V_v (U_v / V_v)^α. With α = 1
// the volume cancels and γ keeps the paper's units (J·m² in 3-D; embedding units² × J otherwise).
#include "fracture_degree.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace shatter::fracture
{

std::vector<Real> nodeWeights(const TetMesh& mesh, const FragmentRegion& region, const StrainEnergy& energy,
                              const Material& material)
{
    constexpr const char* kSource = "nodeWeights";
    const Real alpha = material.energyExponent;
    if (!std::isfinite(alpha) || alpha < 0)
        throw Error(kSource, "Material::energyExponent (α) must be finite and ≥ 0");
    if (!material.weakness.empty() && material.weakness.size() != mesh.tets.size())
        throw Error(kSource, "Material::weakness (β) has " + std::to_string(material.weakness.size()) +
                                 " entries for " + std::to_string(mesh.tets.size()) + " tets");
    for (std::size_t t = 0; t < material.weakness.size(); ++t)
        if (!std::isfinite(material.weakness[t]) || material.weakness[t] < 0)
            throw Error(kSource,
                        "Material::weakness (β) of tet " + std::to_string(t) + " is not finite and ≥ 0");
    if (energy.perNode.size() != energy.nodes.size())
        throw Error(kSource, "StrainEnergy has " + std::to_string(energy.nodes.size()) + " nodes but " +
                                 std::to_string(energy.perNode.size()) + " values");
    Real largest = 0;
    for (std::size_t i = 0; i < energy.perNode.size(); ++i)
    {
        if (!std::isfinite(energy.perNode[i]))
            throw Error(kSource,
                        "strain energy of node " + std::to_string(energy.nodes[i]) + " is not finite");
        if (i > 0 && energy.nodes[i] <= energy.nodes[i - 1])
            throw Error(kSource, "StrainEnergy::nodes must be strictly increasing");
        largest = std::max(largest, std::abs(energy.perNode[i]));
    }
    // A quadratic form summed in floating point can come out a hair below zero; anything larger is a bug
    // in the producer.
    const Real negativeSlack = 1e-12 * largest;

    const Index n = region.nodeCount();
    std::vector<Real> weights(n, 0);
    std::size_t e = 0; // merge of two increasing node lists
    for (Index i = 0; i < n; ++i)
    {
        const Index node = region.nodes[i];
        while (e < energy.nodes.size() && energy.nodes[e] < node)
            ++e;
        Real u = (e < energy.nodes.size() && energy.nodes[e] == node) ? energy.perNode[e] : 0;
        if (u < -negativeSlack)
            throw Error(kSource, "strain energy of node " + std::to_string(node) + " is negative");
        u = std::max<Real>(u, 0);

        const Real beta = nodeWeakness(mesh, material, node);
        const Real volume = region.nodeVolumes[i];
        // A node without material around it (no region tet) keeps its energy as is.
        weights[i] = beta * (volume > 0 ? volume * std::pow(u / volume, alpha) : u);
    }
    return weights;
}

Real nodeWeakness(const TetMesh& mesh, const Material& material, Index node)
{
    if (material.weakness.empty())
        return 1;
    Real sum = 0, volume = 0;
    for (Index k = mesh.nodeTetOffsets[node]; k < mesh.nodeTetOffsets[node + 1]; ++k)
    {
        const Index t = mesh.nodeTets[k];
        const Real v = mesh.tetVolume(t);
        sum += material.weakness[t] * v;
        volume += v;
    }
    return volume > 0 ? sum / volume : 1;
}

Real wholeEnergy(std::span<const Real> localCoords, int dimension, std::span<const Real> weights)
{
    const std::size_t dim = std::size_t(dimension);
    SHATTER_ASSERT(dimension > 0 && localCoords.size() == dim * weights.size());
    std::vector<Real> centroid(dim, 0);
    Real mass = 0;
    for (std::size_t v = 0; v < weights.size(); ++v)
    {
        mass += weights[v];
        for (std::size_t c = 0; c < dim; ++c)
            centroid[c] += weights[v] * localCoords[v * dim + c];
    }
    if (!(mass > 0))
        return 0;
    for (Real& c : centroid)
        c /= mass;
    Real energy = 0;
    for (std::size_t v = 0; v < weights.size(); ++v)
    {
        Real d2 = 0;
        for (std::size_t c = 0; c < dim; ++c)
            d2 += (localCoords[v * dim + c] - centroid[c]) * (localCoords[v * dim + c] - centroid[c]);
        energy += weights[v] * d2;
    }
    return energy;
}

} // namespace shatter::fracture
