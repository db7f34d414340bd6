// The deformation interface's free functions: option checks, the factory and region helpers.
#include "deformation.h"

#include "fem_deformation.h"
#include "modal_deformation.h"
#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shatter::fracture
{

void checkDeformationSettings(const DeformationSettings& options)
{
    const std::string source = "DeformationSettings";
    if (!std::isfinite(options.contactRadius) || options.contactRadius <= 0)
        throw Error(source, "contactRadius must be finite and > 0 (got " +
                                std::to_string(options.contactRadius) + ")");
    if (options.modeCount < 1)
        throw Error(source, "modeCount must be >= 1 (got " + std::to_string(options.modeCount) + ")");
    if (options.cacheBytes < 1)
        throw Error(source, "cacheBytes must be >= 1");
}

std::unique_ptr<Deformation> makeDeformation(const DeformationSettings& options)
{
    checkDeformationSettings(options);
    if (options.model == DeformationModel::Modal)
        return std::make_unique<ModalDeformation>(options);
    return std::make_unique<FemDeformation>(options);
}

void setBackgroundBuilder(bool background)
{
    detail::backgroundBuilder() = background;
}

std::vector<Index> allTets(const Asset& asset)
{
    std::vector<Index> tets(asset.tetMesh.tetCount());
    std::iota(tets.begin(), tets.end(), Index(0));
    return tets;
}

std::vector<Index> tetsTouchingNodes(const TetMesh& mesh, std::span<const Index> nodes)
{
    std::vector<Index> tets;
    for (Index n : nodes)
    {
        if (n >= mesh.nodeCount())
            throw Error("tetsTouchingNodes", "node id " + std::to_string(n) + " out of range");
        if (mesh.nodeTetOffsets.size() == std::size_t(mesh.nodeCount()) + 1)
            tets.insert(tets.end(), mesh.nodeTets.begin() + mesh.nodeTetOffsets[n],
                        mesh.nodeTets.begin() + mesh.nodeTetOffsets[n + 1]);
    }
    if (mesh.nodeTetOffsets.size() != std::size_t(mesh.nodeCount()) + 1) // no connectivity: scan the tets
    {
        std::vector<Index> sorted(nodes.begin(), nodes.end());
        std::sort(sorted.begin(), sorted.end());
        for (Index t = 0; t < mesh.tetCount(); ++t)
            for (Index n : mesh.tets[t])
                if (std::binary_search(sorted.begin(), sorted.end(), n))
                {
                    tets.push_back(t);
                    break;
                }
    }
    std::sort(tets.begin(), tets.end());
    tets.erase(std::unique(tets.begin(), tets.end()), tets.end());
    return tets;
}

} // namespace shatter::fracture
