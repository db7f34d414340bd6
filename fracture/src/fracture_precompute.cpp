// Fracture's asset sections (see fracture_precompute.h): names, versioned serialisation, and the
// one-time computation.
#include "fracture_precompute.h"

#include "binary_io.h"
#include "convex_hull_volume.h"
#include "cvd.h"
#include "metric.h"
#include "shatter/error.h"

#include <cstdio>
#include <cstring>

namespace shatter::fracture
{
namespace
{

// Bump a version whenever its layout or meaning changes; an old section then reads as absent.
constexpr std::uint32_t kConvexityVersion = 1;
constexpr std::uint32_t kEmbeddingVersion = 1;
constexpr std::uint32_t kModalVersion = 2; // 2: modes row-major
constexpr std::uint32_t kBoundVersion = 1;

// An asset counts as non-convex when it fills less than this fraction of its convex hull.
constexpr Real kConvexFillRatio = 0.95;

std::string number(Real value)
{
    char text[40];
    std::snprintf(text, sizeof(text), "%.17g", value);
    return text;
}

std::string hex(std::uint64_t value)
{
    char text[24];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
    return text;
}

template <class T>
std::uint64_t hashValue(std::uint64_t h, const T& value)
{
    return fnv1a64(std::as_bytes(std::span<const T>(&value, 1)), h);
}

std::uint64_t hashWarp(std::uint64_t h, const MetricWarp& warp)
{
    for (Eigen::Index i = 0; i < 9; ++i)
        h = hashValue(h, warp.linear.data()[i]);
    h = hashValue(h, warp.waveAmplitude);
    h = hashValue(h, warp.waveLength);
    for (int i = 0; i < 3; ++i)
    {
        h = hashValue(h, warp.waveDirection[i]);
        h = hashValue(h, warp.wavePhaseDirection[i]);
    }
    return h;
}

std::string convexityName()
{
    return "fracture/convexity";
}

std::string embeddingName(const EmbeddingSettings& s)
{
    return "fracture/embedding d=" + std::to_string(s.dimension) + " L=" + std::to_string(s.landmarkCount) +
           " w=" + number(s.positionWeight) + " warp=" + hex(hashWarp(0xcbf29ce484222325ull, s.warp));
}

std::string modalName(Real poissonRatio, int modeCount)
{
    return "fracture/modal nu=" + number(poissonRatio) + " k=" + std::to_string(modeCount);
}

std::string boundName(const Material& material, const PipelineSettings& settings, FractureMetric metric)
{
    std::string name = "fracture/bound nu=" + number(material.poissonRatio) +
                       " k=" + std::to_string(settings.deformation.modeCount);
    if (metric == FractureMetric::Interior)
        name += " metric=interior d=" + std::to_string(settings.embedding.dimension) +
                " L=" + std::to_string(settings.embedding.landmarkCount) +
                " w=" + number(settings.embedding.positionWeight);
    else
        name += " metric=euclidean";
    return name + " mat=" + hex(boundMaterialKey(material));
}

/// The reader of a section's bytes after its version, or nothing when absent or of another version.
std::optional<BinaryReader> open(const Asset& asset, const std::string& name, std::uint32_t version)
{
    std::optional<std::vector<std::byte>> bytes = asset.readSection(name);
    if (!bytes || bytes->size() < sizeof(std::uint32_t))
        return std::nullopt;
    BinaryReader reader =
        BinaryReader::owning(std::move(*bytes), "asset '" + asset.name + "' section '" + name + "'");
    if (reader.value<std::uint32_t>() != version)
        return std::nullopt;
    return reader;
}

/// Whether the asset has the section with this version, reading only the version.
bool hasSection(const Asset& asset, const std::string& name, std::uint32_t version)
{
    const AssetSection* section = asset.findSection(name);
    if (!section)
        return false;
    const std::vector<std::byte> head = section->readFirst(sizeof(std::uint32_t));
    std::uint32_t stored = 0;
    if (head.size() < sizeof(stored))
        return false;
    std::memcpy(&stored, head.data(), sizeof(stored));
    return stored == version;
}

void writeWarp(BinaryWriter& out, const MetricWarp& warp)
{
    for (Eigen::Index i = 0; i < 9; ++i)
        out.value(warp.linear.data()[i]);
    out.value(warp.waveAmplitude);
    out.value(warp.waveLength);
    for (int i = 0; i < 3; ++i)
        out.value(warp.waveDirection[i]);
    for (int i = 0; i < 3; ++i)
        out.value(warp.wavePhaseDirection[i]);
}

MetricWarp readWarp(BinaryReader& in)
{
    MetricWarp warp;
    for (Eigen::Index i = 0; i < 9; ++i)
        warp.linear.data()[i] = in.value<Real>();
    warp.waveAmplitude = in.value<Real>();
    warp.waveLength = in.value<Real>();
    for (int i = 0; i < 3; ++i)
        warp.waveDirection[i] = in.value<Real>();
    for (int i = 0; i < 3; ++i)
        warp.wavePhaseDirection[i] = in.value<Real>();
    return warp;
}

template <class Matrix>
std::vector<Real> toVector(const Matrix& m)
{
    return {m.data(), m.data() + m.size()}; // in storage order (the modes: row-major)
}

FractureMetric resolvedMetric(const Asset& asset, const PipelineSettings& settings)
{
    if (settings.metric != FractureMetric::Auto)
        return settings.metric;
    const std::optional<bool> stored = loadNonConvex(asset);
    return (stored ? *stored : assetNonConvex(asset)) ? FractureMetric::Interior : FractureMetric::Euclidean;
}

EmbeddingSettings embeddingSettings(const PipelineSettings& settings, const Material& material)
{
    EmbeddingSettings options = settings.embedding;
    options.warp = material.warp;
    return options;
}

} // namespace

bool assetNonConvex(const Asset& asset)
{
    const Real hull = convexHullVolume(asset.surface.vertices);
    const Real volume = asset.tetMesh.totalVolume();
    return hull > 0 && volume < kConvexFillRatio * hull;
}

std::uint64_t boundMaterialKey(const Material& material)
{
    std::uint64_t h = hashValue(0xcbf29ce484222325ull, material.poissonRatio);
    h = fnv1a64(std::as_bytes(std::span<const Real>(material.weakness)), h);
    return hashWarp(h, material.warp);
}

std::optional<bool> loadNonConvex(const Asset& asset)
{
    std::optional<BinaryReader> in = open(asset, convexityName(), kConvexityVersion);
    if (!in || in->remaining() != 1)
        return std::nullopt;
    return in->value<std::uint8_t>() != 0;
}

std::optional<InteriorEmbedding> loadEmbedding(const Asset& asset, const EmbeddingSettings& settings)
{
    std::optional<BinaryReader> in = open(asset, embeddingName(settings), kEmbeddingVersion);
    if (!in)
        return std::nullopt;
    InteriorEmbedding embedding;
    embedding.dimension = in->value<int>();
    embedding.warp = readWarp(*in);
    embedding.coords = in->array<Real>();
    if (embedding.dimension < 1 ||
        embedding.coords.size() != std::size_t(embedding.dimension) * asset.tetMesh.nodeCount())
        return std::nullopt;
    return embedding;
}

std::shared_ptr<const ModalBasis> loadModalBasis(const Asset& asset, Real poissonRatio, int modeCount)
{
    std::optional<BinaryReader> in = open(asset, modalName(poissonRatio, modeCount), kModalVersion);
    if (!in)
        return nullptr;
    const auto tets = in->value<std::uint64_t>();
    const auto rows = in->value<std::uint64_t>();
    const std::vector<Real> eigenvalues = in->array<Real>();
    // The modes are read straight into the matrix (they are most of the section: no second copy).
    const auto count = in->value<std::uint64_t>();
    if (tets != asset.tetMesh.tets.size() || eigenvalues.empty() || count != rows * eigenvalues.size() ||
        count > in->remaining() / sizeof(Real))
        return nullptr;
    auto basis = std::make_shared<ModalBasis>();
    basis->modes.resize(Eigen::Index(rows), Eigen::Index(eigenvalues.size()));
    for (Eigen::Index i = 0; i < basis->modes.size(); ++i)
        basis->modes.data()[i] = in->value<Real>();
    std::vector<Index> all(asset.tetMesh.tets.size());
    for (std::size_t t = 0; t < all.size(); ++t)
        all[t] = Index(t);
    basis->region = detail::buildRegion(asset, std::move(all));
    if (std::uint64_t(basis->region->dofCount()) != rows)
        return nullptr;
    basis->poissonRatio = poissonRatio;
    basis->eigenvalues =
        Eigen::Map<const Eigen::VectorXd>(eigenvalues.data(), Eigen::Index(eigenvalues.size()));
    return basis;
}

std::optional<FractureBoundData> loadBoundData(const Asset& asset, const Material& material,
                                               const PipelineSettings& settings, FractureMetric metric)
{
    std::optional<BinaryReader> in = open(asset, boundName(material, settings, metric), kBoundVersion);
    if (!in)
        return std::nullopt;
    FractureBoundData data;
    data.pwMode = in->array<Real>();
    data.wMode = in->array<Real>();
    for (Real* x : {&data.pwPlain, &data.pwScaled, &data.wPlain, &data.wScaled, &data.pMax, &data.pMaxBare,
                    &data.volume})
        *x = in->value<Real>();
    if (data.pwMode.size() != data.wMode.size() || data.pwMode.empty())
        return std::nullopt;
    return data;
}

namespace
{

bool wantsDegreeModel(const Material& material, const PrecomputeSettings& precompute)
{
    return precompute.degreeModel && material.maxFragments >= 2;
}

} // namespace

bool hasFracturePrecompute(const Asset& asset, const Material& material, const PipelineSettings& settings,
                           const PrecomputeSettings& precompute)
{
    if (!loadNonConvex(asset))
        return false;
    // Present, of the current version and for this asset (findDegreeModel reads it back whole: it is
    // small, a few components × nodes).
    if (wantsDegreeModel(material, precompute) && !findDegreeModel(asset, material, settings))
        return false;
    const FractureMetric metric = resolvedMetric(asset, settings);
    // Present and of the current version (a stale one is recomputed and replaced).
    if (metric == FractureMetric::Interior &&
        !hasSection(asset, embeddingName(embeddingSettings(settings, material)), kEmbeddingVersion))
        return false;
    if (settings.deformation.model != DeformationModel::Modal)
        return true;
    return hasSection(asset, modalName(material.poissonRatio, settings.deformation.modeCount),
                      kModalVersion) &&
           loadBoundData(asset, material, settings, metric).has_value();
}

void addFracturePrecompute(Asset& asset, const Material& material, const PipelineSettings& settings,
                           const PrecomputeProgress& progress, const PrecomputeSettings& precompute)
{
    checkMaterial(material, asset.tetMesh.tetCount(), "addFracturePrecompute material");
    checkDeformationSettings(settings.deformation);
    auto step = [&](const std::string& what)
    {
        if (progress)
            progress(what);
    };
    if (!loadNonConvex(asset))
    {
        step("convexity");
        BinaryWriter out;
        out.value(kConvexityVersion);
        out.value<std::uint8_t>(assetNonConvex(asset) ? 1 : 0);
        asset.setSection(convexityName(), out.bytes());
    }
    const FractureMetric metric = resolvedMetric(asset, settings);
    std::optional<InteriorEmbedding> embedding;
    if (metric == FractureMetric::Interior)
    {
        const EmbeddingSettings options = embeddingSettings(settings, material);
        embedding = loadEmbedding(asset, options);
        if (!embedding)
        {
            step("interior embedding");
            embedding = computeInteriorEmbedding(asset, options);
            BinaryWriter out;
            out.value(kEmbeddingVersion);
            out.value(embedding->dimension);
            writeWarp(out, embedding->warp);
            out.array(embedding->coords);
            asset.setSection(embeddingName(options), out.bytes());
        }
    }
    // Last: the training's pipeline reads the sections above instead of recomputing them.
    auto degreeModel = [&]
    {
        if (!wantsDegreeModel(material, precompute) || findDegreeModel(asset, material, settings))
            return;
        step("degree model");
        // The asset is only borrowed for the call (the pointer owns nothing).
        const std::shared_ptr<const Asset> borrowed(std::shared_ptr<const Asset>(), &asset);
        const DegreeModel model =
            trainDegreeModel(borrowed, material, settings, precompute.training, precompute.trainingProgress);
        saveDegreeModel(asset, model, material, settings);
    };
    if (settings.deformation.model != DeformationModel::Modal)
    {
        degreeModel();
        return;
    }
    const int modes = settings.deformation.modeCount;
    std::shared_ptr<const ModalBasis> basis = loadModalBasis(asset, material.poissonRatio, modes);
    if (!basis)
    {
        step("modal basis");
        std::vector<Index> all(asset.tetMesh.tets.size());
        for (std::size_t t = 0; t < all.size(); ++t)
            all[t] = Index(t);
        basis = computeModalBasis(asset, std::move(all), material.poissonRatio, modes);
        BinaryWriter out;
        out.value(kModalVersion);
        out.value<std::uint64_t>(asset.tetMesh.tets.size());
        out.value<std::uint64_t>(std::uint64_t(basis->modes.rows()));
        out.array(toVector(basis->eigenvalues));
        out.array(toVector(basis->modes));
        asset.setSection(modalName(material.poissonRatio, modes), out.bytes());
    }
    if (!loadBoundData(asset, material, settings, metric))
    {
        step("fracture bound");
        const MetricCoordinates coords = pipelineCoordinates(
            asset, embedding ? &*embedding : nullptr, material.warp, settings.embedding.positionWeight);
        const FractureBoundData data = computeFractureBoundData(
            asset.tetMesh, *basis, wholeMeshRegion(asset.tetMesh), coords.coords, coords.dimension, material);
        BinaryWriter out;
        out.value(kBoundVersion);
        out.array(data.pwMode);
        out.array(data.wMode);
        for (Real x :
             {data.pwPlain, data.pwScaled, data.wPlain, data.wScaled, data.pMax, data.pMaxBare, data.volume})
            out.value(x);
        asset.setSection(boundName(material, settings, metric), out.bytes());
    }
    degreeModel();
}

} // namespace shatter::fracture
