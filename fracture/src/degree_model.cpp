// Evaluation and serialisation of the example-based fracture degree (CVD §4.1, eq. 11-12). The run-time
// cost is the projection (components × nodes multiply-adds) plus one distance per RBF centre.
#include "degree_model.h"

#include "binary_io.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace shatter::fracture
{

Real distributionConcentration(Real participation)
{
    return std::log(std::max<Real>(participation, 1e-300));
}

std::vector<Real> shapeDistribution(std::span<const Real> nodeWeights, Real exponent)
{
    std::vector<Real> u(nodeWeights.begin(), nodeWeights.end());
    if (exponent != 1)
        for (Real& v : u)
            v = v > 0 ? std::pow(v, exponent) : 0;
    Real sum = 0;
    for (Real v : u)
        sum += v;
    SHATTER_ASSERT(sum > 0);
    for (Real& v : u)
        v /= sum;
    return u;
}

std::vector<Real> DegreeModel::features(std::span<const Real> nodeWeights, Real energyRatio) const
{
    SHATTER_ASSERT(nodeWeights.size() == std::size_t(nodeCount));
    SHATTER_ASSERT(energyRatio > 0);
    const std::vector<Real> u = shapeDistribution(nodeWeights, distributionExponent);
    Real squares = 0;
    for (Real v : u)
        squares += v * v;
    std::vector<Real> x(std::size_t(featureCount()), 0);
    x[0] = std::log(energyRatio);
    x[1] = concentrationScale * distributionConcentration(Real(nodeCount) * squares);
    // Π (u − mean), CVD eq. 11.
    for (int c = 0; c < components; ++c)
    {
        const Real* row = basis.data() + std::size_t(c) * std::size_t(nodeCount);
        Real dot = 0;
        for (Index v = 0; v < nodeCount; ++v)
            dot += row[v] * (u[std::size_t(v)] - mean[std::size_t(v)]);
        x[std::size_t(c) + 2] = shapeScale * dot;
    }
    return x;
}

Real DegreeModel::evaluate(std::span<const Real> x) const
{
    const int d = featureCount();
    SHATTER_ASSERT(x.size() == std::size_t(d));
    Real value = polynomial[0] + polynomial[1] * x[0];
    // CVD eq. 12 with φ(r) = r.
    for (int i = 0; i < centreCount; ++i)
    {
        const Real* c = centres.data() + std::size_t(i) * std::size_t(d);
        Real r2 = 0;
        for (int k = 0; k < d; ++k)
        {
            const Real diff = x[std::size_t(k)] - c[k];
            r2 += diff * diff;
        }
        value += weights[std::size_t(i)] * std::sqrt(r2);
    }
    return value;
}

Real DegreeModel::predict(std::span<const Real> nodeWeights, Real energyRatio) const
{
    return std::exp(evaluate(features(nodeWeights, energyRatio)));
}

std::vector<std::byte> serializeDegreeModel(const DegreeModel& model)
{
    BinaryWriter out;
    out.value<std::uint32_t>(DegreeModel::kVersion);
    out.value(model.configurationHash);
    out.value<std::uint64_t>(model.nodeCount);
    out.value(model.toughness);
    out.value<std::int32_t>(model.maxDegree);
    out.value<std::int32_t>(model.components);
    out.array(model.mean);
    out.array(model.basis);
    out.value(model.shapeScale);
    out.value(model.concentrationScale);
    out.value(model.distributionExponent);
    out.value<std::int32_t>(model.centreCount);
    out.array(model.centres);
    out.array(model.weights);
    out.array(model.polynomial);
    return out.bytes();
}

DegreeModel deserializeDegreeModel(std::span<const std::byte> bytes, const std::string& source)
{
    BinaryReader in(bytes, source);
    const auto version = in.value<std::uint32_t>();
    if (version != DegreeModel::kVersion)
        in.fail("degree model version " + std::to_string(version) + ", this build reads version " +
                std::to_string(DegreeModel::kVersion));
    DegreeModel m;
    m.configurationHash = in.value<std::uint64_t>();
    m.nodeCount = Index(in.value<std::uint64_t>());
    m.toughness = in.value<Real>();
    m.maxDegree = in.value<std::int32_t>();
    m.components = in.value<std::int32_t>();
    m.mean = in.array<Real>();
    m.basis = in.array<Real>();
    m.shapeScale = in.value<Real>();
    m.concentrationScale = in.value<Real>();
    m.distributionExponent = in.value<Real>();
    m.centreCount = in.value<std::int32_t>();
    m.centres = in.array<Real>();
    m.weights = in.array<Real>();
    m.polynomial = in.array<Real>();
    if (in.remaining() != 0)
        in.fail(std::to_string(in.remaining()) + " bytes after the degree model");
    const auto n = std::size_t(m.nodeCount);
    const auto d = std::size_t(m.components) + 2;
    if (m.nodeCount < 1 || m.components < 0 || m.centreCount < 0 || m.maxDegree < 2 || !(m.toughness > 0) ||
        m.mean.size() != n || m.basis.size() != (d - 2) * n ||
        m.centres.size() != std::size_t(m.centreCount) * d ||
        m.weights.size() != std::size_t(m.centreCount) || m.polynomial.size() != 2)
        in.fail("inconsistent degree model sizes");
    for (const auto* array : {&m.mean, &m.basis, &m.centres, &m.weights, &m.polynomial})
        for (Real v : *array)
            if (!std::isfinite(v))
                in.fail("a non-finite degree model coefficient");
    if (!std::isfinite(m.shapeScale) || !std::isfinite(m.concentrationScale) ||
        !(m.distributionExponent > 0) || !std::isfinite(m.distributionExponent))
        in.fail("a non-finite degree model shape scale");
    return m;
}

} // namespace shatter::fracture
