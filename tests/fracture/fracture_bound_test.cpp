// FracturePipeline::mightBreak, the upper bound on the criterion E_D(N = 1) (fracture_bound.h), and
// fracture's precomputed asset sections (fracture_precompute.h):
//  - on the piggy bank, the plate and the brick (glass(), α = 2, and α = 1 and 0.5 on the plate), random
//    impacts of 1-4 contact points with magnitudes spanning the break threshold (E_D from 1e-4 γ to
//    1e2 γ): the bound is never below the E_D the full evaluation computes (0 false rejections), and it
//    rejects at least 40 % of the impacts that do not break (most real impacts are far weaker than
//    these: the bound rejects about 90 % of the plates scene's evaluations); the rejection rate and
//    the bound's looseness (median bound / E_D) are printed. 1,000 impacts per asset (5,000 with
//    SHATTER_LONG_TESTS=1), plus impacts on the fragments of one fracture of the plate;
//  - fracture() stops at the bound (FractureEventStats::boundRejected) exactly when mightBreak says so;
//  - addFracturePrecompute adds every section, hasFracturePrecompute sees them, and a pipeline reading
//    them gives the same strain energies and bounds as one computing them.
#include "bullet_world.h"
#include "test_env.h"

#include "fracture_bound.h"
#include "fracture_degree.h"
#include "fracture_pipeline.h"
#include "fracture_precompute.h"
#include "metric.h"
#include "modal_deformation.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

// 1-4 contact points within a few edge lengths of a random surface vertex, pushing inward within 60° of
// the inward direction (toward the bounding box centre), total magnitude `magnitude` N.
std::vector<ImpactForce> randomImpact(const TriMesh& surface, Real magnitude, std::mt19937_64& rng)
{
    std::uniform_real_distribution<Real> u(0, 1);
    std::uniform_int_distribution<std::size_t> vertex(0, surface.vertices.size() - 1);
    const Vec3 centre = surface.bounds().center();
    const Vec3 p = surface.vertices[vertex(rng)];
    const Real spread = 0.05 * surface.bounds().extent().norm();
    const int count = 1 + int(u(rng) * 4);
    std::vector<ImpactForce> forces;
    for (int i = 0; i < count; ++i)
    {
        const Vec3 q = p + spread * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
        Vec3 dir = (centre - q).normalized() + 0.9 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
        forces.push_back({q, magnitude / count * dir.normalized()});
    }
    return forces;
}

PipelineSettings exactSettings()
{
    PipelineSettings s;
    s.useBound = false;
    return s;
}

// E_D(N = 1) by the full evaluation (no bound, γ = ∞: the criterion's value, no split).
Real wholeEnergy(FracturePipeline& exact, const ObjectState& state, FragmentId f, Material m,
                 std::span<const ImpactForce> forces)
{
    m.toughness = 1e300;
    FractureEventStats stats;
    EXPECT_FALSE(exact.fracture(state, f, m, forces, 1, &stats).has_value());
    return stats.plan.wholeEnergy;
}

struct Tally
{
    int impacts = 0, breaking = 0, holding = 0, rejected = 0, falseRejections = 0;
    std::vector<Real> looseness; // bound / E_D
};

// `count` random impacts on live fragment `f` whose E_D spans [1e-4 γ, 1e2 γ] (the force scale is
// calibrated on one impact: E_D ∝ |F|^{2α}).
// `exact` runs without the bound in fracture(); its mightBreak() is the bound itself.
void sampleImpacts(FracturePipeline& exact, const ObjectState& state, FragmentId f, const Material& material,
                   int count, std::uint64_t seed, Tally& tally)
{
    const TriMesh& surface = state.fragmentMesh(f)->surface;
    std::mt19937_64 rng(seed);
    const std::vector<ImpactForce> probe = randomImpact(surface, 1, rng);
    const Real unit = wholeEnergy(exact, state, f, material, probe);
    ASSERT_GT(unit, 0);
    const Real alpha = material.energyExponent > 0 ? material.energyExponent : 1;
    const Real threshold = std::pow(material.toughness / unit, 1 / (2 * alpha)); // |F| with E_D ≈ γ
    std::uniform_real_distribution<Real> logScale(-4, 2);
    for (int i = 0; i < count; ++i)
    {
        const Real magnitude = threshold * std::pow(10, logScale(rng) / (2 * alpha));
        const std::vector<ImpactForce> forces = randomImpact(surface, magnitude, rng);
        Real bound = 0;
        const bool might = exact.mightBreak(state, f, material, forces, &bound);
        const Real energy = wholeEnergy(exact, state, f, material, forces);
        ++tally.impacts;
        const bool breaks = energy > material.toughness;
        (breaks ? tally.breaking : tally.holding)++;
        if (!might)
            ++tally.rejected;
        if (breaks && !might)
            ++tally.falseRejections;
        EXPECT_GE(bound * (1 + 1e-9), energy) << "impact " << i << " on fragment " << f;
        if (energy > 0)
            tally.looseness.push_back(bound / energy);
    }
}

void report(const char* what, Tally& t)
{
    std::sort(t.looseness.begin(), t.looseness.end());
    const Real median = t.looseness.empty() ? 0 : t.looseness[t.looseness.size() / 2];
    std::printf("[bound] %-22s %5d impacts: %4d break, %4d hold, %4d rejected (%.1f %% of those that "
                "hold), %d false rejections; bound / E_D median %.3g, min %.3g\n",
                what, t.impacts, t.breaking, t.holding, t.rejected,
                t.holding ? 100.0 * t.rejected / t.holding : 0.0, t.falseRejections, median,
                t.looseness.empty() ? 0 : t.looseness.front());
}

int impactCount()
{
    return longTests() ? 5000 : 1000;
}

TEST(FractureBound, NeverRejectsAnImpactThatBreaksAndRejectsMostThatHold)
{
    struct Case
    {
        const char* asset;
        Real alpha;
    };
    for (const Case c :
         {Case{"piggy_bank", 2}, Case{"plate", 2}, Case{"brick", 2}, Case{"plate", 1}, Case{"plate", 0.5}})
    {
        const auto asset = bulletAsset(std::string(c.asset) + ".obj");
        ObjectState state(asset);
        Material material = glass();
        material.energyExponent = c.alpha;
        FracturePipeline exact(exactSettings());
        ASSERT_EQ(exact.deformationModel().model(), DeformationModel::Modal);
        const int count = c.alpha == 2 ? impactCount() : impactCount() / 4;
        Tally tally;
        sampleImpacts(exact, state, 0, material, count, 7, tally);
        char what[64];
        std::snprintf(what, sizeof(what), "%s α=%g", c.asset, c.alpha);
        report(what, tally);
        EXPECT_EQ(tally.falseRejections, 0) << what;
        EXPECT_GT(tally.breaking, count / 10) << what << ": the magnitudes do not span the threshold";
        EXPECT_GT(tally.holding, count / 10) << what;
        // E_D is log-uniform over 4 decades below γ for the impacts that hold, so a bound L times too
        // large rejects a fraction (4 − log₁₀ L) / 4 of them: 40 % asks L ≲ 250.
        EXPECT_GT(tally.rejected, 0.4 * tally.holding) << what << ": the bound is too loose";
    }
}

TEST(FractureBound, HoldsOnFragments)
{
    const auto asset = bulletAsset("plate.obj");
    auto state = std::make_shared<ObjectState>(asset);
    const Material material = glass();
    FracturePipeline exact(exactSettings());
    std::mt19937_64 rng(3);
    std::optional<FractureResult> result;
    for (Real magnitude = 1e3; !result && magnitude < 1e9; magnitude *= 4)
        result = exact.fracture(*state, 0, material, randomImpact(asset->surface, magnitude, rng), 5);
    ASSERT_TRUE(result.has_value());
    state->apply(*result);
    exact.prepareFragments(*state, result->fragments, material);
    Tally tally;
    int sampled = 0;
    for (FragmentId f : result->fragments)
        if (state->fragmentMesh(f) && sampled++ < 4)
            sampleImpacts(exact, *state, f, material, impactCount() / 20, 11 + f, tally);
    report("plate fragments", tally);
    EXPECT_EQ(tally.falseRejections, 0);
    EXPECT_GT(tally.impacts, 0);
}

// computeFractureBoundData's plain evaluation: every tet's B_t as a dense product, every node's H_v as
// a dense matrix and both λ_max of every node by Eigen's dense eigensolver.
FractureBoundData denseBoundData(const TetMesh& mesh, const ModalBasis& basis, const FragmentRegion& region,
                                 std::span<const Real> coords, int dimension, const Material& material)
{
    const fracture::detail::ElasticRegion& elastic = *basis.region;
    const int k = basis.modeCount();
    Material unit;
    unit.youngsModulus = 1;
    unit.poissonRatio = basis.poissonRatio;
    const fracture::detail::Lame lame = fracture::detail::lameParameters(unit);
    std::vector<int> local(elastic.nodes.size(), -1);
    for (std::size_t n = 0; n < elastic.nodes.size(); ++n)
        if (const Index l = region.localIndex(elastic.nodes[n]); l != kInvalidIndex)
            local[n] = int(l);
    std::vector<Eigen::MatrixXd> h(region.nodes.size());
    Eigen::MatrixXd strain(9, k);
    Eigen::RowVectorXd trace(k);
    for (std::size_t t = 0; t < elastic.tets.size(); ++t)
    {
        const std::array<Vec3, 4> gradient = fracture::detail::tetGradient(elastic, t);
        for (int j = 0; j < k; ++j)
        {
            Mat3 grad = Mat3::Zero();
            for (int c = 0; c < 4; ++c)
                grad += basis.modes.col(j).segment<3>(3 * Eigen::Index(elastic.tetSlots[t][c])) *
                        gradient[c].transpose();
            const Mat3 eps = 0.5 * (grad + grad.transpose());
            strain.col(j) = Eigen::Map<const Eigen::Matrix<Real, 9, 1>>(eps.data());
            trace[j] = eps.trace();
        }
        const Eigen::MatrixXd b =
            2 * elastic.tetVolume[t] *
            (lame.mu * strain.transpose() * strain + 0.5 * lame.lambda * trace.transpose() * trace);
        for (Index s : elastic.tetSlots[t])
            if (const int l = local[elastic.slotNode[s]]; l >= 0)
            {
                if (h[std::size_t(l)].size() == 0)
                    h[std::size_t(l)] = Eigen::MatrixXd::Zero(k, k);
                h[std::size_t(l)] += 0.25 * b;
            }
    }
    FractureBoundData data;
    const std::vector<Real> spread = nodeSpreads(mesh, region, coords, dimension, material, data);
    data.pwMode.assign(std::size_t(k), 0);
    data.wMode.assign(std::size_t(k), 0);
    const Eigen::VectorXd invSqrtLambda = basis.eigenvalues.cwiseSqrt().cwiseInverse();
    for (std::size_t i = 0; i < region.nodes.size(); ++i)
    {
        const Real p = spread[i];
        const Real volume = region.nodeVolumes[i];
        if (!(volume > 0))
            continue; // only in pMaxBare
        if (h[i].size() == 0)
            continue;
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
    for (Real* x : {&data.pwPlain, &data.pwScaled, &data.wPlain, &data.wScaled})
        *x *= 1 + 1e-9;
    return data;
}

// The largest relative difference between the fields of `a` and `b` (the sizes must agree).
Real relativeDifference(const FractureBoundData& a, const FractureBoundData& b)
{
    Real worst = 0;
    const auto compare = [&](Real x, Real y)
    {
        const Real scale = std::max(std::abs(x), std::abs(y));
        worst = std::max(worst, scale > 0 ? std::abs(x - y) / scale : 0);
    };
    EXPECT_EQ(a.pwMode.size(), b.pwMode.size());
    EXPECT_EQ(a.wMode.size(), b.wMode.size());
    for (std::size_t j = 0; j < std::min(a.pwMode.size(), b.pwMode.size()); ++j)
        compare(a.pwMode[j], b.pwMode[j]);
    for (std::size_t j = 0; j < std::min(a.wMode.size(), b.wMode.size()); ++j)
        compare(a.wMode[j], b.wMode[j]);
    for (auto field : {&FractureBoundData::pwPlain, &FractureBoundData::pwScaled, &FractureBoundData::wPlain,
                       &FractureBoundData::wScaled, &FractureBoundData::pMax, &FractureBoundData::pMaxBare,
                       &FractureBoundData::volume})
        compare(a.*field, b.*field);
    return worst;
}

// computeFractureBoundData (lower triangles, eigensolver only where a node may hold a maximum) gives
// the dense evaluation's data up to round-off, on the whole plate and piggy bank and on the fragments
// of one fracture of each.
TEST(FractureBound, DataMatchesTheDenseEvaluation)
{
    const Material material = glass();
    const PipelineSettings settings;
    Real worst = 0;
    int regions = 0;
    const auto check = [&](const ObjectState& state, FragmentId f)
    {
        const Asset& asset = state.asset();
        const FragmentRegion region =
            state.fragmentCount() == 1 ? wholeMeshRegion(asset.tetMesh) : fragmentRegion(state.field(), f);
        const auto basis = computeModalBasis(asset, tetsTouchingNodes(asset.tetMesh, region.nodes),
                                             material.poissonRatio, settings.deformation.modeCount);
        const MetricCoordinates coords = pipelineCoordinates(asset, nullptr, material.warp, 1);
        const FractureBoundData fast = computeFractureBoundData(asset.tetMesh, *basis, region, coords.coords,
                                                                coords.dimension, material);
        const FractureBoundData dense =
            denseBoundData(asset.tetMesh, *basis, region, coords.coords, coords.dimension, material);
        const Real difference = relativeDifference(fast, dense);
        EXPECT_LE(difference, 1e-12) << asset.name << " fragment " << f;
        worst = std::max(worst, difference);
        ++regions;
    };
    for (const char* name : {"plate", "piggy_bank"})
    {
        const auto asset = bulletAsset(std::string(name) + ".obj");
        ObjectState state(asset);
        check(state, 0);
        FracturePipeline pipeline(exactSettings());
        std::mt19937_64 rng(3);
        std::optional<FractureResult> result;
        for (Real magnitude = 1e3; !result && magnitude < 1e9; magnitude *= 4)
            result = pipeline.fracture(state, 0, material, randomImpact(asset->surface, magnitude, rng), 5);
        ASSERT_TRUE(result.has_value()) << name;
        state.apply(*result);
        int checked = 0;
        for (FragmentId f : result->fragments)
            if (state.alive(f) && checked++ < 4)
                check(state, f);
    }
    std::printf("[bound] dense vs computed data: %d regions, largest relative difference %.3g\n", regions,
                worst);
    EXPECT_GT(regions, 4);
}

TEST(FractureBound, FractureStopsAtTheBoundExactlyWhenMightBreakSaysSo)
{
    const auto asset = bulletAsset("brick.obj");
    const ObjectState state(asset);
    const Material material = glass();
    FracturePipeline pipeline;
    std::mt19937_64 rng(5);
    int rejected = 0, passed = 0;
    for (int i = 0; i < 40; ++i)
    {
        const std::vector<ImpactForce> forces = randomImpact(
            asset->surface, std::pow(10, 1 + 4 * std::uniform_real_distribution<Real>(0, 1)(rng)), rng);
        const bool might = pipeline.mightBreak(state, 0, material, forces);
        FractureEventStats stats;
        (void)pipeline.fracture(state, 0, material, forces, 1, &stats);
        EXPECT_EQ(stats.boundRejected, !might);
        (might ? passed : rejected)++;
        if (stats.boundRejected)
        {
            EXPECT_EQ(stats.plan.wholeEnergy, 0);
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_GT(passed, 0);
    Material single = material;
    single.maxFragments = 1;
    EXPECT_FALSE(pipeline.mightBreak(state, 0, single, randomImpact(asset->surface, 1e9, rng)));
    PipelineSettings fem;
    fem.deformation.model = DeformationModel::Fem;
    FracturePipeline femPipeline(fem);
    Real bound = 0;
    EXPECT_TRUE(femPipeline.mightBreak(state, 0, material, randomImpact(asset->surface, 1e-6, rng), &bound));
    EXPECT_EQ(bound, std::numeric_limits<Real>::infinity());
}

// The sections give the numbers the computation gives: same basis (bitwise: one code path), same
// strain energies, same bounds.
TEST(FracturePrecompute, SectionsGiveTheComputedNumbers)
{
    for (const char* name : {"plate", "brick"})
    {
        const auto original = bulletAsset(std::string(name) + ".obj");
        const Material material = glass();
        const PipelineSettings settings;
        EXPECT_FALSE(hasFracturePrecompute(*original, material, settings));
        auto copy = std::make_shared<Asset>(*original);
        std::vector<std::string> steps;
        addFracturePrecompute(*copy, material, settings, [&](const std::string& s) { steps.push_back(s); });
        EXPECT_TRUE(hasFracturePrecompute(*copy, material, settings)) << name;
        EXPECT_GE(steps.size(), 3u) << name; // convexity, basis, bound (+ embedding when interior)
        std::vector<std::string> again;
        addFracturePrecompute(*copy, material, settings, [&](const std::string& s) { again.push_back(s); });
        EXPECT_TRUE(again.empty()) << name << ": recomputed a present section";
        Material other = material;
        other.poissonRatio = 0.3;
        EXPECT_FALSE(hasFracturePrecompute(*copy, other, settings)) << name;

        const ObjectState computedState(original), storedState(copy);
        FracturePipeline computed(exactSettings()), stored(exactSettings());
        auto* modal = dynamic_cast<ModalDeformation*>(&stored.deformationModel());
        ASSERT_NE(modal, nullptr);
        const auto storedBasis = modal->basis(*copy, allTets(*copy), material);
        const auto freshBasis = computeModalBasis(*original, allTets(*original), material.poissonRatio,
                                                  settings.deformation.modeCount);
        EXPECT_EQ(storedBasis->modes, freshBasis->modes) << name;
        EXPECT_EQ(storedBasis->eigenvalues, freshBasis->eigenvalues) << name;
        std::mt19937_64 rng(9);
        for (int i = 0; i < 5; ++i)
        {
            const std::vector<ImpactForce> forces = randomImpact(original->surface, 1e3, rng);
            const StrainEnergy a =
                computed.deformationModel().compute(*original, allTets(*original), material, forces);
            const StrainEnergy b = stored.deformationModel().compute(*copy, allTets(*copy), material, forces);
            EXPECT_EQ(a.total, b.total) << name;
            EXPECT_EQ(a.perNode, b.perNode) << name;
            Real boundA = 0, boundB = 0;
            computed.mightBreak(computedState, 0, material, forces, &boundA);
            stored.mightBreak(storedState, 0, material, forces, &boundB);
            EXPECT_NEAR(boundA, boundB, 1e-12 * boundA) << name;
            EXPECT_EQ(wholeEnergy(computed, computedState, 0, material, forces),
                      wholeEnergy(stored, storedState, 0, material, forces))
                << name;
        }
    }
}

} // namespace
} // namespace shatter::test
