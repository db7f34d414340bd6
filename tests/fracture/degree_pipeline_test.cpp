// The trained fracture degree (CVD §4) inside FracturePipeline and the precompute step:
//  - addFracturePrecompute trains the model and stores it in the asset's section for the material and
//    settings; the asset file reads it back bit for bit, a second call computes nothing, and
//    PrecomputeSettings::degreeModel = false leaves it out;
//  - an unbroken object whose asset carries the model gets the model's degree (one CVD, the degree
//    the model predicts from the event's own distribution and strength, rounded and clamped);
//  - without a model for the material (another asset copy, another γ) or with DegreeMode::Search the
//    pipeline runs the degree search;
//  - a fragment's event runs the search on the fragment's region (the model covers the unbroken
//    object only): the same degree and trials as DegreeMode::Search.
// The model is trained on a small example set (6 orientations, 3 heights) once per build tree (and
// once more by the precompute test).
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_paths.h"

#include "degree_model.h"
#include "fracture_precompute.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace shatter::test
{
namespace
{

using namespace shatter::fracture;

PrecomputeSettings smallTraining()
{
    PrecomputeSettings s;
    s.training.orientations = 6;
    s.training.repeats = 1;
    s.training.energyRatios = {2, 8, 30};
    return s;
}

struct Trained
{
    std::shared_ptr<const Asset> original;  // the plate's cached asset: no degree model
    std::shared_ptr<const Asset> withModel; // a copy with the fracture sections and the model
    std::vector<std::string> steps;         // addFracturePrecompute's steps
    double lastFraction = 0;                // the training progress's last fraction
};

// Pipeline settings that always run the degree search (the exact mode and training oracle).
PipelineSettings searchOnly()
{
    PipelineSettings s;
    s.plan.mode = DegreeMode::Search;
    return s;
}

// The plate with its fracture sections and a freshly trained model.
Trained trainPlate()
{
    Trained t;
    t.original = sharedAsset("plate");
    auto copy = std::make_shared<Asset>(*t.original);
    PrecomputeSettings precompute = smallTraining();
    precompute.trainingProgress = [&t](std::string_view, double fraction)
    {
        t.lastFraction = fraction;
    };
    addFracturePrecompute(
        *copy, glass(), PipelineSettings{}, [&t](const std::string& step) { t.steps.push_back(step); },
        precompute);
    t.withModel = std::move(copy);
    return t;
}

// The same, trained once per build tree: kept in test_assets/ beside the plate's cache file (ctest runs
// each test in its own process; the training is most of these tests' time, ten times more under ASan).
const Trained& trainedPlate()
{
    static const Trained trained = []
    {
        const std::filesystem::path file =
            std::filesystem::path(SHATTER_BINARY_DIR) / "test_assets" / "plate-degree-model.shatter";
        Trained t;
        t.original = sharedAsset("plate");
        std::error_code ec;
        if (std::filesystem::is_regular_file(file, ec))
        {
            auto stored = std::make_shared<Asset>(Asset::load(file));
            if (stored->sourceHash == t.original->sourceHash &&
                hasFracturePrecompute(*stored, glass(), PipelineSettings{}, smallTraining()))
            {
                t.withModel = std::move(stored);
                return t;
            }
        }
        t = trainPlate();
        t.withModel->save(file);
        return t;
    }();
    return trained;
}

// A drop impact of the plate scaled so that E_D(N = 1) ≈ `ratio` γ (E_D grows as |F|^(2α)).
std::vector<ImpactForce> dropWithRatio(FracturePipeline& pipeline, const ObjectState& state,
                                       const Material& material, int which, Real ratio)
{
    const std::vector<DropImpact> impacts = dropImpacts(state.asset(), material, 3, 77, 1.0 / 120, 9.81);
    std::vector<ImpactForce> forces = {impacts.at(std::size_t(which)).unitForce};
    Material probe = material;
    probe.toughness = 1e300;
    FractureEventStats stats;
    const bool useBound = pipeline.settings().useBound;
    pipeline.setUseBound(false);
    EXPECT_FALSE(pipeline.fracture(state, 0, probe, forces, 1, &stats).has_value());
    pipeline.setUseBound(useBound);
    const Real unit = stats.plan.wholeEnergy;
    EXPECT_GT(unit, 0);
    forces[0].force *= std::pow(ratio * material.toughness / unit, 1 / (2 * material.energyExponent));
    return forces;
}

TEST(DegreePrecompute, StoresTheModelAndTheAssetFileReadsItBack)
{
    const Trained t = trainPlate();
    const Material material = glass();
    const PipelineSettings settings;
    EXPECT_NE(std::find(t.steps.begin(), t.steps.end(), "degree model"), t.steps.end());
    EXPECT_EQ(t.lastFraction, 1.0);
    EXPECT_FALSE(hasFracturePrecompute(*t.original, material, settings, smallTraining()));
    EXPECT_TRUE(hasFracturePrecompute(*t.withModel, material, settings, smallTraining()));
    const std::optional<DegreeModel> model = findDegreeModel(*t.withModel, material, settings);
    ASSERT_TRUE(model.has_value());
    EXPECT_EQ(model->nodeCount, t.withModel->tetMesh.nodeCount());
    EXPECT_GE(model->centreCount, 2);

    // The asset file round trip.
    const std::filesystem::path file = scratchDir("degree_precompute") / "plate.shatter";
    t.withModel->save(file.string());
    const Asset back = Asset::load(file.string());
    const std::optional<DegreeModel> reread = findDegreeModel(back, material, settings);
    ASSERT_TRUE(reread.has_value());
    EXPECT_EQ(serializeDegreeModel(*reread), serializeDegreeModel(*model));
    EXPECT_TRUE(hasFracturePrecompute(back, material, settings, smallTraining()));

    // Nothing left to compute; another γ needs its own model; without the model nothing is trained.
    Asset again = back;
    std::vector<std::string> steps;
    addFracturePrecompute(
        again, material, settings, [&](const std::string& s) { steps.push_back(s); }, smallTraining());
    EXPECT_TRUE(steps.empty());
    Material other = material;
    other.toughness *= 2;
    EXPECT_FALSE(hasFracturePrecompute(back, other, settings, smallTraining()));
    PrecomputeSettings without = smallTraining();
    without.degreeModel = false;
    EXPECT_TRUE(hasFracturePrecompute(back, other, settings, without));
    Asset plain = *t.original;
    addFracturePrecompute(plain, material, settings, {}, without);
    EXPECT_FALSE(findDegreeModel(plain, material, settings).has_value());
    EXPECT_TRUE(hasFracturePrecompute(plain, material, settings, without));
}

TEST(DegreePipeline, AnUnbrokenObjectGetsTheModelsDegree)
{
    const Trained& t = trainedPlate();
    const Material material = glass();
    FracturePipeline pipeline; // DegreeMode::Model by default
    EXPECT_EQ(pipeline.settings().plan.mode, DegreeMode::Model);
    const ObjectState state(t.withModel);
    pipeline.prepare(state, material);
    const std::optional<DegreeModel> model = findDegreeModel(*t.withModel, material, pipeline.settings());
    ASSERT_TRUE(model.has_value());
    int fractured = 0;
    for (int which = 0; which < 3; ++which)
    {
        const std::vector<ImpactForce> forces = dropWithRatio(pipeline, state, material, which, 30);
        FractureEventStats stats;
        const auto result = pipeline.fracture(state, 0, material, forces, 11, &stats);
        if (!result)
            continue;
        ++fractured;
        EXPECT_TRUE(stats.plan.predicted) << which;
        ASSERT_EQ(stats.plan.trials.size(), 1u) << which;
        // The model's own prediction from this event's distribution and strength.
        const StrainEnergy energy =
            pipeline.deformationModel().compute(*t.withModel, allTets(*t.withModel), material, forces);
        const std::vector<Real> weights =
            nodeWeights(t.withModel->tetMesh, wholeMeshRegion(t.withModel->tetMesh), energy, material);
        const Real predicted = model->predict(weights, stats.plan.wholeEnergy / material.toughness);
        EXPECT_EQ(stats.plan.predictedDegree, predicted) << which;
        EXPECT_EQ(Real(stats.plan.degree),
                  std::clamp<Real>(std::round(predicted), 2, Real(stats.plan.maxDegree)))
            << which;
        EXPECT_EQ(stats.plan.trials[0].sites, stats.plan.degree) << which;
    }
    EXPECT_GE(fractured, 1);
}

TEST(DegreePipeline, WithoutAModelOrInSearchModeTheDegreeIsSearched)
{
    const Trained& t = trainedPlate();
    const Material material = glass();
    FracturePipeline pipeline, search(searchOnly());
    const ObjectState withModel(t.withModel), plain(t.original);
    Material other = material; // a γ the model was not trained for
    other.toughness *= 1.5;
    int fractured = 0;
    for (int which = 0; which < 3; ++which)
    {
        const std::vector<ImpactForce> forces = dropWithRatio(pipeline, plain, material, which, 30);
        FractureEventStats noModel, searched, otherMaterial;
        const auto a = pipeline.fracture(plain, 0, material, forces, 11, &noModel);
        const auto b = search.fracture(withModel, 0, material, forces, 11, &searched);
        pipeline.fracture(withModel, 0, other, forces, 11, &otherMaterial);
        EXPECT_FALSE(noModel.plan.predicted);
        EXPECT_FALSE(searched.plan.predicted);
        EXPECT_FALSE(otherMaterial.plan.predicted);
        ASSERT_EQ(a.has_value(), b.has_value());
        if (!a)
            continue;
        ++fractured;
        // The same search on the same energies: the same degree and trials.
        EXPECT_EQ(noModel.plan.degree, searched.plan.degree);
        EXPECT_EQ(noModel.plan.trials.size(), searched.plan.trials.size());
        EXPECT_GE(noModel.plan.trials.size(), noModel.plan.degree > 2 ? 2u : 1u);
    }
    EXPECT_GE(fractured, 1);
}

TEST(DegreePipeline, AFragmentsDegreeIsSearchedOnItsRegion)
{
    const Trained& t = trainedPlate();
    const Material material = glass();
    FracturePipeline pipeline, search(searchOnly());
    ObjectState state(t.withModel);
    std::optional<FractureResult> first;
    for (int which = 0; which < 3 && !first; ++which)
        first =
            pipeline.fracture(state, 0, material, dropWithRatio(pipeline, state, material, which, 30), 11);
    ASSERT_TRUE(first.has_value());
    state.apply(*first);

    // The largest fragment, pushed hard enough to break again (E_D(N = 1) ≈ 20 γ).
    FragmentId parent = kNoFragment;
    Real largest = -1;
    for (FragmentId f : state.liveFragments())
        if (const Real v = state.fragmentMesh(f)->surface.signedVolume(); v > largest)
        {
            largest = v;
            parent = f;
        }
    const TriMesh& surface = state.fragmentMesh(parent)->surface;
    const Vec3 p = surface.vertices[surface.vertices.size() / 3];
    std::vector<ImpactForce> forces = {{p, 1000 * (surface.bounds().center() - p).normalized()}};
    Material probe = material;
    probe.toughness = 1e300;
    FractureEventStats probeStats;
    search.setUseBound(false);
    EXPECT_FALSE(search.fracture(state, parent, probe, forces, 1, &probeStats).has_value());
    search.setUseBound(true);
    ASSERT_GT(probeStats.plan.wholeEnergy, 0);
    forces[0].force *=
        std::pow(20 * material.toughness / probeStats.plan.wholeEnergy, 1 / (2 * material.energyExponent));

    FractureEventStats withModel, searched;
    const auto a = pipeline.fracture(state, parent, material, forces, 13, &withModel);
    const auto b = search.fracture(state, parent, material, forces, 13, &searched);
    ASSERT_TRUE(a.has_value());
    ASSERT_TRUE(b.has_value());
    EXPECT_FALSE(withModel.plan.predicted);
    EXPECT_EQ(withModel.plan.degree, searched.plan.degree);
    EXPECT_EQ(withModel.plan.trials.size(), searched.plan.trials.size());
    EXPECT_EQ(a->fragments.size(), b->fragments.size());
}

} // namespace
} // namespace shatter::test
