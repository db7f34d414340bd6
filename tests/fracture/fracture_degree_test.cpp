// The fracture criterion and degree of CVD §3.1 / §3.3 (fracture/src/fracture_degree.h) with hand-made
// strain energy fields (Gaussian bumps on the plate), the node weights of the artist controls (§3.4),
// and the energy-weighted seeding (seeding.h).
#include "fracture_fixtures.h"
#include "test_assets.h"

#include "fracture_degree.h"
#include "seeding.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

std::vector<Real> positions(const TetMesh& mesh)
{
    std::vector<Real> coords;
    for (const Vec3& p : mesh.nodes)
        coords.insert(coords.end(), {p.x(), p.y(), p.z()});
    return coords;
}

/// A synthetic deformation: energy density scale·exp(−|x − center|² / 2σ²) plus a faint uniform
/// background, integrated per tet (midpoint rule) and spread ¼ per node (CVD §3.3).
StrainEnergy gaussianBump(const TetMesh& mesh, const Vec3& center, Real sigma, Real scale)
{
    StrainEnergy e;
    e.perNode.assign(mesh.nodeCount(), 0);
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        Vec3 mid = Vec3::Zero();
        for (Index n : mesh.tets[t])
            mid += mesh.nodes[n] / 4;
        const Real density = scale * (1e-3 + std::exp(-(mid - center).squaredNorm() / (2 * sigma * sigma)));
        const Real u = density * mesh.tetVolume(t);
        e.tets.push_back(t);
        e.perTet.push_back(u);
        e.total += u;
        for (Index n : mesh.tets[t])
            e.perNode[n] += u / 4;
    }
    e.nodes.resize(mesh.nodeCount());
    for (Index n = 0; n < mesh.nodeCount(); ++n)
        e.nodes[n] = n;
    return e;
}

const Vec3 kImpact(0.1, 0.01, 0.0); // near the plate's rim
constexpr Real kSigma = 0.03;

struct Plate
{
    std::shared_ptr<const Asset> asset = sharedAsset("plate");
    FragmentRegion region = wholeMeshRegion(asset->tetMesh);
    std::vector<Real> coords = positions(asset->tetMesh);
    /// E_D of the unbroken plate under the unit bump (α = 1, β = 1).
    Real unitEnergy() const
    {
        Material m;
        const std::vector<Real> w =
            nodeWeights(asset->tetMesh, region, gaussianBump(asset->tetMesh, kImpact, kSigma, 1), m);
        return wholeEnergy(gatherRegionCoords(region, coords, 3), 3, w);
    }
};

TEST(FractureDegree, NoFractureBelowToughness)
{
    const Plate plate;
    const Real e1 = plate.unitEnergy();
    ASSERT_GT(e1, 0);
    const StrainEnergy energy = gaussianBump(plate.asset->tetMesh, kImpact, kSigma, 1);
    Material material;
    material.toughness = 1.01 * e1;
    PlanStats stats;
    EXPECT_FALSE(
        planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 1, &stats).has_value());
    EXPECT_EQ(stats.degree, 0u);
    EXPECT_TRUE(stats.trials.empty());
    EXPECT_NEAR(stats.wholeEnergy, e1, 1e-12 * e1);

    material.toughness = 0.99 * e1;
    const auto labelling =
        planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 1, &stats);
    ASSERT_TRUE(labelling.has_value());
    EXPECT_GE(labelling->siteCount, 2u);
    EXPECT_EQ(stats.degree, labelling->siteCount);

    // A fragment that may not break into two pieces does not fracture at all.
    material.maxFragments = 1;
    EXPECT_FALSE(
        planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 1, &stats).has_value());
}

TEST(FractureDegree, DegreeGrowsWithEnergyScaleAndMeetsTheCriterion)
{
    const Plate plate;
    Material material;
    material.toughness = 0.5 * plate.unitEnergy();
    material.maxFragments = 64;
    Index previous = 0;
    std::vector<Index> degrees;
    for (Real scale : {0.25, 1.0, 4.0, 16.0, 64.0, 256.0})
    {
        const StrainEnergy energy = gaussianBump(plate.asset->tetMesh, kImpact, kSigma, scale);
        PlanStats stats;
        const auto labelling =
            planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 9, &stats);
        const Index degree = labelling ? stats.degree : 0;
        std::printf(
            "[degree] plate, energy ×%-5g: E_1/γ = %7.2f, N = %2u, %zu trials, %d CVD iterations, %.1f ms\n",
            scale, stats.wholeEnergy / material.toughness, degree, stats.trials.size(), stats.cvdIterations,
            stats.milliseconds);
        EXPECT_GE(degree, previous) << "scale " << scale;
        previous = degree;
        degrees.push_back(degree);
        if (!labelling)
            continue;
        // The chosen CVD meets the criterion (unless capped) and N − 1 was tried and failed (or is 1).
        const Real maxCell = *std::max_element(stats.cvd.cellEnergy.begin(), stats.cvd.cellEnergy.end());
        if (degree < stats.maxDegree)
        {
            EXPECT_LE(maxCell, material.toughness) << "scale " << scale;
        }
        const bool belowFailed = degree - 1 == 1 || std::any_of(stats.trials.begin(), stats.trials.end(),
                                                                [&](const DegreeTrial& t) {
                                                                    return t.sites == degree - 1 && !t.passed;
                                                                });
        EXPECT_TRUE(belowFailed) << "scale " << scale << ": N − 1 was never shown to fail";
    }
    EXPECT_EQ(degrees.front(), 0u); // a quarter of the energy that barely breaks it
    EXPECT_GT(degrees.back(), degrees[1] + 4);
}

TEST(FractureDegree, TotalCriterionNeedsAtLeastAsManyFragments)
{
    // Σ_i E_D,i ≥ max_i E_D,i, so the pass set of eq. 3's total is nested in the max criterion's and the
    // search ends at an N at least as large.
    const Plate plate;
    Material material;
    material.toughness = 0.5 * plate.unitEnergy();
    const StrainEnergy energy = gaussianBump(plate.asset->tetMesh, kImpact, kSigma, 8);
    PlanStats maxStats, totalStats;
    PlanSettings total;
    total.criterion = DegreeCriterion::Total;
    ASSERT_TRUE(planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 3, &maxStats)
                    .has_value());
    ASSERT_TRUE(
        planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 3, &totalStats, total)
            .has_value());
    EXPECT_GE(totalStats.degree, maxStats.degree);
    EXPECT_LE(totalStats.cvd.totalEnergy, material.toughness * (1 + 1e-12));
}

TEST(FractureDegree, SameSeedSameLabellingDifferentSeedDifferent)
{
    const Plate plate;
    Material material;
    material.toughness = 0.1 * plate.unitEnergy();
    const StrainEnergy energy = gaussianBump(plate.asset->tetMesh, kImpact, kSigma, 1);
    const auto a = planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 100);
    const auto b = planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 100);
    const auto c = planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 101);
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->labels, b->labels);
    EXPECT_EQ(a->siteCoords, b->siteCoords); // bitwise
    EXPECT_NE(a->labels, c->labels);
}

TEST(FractureDegree, FragmentsConcentrateAtTheImpact)
{
    // CVD §3.1 / Fig. 3: the energy field decides the distribution; cells near the bump are smaller.
    const Plate plate;
    Material material;
    material.toughness = 0.02 * plate.unitEnergy();
    const StrainEnergy energy = gaussianBump(plate.asset->tetMesh, kImpact, kSigma, 1);
    const auto l = planFracture(*plate.asset, plate.region, energy, plate.coords, 3, material, 5);
    ASSERT_TRUE(l.has_value());
    ASSERT_GE(l->siteCount, 6u);
    std::vector<Real> volume(l->siteCount, 0);
    for (Index i = 0; i < plate.region.nodeCount(); ++i)
        volume[l->labels[i]] += plate.region.nodeVolumes[i];
    Real nearSum = 0, farSum = 0;
    int nearCount = 0, farCount = 0;
    for (std::uint32_t s = 0; s < l->siteCount; ++s)
    {
        const Vec3 site(l->siteCoords[3 * s], l->siteCoords[3 * s + 1], l->siteCoords[3 * s + 2]);
        const bool near = (site - kImpact).norm() < 2 * kSigma;
        (near ? nearSum : farSum) += volume[s];
        ++(near ? nearCount : farCount);
    }
    ASSERT_GT(nearCount, 0);
    ASSERT_GT(farCount, 0);
    EXPECT_LT(nearSum / nearCount, 0.5 * farSum / farCount);
}

TEST(FractureDegree, NodeWeightsFollowTheArtistControls)
{
    const auto asset = sharedAsset("brick");
    const TetMesh& mesh = asset->tetMesh;
    const FragmentRegion region = wholeMeshRegion(mesh);
    const StrainEnergy energy = gaussianBump(mesh, Vec3(0.05, 0.03, 0), 0.03, 1);
    Material m;
    const std::vector<Real> w1 = nodeWeights(mesh, region, energy, m);
    for (Index i = 0; i < region.nodeCount(); ++i)
        ASSERT_NEAR(w1[i], energy.perNode[i], 1e-12 * energy.perNode[i]); // α = 1, β = 1: U_v
    m.energyExponent = 0;
    const std::vector<Real> w0 = nodeWeights(mesh, region, energy, m);
    for (Index i = 0; i < region.nodeCount(); ++i)
        ASSERT_NEAR(w0[i], region.nodeVolumes[i], 1e-12 * region.nodeVolumes[i]); // α = 0: the volume
    m.energyExponent = 0.5;
    const std::vector<Real> wHalf = nodeWeights(mesh, region, energy, m);
    for (Index i = 0; i < region.nodeCount(); ++i)
        ASSERT_NEAR(wHalf[i], std::sqrt(w1[i] * w0[i]), 1e-9 * wHalf[i]); // V (U/V)^½ = √(U V)
    m.energyExponent = 1;
    m.weakness.assign(mesh.tetCount(), 2.5);
    const std::vector<Real> wBeta = nodeWeights(mesh, region, energy, m);
    for (Index i = 0; i < region.nodeCount(); ++i)
        ASSERT_NEAR(wBeta[i], 2.5 * w1[i], 1e-12 * wBeta[i]);

    // Nodes the energy does not list weigh nothing.
    StrainEnergy partial = energy;
    partial.nodes.resize(10);
    partial.perNode.resize(10);
    m.weakness.clear();
    const std::vector<Real> wPartial = nodeWeights(mesh, region, partial, m);
    EXPECT_GT(wPartial[3], 0);
    EXPECT_EQ(wPartial[20], 0);

    // Bad input.
    StrainEnergy bad = energy;
    bad.perNode[4] = std::nan("");
    EXPECT_THROW(nodeWeights(mesh, region, bad, m), Error);
    bad.perNode[4] = -1;
    EXPECT_THROW(nodeWeights(mesh, region, bad, m), Error);
    bad = energy;
    std::swap(bad.nodes[1], bad.nodes[2]);
    EXPECT_THROW(nodeWeights(mesh, region, bad, m), Error);
    Material badMaterial;
    badMaterial.energyExponent = -1;
    EXPECT_THROW(nodeWeights(mesh, region, energy, badMaterial), Error);
    badMaterial = Material{};
    badMaterial.weakness.assign(3, 1.0);
    EXPECT_THROW(nodeWeights(mesh, region, energy, badMaterial), Error);
    badMaterial.weakness.assign(mesh.tetCount(), 1.0);
    badMaterial.weakness[7] = std::nan("");
    EXPECT_THROW(nodeWeights(mesh, region, energy, badMaterial), Error);
    badMaterial = Material{};
    badMaterial.toughness = 0;
    EXPECT_THROW(planFracture(*asset, region, energy, positions(mesh), 3, badMaterial, 1), Error);
}

TEST(Seeding, EnergyWeightedSampling)
{
    const std::vector<Real> weights = {0, 1, 3, 0, 6};
    std::mt19937_64 rng(1);
    // Distinct, never a zero weight, and a longer draw extends a shorter one from the same seed.
    const std::vector<Index> three = sampleWeighted(weights, 3, rng);
    std::mt19937_64 again(1);
    const std::vector<Index> two = sampleWeighted(weights, 2, again);
    EXPECT_EQ(std::vector<Index>(three.begin(), three.begin() + 2), two);
    std::vector<Index> sorted = three;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<Index>{1, 2, 4}));
    EXPECT_THROW(sampleWeighted(weights, 4, rng), Error);
    const std::vector<Real> nan = {1, std::nan(""), 2};
    EXPECT_THROW(sampleWeighted(nan, 1, rng), Error);

    // Frequencies ∝ weight: 0.1 / 0.3 / 0.6 within a few standard deviations (n = 20,000).
    std::vector<int> hits(weights.size(), 0);
    const int draws = 20000;
    for (int i = 0; i < draws; ++i)
        ++hits[sampleWeighted(weights, 1, rng)[0]];
    EXPECT_EQ(hits[0] + hits[3], 0);
    EXPECT_NEAR(hits[1] / Real(draws), 0.1, 0.01);
    EXPECT_NEAR(hits[2] / Real(draws), 0.3, 0.015);
    EXPECT_NEAR(hits[4] / Real(draws), 0.6, 0.015);
}

} // namespace
} // namespace shatter::test
