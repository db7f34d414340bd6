// Modal deformation (see modal_deformation.h; used here for the static response only).
//
// The eigenproblem K φ = λ M φ of a free body has a six-fold (per component) eigenvalue 0, the rigid
// modes. Lanczos finds one vector per distinct eigenvalue from a given start, so asking the solver
// for 6 + k modes and dropping the lowest six would rely on round-off to resolve the cluster. We know
// the rigid modes exactly (translations and rotations of each component), so we deflate them
// instead: the shift-invert operator is followed by the M-orthogonal projector onto their complement,
// P (K − σM)⁻¹ M. The rigid subspace is invariant under (K − σM)⁻¹ M, so P commutes with it and the
// product stays M-self-adjoint, with the rigid modes mapped to 0 and the elastic ones to 1/(λ − σ):
// the k largest are exactly the k lowest elastic modes. σ < 0 keeps K − σM positive definite; it is
// tiny (1e-8 of the largest nodal stiffness-to-mass ratio) so that the low modes of thin parts (plate
// bending: λ₁ ≈ 1e-7 λ_max) stay well separated after the inversion.
//
// (K − σM) is factorised by SimplicialLLT (custom Spectra operator; the stock SymShiftInvert uses
// SparseLU). Regions with few DOFs use a dense generalised eigensolver instead of Lanczos.
#include "modal_deformation.h"

#include "deformation_region.h"
#include "fracture_precompute.h"

#include "shatter/error.h"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Spectra/SymGEigsShiftSolver.h>

#include <algorithm>
#include <numeric>

namespace shatter::fracture
{

using namespace detail;

struct ModalDeformation::Cache
{
    explicit Cache(std::size_t budget) : regions(budget, bytesOf) {}
    static std::size_t bytesOf(const ModalBasis& b)
    {
        return memoryBytes(*b.region) + std::size_t(b.modes.size() + b.eigenvalues.size()) * sizeof(double);
    }
    RegionCache<ModalBasis> regions;
};

namespace
{

/// Per component, six M-orthonormal rigid modes on its DOF range.
struct RigidModes
{
    std::vector<Eigen::MatrixXd> basis; ///< per component: (3 · slots) × 6
};

RigidModes rigidModes(const ElasticRegion& region, const Eigen::VectorXd& mass)
{
    RigidModes rigid;
    for (Index c = 0; c < region.componentCount(); ++c)
    {
        const Index begin = region.componentOffsets[c], end = region.componentOffsets[c + 1];
        const Eigen::Index n = 3 * Eigen::Index(end - begin);
        Vec3 centre = Vec3::Zero();
        for (Index s = begin; s < end; ++s)
            centre += region.slotPosition[s];
        centre /= Real(end - begin);
        Eigen::MatrixXd r = Eigen::MatrixXd::Zero(n, 6);
        for (Index s = begin; s < end; ++s)
        {
            const Eigen::Index row = 3 * Eigen::Index(s - begin);
            const Vec3 x = region.slotPosition[s] - centre;
            r.block<3, 3>(row, 0) = Mat3::Identity();
            for (int a = 0; a < 3; ++a)
                r.block<3, 1>(row, 3 + a) = Vec3::Unit(a).cross(x);
        }
        // M-orthonormalise: R ← R L⁻ᵀ with L Lᵀ = Rᵀ M R.
        const Eigen::VectorXd m = mass.segment(3 * Eigen::Index(begin), n);
        const Eigen::MatrixXd gram = r.transpose() * m.asDiagonal() * r;
        const Eigen::LLT<Eigen::MatrixXd> llt(gram);
        SHATTER_ASSERT(llt.info() == Eigen::Success);
        rigid.basis.push_back(llt.matrixU().solve<Eigen::OnTheRight>(r));
    }
    return rigid;
}

/// y ← P y, P = I − R Rᵀ M: removes the rigid part of y (M-orthogonally), component by component.
void projectOutRigid(const ElasticRegion& region, const RigidModes& rigid, const Eigen::VectorXd& mass,
                     Eigen::Ref<Eigen::VectorXd> y)
{
    for (Index c = 0; c < region.componentCount(); ++c)
    {
        const Eigen::Index begin = 3 * Eigen::Index(region.componentOffsets[c]);
        const Eigen::Index n = 3 * Eigen::Index(region.componentOffsets[c + 1]) - begin;
        auto part = y.segment(begin, n);
        const Eigen::VectorXd coeff =
            rigid.basis[c].transpose() * (mass.segment(begin, n).cwiseProduct(part));
        part -= rigid.basis[c] * coeff;
    }
}

/// Spectra operator y = P (K − σM)⁻¹ x (Spectra multiplies by M itself in shift-invert mode).
class DeflatedShiftInvert
{
public:
    using Scalar = double;

    DeflatedShiftInvert(const SparseMatrix& k, const Eigen::VectorXd& mass, const ElasticRegion& region,
                        const RigidModes& rigid)
        : k(k), mass(mass), region(region), rigid(rigid)
    {
    }
    Eigen::Index rows() const { return k.rows(); }
    Eigen::Index cols() const { return k.cols(); }
    void set_shift(double sigma)
    {
        SparseMatrix shifted = k;
        for (Eigen::Index i = 0; i < shifted.rows(); ++i)
            shifted.coeffRef(i, i) -= sigma * mass[i];
        solver.compute(shifted);
        if (solver.info() != Eigen::Success)
            throw Error("modal deformation", "K - sigma M could not be factorised (degenerate tets?)");
    }
    void perform_op(const double* in, double* out) const
    {
        Eigen::Map<const Eigen::VectorXd> x(in, k.rows());
        Eigen::Map<Eigen::VectorXd> y(out, k.rows());
        y = solver.solve(x);
        projectOutRigid(region, rigid, mass, y);
    }

private:
    const SparseMatrix& k;
    const Eigen::VectorXd& mass;
    const ElasticRegion& region;
    const RigidModes& rigid;
    Eigen::SimplicialLLT<SparseMatrix> solver;
};

/// Spectra operator y = M x for the lumped (diagonal) mass.
class DiagonalMass
{
public:
    using Scalar = double;
    explicit DiagonalMass(const Eigen::VectorXd& mass) : mass(mass) {}
    Eigen::Index rows() const { return mass.size(); }
    Eigen::Index cols() const { return mass.size(); }
    void perform_op(const double* in, double* out) const
    {
        Eigen::Map<Eigen::VectorXd>(out, mass.size()) =
            mass.cwiseProduct(Eigen::Map<const Eigen::VectorXd>(in, mass.size()));
    }

private:
    const Eigen::VectorXd& mass;
};

/// Below this many elastic DOFs a dense eigensolver is faster and never misses a mode.
constexpr Eigen::Index kDenseLimit = 150;

void solveDense(const SparseMatrix& k, const Eigen::VectorXd& mass, int rigidCount, int count,
                ModalBasis& entry)
{
    const Eigen::MatrixXd dense = Eigen::MatrixXd(k);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(
        dense, Eigen::MatrixXd(mass.asDiagonal()));
    if (solver.info() != Eigen::Success)
        throw Error("modal deformation", "the dense eigensolver failed");
    // Eigenvalues increase; the first `rigidCount` are the rigid modes (≈ 0).
    entry.eigenvalues = solver.eigenvalues().segment(rigidCount, count);
    entry.modes = solver.eigenvectors().middleCols(rigidCount, count);
}

void solveLanczos(const SparseMatrix& k, const Eigen::VectorXd& mass, const ElasticRegion& region, int count,
                  ModalBasis& entry)
{
    const RigidModes rigid = rigidModes(region, mass);
    DeflatedShiftInvert op(k, mass, region, rigid);
    DiagonalMass massOp(mass);
    const Eigen::Index free = k.rows() - 6 * Eigen::Index(region.componentCount());
    const Eigen::Index ncv = std::min<Eigen::Index>(free, std::max<Eigen::Index>(2 * count + 1, count + 20));
    Real ratio = 0;
    for (Eigen::Index i = 0; i < k.rows(); ++i)
        ratio += k.coeff(i, i) / mass[i];
    const Real sigma = -1e-8 * ratio / Real(k.rows());
    Spectra::SymGEigsShiftSolver<DeflatedShiftInvert, DiagonalMass, Spectra::GEigsMode::ShiftInvert> eigs(
        op, massOp, count, ncv, sigma);
    // A deterministic start vector, free of rigid motion (Spectra's default is a fixed seed too).
    Eigen::VectorXd start = Eigen::VectorXd::Zero(k.rows());
    for (Eigen::Index i = 0; i < start.size(); ++i)
        start[i] = std::sin(Real(i) * 12.9898 + 78.233) + 0.5;
    projectOutRigid(region, rigid, mass, start);
    eigs.init(start.data());
    eigs.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10, Spectra::SortRule::SmallestAlge);
    if (eigs.info() != Spectra::CompInfo::Successful)
        throw Error("modal deformation", "the Lanczos eigensolver did not converge (" +
                                             std::to_string(count) + " modes of " + std::to_string(k.rows()) +
                                             " DOFs)");
    Eigen::VectorXd values = eigs.eigenvalues();
    Eigen::MatrixXd vectors = eigs.eigenvectors();
    std::vector<Eigen::Index> order(std::size_t(values.size()));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    std::sort(order.begin(), order.end(),
              [&](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
    entry.eigenvalues.resize(count);
    entry.modes.resize(k.rows(), count);
    for (int i = 0; i < count; ++i)
    {
        entry.eigenvalues[i] = values[order[std::size_t(i)]];
        Eigen::VectorXd phi = vectors.col(order[std::size_t(i)]);
        phi /= std::sqrt(phi.dot(mass.cwiseProduct(phi))); // M-normalise (Spectra's are close already)
        entry.modes.col(i) = phi;
    }
}

/// The unit material of a basis (E = 1, ρ = 1, ν): its cache key and its stiffness.
Material unitMaterial(Real poissonRatio)
{
    Material unit;
    unit.youngsModulus = 1;
    unit.density = 1;
    unit.poissonRatio = poissonRatio;
    return unit;
}

} // namespace

std::shared_ptr<const ModalBasis> computeModalBasis(const Asset& asset, std::vector<Index> tets,
                                                    Real poissonRatio, int modeCount)
{
    auto entry = std::make_shared<ModalBasis>();
    entry->region = buildRegion(asset, std::move(tets));
    entry->poissonRatio = poissonRatio;
    const ElasticRegion& region = *entry->region;

    const SparseMatrix k =
        assembleStiffness(region, lameParameters(unitMaterial(poissonRatio)), {}, int(region.dofCount()));
    Eigen::VectorXd mass(region.dofCount());
    for (Index s = 0; s < region.slotCount(); ++s)
        mass.segment<3>(3 * Eigen::Index(s)).setConstant(region.slotVolume[s]);

    const int rigidCount = 6 * int(region.componentCount());
    const Eigen::Index free = k.rows() - rigidCount;
    if (free <= kDenseLimit)
        solveDense(k, mass, rigidCount, int(std::min<Eigen::Index>(modeCount, free)), *entry);
    else
        solveLanczos(k, mass, region, int(std::min<Eigen::Index>(modeCount, free - 1)), *entry);
    if (!(entry->eigenvalues.size() > 0 && entry->eigenvalues.minCoeff() > 0))
        throw Error("modal deformation", "non-positive elastic eigenvalue (degenerate region?)");
    return entry;
}

Eigen::VectorXd modalLoad(const ModalBasis& basis, Real contactRadius, std::span<const ImpactForce> forces)
{
    const ElasticRegion& region = *basis.region;
    // The elastic modes are M-orthogonal to the rigid ones and inertia relief only subtracts a rigid
    // acceleration times M, so Φᵀ f is the same with or without it: the relief is skipped here.
    Eigen::VectorXd g = Eigen::VectorXd::Zero(basis.modeCount());
    forEachSpreadForce(region, contactRadius * region.meanEdge, forces,
                       [&](Index slot, const Vec3& force) {
                           g.noalias() +=
                               basis.modes.middleRows<3>(3 * Eigen::Index(slot)).transpose() * force;
                       });
    return g;
}

ModalDeformation::ModalDeformation(const DeformationSettings& options) : settings(options)
{
    checkDeformationSettings(options);
    cache = std::make_unique<Cache>(options.cacheBytes);
}

ModalDeformation::~ModalDeformation() = default;

void ModalDeformation::prepare(const Asset& asset, std::span<const Index> tets, const Material& material)
{
    (void)basis(asset, tets, material);
}

void ModalDeformation::forget(const Asset& asset, std::span<const Index> tets, const Material& material)
{
    checkMaterial(material, asset.tetMesh.tetCount(), "Material");
    cache->regions.erase(makeRequest(asset, tets, unitMaterial(material.poissonRatio), settings.modeCount));
}

std::shared_ptr<const ModalBasis> ModalDeformation::basis(const Asset& asset, std::span<const Index> tets,
                                                          const Material& material)
{
    checkMaterial(material, asset.tetMesh.tetCount(), "Material");
    const RegionRequest request =
        makeRequest(asset, tets, unitMaterial(material.poissonRatio), settings.modeCount);
    return cache->regions.findOrBuild(
        request,
        [&](std::vector<Index> sorted) -> std::shared_ptr<const ModalBasis>
        {
            if (sorted.size() == asset.tetMesh.tets.size())
                if (auto stored = loadModalBasis(asset, material.poissonRatio, settings.modeCount))
                    return stored;
            return computeModalBasis(asset, std::move(sorted), material.poissonRatio, settings.modeCount);
        });
}

std::vector<Real> ModalDeformation::eigenvalues(const Asset& asset, std::span<const Index> tets,
                                                const Material& material)
{
    const std::shared_ptr<const ModalBasis> entry = basis(asset, tets, material);
    const Real scale = material.youngsModulus / material.density; // unit → real (file comment)
    std::vector<Real> values(entry->eigenvalues.begin(), entry->eigenvalues.end());
    for (Real& v : values)
        v *= scale;
    return values;
}

StrainEnergy ModalDeformation::compute(const Asset& asset, std::span<const Index> tets,
                                       const Material& material, std::span<const ImpactForce> forces)
{
    const std::shared_ptr<const ModalBasis> entry = basis(asset, tets, material);
    const ElasticRegion& region = *entry->region;
    // The elastic modes are M-orthogonal to the rigid ones, so inertia relief does not change φᵀf; it is
    // applied anyway (O(DOFs)) so that the load is the FEM model's to round-off.
    Eigen::VectorXd load = spreadForces(region, settings.contactRadius * region.meanEdge, forces);
    relieveInertia(region, material.density, load);
    // Unit response divided by E: the real material's (file comment).
    const Eigen::VectorXd q = (entry->modes.transpose() * load).cwiseQuotient(entry->eigenvalues);
    const Eigen::VectorXd u = (entry->modes * q) / material.youngsModulus;
    return strainEnergy(region, lameParameters(material), u);
}

void ModalDeformation::clearCache()
{
    cache->regions.clear();
}

std::size_t ModalDeformation::cachedRegions() const
{
    return cache->regions.size();
}

} // namespace shatter::fracture
