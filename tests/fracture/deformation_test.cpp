// Deformation models (CVD §3.3; the modal model as in modal_deformation.h): the quasi-static FEM
// against closed-form elasticity (patch test, rigid loads, bending), the modal model against the FEM,
// and the contract of both (energy ≥ 0, per-node sums, |f|² scaling, caching, bad input). Most tests
// use structured grid bars (exact geometry, no TetGen, fast); one runs both models on the shipped
// plate.
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_paths.h"

#include "deformation.h"
#include "deformation_region.h"
#include "fem_deformation.h"
#include "modal_deformation.h"
#include "shatter/error.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <future>
#include <map>
#include <random>
#include <string>
#include <thread>

namespace shatter::fracture
{
namespace
{

/// A box [0, size] split into nx × ny × nz cubes of six tets each (Kuhn/Freudenthal: conforming),
/// as an Asset with only the tet mesh filled in (all the deformation models read).
std::shared_ptr<const Asset> gridAsset(const Vec3& size, int nx, int ny, int nz)
{
    auto asset = std::make_shared<Asset>();
    asset->name = "grid";
    // Stands in for the fingerprint Asset::build computes (the deformation caches key on it).
    asset->sourceHash = std::hash<std::string>{}(std::to_string(size.x()) + " " + std::to_string(size.y()) +
                                                 " " + std::to_string(size.z()) + " " + std::to_string(nx) +
                                                 " " + std::to_string(ny) + " " + std::to_string(nz));
    TetMesh& mesh = asset->tetMesh;
    auto id = [&](int i, int j, int k)
    {
        return Index((k * (ny + 1) + j) * (nx + 1) + i);
    };
    for (int k = 0; k <= nz; ++k)
        for (int j = 0; j <= ny; ++j)
            for (int i = 0; i <= nx; ++i)
                mesh.nodes.emplace_back(size.x() * i / nx, size.y() * j / ny, size.z() * k / nz);
    const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i)
                for (const auto& order : axes)
                {
                    std::array<int, 3> c = {i, j, k};
                    Tet tet;
                    tet[0] = id(c[0], c[1], c[2]);
                    for (int step = 0; step < 3; ++step)
                    {
                        ++c[std::size_t(order[step])];
                        tet[std::size_t(step) + 1] = id(c[0], c[1], c[2]);
                    }
                    const Vec3& x0 = mesh.nodes[tet[0]];
                    if ((mesh.nodes[tet[1]] - x0)
                            .dot((mesh.nodes[tet[2]] - x0).cross(mesh.nodes[tet[3]] - x0)) < 0)
                        std::swap(tet[2], tet[3]);
                    mesh.tets.push_back(tet);
                }
    mesh.buildConnectivity();
    return asset;
}

struct BoundaryFace
{
    std::array<Index, 3> nodes;
    Vec3 normal; ///< outward, unit
    Real area;
};

std::vector<BoundaryFace> boundaryFaces(const TetMesh& mesh)
{
    std::map<std::array<Index, 3>, std::pair<int, Index>> count; // sorted face → (uses, opposite node)
    for (const Tet& tet : mesh.tets)
        for (int k = 0; k < 4; ++k)
        {
            std::array<Index, 3> key = {tet[kTetFaces[k][0]], tet[kTetFaces[k][1]], tet[kTetFaces[k][2]]};
            std::sort(key.begin(), key.end());
            auto& entry = count[key];
            ++entry.first;
            entry.second = tet[k];
        }
    std::vector<BoundaryFace> faces;
    for (const auto& [key, entry] : count)
        if (entry.first == 1)
        {
            const Vec3 &a = mesh.nodes[key[0]], &b = mesh.nodes[key[1]], &c = mesh.nodes[key[2]];
            Vec3 n = (b - a).cross(c - a);
            const Real area = 0.5 * n.norm();
            n.normalize();
            if (n.dot(a - mesh.nodes[entry.second]) < 0)
                n = -n;
            faces.push_back({key, n, area});
        }
    return faces;
}

/// Consistent nodal forces of the uniform stress `stress` on the boundary: each face carries σ n A, a
/// third per vertex (exact for P1).
std::vector<ImpactForce> tractionForces(const TetMesh& mesh, const Mat3& stress)
{
    std::map<Index, Vec3> nodal;
    for (const BoundaryFace& f : boundaryFaces(mesh))
        for (Index n : f.nodes)
        {
            auto [it, inserted] = nodal.try_emplace(n, Vec3::Zero());
            it->second += stress * f.normal * f.area / 3;
        }
    std::vector<ImpactForce> forces;
    for (const auto& [n, force] : nodal)
        forces.push_back({mesh.nodes[n], force});
    return forces;
}

Material glass()
{
    Material m;
    m.density = 2500;
    m.youngsModulus = 7e10;
    m.poissonRatio = 0.22;
    return m;
}

std::unique_ptr<Deformation> model(DeformationModel kind, Real contactRadius = 1.5, int modes = 20)
{
    DeformationSettings options;
    options.model = kind;
    options.contactRadius = contactRadius;
    options.modeCount = modes;
    return makeDeformation(options);
}

/// The contract every result must meet: sizes, increasing ids, energy ≥ 0, per-node = ¼ of incident tets.
void checkContract(const TetMesh& mesh, const StrainEnergy& e)
{
    ASSERT_EQ(e.perTet.size(), e.tets.size());
    ASSERT_EQ(e.perNode.size(), e.nodes.size());
    EXPECT_TRUE(std::is_sorted(e.tets.begin(), e.tets.end()));
    EXPECT_TRUE(std::is_sorted(e.nodes.begin(), e.nodes.end()));
    Real tetSum = 0, nodeSum = 0;
    std::vector<Real> expected(e.nodes.size(), 0);
    for (std::size_t i = 0; i < e.tets.size(); ++i)
    {
        ASSERT_TRUE(std::isfinite(e.perTet[i]));
        EXPECT_GE(e.perTet[i], 0);
        tetSum += e.perTet[i];
        for (Index n : mesh.tets[e.tets[i]])
        {
            const auto it = std::lower_bound(e.nodes.begin(), e.nodes.end(), n);
            ASSERT_TRUE(it != e.nodes.end() && *it == n);
            expected[std::size_t(it - e.nodes.begin())] += e.perTet[i] / 4;
        }
    }
    for (std::size_t i = 0; i < e.nodes.size(); ++i)
    {
        nodeSum += e.perNode[i];
        EXPECT_NEAR(e.perNode[i], expected[i], 1e-12 * (expected[i] + e.total));
    }
    EXPECT_NEAR(tetSum, e.total, 1e-12 * e.total);
    EXPECT_NEAR(nodeSum, e.total, 1e-12 * e.total);
}

Vec3 tetCentroid(const TetMesh& mesh, Index t)
{
    return 0.25 * (mesh.nodes[mesh.tets[t][0]] + mesh.nodes[mesh.tets[t][1]] + mesh.nodes[mesh.tets[t][2]] +
                   mesh.nodes[mesh.tets[t][3]]);
}

TEST(Material, BadFieldsThrowNamingTheField)
{
    auto expectField = [](const Material& m, Index tets, const std::string& field)
    {
        try
        {
            checkMaterial(m, tets, "glass");
            ADD_FAILURE() << "no error for " << field;
        }
        catch (const Error& e)
        {
            EXPECT_EQ(e.source(), "glass");
            EXPECT_NE(e.problem().find(field), std::string::npos) << e.what();
        }
    };
    EXPECT_NO_THROW(checkMaterial(glass(), 10));
    Material m = glass();
    m.density = -1;
    expectField(m, 10, "density");
    m = glass();
    m.youngsModulus = 0;
    expectField(m, 10, "youngsModulus");
    m = glass();
    m.poissonRatio = 0.5;
    expectField(m, 10, "poissonRatio");
    m = glass();
    m.toughness = std::nan("");
    expectField(m, 10, "toughness");
    m = glass();
    m.weakness.assign(9, 1.0);
    expectField(m, 10, "weakness");
    m.weakness.assign(10, 1.0);
    m.weakness[3] = -2;
    expectField(m, 10, "weakness");
    m = glass();
    m.warp.linear = Mat3::Zero();
    expectField(m, 10, "warp.linear");
    m = glass();
    m.warp.waveAmplitude = 0.1;
    m.warp.waveLength = 0;
    expectField(m, 10, "warp.waveLength");
    m = glass();
    m.maxFragments = 0;
    expectField(m, 10, "maxFragments");
}

TEST(Deformation, BadInputThrows)
{
    const auto asset = gridAsset(Vec3(1, 0.2, 0.2), 5, 1, 1);
    const std::vector<Index> tets = allTets(*asset);
    const std::vector<ImpactForce> forces = {{Vec3(1, 0.1, 0.1), Vec3(-1, 0, 0)}};
    for (DeformationModel kind : {DeformationModel::Fem, DeformationModel::Modal})
    {
        const auto deformation = model(kind);
        Material bad = glass();
        bad.poissonRatio = 0.7;
        try
        {
            deformation->compute(*asset, tets, bad, forces);
            ADD_FAILURE() << "bad material accepted";
        }
        catch (const Error& e)
        {
            EXPECT_NE(e.problem().find("poissonRatio"), std::string::npos) << e.what();
        }
        EXPECT_THROW(deformation->compute(*asset, std::vector<Index>{}, glass(), forces), Error);
        EXPECT_THROW(deformation->compute(*asset, std::vector<Index>{0, 99999}, glass(), forces), Error);
        const std::vector<ImpactForce> nan = {{Vec3(1, 0.1, 0.1), Vec3(std::nan(""), 0, 0)}};
        EXPECT_THROW(deformation->compute(*asset, tets, glass(), nan), Error);
    }
    DeformationSettings options;
    options.contactRadius = 0;
    EXPECT_THROW(makeDeformation(options), Error);
    options = {};
    options.modeCount = 0;
    EXPECT_THROW(makeDeformation(options), Error);
}

// Uniform uniaxial stress s on a free bar, applied as the consistent boundary forces: every tet must get
// the energy density s² / 2E (the P1 patch test), whatever the pinning. The modal model with every
// mode kept must agree.
TEST(Deformation, PatchTestGivesUniformEnergyDensity)
{
    const auto asset = gridAsset(Vec3(0.8, 0.3, 0.2), 4, 2, 2);
    const Material material = glass();
    const Real s = 1e6;
    Mat3 stress = Mat3::Zero();
    stress(0, 0) = s;
    const std::vector<ImpactForce> forces = tractionForces(asset->tetMesh, stress);
    const Real expected = s * s / (2 * material.youngsModulus);
    for (DeformationModel kind : {DeformationModel::Fem, DeformationModel::Modal})
    {
        // A tiny contact radius puts each force on its own node; every mode (dense path) makes modal exact.
        const auto deformation = model(kind, 1e-3, 100000);
        const StrainEnergy e = deformation->compute(*asset, allTets(*asset), material, forces);
        checkContract(asset->tetMesh, e);
        for (std::size_t i = 0; i < e.tets.size(); ++i)
            EXPECT_NEAR(e.perTet[i] / asset->tetMesh.tetVolume(e.tets[i]), expected, 1e-7 * expected)
                << "tet " << e.tets[i] << (kind == DeformationModel::Fem ? " (FEM)" : " (modal)");
        EXPECT_NEAR(e.total, expected * 0.8 * 0.3 * 0.2, 1e-7 * e.total);
    }
}

// Forces that are exactly the inertial load of a rigid acceleration (f_v = m_v (a + α × r_v)) deform
// nothing once inertia relief removes them. The region is a set of separate tets plus one face-connected
// pair: several free bodies (components) at once.
TEST(Deformation, RigidBodyLoadsGiveNoEnergy)
{
    const auto asset = gridAsset(Vec3(1.2, 0.6, 0.6), 6, 3, 3);
    const TetMesh& mesh = asset->tetMesh;
    const Material material = glass();
    // The face-connected pair {0, 1} (tets 0 and 1 of the first cube share a face), then greedy tets
    // that share no node with anything picked before: separate components.
    std::vector<Index> tets;
    std::vector<bool> used(mesh.nodeCount(), false);
    for (Index t : {0u, 1u})
        for (Index n : mesh.tets[t])
            used[n] = true;
    for (Index t = 2; t < mesh.tetCount() && tets.size() < 6; t += 7)
        if (std::none_of(mesh.tets[t].begin(), mesh.tets[t].end(), [&](Index n) { return used[n]; }))
        {
            tets.push_back(t);
            for (Index n : mesh.tets[t])
                used[n] = true;
        }
    ASSERT_GE(tets.size(), 4u);
    tets.push_back(0);
    tets.push_back(1);
    std::mt19937_64 rng(3);
    std::normal_distribution<Real> g;
    std::vector<ImpactForce> rigid, random;
    auto addComponent = [&](const std::vector<Index>& part)
    {
        std::map<Index, Real> m;
        for (Index t : part)
            for (Index n : mesh.tets[t])
                m[n] += material.density * mesh.tetVolume(t) / 4;
        Real total = 0;
        Vec3 centre = Vec3::Zero();
        for (const auto& [n, mv] : m)
        {
            total += mv;
            centre += mv * mesh.nodes[n];
        }
        centre /= total;
        const Vec3 a(g(rng), g(rng), g(rng)), alpha(g(rng), g(rng), g(rng));
        for (const auto& [n, mv] : m)
        {
            rigid.push_back({mesh.nodes[n], 1e3 * mv * (a + alpha.cross(mesh.nodes[n] - centre))});
            random.push_back({mesh.nodes[n], rigid.back().force.norm() * Vec3(g(rng), g(rng), g(rng))});
        }
    };
    for (std::size_t i = 0; i + 2 < tets.size(); ++i)
        addComponent({tets[i]});
    addComponent({0, 1});

    for (DeformationModel kind : {DeformationModel::Fem, DeformationModel::Modal})
    {
        const auto deformation = model(kind, 1e-3, 100000);
        const StrainEnergy loaded = deformation->compute(*asset, tets, material, random);
        const StrainEnergy still = deformation->compute(*asset, tets, material, rigid);
        checkContract(mesh, loaded);
        checkContract(mesh, still);
        EXPECT_GT(loaded.total, 0);
        EXPECT_LT(still.total, 1e-20 * loaded.total) << (kind == DeformationModel::Fem ? "FEM" : "modal");
    }
}

// A single point force on a free body is well-posed with inertia relief, and right: an axial end force
// F on a free bar of length L is balanced by the inertia of its uniform acceleration, so the axial
// force falls linearly, N(x) = F (1 − x/L), and the energy per length is N² / 2EA (uniaxial stress).
// Away from the load (Saint-Venant: a few cross-section sizes) the FEM must match this.
TEST(Deformation, SinglePointForceOnFreeBody)
{
    const Real length = 1.2, side = 0.3;
    const auto asset = gridAsset(Vec3(length, side, side), 16, 4, 4);
    const TetMesh& mesh = asset->tetMesh;
    const Material material = glass();
    const Real force = 1e5;
    const std::vector<ImpactForce> forces = {{Vec3(0, side / 2, side / 2), Vec3(force, 0, 0)}};
    const StrainEnergy e = model(DeformationModel::Fem)->compute(*asset, allTets(*asset), material, forces);
    checkContract(mesh, e);
    ASSERT_GT(e.total, 0);
    const Real slice = 0.15;
    for (Real x0 = 0.45; x0 < length - 1e-9; x0 += slice)
    {
        Real energy = 0;
        for (std::size_t i = 0; i < e.tets.size(); ++i)
        {
            const Real x = tetCentroid(mesh, e.tets[i]).x();
            if (x >= x0 && x < x0 + slice)
                energy += e.perTet[i];
        }
        // ∫ F² (1 − x/L)² / (2 E A) dx over the slice.
        auto primitive = [&](Real x)
        {
            return -length / 3 * std::pow(1 - x / length, 3);
        };
        const Real expected = force * force / (2 * material.youngsModulus * side * side) *
                              (primitive(x0 + slice) - primitive(x0));
        EXPECT_NEAR(energy, expected, 0.05 * expected + 1e-3 * e.total) << "slice at x = " << x0;
    }
}

// Three-point bending of a free bar (balanced: two supports up, the middle down): the bending moment
// peaks in the middle, so the middle third holds more energy than the rest, and the overhangs beyond
// the supports (zero moment) hold little.
TEST(Deformation, ThreePointBendingConcentratesInTheMiddle)
{
    const auto asset = gridAsset(Vec3(1.6, 0.2, 0.2), 32, 4, 4);
    const TetMesh& mesh = asset->tetMesh;
    const Real f = 1e4;
    const std::vector<ImpactForce> forces = {{Vec3(0.1, 0, 0.1), Vec3(0, f, 0)},
                                             {Vec3(1.5, 0, 0.1), Vec3(0, f, 0)},
                                             {Vec3(0.8, 0.2, 0.1), Vec3(0, -2 * f, 0)}};
    for (DeformationModel kind : {DeformationModel::Fem, DeformationModel::Modal})
    {
        const StrainEnergy e = model(kind, 1.5, 40)->compute(*asset, allTets(*asset), glass(), forces);
        checkContract(mesh, e);
        Real middle = 0, outer = 0, overhang = 0;
        for (std::size_t i = 0; i < e.tets.size(); ++i)
        {
            const Real x = tetCentroid(mesh, e.tets[i]).x();
            (std::abs(x - 0.8) < 0.8 / 3 ? middle : outer) += e.perTet[i];
            if (x < 0.05 || x > 1.55)
                overhang += e.perTet[i];
        }
        std::printf("%s bending: middle third %.3g J, outer %.3g J, overhangs %.3g J\n",
                    kind == DeformationModel::Fem ? "FEM" : "modal", middle, outer, overhang);
        EXPECT_GT(middle, outer);
        EXPECT_LT(overhang, 0.02 * e.total);
    }
}

// Linear elasticity: energy ∝ |f|². Also: a region is cached once however its tets are listed.
TEST(Deformation, EnergyScalesWithForceSquaredAndRegionsAreCached)
{
    const auto asset = gridAsset(Vec3(1.0, 0.25, 0.25), 12, 3, 3);
    const std::vector<ImpactForce> forces = {{Vec3(0.3, 0.25, 0.1), Vec3(0, -3e4, 1e4)},
                                             {Vec3(1.0, 0.1, 0.1), Vec3(-2e4, 0, 0)}};
    std::vector<ImpactForce> triple = forces;
    for (ImpactForce& f : triple)
        f.force *= 3;
    std::vector<Index> tets = allTets(*asset);
    std::vector<Index> half(tets.begin(), tets.begin() + std::ptrdiff_t(tets.size() / 2));
    for (DeformationModel kind : {DeformationModel::Fem, DeformationModel::Modal})
    {
        const auto deformation = model(kind);
        const StrainEnergy a = deformation->compute(*asset, tets, glass(), forces);
        const StrainEnergy b = deformation->compute(*asset, tets, glass(), triple);
        ASSERT_GT(a.total, 0);
        EXPECT_NEAR(b.total / a.total, 9, 1e-9);
        for (std::size_t i = 0; i < a.perTet.size(); ++i)
            EXPECT_NEAR(b.perTet[i], 9 * a.perTet[i], 1e-9 * b.total);
        EXPECT_EQ(deformation->cachedRegions(), 1u);
        std::vector<Index> shuffled = tets;
        std::reverse(shuffled.begin(), shuffled.end());
        shuffled.push_back(shuffled.front()); // duplicates are ignored
        const StrainEnergy c = deformation->compute(*asset, shuffled, glass(), forces);
        EXPECT_EQ(deformation->cachedRegions(), 1u);
        EXPECT_EQ(c.perTet, a.perTet);
        deformation->compute(*asset, half, glass(), forces);
        EXPECT_EQ(deformation->cachedRegions(), 2u);
        Material stiffer = glass();
        stiffer.youngsModulus *= 2; // half the energy; FEM: another entry, modal: the same unit basis
        const StrainEnergy d = deformation->compute(*asset, tets, stiffer, forces);
        EXPECT_EQ(deformation->cachedRegions(), kind == DeformationModel::Fem ? 3u : 2u);
        EXPECT_NEAR(d.total, 0.5 * a.total, 1e-9 * a.total);
        deformation->clearCache();
        EXPECT_EQ(deformation->cachedRegions(), 0u);
    }
}

// The region cache: the whole object's entry outlives any number of fragment regions (the memory
// budget counts only those; the least recently used go first), a failed build reaches its caller and is not
// kept, and concurrent callers of one region share one build.
TEST(Deformation, RegionCacheKeepsTheWholeObjectAndBuildsEachRegionOnce)
{
    const auto asset = gridAsset(Vec3(1.0, 0.25, 0.25), 6, 2, 2);
    const std::vector<Index> tets = allTets(*asset);
    // A budget of 3 bytes, each entry weighing its value: the newest entry stays even when over it.
    detail::RegionCache<int> cache(3, [](const int& bytes) { return std::size_t(bytes); });
    std::atomic<int> builds = 0;
    auto build = [&](std::vector<Index> region) -> std::shared_ptr<const int>
    {
        ++builds;
        return std::make_shared<const int>(int(region.size()));
    };
    const detail::RegionRequest whole = detail::makeRequest(*asset, tets, glass(), 4);
    ASSERT_TRUE(whole.whole);
    EXPECT_EQ(*cache.findOrBuild(whole, build), int(tets.size()));
    for (std::size_t n = 1; n <= 3; ++n)
    {
        const detail::RegionRequest part = detail::makeRequest(*asset, std::span(tets).first(n), glass(), 4);
        EXPECT_FALSE(part.whole);
        EXPECT_EQ(*cache.findOrBuild(part, build), int(n));
    }
    EXPECT_EQ(cache.size(), 2u); // the whole object (not counted) and the part of 3 (parts 1 and 2 went)
    EXPECT_EQ(*cache.findOrBuild(whole, build), int(tets.size()));
    EXPECT_EQ(builds.load(), 4);

    const detail::RegionRequest failing = detail::makeRequest(*asset, std::span(tets).first(5), glass(), 4);
    auto fail = [&](std::vector<Index>) -> std::shared_ptr<const int>
    {
        throw Error("test", "no basis");
    };
    EXPECT_THROW(cache.findOrBuild(failing, fail), Error);
    EXPECT_EQ(*cache.findOrBuild(failing, build), 5); // built again, not the failure
    EXPECT_EQ(builds.load(), 5);

    // Two threads ask for one new region while its build is slow: one build, one answer.
    const detail::RegionRequest shared = detail::makeRequest(*asset, std::span(tets).first(7), glass(), 4);
    std::atomic<bool> started = false;
    auto slow = [&](std::vector<Index> region) -> std::shared_ptr<const int>
    {
        started = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return build(std::move(region));
    };
    std::shared_ptr<const int> first;
    std::thread other([&] { first = cache.findOrBuild(shared, slow); });
    while (!started)
        std::this_thread::yield();
    const std::shared_ptr<const int> second = cache.findOrBuild(shared, slow);
    other.join();
    EXPECT_EQ(first, second);
    EXPECT_EQ(builds.load(), 6);

    // A broken region's entry is dropped (its holders keep their copy); the whole object's is not.
    const std::size_t before = cache.size();
    cache.erase(shared);
    cache.erase(whole);
    EXPECT_EQ(cache.size(), before - 1);
    EXPECT_EQ(*first, 7);
    EXPECT_EQ(*cache.findOrBuild(shared, build), 7);
    EXPECT_EQ(builds.load(), 7); // built again
    EXPECT_EQ(*cache.findOrBuild(whole, build), int(tets.size()));
    EXPECT_EQ(builds.load(), 7); // still cached
}

// A region a background builder is still building (a thread the OS may starve) is not waited for: a
// normal caller builds its own copy at once and gets it, uncached; the background build still fills the
// cache.
TEST(Deformation, RegionCacheDoesNotWaitForABackgroundBuild)
{
    const auto asset = gridAsset(Vec3(1.0, 0.25, 0.25), 6, 2, 2);
    const std::vector<Index> tets = allTets(*asset);
    detail::RegionCache<int> cache(1 << 20, [](const int&) { return std::size_t(1); });
    const detail::RegionRequest request = detail::makeRequest(*asset, std::span(tets).first(7), glass(), 4);
    std::atomic<bool> started = false, release = false;
    std::atomic<int> builds = 0;
    auto held = [&](std::vector<Index>) -> std::shared_ptr<const int>
    {
        ++builds;
        started = true;
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::make_shared<const int>(1);
    };
    auto quick = [&](std::vector<Index>) -> std::shared_ptr<const int>
    {
        ++builds;
        return std::make_shared<const int>(2);
    };
    std::shared_ptr<const int> background;
    std::thread builder(
        [&]
        {
            setBackgroundBuilder(true);
            background = cache.findOrBuild(request, held);
        });
    while (!started)
        std::this_thread::yield();
    // Returns while the background build is held: its own copy (a regression would wait; the held build
    // is released after 30 s so that the test fails instead of hanging).
    auto own = std::async(std::launch::async, [&] { return cache.findOrBuild(request, quick); });
    const bool returned = own.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    EXPECT_TRUE(returned) << "the caller waited for the background build";
    release = true;
    EXPECT_EQ(*own.get(), returned ? 2 : 1);
    builder.join();
    EXPECT_EQ(*background, 1);
    EXPECT_EQ(builds.load(), 2);
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(*cache.findOrBuild(request, quick), 1) << "the background build is the cached one";
    EXPECT_EQ(builds.load(), 2);
}

// The modal model converges to the FEM from below as modes are added (the static modal response keeps
// a subset of the positive terms ½ (φᵢᵀf)² / λᵢ): with many modes the energy fields agree.
TEST(Deformation, ModalConvergesToFem)
{
    const auto asset = gridAsset(Vec3(1.0, 0.25, 0.25), 16, 4, 4); // 425 nodes: the Lanczos path
    const TetMesh& mesh = asset->tetMesh;
    const std::vector<ImpactForce> forces = {{Vec3(0.5, 0.25, 0.12), Vec3(0, -5e4, 0)},
                                             {Vec3(0.0, 0.1, 0.1), Vec3(2e4, 1e4, 0)}};
    const Real radius = 2.5;
    const StrainEnergy fem =
        model(DeformationModel::Fem, radius)->compute(*asset, allTets(*asset), glass(), forces);
    Real previous = 0;
    for (int modes : {10, 60, 400})
    {
        auto deformation =
            std::make_unique<ModalDeformation>(DeformationSettings{DeformationModel::Modal, radius, modes});
        const std::vector<Real> lambda = deformation->eigenvalues(*asset, allTets(*asset), glass());
        ASSERT_EQ(lambda.size(), std::size_t(modes));
        EXPECT_TRUE(std::is_sorted(lambda.begin(), lambda.end()));
        EXPECT_GT(lambda.front(), 0);
        const StrainEnergy modal = deformation->compute(*asset, allTets(*asset), glass(), forces);
        checkContract(mesh, modal);
        Real error = 0, norm = 0;
        for (std::size_t i = 0; i < fem.perTet.size(); ++i)
        {
            error += (modal.perTet[i] - fem.perTet[i]) * (modal.perTet[i] - fem.perTet[i]);
            norm += fem.perTet[i] * fem.perTet[i];
        }
        const Real fieldError = std::sqrt(error / norm);
        std::printf("%3d modes: energy %.4g of FEM %.4g (ratio %.4f), per-tet relative L2 error %.3f\n",
                    modes, modal.total, fem.total, modal.total / fem.total, fieldError);
        EXPECT_LE(modal.total, fem.total * (1 + 1e-9));
        EXPECT_GE(modal.total, previous * (1 - 1e-9));
        previous = modal.total;
        if (modes == 400)
        {
            EXPECT_GT(modal.total, 0.9 * fem.total);
            EXPECT_LT(fieldError, 0.2);
        }
    }
}

// A free square bar's two lowest modes are the two bending modes (equal by symmetry), near the
// Euler-Bernoulli free-free value ω² = (4.730 / L)⁴ E I / (ρ A) (modes 0 and 1: y and z bending).
// Lanczos (above the dense limit) finds the lowest elastic modes the dense generalised solver finds, on
// a region just above the limit (a beam: close pairs of bending eigenvalues).
TEST(Deformation, LanczosMatchesTheDenseSolverAboveItsLimit)
{
    const auto asset = gridAsset(Vec3(1.0, 0.2, 0.2), 12, 2, 2); // 13 × 3 × 3 nodes: 351 DOFs
    const std::vector<Index> tets = allTets(*asset);
    const int modes = 10;
    const auto basis = computeModalBasis(*asset, tets, 0.25, modes);
    ASSERT_EQ(basis->modeCount(), modes);
    const detail::ElasticRegion& region = *basis->region;
    Material unit;
    unit.youngsModulus = 1;
    unit.density = 1;
    unit.poissonRatio = 0.25;
    const Eigen::MatrixXd k = Eigen::MatrixXd(
        detail::assembleStiffness(region, detail::lameParameters(unit), {}, int(region.dofCount())));
    Eigen::VectorXd mass(region.dofCount());
    for (Index s = 0; s < region.slotCount(); ++s)
        mass.segment<3>(3 * Eigen::Index(s)).setConstant(region.slotVolume[s]);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(k,
                                                                          Eigen::MatrixXd(mass.asDiagonal()));
    ASSERT_EQ(dense.info(), Eigen::Success);
    for (int i = 0; i < modes; ++i)
    {
        const Real expected = dense.eigenvalues()[6 + i];
        EXPECT_NEAR(basis->eigenvalues[i], expected, 1e-6 * expected) << "mode " << i;
        // M-normalised: φᵀ M φ = 1.
        EXPECT_NEAR(basis->modes.col(i).dot(mass.cwiseProduct(basis->modes.col(i))), 1, 1e-9);
    }
}

TEST(Deformation, ModalEigenvaluesMatchBeamTheory)
{
    const Real length = 1.2, side = 0.15;
    const auto asset = gridAsset(Vec3(length, side, side), 24, 3, 3);
    const Material material = glass();
    ModalDeformation modal(DeformationSettings{DeformationModel::Modal, 1.5, 8});
    const std::vector<Real> lambda = modal.eigenvalues(*asset, allTets(*asset), material);
    const Real beam =
        std::pow(4.730 / length, 4) * material.youngsModulus * side * side / 12 / material.density;
    std::printf("lowest eigenvalues %.4g %.4g, Euler-Bernoulli %.4g\n", lambda[0], lambda[1], beam);
    // Shear deformation lowers them a little, linear tets are too stiff in bending (more so across the
    // grid's diagonal, hence the two differ by ~20 % on this coarse 3 × 3 section).
    for (int i = 0; i < 2; ++i)
    {
        EXPECT_GT(lambda[i], 0.8 * beam);
        EXPECT_LT(lambda[i], 1.6 * beam);
    }
    EXPECT_GT(lambda[2], 1.6 * beam); // the next mode (torsion or the second bending) is well above
}

// Fragments: a sub-region (the tets touching half of the nodes) deforms as its own free body with
// both models; its modal basis is its own (another cache entry).
TEST(Deformation, FragmentRegions)
{
    const auto asset = gridAsset(Vec3(1.0, 0.25, 0.25), 12, 3, 3);
    const TetMesh& mesh = asset->tetMesh;
    std::vector<Index> nodes;
    for (Index n = 0; n < mesh.nodeCount(); ++n)
        if (mesh.nodes[n].x() < 0.4)
            nodes.push_back(n);
    const std::vector<Index> tets = tetsTouchingNodes(mesh, nodes);
    ASSERT_FALSE(tets.empty());
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const bool touches = std::any_of(mesh.tets[t].begin(), mesh.tets[t].end(),
                                         [&](Index n) { return mesh.nodes[n].x() < 0.4; });
        EXPECT_EQ(touches, std::binary_search(tets.begin(), tets.end(), t));
    }
    const std::vector<ImpactForce> forces = {{Vec3(0.2, 0.25, 0.1), Vec3(0, -1e4, 0)}};
    const StrainEnergy fem = model(DeformationModel::Fem)->compute(*asset, tets, glass(), forces);
    const StrainEnergy modal = model(DeformationModel::Modal)->compute(*asset, tets, glass(), forces);
    checkContract(mesh, fem);
    checkContract(mesh, modal);
    EXPECT_EQ(fem.tets, tets);
    EXPECT_GT(modal.total, 0);
    EXPECT_LE(modal.total, fem.total * (1 + 1e-9));
}

// The shipped plate (thin: its lowest bending mode is ~1e-7 of the stiffest nodal frequency) with both
// models and the default 20 modes.
TEST(Deformation, PlateBothModels)
{
    const std::shared_ptr<const Asset> plate = test::cachedMeshAsset(test::meshDir() / "plate.obj");
    const Asset& asset = *plate;
    const Aabb box = asset.surface.bounds();
    const Vec3 top(box.center().x() + 0.3 * box.extent().x(), box.max.y(), box.center().z());
    const std::vector<ImpactForce> forces = {{top, Vec3(0, -2e3, 0)}};
    const std::vector<Index> tets = allTets(asset);
    const StrainEnergy fem = model(DeformationModel::Fem)->compute(asset, tets, glass(), forces);
    ModalDeformation modal;
    const std::vector<Real> lambda = modal.eigenvalues(asset, tets, glass());
    const StrainEnergy modes = modal.compute(asset, tets, glass(), forces);
    checkContract(asset.tetMesh, fem);
    checkContract(asset.tetMesh, modes);
    std::printf("plate: %u tets, FEM %.4g J, modal(20) %.4g J, lambda1 %.4g\n", asset.tetMesh.tetCount(),
                fem.total, modes.total, lambda.front());
    EXPECT_GT(modes.total, 0);
    EXPECT_LE(modes.total, fem.total * (1 + 1e-9));
    EXPECT_EQ(lambda.size(), 20u);
}

} // namespace
} // namespace shatter::fracture
