// Quasi-static linear FEM (CVD §3.3: "we compute the strain energy density W(x) using a quasi-static
// finite element formulation").
//
// A fracturing object is a free body: K is singular (six rigid modes per component) and a contact load
// is not in equilibrium. Inertia relief turns the load into a self-equilibrated one by adding the
// d'Alembert forces −m_v (a + α × r_v) of the rigid acceleration the net force and torque cause
// (relieveInertia). A balanced load has a solution family u₀ + rigid motions, all with the same strain,
// so any six constraints that admit no rigid motion select one member without adding reactions: we
// pin 3-2-1 per component — node A in x, y, z; node B in the two axes across AB; node C in the axis
// along which a rotation about AB moves it most — with A, B, C far apart and non-collinear. The pinned
// DOFs are dropped from K, which is then symmetric positive definite and factorised once per region by
// SimplicialLLT (AMD ordering); each event costs one back-substitution (solver choice and its cost:
// docs/algorithms.md, "Quasi-static FEM").
//
// We prefer pinning to the regularisation (K + δM) u = f: it is exact (no O(δ/ω₁²) error) and
// well-conditioned (no near-null directions for round-off to grow in).
#include "fem_deformation.h"

#include "deformation_region.h"

#include "shatter/error.h"

#include <Eigen/SparseCholesky>

namespace shatter::fracture
{

using namespace detail;

struct FemDeformation::Entry
{
    std::shared_ptr<const ElasticRegion> region;
    Lame lame;
    std::vector<int> dofMap; ///< full DOF → row of the reduced system, −1 if pinned
    int reducedCount = 0;
    Eigen::SimplicialLLT<SparseMatrix> solver;
};

struct FemDeformation::Cache
{
    explicit Cache(std::size_t budget) : regions(budget, bytesOf) {}
    static std::size_t bytesOf(const FemDeformation::Entry& e)
    {
        const auto& l = e.solver.matrixL().nestedExpression(); // the factor: values and row indices
        return memoryBytes(*e.region) + e.dofMap.size() * sizeof(int) +
               std::size_t(l.nonZeros()) * (sizeof(double) + sizeof(int)) +
               std::size_t(l.cols()) * 3 * sizeof(int);
    }
    RegionCache<FemDeformation::Entry> regions;
};

namespace
{

int argmaxAbs(const Vec3& v)
{
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (std::abs(v[a]) > std::abs(v[axis]))
            axis = a;
    return axis;
}

/// The six pinned DOFs of component c (3-2-1; see the file comment).
std::array<Index, 6> pinnedDofs(const ElasticRegion& region, Index c)
{
    const Index begin = region.componentOffsets[c], end = region.componentOffsets[c + 1];
    SHATTER_ASSERT(end - begin >= 4);
    Vec3 centre = Vec3::Zero();
    for (Index s = begin; s < end; ++s)
        centre += region.slotPosition[s];
    centre /= Real(end - begin);
    auto farthest = [&](auto&& score)
    {
        Index best = begin;
        Real bestScore = -1;
        for (Index s = begin; s < end; ++s)
            if (const Real v = score(region.slotPosition[s]); v > bestScore)
            {
                bestScore = v;
                best = s;
            }
        return best;
    };
    const Index a = farthest([&](const Vec3& p) { return (p - centre).squaredNorm(); });
    const Vec3 pa = region.slotPosition[a];
    const Index b = farthest([&](const Vec3& p) { return (p - pa).squaredNorm(); });
    const Vec3 ab = region.slotPosition[b] - pa;
    const Index c3 = farthest([&](const Vec3& p) { return (p - pa).cross(ab).squaredNorm(); });
    const Vec3 rotation = ab.normalized().cross(region.slotPosition[c3] - pa);
    SHATTER_ASSERT(rotation.squaredNorm() > 0, "the component's nodes are collinear");

    const int along = argmaxAbs(ab);
    std::array<Index, 6> dofs = {3 * a, 3 * a + 1, 3 * a + 2, 0, 0, 3 * c3 + Index(argmaxAbs(rotation))};
    int k = 3;
    for (int axis = 0; axis < 3; ++axis)
        if (axis != along)
            dofs[k++] = 3 * b + Index(axis);
    return dofs;
}

std::shared_ptr<const FemDeformation::Entry> factorise(const Asset& asset, std::vector<Index> tets,
                                                       const Material& material)
{
    auto entry = std::make_shared<FemDeformation::Entry>();
    entry->region = buildRegion(asset, std::move(tets));
    entry->lame = lameParameters(material);
    const ElasticRegion& region = *entry->region;

    entry->dofMap.assign(region.dofCount(), 0);
    for (Index c = 0; c < region.componentCount(); ++c)
        for (Index dof : pinnedDofs(region, c))
            entry->dofMap[dof] = -1;
    int rows = 0;
    for (int& row : entry->dofMap)
        if (row == 0)
            row = rows++;
    entry->reducedCount = rows;

    const SparseMatrix k = assembleStiffness(region, entry->lame, entry->dofMap, rows);
    entry->solver.compute(k);
    if (entry->solver.info() != Eigen::Success)
        throw Error("FEM deformation", "the stiffness matrix of a " + std::to_string(region.tets.size()) +
                                           "-tet region could not be factorised (degenerate tets?)");
    return entry;
}

} // namespace

FemDeformation::FemDeformation(const DeformationSettings& options) : settings(options)
{
    checkDeformationSettings(options);
    cache = std::make_unique<Cache>(options.cacheBytes);
}

FemDeformation::~FemDeformation() = default;

void FemDeformation::prepare(const Asset& asset, std::span<const Index> tets, const Material& material)
{
    const RegionRequest request = makeRequest(asset, tets, material, 0);
    cache->regions.findOrBuild(request, [&](std::vector<Index> sorted)
                               { return factorise(asset, std::move(sorted), material); });
}

void FemDeformation::forget(const Asset& asset, std::span<const Index> tets, const Material& material)
{
    cache->regions.erase(makeRequest(asset, tets, material, 0));
}

StrainEnergy FemDeformation::compute(const Asset& asset, std::span<const Index> tets,
                                     const Material& material, std::span<const ImpactForce> forces)
{
    const RegionRequest request = makeRequest(asset, tets, material, 0);
    const std::shared_ptr<const Entry> entry = cache->regions.findOrBuild(
        request, [&](std::vector<Index> sorted) { return factorise(asset, std::move(sorted), material); });
    const ElasticRegion& region = *entry->region;

    Eigen::VectorXd load = spreadForces(region, settings.contactRadius * region.meanEdge, forces);
    relieveInertia(region, material.density, load);
    Eigen::VectorXd reduced(entry->reducedCount);
    for (std::size_t dof = 0; dof < entry->dofMap.size(); ++dof)
        if (entry->dofMap[dof] >= 0)
            reduced[entry->dofMap[dof]] = load[Eigen::Index(dof)];
    const Eigen::VectorXd solution = entry->solver.solve(reduced);
    Eigen::VectorXd u = Eigen::VectorXd::Zero(region.dofCount());
    for (std::size_t dof = 0; dof < entry->dofMap.size(); ++dof)
        if (entry->dofMap[dof] >= 0)
            u[Eigen::Index(dof)] = solution[entry->dofMap[dof]];
    return strainEnergy(region, entry->lame, u);
}

void FemDeformation::clearCache()
{
    cache->regions.clear();
}

std::size_t FemDeformation::cachedRegions() const
{
    return cache->regions.size();
}

} // namespace shatter::fracture
