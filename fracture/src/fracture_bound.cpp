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

#include "fracture_degree.h"
#include "shatter/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace shatter::fracture
{

using namespace detail;

namespace
{

// A symmetric k × k matrix is kept as its packed lower triangle, column by column: (i, j), i ≥ j, at
// column(j) + i − j.
std::size_t packedSize(int k)
{
    return std::size_t(k) * std::size_t(k + 1) / 2;
}
std::size_t column(int k, int j)
{
    return std::size_t(j) * std::size_t(2 * k - j + 1) / 2;
}

// Bounds on λ_max(S A S / V) for packed A ⪰ 0 and S = diag(scale): the largest diagonal entry (a
// Rayleigh quotient) below, min(Gershgorin's largest absolute row sum, Frobenius norm) above.
struct EigenBounds
{
    Real lower = 0, upper = 0;
};

EigenBounds eigenBounds(const Real* a, int k, Real invVolume, const Real* scale, Real* rowSums)
{
    std::fill(rowSums, rowSums + k, Real(0));
    Real lower = 0, frobenius = 0;
    for (int j = 0; j < k; ++j)
    {
        const Real* c = a + column(k, j) - std::size_t(j); // c[i] = (i, j)
        const Real sj = scale[j] * invVolume;
        const Real diagonal = scale[j] * c[j] * sj;
        lower = std::max(lower, diagonal);
        Real sum = std::abs(diagonal);
        Real squares = 0;
        for (int i = j + 1; i < k; ++i)
        {
            const Real g = std::abs(scale[i] * c[i] * sj);
            rowSums[i] += g;
            sum += g;
            squares += g * g;
        }
        rowSums[j] += sum;
        frobenius += diagonal * diagonal + 2 * squares;
    }
    const Real gershgorin = *std::max_element(rowSums, rowSums + k);
    return {lower, std::min(gershgorin, std::sqrt(frobenius))};
}

} // namespace

std::vector<Real> nodeSpreads(const TetMesh& mesh, const FragmentRegion& region, std::span<const Real> coords,
                              int dimension, const Material& material, FractureBoundData& data)
{
    const std::size_t dim = std::size_t(dimension);
    // The fixed point p: the centre of the nodes' bounding box in the metric space.
    std::vector<Real> lo(dim, std::numeric_limits<Real>::infinity()), hi(dim, -lo[0]);
    for (Index node : region.nodes)
        for (std::size_t c = 0; c < dim; ++c)
        {
            lo[c] = std::min(lo[c], coords[node * dim + c]);
            hi[c] = std::max(hi[c], coords[node * dim + c]);
        }
    std::vector<Real> spread(region.nodes.size());
    for (std::size_t i = 0; i < region.nodes.size(); ++i)
    {
        const Index node = region.nodes[i];
        Real d2 = 0;
        for (std::size_t c = 0; c < dim; ++c)
        {
            const Real d = coords[node * dim + c] - 0.5 * (lo[c] + hi[c]);
            d2 += d * d;
        }
        const Real p = nodeWeakness(mesh, material, node) * d2;
        spread[i] = p;
        const Real volume = region.nodeVolumes[i];
        data.volume += volume;
        Real& pMax = volume > 0 ? data.pMax : data.pMaxBare;
        pMax = std::max(pMax, p);
    }
    return spread;
}

FractureBoundData computeFractureBoundData(const TetMesh& mesh, const ModalBasis& basis,
                                           const FragmentRegion& region, std::span<const Real> coords,
                                           int dimension, const Material& material)
{
    const ElasticRegion& elastic = *basis.region;
    const int k = basis.modeCount();
    const std::size_t packed = packedSize(k);
    if (dimension < 1 || coords.size() != std::size_t(dimension) * std::size_t(mesh.nodeCount()))
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
    // so that ½ qᵀ B_t q is strainEnergy's V_t (μ ε:ε + ½ λ (tr ε)²). ε is symmetric, so its three
    // off-diagonal components count twice: ¼ B_t = ½ V_t Σ_r w_r e_r e_rᵀ over seven rows e_r. Packed
    // (packedSize per local node); `touched` marks the nodes some tet reaches.
    constexpr int kRows = 7; // ε_00, ε_11, ε_22, ε_10, ε_20, ε_21, tr ε
    const Real weight[kRows] = {lame.mu,     lame.mu,     lame.mu,          2 * lame.mu,
                                2 * lame.mu, 2 * lame.mu, 0.5 * lame.lambda};
    std::vector<Real> h(region.nodes.size() * packed, 0);
    std::vector<char> touched(region.nodes.size(), 0);
    std::vector<Real> strain(std::size_t(kRows) * std::size_t(k)); // row r: strain[r k + j], mode j
    std::vector<Real> b(packed);
    std::vector<Real> grad(9 * std::size_t(k)); // (∇u)_ac of mode j at grad[(3 a + c) k + j]
    const Real* modes = basis.modes.data();     // row-major: DOF d's k values from modes + d k
    for (std::size_t t = 0; t < elastic.tets.size(); ++t)
    {
        const std::array<Index, 4>& slots = elastic.tetSlots[t];
        bool needed = false;
        for (Index s : slots)
            needed = needed || local[elastic.slotNode[s]] >= 0;
        if (!needed)
            continue;
        // ∇u = Σ_c u_c ⊗ ∇_c for every mode at once (a DOF's k mode values are contiguous), then
        // ε = ½ (∇u + ∇uᵀ) and tr ε.
        const std::array<Vec3, 4> gradient = tetGradient(elastic, t);
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c)
            {
                Real* out = grad.data() + std::size_t(3 * a + c) * std::size_t(k);
                std::fill(out, out + k, Real(0));
                for (int v = 0; v < 4; ++v)
                {
                    const Real* u = modes + (3 * std::size_t(slots[v]) + std::size_t(a)) * std::size_t(k);
                    const Real factor = gradient[v][c];
                    for (int j = 0; j < k; ++j)
                        out[j] += u[j] * factor;
                }
            }
        {
            const auto gradRow = [&](int a, int c)
            {
                return grad.data() + std::size_t(3 * a + c) * std::size_t(k);
            };
            Real* e = strain.data();
            const std::size_t kk = std::size_t(k);
            for (int j = 0; j < k; ++j)
            {
                const Real e00 = gradRow(0, 0)[j], e11 = gradRow(1, 1)[j], e22 = gradRow(2, 2)[j];
                e[j] = e00;
                e[kk + std::size_t(j)] = e11;
                e[2 * kk + std::size_t(j)] = e22;
                e[3 * kk + std::size_t(j)] = 0.5 * (gradRow(1, 0)[j] + gradRow(0, 1)[j]);
                e[4 * kk + std::size_t(j)] = 0.5 * (gradRow(2, 0)[j] + gradRow(0, 2)[j]);
                e[5 * kk + std::size_t(j)] = 0.5 * (gradRow(2, 1)[j] + gradRow(1, 2)[j]);
                e[6 * kk + std::size_t(j)] = e00 + e11 + e22;
            }
        }
        const Real half = 0.5 * elastic.tetVolume[t];
        for (int j = 0; j < k; ++j)
        {
            Real* c = b.data() + column(k, j) - std::size_t(j); // c[i] = (i, j)
            for (int i = j; i < k; ++i)
                c[i] = 0;
            for (int r = 0; r < kRows; ++r)
            {
                const Real* row = strain.data() + std::size_t(r * k);
                const Real factor = half * weight[r] * row[j];
                for (int i = j; i < k; ++i)
                    c[i] += factor * row[i];
            }
        }
        for (Index s : slots)
            if (const int l = local[elastic.slotNode[s]]; l >= 0)
            {
                touched[std::size_t(l)] = 1;
                Real* target = h.data() + std::size_t(l) * packed;
                for (std::size_t q = 0; q < packed; ++q)
                    target[q] += b[q];
            }
    }

    // Per node with volume: the diagonal maxima (√ is monotone, so it is taken once at the end) and the
    // bounds (eigenBounds) on λ_max(G_v) and λ_max(Λ^-½ G_v Λ^-½), G_v = H_v / V_v.
    FractureBoundData data;
    const std::vector<Real> spread = nodeSpreads(mesh, region, coords, dimension, material, data);
    std::vector<Real> diagonalMax(std::size_t(k), 0), pDiagonalMax(std::size_t(k), 0);
    const Eigen::VectorXd invSqrtLambda = basis.eigenvalues.cwiseSqrt().cwiseInverse();
    const std::vector<Real> ones(std::size_t(k), 1);
    struct Candidate
    {
        std::size_t node;
        Real p;
        EigenBounds plain, scaled;
    };
    std::vector<Candidate> candidates;
    candidates.reserve(region.nodes.size());
    std::vector<Real> rowSums(std::size_t(k), 0);
    for (std::size_t i = 0; i < region.nodes.size(); ++i)
    {
        const Real p = spread[i];
        const Real volume = region.nodeVolumes[i];
        if (!(volume > 0))
            continue; // only in pMaxBare
        if (!touched[i] || k == 0)
            continue; // no energy can reach this node
        const Real* hv = h.data() + i * packed;
        for (int j = 0; j < k; ++j)
        {
            const Real gjj = std::max<Real>(hv[column(k, j)] / volume, 0);
            diagonalMax[std::size_t(j)] = std::max(diagonalMax[std::size_t(j)], gjj);
            pDiagonalMax[std::size_t(j)] = std::max(pDiagonalMax[std::size_t(j)], p * gjj);
        }
        candidates.push_back({i, p, eigenBounds(hv, k, 1 / volume, ones.data(), rowSums.data()),
                              eigenBounds(hv, k, 1 / volume, invSqrtLambda.data(), rowSums.data())});
    }
    for (int j = 0; j < k; ++j)
    {
        data.wMode.push_back(std::sqrt(diagonalMax[std::size_t(j)]));
        data.pwMode.push_back(std::sqrt(pDiagonalMax[std::size_t(j)]));
    }

    // The four λ_max maxima. Eigen's eigensolver runs first on the nodes with the largest lower bounds,
    // then on every node whose upper bound (times P_v for the PW maxima) reaches a relative 1e-9 below
    // the largest value found so far. The solver's λ_max exceeds the true one by round-off only, far
    // below that 1e-9, so a skipped node cannot hold a maximum: the maxima are the ones the solver on
    // every node would give.
    constexpr Real kSkip = 1 - 1e-9;
    Eigen::MatrixXd g(k, k);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(k);
    const auto largest = [&](const Candidate& c, const Real* scale)
    {
        const Real* hv = h.data() + c.node * packed;
        const Real volume = region.nodeVolumes[c.node];
        for (int j = 0; j < k; ++j) // the solver reads the lower triangle only
            for (int i = j; i < k; ++i)
                g(i, j) = scale[i] * (hv[column(k, j) + std::size_t(i - j)] / volume) * scale[j];
        return solver.compute(g, Eigen::EigenvaluesOnly).eigenvalues()[k - 1];
    };
    std::vector<char> plainDone(candidates.size(), 0), scaledDone(candidates.size(), 0);
    // Candidate n's largest eigenvalue for one scaling, once, into that scaling's maxima w and pw.
    const auto solveOnce = [&](std::size_t n, std::vector<char>& done, const Real* scaling, Real& w, Real& pw)
    {
        if (done[n])
            return;
        done[n] = 1;
        const Real value = largest(candidates[n], scaling);
        w = std::max(w, value);
        pw = std::max(pw, candidates[n].p * value);
    };
    const auto plain = [&](std::size_t n)
    {
        solveOnce(n, plainDone, ones.data(), data.wPlain, data.pwPlain);
    };
    const auto scaled = [&](std::size_t n)
    {
        solveOnce(n, scaledDone, invSqrtLambda.data(), data.wScaled, data.pwScaled);
    };
    if (!candidates.empty())
    {
        const auto best = [&](auto key)
        {
            std::size_t arg = 0;
            for (std::size_t n = 1; n < candidates.size(); ++n)
                if (key(candidates[n]) > key(candidates[arg]))
                    arg = n;
            return arg;
        };
        plain(best([](const Candidate& c) { return c.plain.lower; }));
        plain(best([](const Candidate& c) { return c.p * c.plain.lower; }));
        scaled(best([](const Candidate& c) { return c.scaled.lower; }));
        scaled(best([](const Candidate& c) { return c.p * c.scaled.lower; }));
    }
    for (std::size_t n = 0; n < candidates.size(); ++n)
    {
        const Candidate& c = candidates[n];
        if (c.plain.upper >= kSkip * data.wPlain || c.p * c.plain.upper >= kSkip * data.pwPlain)
            plain(n);
        if (c.scaled.upper >= kSkip * data.wScaled || c.p * c.scaled.upper >= kSkip * data.pwScaled)
            scaled(n);
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
