// Metric coordinates for the CVD (CVD §3.2-3.4): warped rest positions or the interior embedding.
#include "metric.h"

#include "shatter/error.h"

#include <cmath>
#include <numbers>

namespace shatter::fracture
{

Vec3 warpPoint(const MetricWarp& warp, const Vec3& p)
{
    Vec3 q = warp.linear * p;
    if (warp.waveAmplitude > 0)
    {
        // The phase runs along ĉ and the displacement along d̂: with ĉ ⟂ d̂ a plane crack across d̂ becomes
        // a wavy one in the rest shape (the wood-like fragments of CVD Fig. 7).
        const Real phase =
            2 * std::numbers::pi * p.dot(warp.wavePhaseDirection.normalized()) / warp.waveLength;
        q += warp.waveAmplitude * std::sin(phase) * warp.waveDirection.normalized();
    }
    return q;
}

bool isIdentityWarp(const MetricWarp& warp)
{
    return warp.linear == Mat3::Identity() && warp.waveAmplitude == 0;
}

namespace
{

bool sameWarp(const MetricWarp& a, const MetricWarp& b)
{
    if (isIdentityWarp(a) && isIdentityWarp(b))
        return true;
    return a.linear == b.linear && a.waveAmplitude == b.waveAmplitude && a.waveLength == b.waveLength &&
           a.waveDirection == b.waveDirection && a.wavePhaseDirection == b.wavePhaseDirection;
}

} // namespace

MetricCoordinates metricCoordinates(const Asset& asset, const InteriorEmbedding* embedding,
                                    const MetricWarp& warp)
{
    const TetMesh& mesh = asset.tetMesh;
    MetricCoordinates out;
    if (embedding)
    {
        if (embedding->dimension < 1 ||
            embedding->coords.size() != std::size_t(embedding->dimension) * mesh.nodeCount())
            throw Error("metricCoordinates", "the interior embedding does not match asset '" + asset.name +
                                                 "' (" + std::to_string(embedding->coords.size()) +
                                                 " coordinates for " + std::to_string(mesh.nodeCount()) +
                                                 " nodes)");
        if (!sameWarp(embedding->warp, warp))
            throw Error("metricCoordinates",
                        "the interior embedding of asset '" + asset.name +
                            "' was built with another warp; rebuild it with EmbeddingSettings::warp");
        out.dimension = embedding->dimension;
        out.coords = embedding->coords;
        return out;
    }
    out.dimension = 3;
    out.coords.resize(3 * std::size_t(mesh.nodeCount()));
    for (Index n = 0; n < mesh.nodeCount(); ++n)
    {
        const Vec3 q = warpPoint(warp, mesh.nodes[n]);
        for (int a = 0; a < 3; ++a)
            out.coords[3 * std::size_t(n) + std::size_t(a)] = q[a];
    }
    return out;
}

MetricCoordinates pipelineCoordinates(const Asset& asset, const InteriorEmbedding* embedding,
                                      const MetricWarp& warp, Real positionWeight)
{
    MetricCoordinates coords = metricCoordinates(asset, embedding, warp);
    if (embedding && positionWeight > 0)
    {
        const Real scale = 1 / std::sqrt(1 + positionWeight * positionWeight);
        for (Real& c : coords.coords)
            c *= scale;
    }
    return coords;
}

} // namespace shatter::fracture
