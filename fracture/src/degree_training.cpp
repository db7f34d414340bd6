// The example set of CVD §4.2: "we drop each object from 6 different heights and with 64 random,
// uniformly distributed orientations. We repeat each experiment 3 times, to account for the randomness
// in the initialization of Voronoi sites." Each example runs the pipeline's deformation model and the
// degree search of CVD §3.3 (planFracture, DegreeMode::Search) — the oracle the model learns.
//
// A drop needs no rigid-body simulation here: the object rotated by the orientation touches the ground
// at its lowest surface vertex, and the ground's impulse m √(2 g h) (a fall from h, no bounce) acts
// there along +y over one contact time, as FractureSystem turns a contact impulse J into the force
// J / Δt. The deformation models are linear, so the strain energy of a drop from h is h × that of a
// drop from 1 m: one solve per orientation serves every height.
#include "degree_training.h"

#include "fracture_precompute.h"
#include "metric.h"
#include "seeding.h"
#include "shatter/error.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <random>

namespace shatter::fracture
{
namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A uniform real in [0, 1) from the raw 53 high bits of one draw (no std distribution: their algorithms
// differ between standard libraries).
Real uniform(std::mt19937_64& rng)
{
    return Real(rng() >> 11) * 0x1.0p-53;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t h = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

void checkSettings(const DegreeTrainingSettings& s)
{
    constexpr const char* kSource = "DegreeTrainingSettings";
    if (s.orientations < 1 || s.repeats < 1)
        throw Error(kSource, "orientations and repeats must be at least 1");
    if (s.heights.empty() && s.energyRatios.empty())
        throw Error(kSource, "give heights or energyRatios");
    for (Real h : s.heights)
        if (!std::isfinite(h) || !(h > 0))
            throw Error(kSource, "heights must be finite and positive");
    for (Real r : s.energyRatios)
        if (!std::isfinite(r) || !(r > 0))
            throw Error(kSource, "energyRatios must be finite and positive");
    if (!(s.contactTime > 0) || !(s.gravity > 0) || !std::isfinite(s.contactTime) ||
        !std::isfinite(s.gravity))
        throw Error(kSource, "contactTime and gravity must be finite and positive");
    if (!(s.distributionExponent >= 0) || !std::isfinite(s.distributionExponent))
        throw Error(kSource, "distributionExponent must be finite and ≥ 0");
    if (!(s.pcaTolerance >= 0 && s.pcaTolerance < 1))
        throw Error(kSource, "pcaTolerance must lie in [0, 1)");
    if (s.smoothingCandidates.empty() || s.shapeWeightCandidates.empty() ||
        s.concentrationWeightCandidates.empty())
        throw Error(kSource, "the fit's candidate lists must not be empty");
    for (Real v : s.concentrationWeightCandidates)
        if (!std::isfinite(v) || v < 0)
            throw Error(kSource, "concentrationWeightCandidates must be finite and ≥ 0");
    for (Real v : s.smoothingCandidates)
        if (!std::isfinite(v) || v < 0)
            throw Error(kSource, "smoothingCandidates must be finite and ≥ 0");
    for (Real v : s.shapeWeightCandidates)
        if (!std::isfinite(v) || v < 0)
            throw Error(kSource, "shapeWeightCandidates must be finite and ≥ 0");
}

StrainEnergy scaled(const StrainEnergy& energy, Real factor)
{
    StrainEnergy e = energy;
    for (Real& u : e.perTet)
        u *= factor;
    for (Real& u : e.perNode)
        u *= factor;
    e.total *= factor;
    return e;
}

// Reports progress from several threads: calls are serialised and the fraction never decreases.
class ProgressReporter
{
public:
    ProgressReporter(const ProgressCallback& callback, double from, double to, std::size_t total)
        : callback(callback), from(from), to(to), total(std::max<std::size_t>(total, 1))
    {
    }
    void step(std::string_view stage)
    {
        if (!callback)
            return;
        const std::lock_guard lock(mutex);
        ++done;
        callback(stage, from + (to - from) * double(done) / double(total));
    }

private:
    const ProgressCallback& callback;
    double from, to;
    std::size_t total;
    std::size_t done = 0;
    std::mutex mutex;
};

template <class Body>
void parallelExamples(unsigned threads, std::size_t count, Body&& body)
{
    auto run = [&]
    {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1),
                          [&](const tbb::blocked_range<std::size_t>& range)
                          {
                              for (std::size_t i = range.begin(); i != range.end(); ++i)
                                  body(i);
                          });
    };
    if (threads == 0)
    {
        run();
        return;
    }
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(run);
}

// The degree search of planFracture (CVD §3.3) for one impact at several strengths. Scaling the weights
// by s > 0 leaves every trial's sites and CVD unchanged and scales its energies by s (fracture_degree.cpp),
// so the trials of the unit-strength weights serve every height: one CVD per distinct N instead of one
// per (height, N). planFracture's own search at each height gives the same degrees up to rounding in
// the scaled weights (degree_model_test compares them).
class SharedSearch
{
public:
    SharedSearch(const FragmentRegion& region, std::span<const Real> weights,
                 std::span<const Real> localCoords, int dimension, std::uint64_t seed,
                 const PlanSettings& plan)
        : region(region), weights(weights), localCoords(localCoords), dimension(dimension), seed(seed),
          plan(plan)
    {
    }

    /// planFracture's degree with the weights scaled by `scale` (0: no fracture); `ms` gets the time its
    /// trials took when they ran.
    Index degree(Real scale, Real wholeEnergy, Real gamma, Index cap, double* ms)
    {
        *ms = 0;
        if (!(scale * wholeEnergy > gamma) || cap < 2)
            return 0;
        auto passes = [&](Index n)
        {
            const Trial& t = trial(n);
            *ms += t.milliseconds;
            return scale * t.value <= gamma;
        };
        Index lo = 1, hi = 2;
        bool passed = false;
        for (;;)
        {
            hi = std::min(hi, cap);
            passed = passes(hi);
            if (passed || hi == cap)
                break;
            lo = hi;
            hi *= 2;
        }
        if (passed)
            while (hi - lo > 1)
            {
                const Index mid = lo + (hi - lo) / 2;
                (passes(mid) ? hi : lo) = mid;
            }
        return trial(hi).cells < 2 ? 0 : hi;
    }

private:
    struct Trial
    {
        Real value = 0; ///< the criterion's value at unit strength
        std::uint32_t cells = 0;
        double milliseconds = 0;
    };
    const Trial& trial(Index n)
    {
        auto it = trials.find(n);
        if (it != trials.end())
            return it->second;
        const std::vector<Real> sites = seedSites(localCoords, dimension, weights, n, seed);
        CvdStats cs;
        const VoronoiLabelling labelling =
            computeCvd(region, weights, localCoords, dimension, sites, plan.cvd, &cs);
        Trial t;
        t.value =
            plan.criterion == DegreeCriterion::MaxCell
                ? (cs.cellEnergy.empty() ? 0 : *std::max_element(cs.cellEnergy.begin(), cs.cellEnergy.end()))
                : cs.totalEnergy;
        t.cells = labelling.siteCount;
        t.milliseconds = cs.milliseconds;
        return trials.emplace(n, t).first->second;
    }

    const FragmentRegion& region;
    std::span<const Real> weights, localCoords;
    int dimension;
    std::uint64_t seed;
    const PlanSettings& plan;
    std::map<Index, Trial> trials;
};

} // namespace

std::vector<DropImpact> dropImpacts(const Asset& asset, const Material& material, int count,
                                    std::uint64_t seed, Real contactTime, Real gravity)
{
    const TriMesh& surface = asset.surface;
    if (surface.vertices.empty())
        throw Error("dropImpacts", "the asset has no surface");
    const Real mass = material.density * asset.tetMesh.totalVolume();
    std::mt19937_64 rng(seed);
    std::vector<DropImpact> impacts;
    impacts.reserve(std::size_t(std::max(count, 0)));
    for (int o = 0; o < count; ++o)
    {
        // Shoemake, "Uniform random rotations" (Graphics Gems III).
        const Real u1 = uniform(rng), u2 = uniform(rng), u3 = uniform(rng);
        const Real a = std::sqrt(1 - u1), b = std::sqrt(u1);
        const Eigen::Quaterniond q(b * std::cos(2 * M_PI * u3), a * std::sin(2 * M_PI * u2),
                                   a * std::cos(2 * M_PI * u2), b * std::sin(2 * M_PI * u3));
        DropImpact impact;
        impact.orientation = o;
        impact.rotation = q.normalized().toRotationMatrix();
        Index lowest = 0;
        Real lowestY = std::numeric_limits<Real>::infinity();
        for (Index v = 0; v < Index(surface.vertices.size()); ++v)
        {
            const Real y = impact.rotation.row(1).dot(surface.vertices[v]);
            if (y < lowestY)
            {
                lowestY = y;
                lowest = v;
            }
        }
        const Real impulse = mass * std::sqrt(2 * gravity * 1.0); // N·s, a drop from 1 m
        impact.unitForce.point = surface.vertices[lowest];
        impact.unitForce.force = impact.rotation.transpose() * Vec3(0, impulse / contactTime, 0);
        impacts.push_back(impact);
    }
    return impacts;
}

MetricCoordinates pipelineMetricCoordinates(const std::shared_ptr<const Asset>& asset,
                                            const Material& material,
                                            const PipelineSettings& pipelineSettings)
{
    // FracturePipeline::fracture, step 3: the metric resolved by the pipeline, the coordinates rescaled
    // the same way when the position is appended to the embedding.
    FracturePipeline pipeline(pipelineSettings);
    const FractureMetric metric = pipeline.metricFor(asset);
    std::optional<InteriorEmbedding> embedding;
    if (metric == FractureMetric::Interior)
    {
        EmbeddingSettings options = pipelineSettings.embedding;
        options.warp = material.warp;
        embedding = loadEmbedding(*asset, options); // the precomputed section, when there is one
        if (!embedding)
            embedding = computeInteriorEmbedding(*asset, options);
    }
    MetricCoordinates coords = metricCoordinates(*asset, embedding ? &*embedding : nullptr, material.warp);
    if (embedding && pipelineSettings.embedding.positionWeight > 0)
    {
        const Real w = pipelineSettings.embedding.positionWeight;
        const Real scale = 1 / std::sqrt(1 + w * w);
        for (Real& c : coords.coords)
            c *= scale;
    }
    return coords;
}

DegreeExamples computeDegreeExamples(const std::shared_ptr<const Asset>& asset, const Material& material,
                                     const PipelineSettings& pipelineSettings,
                                     const DegreeTrainingSettings& settings, const ProgressCallback& progress)
{
    constexpr const char* kSource = "computeDegreeExamples";
    const auto start = Clock::now();
    checkSettings(settings);
    if (!asset)
        throw Error(kSource, "null asset");
    checkMaterial(material, asset->tetMesh.tetCount(), kSource);
    if (progress)
        progress("deformation", 0);

    FracturePipeline pipeline(pipelineSettings);
    const MetricCoordinates coords = pipelineMetricCoordinates(asset, material, pipelineSettings);
    const FragmentRegion region = wholeMeshRegion(asset->tetMesh);
    const std::vector<Index> tets = allTets(*asset);
    Deformation& deformation = pipeline.deformationModel();
    deformation.prepare(*asset, tets, material);

    // One deformation per orientation (a drop from 1 m).
    const std::vector<DropImpact> impacts = dropImpacts(
        *asset, material, settings.orientations, settings.seed, settings.contactTime, settings.gravity);
    const std::size_t orientations = impacts.size();
    std::vector<StrainEnergy> energies(orientations);
    std::vector<std::vector<Real>> unitWeights(orientations);
    std::vector<Real> unitRatio(orientations);
    DegreeExamples out;
    out.distributions.resize(orientations);
    out.configurationHash = degreeModelKey(material, pipelineSettings);
    out.toughness = material.toughness;
    out.energyExponent = material.energyExponent;
    out.maxFragments = material.maxFragments;
    const std::vector<Real> localCoords = gatherRegionCoords(region, coords.coords, coords.dimension);
    ProgressReporter deformationProgress(progress, 0, 0.1, orientations);
    parallelExamples(settings.threads, orientations,
                     [&](std::size_t o)
                     {
                         energies[o] =
                             deformation.compute(*asset, tets, material, std::span(&impacts[o].unitForce, 1));
                         unitWeights[o] = nodeWeights(asset->tetMesh, region, energies[o], material);
                         std::vector<Real> w = unitWeights[o];
                         unitRatio[o] = wholeEnergy(localCoords, coords.dimension, w) / material.toughness;
                         Real sum = 0;
                         for (Real v : w)
                             sum += v;
                         if (sum > 0)
                             for (Real& v : w)
                                 v /= sum;
                         out.distributions[o] = std::move(w);
                         deformationProgress.step("deformation");
                     });

    // Heights: given, or from the energy ratios through E_D ∝ h^α about the median orientation.
    out.heights = settings.heights;
    if (out.heights.empty())
    {
        std::vector<Real> sorted = unitRatio;
        std::sort(sorted.begin(), sorted.end());
        const Real median = sorted[sorted.size() / 2];
        const Real alpha = material.energyExponent;
        if (!(median > 0) || !(alpha > 0))
            out.heights = {1.0}; // the weights do not depend on the strength of the impact
        else
            for (Real r : settings.energyRatios)
                out.heights.push_back(std::pow(r / median, 1 / alpha));
    }

    // The examples. A job is one (orientation, repeat) with its own site seed, shared by its heights;
    // every job writes its own slots.
    const std::size_t heights = out.heights.size();
    const std::size_t repeats = std::size_t(settings.repeats);
    out.examples.resize(orientations * repeats * heights);
    PlanSettings plan = pipelineSettings.plan;
    plan.mode = DegreeMode::Search;
    plan.model = nullptr;
    plan.cvd.threads = 1;
    plan.cvd.recordEnergies = false;
    const Real alpha = material.energyExponent;
    const Real gamma = material.toughness;
    ProgressReporter searchProgress(progress, 0.1, 0.95, orientations * repeats);
    parallelExamples(settings.threads, orientations * repeats,
                     [&](std::size_t job)
                     {
                         const std::size_t o = job / repeats;
                         const std::uint64_t seed = mix(mix(settings.seed, o), job % repeats);
                         const std::vector<Real>& w = unitWeights[o];
                         const Real unitEnergy = unitRatio[o] * gamma;
                         const Index cap = std::min<Index>(
                             Index(material.maxFragments),
                             Index(std::count_if(w.begin(), w.end(), [](Real v) { return v > 0; })));
                         SharedSearch shared(region, w, localCoords, coords.dimension, seed, plan);
                         for (std::size_t h = 0; h < heights; ++h)
                         {
                             DegreeExample& e = out.examples[job * heights + h];
                             e.orientation = int(o);
                             e.height = int(h);
                             e.seed = seed;
                             e.maxDegree = cap;
                             if (settings.shareTrials)
                             {
                                 const Real scale = alpha > 0 ? std::pow(out.heights[h], alpha) : 1;
                                 e.energyRatio = scale * unitRatio[o];
                                 e.degree = shared.degree(scale, unitEnergy, gamma, cap, &e.searchMs);
                                 continue;
                             }
                             const StrainEnergy energy = scaled(energies[o], out.heights[h]);
                             PlanStats stats;
                             planFracture(*asset, region, energy, coords.coords, coords.dimension, material,
                                          seed, &stats, plan);
                             e.energyRatio = stats.wholeEnergy / gamma;
                             e.degree = stats.degree;
                             e.searchMs = stats.milliseconds;
                         }
                         searchProgress.step("degree search");
                     });
    out.milliseconds = msSince(start);
    return out;
}

DegreeModel trainDegreeModel(const std::shared_ptr<const Asset>& asset, const Material& material,
                             const PipelineSettings& pipeline, const DegreeTrainingSettings& settings,
                             const ProgressCallback& progress, DegreeFitStats* stats,
                             DegreeExamples* examples)
{
    DegreeExamples set = computeDegreeExamples(asset, material, pipeline, settings, progress);
    if (progress)
        progress("fit", 0.95);
    DegreeModel model = fitDegreeModel(set, settings, stats);
    if (progress)
        progress("done", 1);
    if (examples)
        *examples = std::move(set);
    return model;
}

} // namespace shatter::fracture
