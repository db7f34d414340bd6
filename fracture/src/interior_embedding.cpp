// Interior-distance embedding (CVD §3.2) by landmark multidimensional scaling of interior geodesics.
// Where the paper embeds the surface with a diffusion map (which fails on hollow, multi-shell bodies),
// this embeds the interior distance itself: Dijkstra over the tet edges in the warped rest shape (CVD
// §3.4) from L farthest-point landmarks, landmark MDS (de Silva & Tenenbaum 2004) placing every node by
// x_v = −½ Λ^{-½} Vᵀ (δ_v − δ̄), then one uniform rescale so node-to-site distances are in model units
// (median of geodesic / embedded distance over pairs more than three mean edges apart). Choices and
// measurements: docs/algorithms.md, "Interior metric".
//
// A mesh whose tets form several disconnected solids has no interior path between them; such pairs
// get the largest finite geodesic plus their Euclidean distance, which keeps the solids far apart.
#include "interior_embedding.h"

#include "metric.h"
#include "shatter/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace shatter::fracture
{
namespace
{

constexpr Real kUnreached = std::numeric_limits<Real>::infinity();

/// Single-source shortest paths over the CSR graph with per-entry weights; `dist` is overwritten.
void dijkstra(const TetMesh& mesh, const std::vector<Real>& weights, Index source, std::vector<Real>& dist)
{
    using Item = std::pair<Real, Index>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    std::fill(dist.begin(), dist.end(), kUnreached);
    dist[source] = 0;
    queue.emplace(0, source);
    while (!queue.empty())
    {
        const auto [d, node] = queue.top();
        queue.pop();
        if (d > dist[node])
            continue;
        for (Index k = mesh.neighborOffsets[node]; k < mesh.neighborOffsets[node + 1]; ++k)
        {
            const Index next = mesh.neighbors[k];
            const Real candidate = d + weights[k];
            if (candidate < dist[next])
            {
                dist[next] = candidate;
                queue.emplace(candidate, next);
            }
        }
    }
}

Real median(std::vector<Real> values)
{
    SHATTER_ASSERT(!values.empty());
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
}

} // namespace

void checkEmbeddingSettings(const EmbeddingSettings& options, Index nodeCount)
{
    const std::string source = "EmbeddingSettings";
    if (options.dimension < 1)
        throw Error(source, "dimension must be >= 1 (got " + std::to_string(options.dimension) + ")");
    if (options.landmarkCount <= options.dimension)
        throw Error(source, "landmarkCount must exceed dimension (got " +
                                std::to_string(options.landmarkCount) + " landmarks for " +
                                std::to_string(options.dimension) + " dimensions)");
    if (!std::isfinite(options.positionWeight) || options.positionWeight < 0)
        throw Error(source, "positionWeight must be finite and >= 0");
    if (nodeCount < 2)
        throw Error(source, "the asset has fewer than two tet nodes");
    Material check; // reuse the material's warp checks
    check.warp = options.warp;
    checkMaterial(check, 0, source);
}

InteriorEmbedding computeInteriorEmbedding(const Asset& asset, const EmbeddingSettings& options)
{
    const TetMesh& mesh = asset.tetMesh;
    const Index n = mesh.nodeCount();
    checkEmbeddingSettings(options, n);
    if (mesh.neighborOffsets.size() != std::size_t(n) + 1 || mesh.edges.empty())
        throw Error("computeInteriorEmbedding", "asset '" + asset.name + "' has no tet connectivity");

    std::vector<Vec3> warped(n);
    for (Index v = 0; v < n; ++v)
        warped[v] = warpPoint(options.warp, mesh.nodes[v]);
    std::vector<Real> weights(mesh.neighbors.size());
    for (Index v = 0; v < n; ++v)
        for (Index k = mesh.neighborOffsets[v]; k < mesh.neighborOffsets[v + 1]; ++k)
            weights[k] = (warped[mesh.neighbors[k]] - warped[v]).norm();

    // 1. Farthest-point landmarks; row i of `squared` holds squared geodesics from landmark i.
    const Index landmarks = std::min<Index>(Index(options.landmarkCount), n);
    std::vector<Real> dist(n), nearest(n, kUnreached);
    dijkstra(mesh, weights, 0, dist);
    Index next = 0;
    for (Index v = 0; v < n; ++v)
        if (dist[v] != kUnreached && dist[v] > dist[next])
            next = v;
    Eigen::MatrixXd squared(landmarks, n);
    std::vector<Index> landmarkNodes;
    Real largest = 0;
    for (Index i = 0; i < landmarks; ++i)
    {
        landmarkNodes.push_back(next);
        dijkstra(mesh, weights, next, dist);
        for (Index v = 0; v < n; ++v)
        {
            if (dist[v] != kUnreached)
                largest = std::max(largest, dist[v]);
            squared(i, v) = dist[v]; // squared below, once `largest` is known
            nearest[v] = std::min(nearest[v], dist[v]);
        }
        // The next landmark: the node farthest from all landmarks so far (unreached nodes first, so every
        // solid gets landmarks); lowest index on ties, for determinism.
        next = 0;
        for (Index v = 1; v < n; ++v)
            if (nearest[v] > nearest[next])
                next = v;
    }
    for (Index i = 0; i < landmarks; ++i)
        for (Index v = 0; v < n; ++v)
        {
            Real d = squared(i, v);
            if (d == kUnreached)
                d = largest + (warped[v] - warped[landmarkNodes[i]]).norm();
            squared(i, v) = d * d;
        }

    // 2. Classical MDS of the landmarks: B = −½ J Δ J.
    Eigen::MatrixXd landmarkSquared(landmarks, landmarks);
    for (Index j = 0; j < landmarks; ++j)
        landmarkSquared.col(j) = squared.col(landmarkNodes[j]);
    landmarkSquared =
        0.5 * (landmarkSquared + landmarkSquared.transpose()).eval(); // Dijkstra is symmetric up to round-off
    const Eigen::VectorXd mean = landmarkSquared.rowwise().mean();
    const Eigen::MatrixXd centring = Eigen::MatrixXd::Identity(landmarks, landmarks) -
                                     Eigen::MatrixXd::Constant(landmarks, landmarks, 1.0 / landmarks);
    const Eigen::MatrixXd gram = -0.5 * centring * landmarkSquared * centring;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
    if (eigen.info() != Eigen::Success)
        throw Error("computeInteriorEmbedding", "the landmark eigendecomposition failed");
    const int d = options.dimension;
    // Eigenvalues increase; keep the d largest positive ones (a non-Euclidean metric has negative ones,
    // which no real embedding can represent). Missing dimensions stay zero.
    Eigen::MatrixXd placement = Eigen::MatrixXd::Zero(d, landmarks); // −½ Λ^{-½} Vᵀ
    const Real top = eigen.eigenvalues()[landmarks - 1];
    for (int i = 0; i < d && i < int(landmarks); ++i)
    {
        const Real lambda = eigen.eigenvalues()[landmarks - 1 - i];
        if (!(lambda > 1e-12 * top))
            break;
        placement.row(i) = -0.5 / std::sqrt(lambda) * eigen.eigenvectors().col(landmarks - 1 - i).transpose();
    }
    const int width = d + (options.positionWeight > 0 ? 3 : 0);
    InteriorEmbedding embedding;
    embedding.dimension = width;
    embedding.warp = options.warp;
    embedding.coords.assign(std::size_t(width) * n, 0);
    Eigen::Map<Eigen::MatrixXd> coords(embedding.coords.data(), width, n);
    coords.topRows(d) = placement * (squared.colwise() - mean);

    // 3. Scale: the median ratio geodesic / embedded distance over all (landmark, node) pairs beyond a
    // few edges (the geodesics are at hand), so that the distances the CVD compares — node to site,
    // mostly many edges long — are right on average.
    std::vector<Real> ratios;
    ratios.reserve(std::size_t(landmarks) * n);
    const Real meanEdge = mesh.meanEdgeLength();
    for (Index i = 0; i < landmarks; ++i)
        for (Index v = 0; v < n; ++v)
        {
            const Real geodesic = std::sqrt(squared(i, v));
            const Real embedded = (coords.col(v).head(d) - coords.col(landmarkNodes[i]).head(d)).norm();
            if (geodesic > 3 * meanEdge && embedded > 0)
                ratios.push_back(geodesic / embedded);
        }
    if (ratios.empty())
        throw Error("computeInteriorEmbedding", "asset '" + asset.name + "' is too small to embed");
    const Real scale = median(std::move(ratios));
    coords.topRows(d) *= scale;
    if (options.positionWeight > 0)
        for (Index v = 0; v < n; ++v)
            coords.col(v).tail<3>() = options.positionWeight * warped[v];
    return embedding;
}

} // namespace shatter::fracture
