// The elastic discretisation shared by the FEM and modal models (CVD §3.3): region
// normalisation and hashing, slots and face-connected components, P1 element stiffness, the spread
// contact load, inertia relief and the per-tet strain energy (CVD §3.3).
#include "deformation_region.h"

#include "shatter/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace shatter::fracture::detail
{
namespace
{

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
    // splitmix64-style avalanche of (h, v): order-dependent, fast, good enough to key a cache whose
    // hits are confirmed by comparing the tet lists.
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

Index findRoot(std::vector<Index>& parent, Index i)
{
    while (parent[i] != i)
    {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

} // namespace

Lame lameParameters(const Material& material)
{
    const Real e = material.youngsModulus, nu = material.poissonRatio;
    return {e * nu / ((1 + nu) * (1 - 2 * nu)), e / (2 * (1 + nu))};
}

RegionRequest makeRequest(const Asset& asset, std::span<const Index> tets, const Material& material,
                          int modes)
{
    const TetMesh& mesh = asset.tetMesh;
    checkMaterial(material, mesh.tetCount(), "Material");
    if (tets.empty())
        throw Error("deformation region", "is empty (no tets)");
    RegionRequest request;
    request.tets.assign(tets.begin(), tets.end());
    if (!std::is_sorted(request.tets.begin(), request.tets.end())) // callers mostly pass sorted lists
        std::sort(request.tets.begin(), request.tets.end());
    request.tets.erase(std::unique(request.tets.begin(), request.tets.end()), request.tets.end());
    if (request.tets.back() >= mesh.tetCount())
        throw Error("deformation region", "tet id " + std::to_string(request.tets.back()) +
                                              " out of range (" + std::to_string(mesh.tetCount()) + " tets)");
    request.whole = request.tets.size() == std::size_t(mesh.tetCount());
    // Keyed by the asset's fingerprint and sizes and the region's tet ids (the cache also compares the
    // full tet lists). Two assets with equal fingerprints are the same mesh, so node ids and positions
    // would add nothing, and every whole-asset request lists the same tets.
    std::uint64_t h = mix(mix(asset.sourceHash, mesh.tetCount()), mesh.nodeCount());
    if (!request.whole)
        for (Index t : request.tets)
            h = mix(h, t);
    request.key = {h, material.youngsModulus, material.poissonRatio, material.density, modes};
    return request;
}

bool& backgroundBuilder()
{
    thread_local bool background = false;
    return background;
}

std::size_t memoryBytes(const ElasticRegion& r)
{
    return r.tets.size() * (sizeof(Index) + sizeof(r.tetSlots[0]) + sizeof(Index) + sizeof(Real)) +
           r.nodes.size() * sizeof(Index) +
           r.slotNode.size() * (sizeof(Index) + sizeof(Vec3) + sizeof(Real)) +
           r.boundarySlots.size() * sizeof(Index) + sizeof(ElasticRegion);
}

std::shared_ptr<const ElasticRegion> buildRegion(const Asset& asset, std::vector<Index> tets)
{
    const TetMesh& mesh = asset.tetMesh;
    auto region = std::make_shared<ElasticRegion>();
    ElasticRegion& r = *region;
    r.tets = std::move(tets);
    const Index tetCount = Index(r.tets.size());

    // Faces keyed by their sorted node triple: a triple seen twice joins two tets into one component,
    // a triple seen once is on the region's boundary (the object's surface or a crack).
    struct Face
    {
        std::array<Index, 3> key;
        Index tet; // region tet index
    };
    std::vector<Face> faces;
    faces.reserve(std::size_t(tetCount) * 4);
    for (Index i = 0; i < tetCount; ++i)
    {
        const Tet& tet = mesh.tets[r.tets[i]];
        for (const auto& f : kTetFaces)
        {
            std::array<Index, 3> key = {tet[f[0]], tet[f[1]], tet[f[2]]};
            std::sort(key.begin(), key.end());
            faces.push_back({key, i});
        }
    }
    std::sort(faces.begin(), faces.end(),
              [](const Face& a, const Face& b) { return a.key != b.key ? a.key < b.key : a.tet < b.tet; });
    std::vector<Index> parent(tetCount);
    std::iota(parent.begin(), parent.end(), Index(0));
    std::vector<Face> boundary;
    for (std::size_t i = 0; i < faces.size();)
    {
        std::size_t j = i + 1;
        while (j < faces.size() && faces[j].key == faces[i].key)
            ++j;
        if (j - i == 1)
            boundary.push_back(faces[i]);
        for (std::size_t k = i + 1; k < j; ++k)
        {
            const Index a = findRoot(parent, faces[i].tet), b = findRoot(parent, faces[k].tet);
            if (a != b)
                parent[std::max(a, b)] = std::min(a, b);
        }
        i = j;
    }
    // Components numbered by their lowest tet: deterministic.
    std::vector<Index> componentOfRoot(tetCount, kInvalidIndex);
    r.tetComponent.resize(tetCount);
    Index components = 0;
    for (Index i = 0; i < tetCount; ++i)
    {
        const Index root = findRoot(parent, i);
        if (componentOfRoot[root] == kInvalidIndex)
            componentOfRoot[root] = components++;
        r.tetComponent[i] = componentOfRoot[root];
    }

    // Slots = unique (component, node) pairs, ordered by component then node.
    std::vector<std::pair<Index, Index>> pairs;
    pairs.reserve(std::size_t(tetCount) * 4);
    for (Index i = 0; i < tetCount; ++i)
        for (Index n : mesh.tets[r.tets[i]])
            pairs.emplace_back(r.tetComponent[i], n);
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    auto slotOf = [&](Index component, Index node)
    {
        const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::make_pair(component, node));
        SHATTER_ASSERT(it != pairs.end() && *it == std::make_pair(component, node));
        return Index(it - pairs.begin());
    };

    r.nodes.reserve(pairs.size());
    for (const auto& p : pairs)
        r.nodes.push_back(p.second);
    std::sort(r.nodes.begin(), r.nodes.end());
    r.nodes.erase(std::unique(r.nodes.begin(), r.nodes.end()), r.nodes.end());
    const Index slotCount = Index(pairs.size());
    r.slotNode.resize(slotCount);
    r.slotPosition.resize(slotCount);
    r.slotVolume.assign(slotCount, 0);
    r.componentOffsets.assign(components + 1, 0);
    for (Index s = 0; s < slotCount; ++s)
    {
        r.slotNode[s] =
            Index(std::lower_bound(r.nodes.begin(), r.nodes.end(), pairs[s].second) - r.nodes.begin());
        r.slotPosition[s] = mesh.nodes[pairs[s].second];
        ++r.componentOffsets[pairs[s].first + 1];
    }
    std::partial_sum(r.componentOffsets.begin(), r.componentOffsets.end(), r.componentOffsets.begin());

    r.tetSlots.resize(tetCount);
    r.tetVolume.resize(tetCount);
    for (Index i = 0; i < tetCount; ++i)
    {
        const Tet& tet = mesh.tets[r.tets[i]];
        for (int k = 0; k < 4; ++k)
            r.tetSlots[i][k] = slotOf(r.tetComponent[i], tet[k]);
        const Real det = tetEdges(r, i).determinant();
        if (!(std::abs(det) > 0))
            throw Error("deformation region", "tet " + std::to_string(r.tets[i]) + " is degenerate");
        r.tetVolume[i] = std::abs(det) / 6;
        for (Index s : r.tetSlots[i])
            r.slotVolume[s] += r.tetVolume[i] / 4;
    }

    for (const Face& f : boundary)
        for (Index n : f.key)
            r.boundarySlots.push_back(slotOf(r.tetComponent[f.tet], n));
    std::sort(r.boundarySlots.begin(), r.boundarySlots.end());
    r.boundarySlots.erase(std::unique(r.boundarySlots.begin(), r.boundarySlots.end()), r.boundarySlots.end());
    r.meanEdge = mesh.meanEdgeLength(); // the asset's, so the contact radius is the same for every fragment
    if (!(r.meanEdge > 0))              // a mesh without connectivity: average the region's tet edges
    {
        for (Index i = 0; i < tetCount; ++i)
            for (const auto& e : kTetEdges)
                r.meanEdge +=
                    (mesh.nodes[mesh.tets[r.tets[i]][e[0]]] - mesh.nodes[mesh.tets[r.tets[i]][e[1]]]).norm();
        r.meanEdge /= Real(6 * tetCount);
    }
    return region;
}

SparseMatrix assembleStiffness(const ElasticRegion& region, const Lame& lame, std::span<const int> dofMap,
                               int rows)
{
    // K_e block (k, l) = V (λ g_k g_lᵀ + μ g_l g_kᵀ + μ (g_k · g_l) I), the Hessian of
    // V (μ ε:ε + ½ λ (tr ε)²) with ε = sym(Σ_k u_k g_kᵀ); equal to V Bᵀ C B.
    std::vector<Eigen::Triplet<double, int>> triplets;
    triplets.reserve(region.tets.size() * 144);
    for (std::size_t i = 0; i < region.tets.size(); ++i)
    {
        const std::array<Vec3, 4> g = tetGradient(region, i);
        const Real v = region.tetVolume[i];
        for (int k = 0; k < 4; ++k)
            for (int l = 0; l < 4; ++l)
            {
                Mat3 block = lame.lambda * g[k] * g[l].transpose() + lame.mu * g[l] * g[k].transpose();
                block.diagonal().array() += lame.mu * g[k].dot(g[l]);
                block *= v;
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b)
                    {
                        int row = int(3 * region.tetSlots[i][k]) + a,
                            col = int(3 * region.tetSlots[i][l]) + b;
                        if (!dofMap.empty())
                        {
                            row = dofMap[std::size_t(row)];
                            col = dofMap[std::size_t(col)];
                            if (row < 0 || col < 0)
                                continue;
                        }
                        triplets.emplace_back(row, col, block(a, b));
                    }
            }
    }
    SparseMatrix k(rows, rows);
    k.setFromTriplets(triplets.begin(), triplets.end());
    return k;
}

Eigen::VectorXd spreadForces(const ElasticRegion& region, Real radius, std::span<const ImpactForce> forces)
{
    Eigen::VectorXd load = Eigen::VectorXd::Zero(region.dofCount());
    forEachSpreadForce(region, radius, forces,
                       [&](Index slot, const Vec3& force)
                       { load.segment<3>(3 * Eigen::Index(slot)) += force; });
    return load;
}

void relieveInertia(const ElasticRegion& region, Real density, Eigen::VectorXd& load)
{
    for (Index c = 0; c < region.componentCount(); ++c)
    {
        const Index begin = region.componentOffsets[c], end = region.componentOffsets[c + 1];
        // Mass properties of the lumped point masses themselves, so the balance is exact.
        Real mass = 0;
        Vec3 centre = Vec3::Zero();
        for (Index s = begin; s < end; ++s)
        {
            mass += density * region.slotVolume[s];
            centre += density * region.slotVolume[s] * region.slotPosition[s];
        }
        centre /= mass;
        Mat3 inertia = Mat3::Zero();
        Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
        for (Index s = begin; s < end; ++s)
        {
            const Vec3 r = region.slotPosition[s] - centre;
            const Real m = density * region.slotVolume[s];
            inertia += m * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
            const Vec3 f = load.segment<3>(3 * Eigen::Index(s));
            force += f;
            torque += r.cross(f);
        }
        if (force.squaredNorm() == 0 && torque.squaredNorm() == 0)
            continue;
        const Vec3 a = force / mass;
        const Vec3 alpha = inertia.ldlt().solve(torque); // ω × Iω ignored: the body starts at rest
        for (Index s = begin; s < end; ++s)
        {
            const Vec3 r = region.slotPosition[s] - centre;
            load.segment<3>(3 * Eigen::Index(s)) -= density * region.slotVolume[s] * (a + alpha.cross(r));
        }
    }
}

StrainEnergy strainEnergy(const ElasticRegion& region, const Lame& lame, const Eigen::VectorXd& u)
{
    StrainEnergy out;
    out.tets = region.tets;
    out.nodes = region.nodes;
    out.perTet.resize(region.tets.size());
    out.perNode.assign(region.nodes.size(), 0);
    const Real* displacement = u.data();
    const Real halfLambda = 0.5 * lame.lambda;
    // V (μ ε:ε + ½ λ (tr ε)²) with ε = sym(Σ_k u_k g_kᵀ), in plain scalars: Eigen's 3×3 temporaries went
    // through the stack, and this loop runs over every tet of every evaluation. The sums keep the order
    // of Eigen's trace() and squaredNorm(), so the energies are the same bits as the matrix form's.
    for (std::size_t i = 0; i < region.tets.size(); ++i)
    {
        const std::array<Vec3, 4> g = tetGradient(region, i);
        Real grad[3][3] = {}; // ∂u_a/∂x_b
        for (int k = 0; k < 4; ++k)
        {
            const Real* uk = displacement + 3 * std::size_t(region.tetSlots[i][k]);
            for (int b = 0; b < 3; ++b)
                for (int a = 0; a < 3; ++a)
                    grad[a][b] += g[k][b] * uk[a];
        }
        Real strain[3][3];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                strain[a][b] = 0.5 * (grad[a][b] + grad[b][a]);
        const Real trace = strain[0][0] + (strain[1][1] + strain[2][2]);
        // ε:ε as Eigen sums a column-major 3×3: two lanes of pairs, the lanes, then the last entry.
        auto sq = [&](int a, int b)
        {
            return strain[a][b] * strain[a][b];
        };
        const Real lane0 = (sq(0, 0) + sq(2, 0)) + (sq(1, 1) + sq(0, 2));
        const Real lane1 = (sq(1, 0) + sq(0, 1)) + (sq(2, 1) + sq(1, 2));
        const Real contraction = (lane0 + lane1) + sq(2, 2);
        // ≥ 0 for ν ∈ (−1, 0.5): the bulk modulus λ + 2μ/3 and μ are positive.
        const Real energy =
            std::max(Real(0), region.tetVolume[i] * (lame.mu * contraction + halfLambda * trace * trace));
        out.perTet[i] = energy;
        out.total += energy;
        for (Index s : region.tetSlots[i])
            out.perNode[region.slotNode[s]] += energy / 4;
    }
    return out;
}

} // namespace shatter::fracture::detail
