// The discrete CVD of CVD §3.3 (fracture/src/cvd.h): Lloyd's method with flooding
// on the tet nodes of a fragment. Energy decrease and convergence, connected cells covering every node
// once, cell sizes under uniform and concentrated weights, determinism, regions of broken objects, bad
// input, the interior metric on the concave piggy bank, the fast flood against a plain one, and the
// energy-based stop.
#include "fracture_fixtures.h"
#include "test_assets.h"

#include "cvd.h"
#include "interior_embedding.h"
#include "object_state.h"
#include "seeding.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <tuple>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

/// 3-D node positions, 3 reals per asset node: the Euclidean metric.
std::vector<Real> positions(const TetMesh& mesh)
{
    std::vector<Real> coords;
    coords.reserve(mesh.nodes.size() * 3);
    for (const Vec3& p : mesh.nodes)
        coords.insert(coords.end(), {p.x(), p.y(), p.z()});
    return coords;
}

/// Per-region-node weights from a density function of the position: ∫ density over the dual volume.
template <class Density>
std::vector<Real> weightsFrom(const TetMesh& mesh, const FragmentRegion& region, Density&& density)
{
    std::vector<Real> w(region.nodeCount());
    for (Index i = 0; i < region.nodeCount(); ++i)
        w[i] = region.nodeVolumes[i] * density(mesh.nodes[region.nodes[i]]);
    return w;
}

Vec3 site3(const VoronoiLabelling& l, std::uint32_t s)
{
    return {l.siteCoords[3 * s], l.siteCoords[3 * s + 1], l.siteCoords[3 * s + 2]};
}

std::vector<Real> cellVolumes(const FragmentRegion& region, const VoronoiLabelling& l)
{
    std::vector<Real> v(l.siteCount, 0);
    for (Index i = 0; i < region.nodeCount(); ++i)
        v[l.labels[i]] += region.nodeVolumes[i];
    return v;
}

void expectValidLabelling(const FragmentRegion& region, const VoronoiLabelling& l, const std::string& what)
{
    ASSERT_EQ(l.nodes, region.nodes) << what;
    ASSERT_EQ(l.labels.size(), region.nodes.size()) << what;
    ASSERT_EQ(l.siteCoords.size(), std::size_t(l.siteCount) * l.dimension) << what;
    ASSERT_EQ(l.nodeCoords.size(), l.nodes.size() * l.dimension) << what;
    std::vector<Index> members(l.siteCount, 0);
    for (std::uint32_t label : l.labels)
    {
        ASSERT_LT(label, l.siteCount) << what;
        ++members[label];
    }
    // Every node has exactly one label (one entry per node, in range); every cell is non-empty and one
    // connected set of nodes through the region's tet edges.
    const std::vector<Index> components = labelComponentCounts(region, l.labels, l.siteCount);
    for (std::uint32_t s = 0; s < l.siteCount; ++s)
    {
        EXPECT_GT(members[s], 0u) << what << ": cell " << s << " is empty";
        EXPECT_EQ(components[s], 1u) << what << ": cell " << s << " is not connected";
    }
}

/// The flood of CVD §3.3 written plainly, as floodLabels specifies it: std::priority_queue of (key, site,
/// node), every edge out of a popped node offers its distance, start nodes by a full scan (within the
/// previous cell when `previous` gives the site any node), unreached components flooded from their node
/// nearest to any site, in order. floodLabels (distance table, skipped re-offers, reused buffers) must
/// give the same labels.
std::vector<std::uint32_t> referenceFlood(const FragmentRegion& region, std::span<const Real> coords,
                                          int dimension, std::span<const Real> sites,
                                          std::span<const std::uint32_t> previous)
{
    using Entry = std::tuple<Real, std::uint32_t, Index>;
    const Index n = region.nodeCount();
    const std::size_t dim = std::size_t(dimension), siteCount = sites.size() / dim;
    auto dist = [&](std::size_t s, Index v)
    {
        Real sum = 0;
        for (std::size_t c = 0; c < dim; ++c)
        {
            const Real d = coords[v * dim + c] - sites[s * dim + c];
            sum += d * d;
        }
        return sum;
    };
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> labels(n, kNone), bestSite(n, kNone);
    std::vector<Real> bestKey(n, std::numeric_limits<Real>::infinity());
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    auto offer = [&](Real key, std::uint32_t s, Index v)
    {
        if (key < bestKey[v] || (key == bestKey[v] && s < bestSite[v]))
        {
            bestKey[v] = key;
            bestSite[v] = s;
            heap.emplace(key, s, v);
        }
    };
    auto flood = [&]
    {
        while (!heap.empty())
        {
            const auto [key, s, v] = heap.top();
            heap.pop();
            if (labels[v] != kNone)
                continue;
            labels[v] = s;
            for (Index w : region.neighbors(v))
                if (labels[w] == kNone)
                    offer(dist(s, w), s, w);
        }
    };
    for (std::size_t s = 0; s < siteCount; ++s)
    {
        bool inPrevious = false;
        for (Index v = 0; v < n && !previous.empty(); ++v)
            inPrevious |= previous[v] == s;
        Real best = std::numeric_limits<Real>::infinity();
        Index start = 0;
        for (Index v = 0; v < n; ++v)
            if ((!inPrevious || previous[v] == s) && dist(s, v) < best)
            {
                best = dist(s, v);
                start = v;
            }
        offer(best, std::uint32_t(s), start);
    }
    flood();
    std::vector<Entry> starts;
    for (Index v = 0; v < n; ++v)
    {
        if (labels[v] != kNone)
            continue;
        Entry e{std::numeric_limits<Real>::infinity(), 0, v};
        for (std::size_t s = 0; s < siteCount; ++s)
            if (dist(s, v) < std::get<0>(e))
                e = {dist(s, v), std::uint32_t(s), v};
        starts.push_back(e);
    }
    std::sort(starts.begin(), starts.end());
    for (const auto& [key, s, v] : starts)
    {
        if (labels[v] != kNone)
            continue;
        offer(key, s, v);
        flood();
    }
    return labels;
}

struct CvdRun
{
    FragmentRegion region;
    std::vector<Real> weights;
    VoronoiLabelling labelling;
    CvdStats stats;
};

/// Uniform density, `sites` sites drawn (volume-weighted) from `seed`.
CvdRun uniformCvd(const std::string& assetName, Index sites, std::uint64_t seed, CvdSettings settings = {})
{
    const auto asset = sharedAsset(assetName);
    CvdRun run;
    run.region = wholeMeshRegion(asset->tetMesh);
    run.weights = run.region.nodeVolumes;
    const std::vector<Real> coords = positions(asset->tetMesh);
    const std::vector<Real> local = gatherRegionCoords(run.region, coords, 3);
    const std::vector<Real> initial = seedSites(local, 3, run.weights, sites, seed);
    run.labelling = computeCvd(run.region, run.weights, coords, 3, initial, settings, &run.stats);
    return run;
}

TEST(Cvd, LloydDecreasesEnergyAndConverges)
{
    for (const char* name : {"cube", "plate"})
    {
        CvdSettings settings;
        settings.maxIterations = 200;
        const CvdRun run = uniformCvd(name, 16, 7, settings);
        const std::vector<Real>& e = run.stats.energyHistory;
        ASSERT_EQ(int(e.size()), run.stats.iterations) << name;
        ASSERT_GE(e.size(), 2u) << name;
        EXPECT_TRUE(run.stats.converged) << name << " after " << run.stats.iterations << " iterations";
        EXPECT_LT(e.back(), 0.8 * e.front()) << name << ": Lloyd barely moved the random sites";
        // Nearly monotone: the centroid step never increases E_D; the flood may, a little, near bisectors.
        for (std::size_t i = 1; i < e.size(); ++i)
            EXPECT_LE(e[i], e[i - 1] * (1 + 1e-3)) << name << " iteration " << i;
        EXPECT_NEAR(run.stats.totalEnergy, e.back(), 1e-9 * e.back()) << name;
        const Real sum = std::accumulate(run.stats.cellEnergy.begin(), run.stats.cellEnergy.end(), Real(0));
        EXPECT_NEAR(sum, run.stats.totalEnergy, 1e-12 * sum) << name;
        std::printf("[cvd] %s: 16 sites, %d iterations, E_D %.4g -> %.4g, %.1f ms\n", name,
                    run.stats.iterations, e.front(), e.back(), run.stats.milliseconds);
    }
}

TEST(Cvd, CellsAreConnectedAndCoverEveryNodeOnce)
{
    for (const char* name : {"cube", "plate", "piggy_bank"})
        for (Index sites : {2u, 8u, 27u})
        {
            const CvdRun run = uniformCvd(name, sites, 11 + sites);
            expectValidLabelling(run.region, run.labelling, std::string(name) + "/" + std::to_string(sites));
            EXPECT_EQ(run.labelling.siteCount, sites) << name;
        }
}

TEST(Cvd, UniformWeightsGiveCellsOfSimilarSize)
{
    const CvdRun run = uniformCvd("cube", 8, 3);
    const std::vector<Real> volumes = cellVolumes(run.region, run.labelling);
    const auto [lo, hi] = std::minmax_element(volumes.begin(), volumes.end());
    std::printf("[cvd] cube, 8 uniform cells: volume ratio max/min = %.3f\n", *hi / *lo);
    EXPECT_LT(*hi / *lo, 1.6);
    EXPECT_NEAR(std::accumulate(volumes.begin(), volumes.end(), Real(0)), run.region.volume(), 1e-9);
}

TEST(Cvd, ConcentratedWeightsGiveSmallerCellsThere)
{
    const auto asset = sharedAsset("cube");
    const FragmentRegion region = wholeMeshRegion(asset->tetMesh);
    const Vec3 corner(0.5, 0.5, 0.5);
    const Real sigma = 0.25;
    const std::vector<Real> weights = weightsFrom(
        asset->tetMesh, region,
        [&](const Vec3& p) { return 1 + 200 * std::exp(-(p - corner).squaredNorm() / (2 * sigma * sigma)); });
    const std::vector<Real> coords = positions(asset->tetMesh);
    const std::vector<Real> initial = seedSites(gatherRegionCoords(region, coords, 3), 3, weights, 16, 5);
    const VoronoiLabelling l = computeCvd(region, weights, coords, 3, initial);
    expectValidLabelling(region, l, "cube/corner");
    const std::vector<Real> volumes = cellVolumes(region, l);
    Real nearSum = 0, farSum = 0;
    int nearCount = 0, farCount = 0;
    for (std::uint32_t s = 0; s < l.siteCount; ++s)
    {
        if ((site3(l, s) - corner).norm() < 0.6)
        {
            nearSum += volumes[s];
            ++nearCount;
        }
        else
        {
            farSum += volumes[s];
            ++farCount;
        }
    }
    ASSERT_GT(nearCount, 0);
    ASSERT_GT(farCount, 0);
    const Real nearMean = nearSum / nearCount, farMean = farSum / farCount;
    std::printf("[cvd] cube, weight bump at a corner: %d cells near (mean volume %.4f), %d far (%.4f)\n",
                nearCount, nearMean, farCount, farMean);
    EXPECT_LT(nearMean, 0.5 * farMean);
    EXPECT_GT(nearCount, 16 / 8); // more than the corner octant's share of uniform cells
}

TEST(Cvd, SameSeedSameLabelsDifferentSeedDifferentLabels)
{
    const CvdRun a = uniformCvd("plate", 12, 42);
    const CvdRun b = uniformCvd("plate", 12, 42);
    CvdSettings threaded;
    threaded.threads = 2;
    const CvdRun c = uniformCvd("plate", 12, 42, threaded);
    const CvdRun d = uniformCvd("plate", 12, 43);
    EXPECT_EQ(a.labelling.labels, b.labelling.labels);
    EXPECT_EQ(a.labelling.siteCoords, b.labelling.siteCoords); // bitwise
    EXPECT_EQ(a.labelling.labels, c.labelling.labels);
    EXPECT_EQ(a.labelling.siteCoords, c.labelling.siteCoords);
    EXPECT_NE(a.labelling.labels, d.labelling.labels);
}

// The whole-mesh region copies the mesh's edge graph instead of gathering it from the tets: the same
// region, bit for bit, as gathering it for the unbroken object's fragment 0.
TEST(Cvd, WholeMeshRegionIsTheUnbrokenFragmentsRegion)
{
    for (const char* name : {"cube", "plate"})
    {
        const auto asset = sharedAsset(name);
        const ObjectState state(asset);
        const FragmentRegion whole = wholeMeshRegion(asset->tetMesh);
        const FragmentRegion gathered = fragmentRegion(state.field(), 0);
        EXPECT_EQ(whole.nodes, gathered.nodes) << name;
        EXPECT_EQ(whole.adjacencyOffsets, gathered.adjacencyOffsets) << name;
        EXPECT_EQ(whole.adjacency, gathered.adjacency) << name;
        EXPECT_EQ(whole.nodeVolumes, gathered.nodeVolumes) << name;
    }
}

TEST(Cvd, FloodedCellsOfABrokenFragment)
{
    // Cut the cube by a plane, then run the CVD on one piece: the region is that piece's nodes, the
    // labels cover exactly them, and cells stay connected through the piece's own edges.
    const auto asset = sharedAsset("cube");
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    ObjectState state(asset);
    const Plane plane{Vec3(1, 0.3, 0.2).normalized(), 0.1};
    const std::optional<FractureResult> cut = fixture.cutWithPlane(0, plane);
    ASSERT_TRUE(cut.has_value());
    state.apply(*cut);
    for (FragmentId f : state.liveFragments())
    {
        const FragmentRegion region = fragmentRegion(state.field(), f);
        std::vector<Index> expected;
        for (Index n = 0; n < asset->tetMesh.nodeCount(); ++n)
            if (state.field().node(n).fragment == f)
                expected.push_back(n);
        ASSERT_EQ(region.nodes, expected);
        EXPECT_NEAR(region.volume(), fixture.volume(f),
                    0.15 * fixture.volume(f)); // dual volumes of cut tets are approximate
        const std::vector<Real> coords = positions(asset->tetMesh);
        const std::vector<Real> local = gatherRegionCoords(region, coords, 3);
        const std::vector<Real> initial = seedSites(local, 3, region.nodeVolumes, 6, f);
        // Coordinates per region node are accepted as well as per asset node, with the same result.
        const VoronoiLabelling byAsset = computeCvd(region, region.nodeVolumes, coords, 3, initial);
        const VoronoiLabelling byRegion = computeCvd(region, region.nodeVolumes, local, 3, initial);
        expectValidLabelling(region, byAsset, "cut cube, fragment " + std::to_string(f));
        EXPECT_EQ(byAsset.parent, f);
        EXPECT_EQ(byAsset.labels, byRegion.labels);
        // No flood edge crosses the crack plane.
        for (Index i = 0; i < region.nodeCount(); ++i)
            for (Index j : region.neighbors(i))
            {
                const Real si = plane.normal.dot(asset->tetMesh.nodes[region.nodes[i]]) - plane.offset;
                const Real sj = plane.normal.dot(asset->tetMesh.nodes[region.nodes[j]]) - plane.offset;
                EXPECT_GE(si * sj, 0) << "edge " << region.nodes[i] << "-" << region.nodes[j];
            }
    }
}

TEST(Cvd, BadInputThrows)
{
    const auto asset = sharedAsset("cube");
    const FragmentRegion region = wholeMeshRegion(asset->tetMesh);
    const std::vector<Real> coords = positions(asset->tetMesh);
    const std::vector<Real> sites =
        seedSites(gatherRegionCoords(region, coords, 3), 3, region.nodeVolumes, 4, 1);
    std::vector<Real> w = region.nodeVolumes;
    EXPECT_NO_THROW(computeCvd(region, w, coords, 3, sites));
    w[5] = std::nan("");
    EXPECT_THROW(computeCvd(region, w, coords, 3, sites), Error);
    w[5] = -1;
    EXPECT_THROW(computeCvd(region, w, coords, 3, sites), Error);
    w.assign(w.size(), 0);
    EXPECT_THROW(computeCvd(region, w, coords, 3, sites), Error);
    w = region.nodeVolumes;
    EXPECT_THROW(computeCvd(region, std::span(w).first(10), coords, 3, sites), Error);
    EXPECT_THROW(computeCvd(region, w, coords, 3, std::span<const Real>()), Error);
    EXPECT_THROW(computeCvd(region, w, coords, 3, std::span(sites).first(5)), Error);
    EXPECT_THROW(computeCvd(region, w, std::span(coords).first(30), 3, sites), Error);
    std::vector<Real> tooMany(3 * (region.nodeCount() + 1), 0);
    EXPECT_THROW(computeCvd(region, w, coords, 3, tooMany), Error);
    std::vector<Real> badSites = sites;
    badSites[2] = std::numeric_limits<Real>::infinity();
    EXPECT_THROW(computeCvd(region, w, coords, 3, badSites), Error);
    CvdSettings settings;
    settings.maxIterations = 0;
    EXPECT_THROW(computeCvd(region, w, coords, 3, sites, settings), Error);
    settings = {};
    settings.energyTolerance = -1;
    EXPECT_THROW(computeCvd(region, w, coords, 3, sites, settings), Error);
    EXPECT_THROW(computeCvd(FragmentRegion{}, w, coords, 3, sites), Error);
    EXPECT_THROW(
        seedSites(gatherRegionCoords(region, coords, 3), 3, region.nodeVolumes, region.nodeCount() + 1, 1),
        Error);
}

TEST(Cvd, FloodMatchesThePlainFloodOnRandomInputs)
{
    // Random metric coordinates (continuous, and rounded to a coarse grid so that keys tie often), sites
    // at random points or on nodes, site counts on both sides of kFloodTableSites, with and without the
    // previous labels, on a connected region and on one split in two by dropping the edges across a
    // plane (the second component is then flooded from its own start). One workspace serves every case,
    // as in computeCvd's iterations.
    const auto asset = sharedAsset("cube");
    const TetMesh& mesh = asset->tetMesh;
    const FragmentRegion whole = wholeMeshRegion(mesh);
    FragmentRegion split = whole;
    split.adjacency.clear();
    for (Index v = 0; v < split.nodeCount(); ++v)
    {
        for (Index w : whole.neighbors(v))
            if ((mesh.nodes[whole.nodes[v]].x() < 0.1) == (mesh.nodes[whole.nodes[w]].x() < 0.1))
                split.adjacency.push_back(w);
        split.adjacencyOffsets[v + 1] = Index(split.adjacency.size());
    }
    ASSERT_LT(split.adjacency.size(), whole.adjacency.size());

    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<Real> unit(-1, 1);
    FloodWorkspace workspace;
    std::vector<std::uint32_t> labels;
    int cases = 0, tableCases = 0, splitCases = 0;
    for (const FragmentRegion* region : {&whole, static_cast<const FragmentRegion*>(&split)})
        for (int dimension : {3, 7})
            for (bool coarse : {false, true})
            {
                const Index n = region->nodeCount();
                std::vector<Real> coords(std::size_t(n) * dimension);
                for (Real& x : coords)
                    x = coarse ? std::round(4 * unit(rng)) : unit(rng);
                setFloodCoordinates(workspace, coords, dimension);
                std::vector<std::uint32_t> previous;
                for (std::size_t siteCount : {std::size_t(1), std::size_t(3), kFloodTableSites,
                                              kFloodTableSites + 1, std::size_t(20)})
                {
                    std::vector<Real> sites(siteCount * dimension);
                    for (std::size_t s = 0; s < siteCount; ++s)
                    {
                        const Index node = Index(rng() % n);
                        for (int c = 0; c < dimension; ++c)
                            sites[s * dimension + c] = s % 2
                                                           ? coords[std::size_t(node) * dimension + c]
                                                           : (coarse ? std::round(4 * unit(rng)) : unit(rng));
                    }
                    for (bool withPrevious : {false, true})
                    {
                        // The previous labels come from the last case (other sites, maybe fewer): sites
                        // they do not give any node search all nodes.
                        const std::span<const std::uint32_t> prev =
                            withPrevious ? std::span<const std::uint32_t>(previous)
                                         : std::span<const std::uint32_t>();
                        const std::vector<std::uint32_t> expected =
                            referenceFlood(*region, coords, dimension, sites, prev);
                        floodLabels(*region, coords, dimension, sites, 1, prev, workspace, labels);
                        const std::string what =
                            "case " + std::to_string(cases) + ": d = " + std::to_string(dimension) + ", " +
                            std::to_string(siteCount) + " sites" + (coarse ? ", coarse" : "") +
                            (withPrevious ? ", previous" : "") + (region == &split ? ", split" : "");
                        ASSERT_EQ(labels, expected) << what;
                        EXPECT_EQ(floodLabels(*region, coords, dimension, sites, 2, prev), expected) << what;
                        // The workspace's keys are each node's squared distance to its own site.
                        for (Index v = 0; v < n; v += 97)
                        {
                            Real d2 = 0;
                            for (int c = 0; c < dimension; ++c)
                            {
                                const Real d = coords[std::size_t(v) * dimension + c] -
                                               sites[std::size_t(labels[v]) * dimension + c];
                                d2 += d * d;
                            }
                            EXPECT_EQ(workspace.key[v], d2) << what << ", node " << v;
                        }
                        ++cases;
                        tableCases += siteCount <= kFloodTableSites;
                        splitCases += region == &split;
                    }
                    previous = labels;
                }
            }
    EXPECT_EQ(cases, 80);
    EXPECT_GT(tableCases, 0);
    EXPECT_GT(cases - tableCases, 0);
    EXPECT_GT(splitCases, 0);
}

TEST(Cvd, EnergyToleranceStopsTheSlowTail)
{
    // energyTolerance ends Lloyd's method once a flood gains little; the energy it reaches stays close
    // to that of running until the labels stop changing.
    for (const char* name : {"plate", "piggy_bank"})
    {
        CvdSettings full;
        full.energyTolerance = 0;
        full.maxIterations = 200;
        const CvdRun slow = uniformCvd(name, 12, 5, full);
        CvdSettings early;
        early.energyTolerance = 1e-3;
        const CvdRun fast = uniformCvd(name, 12, 5, early);
        std::printf("[cvd] %s, 12 sites: energy stop %d iterations, E_D %.6g; until stable %d iterations, "
                    "E_D %.6g\n",
                    name, fast.stats.iterations, fast.stats.totalEnergy, slow.stats.iterations,
                    slow.stats.totalEnergy);
        // Stopped by the energy gain (or the cap), well before the labels settle, at nearly the same E_D.
        EXPECT_TRUE(fast.stats.converged || fast.stats.iterations == CvdSettings{}.maxIterations) << name;
        EXPECT_LT(fast.stats.iterations, slow.stats.iterations) << name;
        EXPECT_LT(fast.stats.totalEnergy, 1.02 * slow.stats.totalEnergy) << name;
        EXPECT_TRUE(slow.stats.converged) << name;
        expectValidLabelling(fast.region, fast.labelling, name);
    }
}

TEST(Cvd, InteriorMetricSplitsFewerCellsOnThePiggyBank)
{
    // CVD §3.2, Fig. 4: the piggy bank is hollow and concave, so Euclidean
    // Voronoi cells can reach across the cavity, the slot or between the legs and fall apart into
    // several pieces of material. Flooding keeps the CVD's own cells connected by construction, so the
    // comparison is on the plain nearest-site assignment of the converged sites: how many of its cells
    // are disconnected through the tet edges. Same initial nodes in both metrics (energy-weighted
    // seeding from the same seeds), uniform weights and two impact bumps, N = 8, 27, 64.
    //
    // The interior metric is the landmark-MDS embedding with the 3-D position appended
    // (EmbeddingSettings::positionWeight = 1, so nearly convex regions still behave Euclidean): the 16-D
    // embedding alone distorts short distances enough that its nearest-site cells grow small islands
    // near bisectors, and on this asset it splits about as many cells as the Euclidean metric
    // (docs/algorithms.md, "Interior metric").
    const auto asset = sharedAsset("piggy_bank");
    const TetMesh& mesh = asset->tetMesh;
    const FragmentRegion region = wholeMeshRegion(mesh);
    EmbeddingSettings options;
    options.positionWeight = 1;
    const InteriorEmbedding embedding = computeInteriorEmbedding(*asset, options);
    ASSERT_EQ(embedding.coords.size(), std::size_t(embedding.dimension) * mesh.nodeCount());
    const std::vector<Real> interior = gatherRegionCoords(region, embedding.coords, embedding.dimension);
    const std::vector<Real> euclidean = gatherRegionCoords(region, positions(mesh), 3);

    auto splitCells = [&](std::span<const Real> coords, int dimension, std::span<const Real> weights,
                          Index sites, std::uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        std::vector<Real> initial;
        for (Index v : sampleWeighted(weights, sites, rng))
            initial.insert(initial.end(), coords.begin() + std::ptrdiff_t(v) * dimension,
                           coords.begin() + std::ptrdiff_t(v + 1) * dimension);
        const VoronoiLabelling l = computeCvd(region, weights, coords, dimension, initial);
        expectValidLabelling(region, l, "piggy bank, d = " + std::to_string(dimension));
        const std::vector<std::uint32_t> nearest = nearestSiteLabels(coords, dimension, l.siteCoords);
        const std::vector<Index> components = labelComponentCounts(region, nearest, l.siteCount);
        return Index(std::count_if(components.begin(), components.end(), [](Index c) { return c > 1; }));
    };
    const std::vector<std::pair<const char*, std::vector<Real>>> fields = {
        {"uniform", region.nodeVolumes},
        {"flank bump", weightsFrom(mesh, region,
                                   [](const Vec3& p) {
                                       return 1e-3 + std::exp(-(p - Vec3(0.09, 0.07, 0)).squaredNorm() /
                                                              (2 * 0.03 * 0.03));
                                   })},
        {"top bump",
         weightsFrom(mesh, region,
                     [](const Vec3& p)
                     { return 1e-3 + std::exp(-(p - Vec3(0, 0.14, 0)).squaredNorm() / (2 * 0.03 * 0.03)); })},
    };
    Index euclideanSplit = 0, interiorSplit = 0, cells = 0;
    for (const auto& [field, weights] : fields)
        for (Index sites : {8u, 27u, 64u})
            for (std::uint64_t seed : {1u, 2u, 3u})
            {
                const Index e = splitCells(euclidean, 3, weights, sites, seed);
                const Index i = splitCells(interior, embedding.dimension, weights, sites, seed);
                if (e + i > 0)
                    std::printf(
                        "[cvd] piggy bank, %s, %2u sites, seed %u: split cells Euclidean %u, interior %u\n",
                        field, sites, unsigned(seed), e, i);
                euclideanSplit += e;
                interiorSplit += i;
                cells += sites;
            }
    std::printf("[cvd] piggy bank: nearest-site cells split into several pieces: Euclidean %u, interior %u "
                "(of %u cells; embedding d = %d)\n",
                euclideanSplit, interiorSplit, cells, embedding.dimension);
    EXPECT_GT(euclideanSplit, 0u); // the comparison means something: the Euclidean metric does split cells
    EXPECT_LT(interiorSplit, euclideanSplit);
}

} // namespace
} // namespace shatter::test
