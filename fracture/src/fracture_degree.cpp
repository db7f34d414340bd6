// The fracture criterion and the degree search (CVD §3.1, §3.3).
//
// Criterion: "an object will fracture if its deformation energy is larger than a certain threshold γ",
// measured as the distance-weighted energy of eq. 1 about the fragment's centre. The centre that
// minimises eq. 1 is the weighted centroid (the one-site CVD), so E_D(N = 1) is wholeEnergy().
//
// Degree: "We initialize the fracture degree N = 1, and we double it until the distance-weighted
// deformation energy E_D is smaller than the fracture threshold γ. Then, we perform a bisection search
// on the fracture degree until we reach the smallest value for which [it] is smaller than γ." Each trial
// is a full CVD (≈ 2 log₂ N CVDs in all, the cost the paper's §4 learns away). The trials' sites come
// from one seed: a draw of N sites starts with the draw of any smaller N, so growing N only adds sites
// ("whenever we introduce new Voronoi sites we seed them randomly using as probability function the
// strain energy field"), and each trial depends on (seed, N) only — not on the search path.
//
// Scaling all energies by s > 0 leaves every trial's CVD unchanged and scales its E_D,i by s, so the
// chosen degree can only grow with s: doubling stops at a later power of two, and bisection over nested
// pass sets ends at a larger N (fracture_degree_test checks this).
//
// DegreeMode::Model replaces the search by CVD §4's learned degree: N = f̂_N(Π W) (eq. 11-12,
// degree_model.h) and the one CVD of eq. 9, P* = CVD(N, W).
#include "fracture_degree.h"

#include "degree_model.h"
#include "seeding.h"
#include "shatter/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

namespace shatter::fracture
{

std::optional<VoronoiLabelling> planFracture(const Asset& asset, const FragmentRegion& region,
                                             const StrainEnergy& energy, std::span<const Real> coords,
                                             int dimension, const Material& material, std::uint64_t seed,
                                             PlanStats* stats, const PlanSettings& settings)
{
    constexpr const char* kSource = "planFracture";
    const auto start = std::chrono::steady_clock::now();
    const Real gamma = material.toughness;
    if (!std::isfinite(gamma) || !(gamma > 0))
        throw Error(kSource, "Material::toughness (γ) must be finite and positive");
    if (material.maxFragments < 1)
        throw Error(kSource, "Material::maxFragments must be at least 1");
    if (region.nodes.empty())
        throw Error(kSource, "the fragment region is empty");
    if (region.nodes.back() >= asset.tetMesh.nodeCount())
        throw Error(kSource, "the fragment region names nodes the asset does not have");

    PlanStats local;
    PlanStats& st = stats ? *stats : local;
    st = PlanStats{};
    st.toughness = gamma;
    auto finish = [&]
    {
        st.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    };

    const std::vector<Real> weights = nodeWeights(asset.tetMesh, region, energy, material);
    const std::vector<Real> localCoords = gatherRegionCoords(region, coords, dimension);
    for (Real c : localCoords)
        if (!std::isfinite(c))
            throw Error(kSource, "a metric coordinate is not finite");
    st.wholeEnergy = wholeEnergy(localCoords, dimension, weights);
    const Index positive = Index(std::count_if(weights.begin(), weights.end(), [](Real w) { return w > 0; }));
    st.maxDegree = std::min<Index>(Index(material.maxFragments), positive);
    if (!(st.wholeEnergy > gamma) || st.maxDegree < 2)
    {
        finish();
        return std::nullopt;
    }

    // One trial: N energy-weighted sites, Lloyd, the criterion. Keeps the last passing CVD (any CVD with
    // `keep`).
    std::optional<VoronoiLabelling> best;
    CvdStats bestStats;
    auto trial = [&](Index n, bool keep = false, const CvdSettings* cvd = nullptr) -> bool
    {
        const std::vector<Real> sites = seedSites(localCoords, dimension, weights, n, seed);
        CvdStats cs;
        VoronoiLabelling labelling =
            computeCvd(region, weights, localCoords, dimension, sites, cvd ? *cvd : settings.cvd, &cs);
        DegreeTrial t;
        t.sites = n;
        t.cells = labelling.siteCount;
        t.maxCellEnergy =
            cs.cellEnergy.empty() ? 0 : *std::max_element(cs.cellEnergy.begin(), cs.cellEnergy.end());
        t.totalEnergy = cs.totalEnergy;
        t.iterations = cs.iterations;
        t.milliseconds = cs.milliseconds;
        const Real value = settings.criterion == DegreeCriterion::MaxCell ? t.maxCellEnergy : t.totalEnergy;
        t.passed = value <= gamma;
        st.trials.push_back(t);
        st.cvdIterations += cs.iterations;
        if (keep || t.passed || n == st.maxDegree)
        {
            best = std::move(labelling);
            bestStats = std::move(cs);
        }
        return t.passed;
    };

    // CVD §4: the learned degree and one CVD. The model covers the unbroken object (its PCA basis is
    // over the asset's nodes); a fragment's region falls through to the search.
    const DegreeModel* model = settings.mode == DegreeMode::Model ? settings.model.get() : nullptr;
    if (model && model->nodeCount == region.nodeCount() && region.nodeCount() == asset.tetMesh.nodeCount())
    {
        st.predicted = true;
        st.predictedDegree = model->predict(weights, st.wholeEnergy / gamma);
        const Real rounded = std::round(std::isfinite(st.predictedDegree) ? st.predictedDegree : 2);
        const Index n = Index(std::clamp<Real>(rounded, 2, Real(st.maxDegree)));
        trial(n, true, &settings.predictedCvd);
        st.cvd = std::move(bestStats);
        finish();
        if (!best || best->siteCount < 2)
            return std::nullopt;
        st.degree = n;
        return best;
    }

    // Doubling: lo fails (N = 1 failed above), hi passes or is the cap.
    Index lo = 1, hi = 2;
    for (;;)
    {
        hi = std::min(hi, st.maxDegree);
        if (trial(hi) || hi == st.maxDegree)
            break;
        lo = hi;
        hi *= 2;
    }
    // Bisection for the smallest passing N in (lo, hi], when hi passed.
    if (st.trials.back().passed)
    {
        std::optional<VoronoiLabelling> passing = std::move(best);
        CvdStats passingStats = bestStats;
        while (hi - lo > 1)
        {
            const Index mid = lo + (hi - lo) / 2;
            if (trial(mid))
            {
                hi = mid;
                passing = std::move(best);
                passingStats = bestStats;
            }
            else
            {
                lo = mid;
            }
        }
        best = std::move(passing);
        bestStats = std::move(passingStats);
    }
    SHATTER_ASSERT(best.has_value());
    st.cvd = std::move(bestStats);
    finish();
    if (best->siteCount < 2)
        return std::nullopt; // every site collapsed into one cell: nothing to split
    st.degree = hi;
    return best;
}

} // namespace shatter::fracture
