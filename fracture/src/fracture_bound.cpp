// The fracture criterion's upper bound (see fracture_bound.h).
//
// The criterion (CVD eq. 1-2 with N = 1, weights of §3.3-3.4, fracture_degree.h) is
//   E_D = Σ_v w_v ‖x_v − c‖²,   w_v = β_v V_v W_v^α,   W_v = U_v / V_v,
// over the fragment's nodes v, with c the weighted centroid. The centroid minimises Σ_v w_v ‖x_v − y‖²
// over y, so for the fixed point p of the precomputation (the centre of the nodes' bounding box)
//   E_D ≤ Σ_v P_v V_v W_v^α,   P_v = β_v ‖x_v − p‖².                                          (1)
// Modal model (modal_deformation.h): u = Φ q with q_j = g_j / λ_j, g = Φᵀ f, and the energy of a tet is
// a quadratic form of q, so U_v = ½ qᵀ H_v q with H_v ⪰ 0 (¼ of its tets' element matrices Φ_tᵀ K_t Φ_t)
// and Σ_v U_v ≤ U = ½ qᵀ Λ q = ½ Σ_j λ_j q_j² (the modes are K-orthogonal; a fragment's nodes are a
// subset of its region's).
//  - α ≥ 1: Σ_v P_v V_v W_v^α = Σ_v (P_v W_v^{α−1}) U_v ≤ max_v (P_v W_v^{α−1}) · U, and
//      P_v W_v^{α−1} = P_v^{2−α} (P_v W_v)^{α−1} ≤ P_max^{2−α} PW^{α−1}       (1 ≤ α ≤ 2),
//      P_v W_v^{α−1} = (P_v W_v) W_v^{α−2} ≤ PW · W_max^{α−2}                 (α ≥ 2),
//    with PW = max_v P_v W_v and W_max = max_v W_v (and P_max W_max^{α−1} too, whichever is smaller).
//  - α < 1: Hölder with exponents 1/(1−α) and 1/α:
//      Σ_v P_v V_v^{1−α} U_v^α ≤ P_max (Σ_v V_v)^{1−α} (Σ_v U_v)^α ≤ P_max V^{1−α} U^α.
//  - A node without volume (V_v = 0) weighs β_v U_v (nodeWeights): its term is ≤ P_max,bare · U.
// PW and W_max: G_v = P_v H_v / V_v ⪰ 0 (and H_v / V_v), so P_v W_v = ½ qᵀ G_v q, and three bounds hold,
// of which the smallest is used:
//  (a) √(qᵀ G q) is a seminorm, so √(qᵀ G q) ≤ Σ_j |q_j| √(G_jj) (triangle inequality over q = Σ q_j e_j),
//      and max_v ≤ Σ_j |q_j| max_v √((G_v)_jj);
//  (b) qᵀ G q ≤ λ_max(G) ‖q‖²;
//  (c) qᵀ G q ≤ λ_max(Λ^-½ G Λ^-½) qᵀ Λ q = λ_max(Λ^-½ G Λ^-½) · 2U.
// Units: everything is precomputed for the unit material; the real energies are the unit ones / E
// (modal_deformation.h), so U, PW and W_max are divided by E before the α powers.
#include "fracture_bound.h"

#include "shatter/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace shatter::fracture
{

using namespace detail;

FractureBoundData computeFractureBoundData(const TetMesh& mesh, const ModalBasis& basis,
                                           const FragmentRegion& region, std::span<const Real> coords,
                                           int dimension, const Material& material)
{
    const ElasticRegion& elastic = *basis.region;
    const int k = basis.modeCount();
    const std::size_t dim = std::size_t(dimension);
    if (dimension < 1 || coords.size() != dim * std::size_t(mesh.nodeCount()))
        throw Error("fracture bound", "the metric coordinates do not match the asset's nodes");
    Material unit; // the basis's unit material (modal_deformation.h)
    unit.youngsModulus = 1;
    unit.poissonRatio = basis.poissonRatio;
    const Lame lame = lameParameters(unit);

    // Local index (in `region`) of each elastic-region node, or −1.
    std::vector<int> local(elastic.nodes.size(), -1);
    for (std::size_t n = 0; n < elastic.nodes.size(); ++n)
    {
        const Index l = region.localIndex(elastic.nodes[n]);
        if (l != kInvalidIndex)
            local[n] = int(l);
    }

    // H_v = ¼ Σ_t B_t, B_t = 2 V_t (μ Σ_ab ε_ab ⊗ ε_ab + ½ λ tr ε ⊗ tr ε) over the mode strains of tet t,
    // so that ½ qᵀ B_t q is strainEnergy's V_t (μ ε:ε + ½ λ (tr ε)²).
    std::vector<Eigen::MatrixXd> h(region.nodes.size());
    Eigen::MatrixXd strain(9, k);
    Eigen::RowVectorXd trace(k);
    for (std::size_t t = 0; t < elastic.tets.size(); ++t)
    {
        bool needed = false;
        for (Index s : elastic.tetSlots[t])
            needed = needed || local[elastic.slotNode[s]] >= 0;
        if (!needed)
            continue;
        for (int j = 0; j < k; ++j)
        {
            Mat3 grad = Mat3::Zero();
            for (int c = 0; c < 4; ++c)
                grad += basis.modes.col(j).segment<3>(3 * Eigen::Index(elastic.tetSlots[t][c])) *
                        elastic.tetGradient[t][c].transpose();
            const Mat3 eps = 0.5 * (grad + grad.transpose());
            strain.col(j) = Eigen::Map<const Eigen::Matrix<Real, 9, 1>>(eps.data());
            trace[j] = eps.trace();
        }
        const Real v = elastic.tetVolume[t];
        const Eigen::MatrixXd b =
            2 * v * (lame.mu * strain.transpose() * strain + 0.5 * lame.lambda * trace.transpose() * trace);
        for (Index s : elastic.tetSlots[t])
            if (const int l = local[elastic.slotNode[s]]; l >= 0)
            {
                if (h[std::size_t(l)].size() == 0)
                    h[std::size_t(l)] = Eigen::MatrixXd::Zero(k, k);
                h[std::size_t(l)] += 0.25 * b;
            }
    }

    // The fixed point p: the centre of the nodes' bounding box in the metric space.
    std::vector<Real> lo(dim, std::numeric_limits<Real>::infinity()), hi(dim, -lo[0]);
    for (Index node : region.nodes)
        for (std::size_t c = 0; c < dim; ++c)
        {
            lo[c] = std::min(lo[c], coords[node * dim + c]);
            hi[c] = std::max(hi[c], coords[node * dim + c]);
        }

    FractureBoundData data;
    data.pwMode.assign(std::size_t(k), 0);
    data.wMode.assign(std::size_t(k), 0);
    const Eigen::VectorXd invSqrtLambda = basis.eigenvalues.cwiseSqrt().cwiseInverse();
    for (std::size_t i = 0; i < region.nodes.size(); ++i)
    {
        const Index node = region.nodes[i];
        Real beta = 1; // as nodeWeights: the volume-weighted mean weakness of the node's tets
        if (!material.weakness.empty())
        {
            Real sum = 0, volume = 0;
            for (Index e = mesh.nodeTetOffsets[node]; e < mesh.nodeTetOffsets[node + 1]; ++e)
            {
                const Index t = mesh.nodeTets[e];
                sum += material.weakness[t] * mesh.tetVolume(t);
                volume += mesh.tetVolume(t);
            }
            beta = volume > 0 ? sum / volume : 1;
        }
        Real d2 = 0;
        for (std::size_t c = 0; c < dim; ++c)
        {
            const Real d = coords[node * dim + c] - 0.5 * (lo[c] + hi[c]);
            d2 += d * d;
        }
        const Real p = beta * d2;
        const Real volume = region.nodeVolumes[i];
        data.volume += volume;
        if (!(volume > 0))
        {
            data.pMaxBare = std::max(data.pMaxBare, p);
            continue;
        }
        data.pMax = std::max(data.pMax, p);
        if (h[i].size() == 0)
            continue; // no energy can reach this node
        const Eigen::MatrixXd g = h[i] / volume;
        const Eigen::MatrixXd scaled = invSqrtLambda.asDiagonal() * g * invSqrtLambda.asDiagonal();
        const Real plain = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(g, Eigen::EigenvaluesOnly)
                               .eigenvalues()
                               .maxCoeff();
        const Real relative = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled, Eigen::EigenvaluesOnly)
                                  .eigenvalues()
                                  .maxCoeff();
        data.wPlain = std::max(data.wPlain, plain);
        data.wScaled = std::max(data.wScaled, relative);
        data.pwPlain = std::max(data.pwPlain, p * plain);
        data.pwScaled = std::max(data.pwScaled, p * relative);
        for (int j = 0; j < k; ++j)
        {
            const Real gjj = std::max<Real>(g(j, j), 0);
            data.wMode[std::size_t(j)] = std::max(data.wMode[std::size_t(j)], std::sqrt(gjj));
            data.pwMode[std::size_t(j)] = std::max(data.pwMode[std::size_t(j)], std::sqrt(p * gjj));
        }
    }
    // Round-off of the eigenvalues (relative ~1e-15 of ‖G‖): a margin well above it.
    constexpr Real kMargin = 1 + 1e-9;
    for (Real* x : {&data.pwPlain, &data.pwScaled, &data.wPlain, &data.wScaled})
        *x *= kMargin;
    return data;
}

Real fractureEnergyBound(const FractureBoundData& data, const ModalBasis& basis, const Eigen::VectorXd& load,
                         const Material& material)
{
    const Eigen::Index k = basis.eigenvalues.size();
    SHATTER_ASSERT(load.size() == k && data.pwMode.size() == std::size_t(k));
    Real u = 0, qq = 0, pwSum = 0, wSum = 0;
    for (Eigen::Index j = 0; j < k; ++j)
    {
        const Real q = load[j] / basis.eigenvalues[j];
        u += 0.5 * load[j] * q;
        qq += q * q;
        pwSum += std::abs(q) * data.pwMode[std::size_t(j)];
        wSum += std::abs(q) * data.wMode[std::size_t(j)];
    }
    // Unit material → real: energies / E (file comment).
    const Real e = material.youngsModulus;
    const Real pw = std::min({0.5 * pwSum * pwSum, 0.5 * data.pwPlain * qq, data.pwScaled * u}) / e;
    const Real wMax = std::min({0.5 * wSum * wSum, 0.5 * data.wPlain * qq, data.wScaled * u}) / e;
    u /= e;
    const Real alpha = material.energyExponent;
    const Real bare = data.pMaxBare * u;
    if (alpha < 1)
        return data.pMax * std::pow(data.volume, 1 - alpha) * std::pow(u, alpha) + bare;
    Real factor = data.pMax * std::pow(wMax, alpha - 1);
    if (alpha <= 2)
        factor = std::min(factor, std::pow(data.pMax, 2 - alpha) * std::pow(pw, alpha - 1));
    else
        factor = std::min(factor, pw * std::pow(wMax, alpha - 2));
    return factor * u + bare;
}

} // namespace shatter::fracture
