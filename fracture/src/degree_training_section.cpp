// Where a trained degree model lives: an asset section named after what the degree depends on (the
// material's γ, α, β, elasticity and warp, the deformation model, the metric, the criterion), so one
// asset can carry models for several materials and a changed setting finds none instead of a wrong one.
#include "degree_training.h"

#include "binary_io.h"
#include "shatter/error.h"

#include <cstdio>
#include <string>

namespace shatter::fracture
{

std::uint64_t degreeModelKey(const Material& material, const PipelineSettings& pipeline)
{
    BinaryWriter out;
    out.value(DegreeModel::kVersion);
    out.value(material.density);
    out.value(material.youngsModulus);
    out.value(material.poissonRatio);
    out.value(material.toughness);
    out.value(material.energyExponent);
    out.array(material.weakness);
    const MetricWarp& w = material.warp;
    for (Eigen::Index i = 0; i < 9; ++i)
        out.value(w.linear.data()[i]);
    out.value(w.waveAmplitude);
    out.value(w.waveLength);
    for (int a = 0; a < 3; ++a)
    {
        out.value(w.waveDirection[a]);
        out.value(w.wavePhaseDirection[a]);
    }
    out.value<std::int32_t>(material.maxFragments);
    const DeformationSettings& d = pipeline.deformation;
    out.value<std::int32_t>(std::int32_t(d.model));
    out.value(d.contactRadius);
    out.value<std::int32_t>(d.model == DeformationModel::Modal ? d.modeCount : 0);
    out.value<std::int32_t>(std::int32_t(pipeline.metric));
    out.value<std::int32_t>(pipeline.embedding.dimension);
    out.value<std::int32_t>(pipeline.embedding.landmarkCount);
    out.value(pipeline.embedding.positionWeight);
    out.value<std::int32_t>(std::int32_t(pipeline.plan.criterion));
    out.value<std::int32_t>(pipeline.plan.cvd.maxIterations);
    out.value(pipeline.plan.cvd.moveTolerance);
    return fnv1a64(out.bytes());
}

std::string degreeModelSectionName(const Material& material, const PipelineSettings& pipeline)
{
    const char* model = pipeline.deformation.model == DeformationModel::Modal ? "modal" : "fem";
    const char* metric = pipeline.metric == FractureMetric::Auto       ? "auto"
                         : pipeline.metric == FractureMetric::Interior ? "interior"
                                                                       : "euclidean";
    char key[17];
    std::snprintf(key, sizeof(key), "%016llx",
                  static_cast<unsigned long long>(degreeModelKey(material, pipeline)));
    return std::string("degree_model.") + model + "." + metric + "." + key;
}

void saveDegreeModel(Asset& asset, const DegreeModel& model, const Material& material,
                     const PipelineSettings& pipeline)
{
    if (model.nodeCount != asset.tetMesh.nodeCount())
        throw Error("saveDegreeModel", "the model covers " + std::to_string(model.nodeCount) +
                                           " nodes, asset '" + asset.name + "' has " +
                                           std::to_string(asset.tetMesh.nodeCount()));
    asset.setSection(degreeModelSectionName(material, pipeline), serializeDegreeModel(model));
}

std::optional<DegreeModel> findDegreeModel(const Asset& asset, const Material& material,
                                           const PipelineSettings& pipeline)
{
    const std::string name = degreeModelSectionName(material, pipeline);
    const std::optional<std::vector<std::byte>> bytes = asset.readSection(name);
    if (!bytes)
        return std::nullopt;
    DegreeModel model = deserializeDegreeModel(*bytes, "asset '" + asset.name + "' section " + name);
    if (model.nodeCount != asset.tetMesh.nodeCount() ||
        model.configurationHash != degreeModelKey(material, pipeline))
        return std::nullopt;
    return model;
}

} // namespace shatter::fracture
