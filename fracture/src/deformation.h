// Deformation models (CVD §3.3): given the impact forces on one fragment, the strain
// energy per tet and per node that the fracture criterion and the CVD weigh. Two models sit behind one
// small interface, chosen per FractureSystem: quasi-static linear FEM (fem_deformation.h) and the
// static response of the lowest elastic modes (modal_deformation.h). Both are linear elastic, so the
// energy scales with the square of the force.
//
// A region is the fragment being deformed, as a set of whole tets (asset tet ids): the whole asset for
// an unbroken object, and for a fragment the tets the caller assigns to it (e.g. every tet holding one
// of its nodes: tetsTouchingNodes). Each model caches its expensive part (a factorisation, a modal
// basis) per (asset, region, elastic constants), so repeated events on the same region only pay the
// per-event solve.
#pragma once

#include "asset_data.h"
#include "shatter/fracture/fracture_settings.h"
#include "shatter/fracture/material.h"
#include "strain_energy.h"

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace shatter::fracture
{

/// Settings of a deformation model; checked by makeDeformation.
struct DeformationSettings
{
    DeformationModel model = DeformationModel::Modal;
    /// Contact forces are spread over the region's boundary nodes with Gaussian weights of this
    /// standard deviation, in mean tet edge lengths (> 0): a point load would make the energy depend on
    /// the mesh. γ is tuned for one value; keep it fixed afterwards.
    Real contactRadius = 1.5;
    /// Modal only: number of elastic (non-rigid) modes kept (≥ 1); fewer if the region has fewer DOFs.
    int modeCount = 20;
    /// Memory of the cached factorisations / bases of fragments, bytes (≥ 1; the least recently used go
    /// first; whole objects' are kept apart from it); default 512 MiB.
    std::size_t cacheBytes = std::size_t(512) << 20;
};

/// One deformation model with its cache of per-region precomputations. compute() and prepare() may be
/// called from several threads: the cache is locked, solves on a cached entry run concurrently.
class Deformation
{
public:
    virtual ~Deformation() = default;

    virtual DeformationModel model() const = 0;

    /// Strain energy of `tets` (asset tet ids, any order, duplicates ignored) of `asset` under `forces`
    /// (material frame). The result's `tets` and `nodes` are increasing. Throws shatter::Error for a bad
    /// material, an empty region, tet ids out of range or non-finite forces.
    virtual StrainEnergy compute(const Asset& asset, std::span<const Index> tets, const Material& material,
                                 std::span<const ImpactForce> forces) = 0;

    /// Builds (or finds) the region's cached precomputation without a load: FEM factorises, modal
    /// computes the basis. compute() does this itself on first need; call it to move the cost off the
    /// fracture event (e.g. when an object is registered).
    virtual void prepare(const Asset& asset, std::span<const Index> tets, const Material& material) = 0;

    /// Drops the region's cached precomputation, if any (the region broke: no fragment has it again).
    /// A whole object's is kept: it serves every unbroken instance of the asset.
    virtual void forget(const Asset& asset, std::span<const Index> tets, const Material& material) = 0;

    /// Drops every cached precomputation.
    virtual void clearCache() = 0;
    /// Number of regions currently cached.
    virtual std::size_t cachedRegions() const = 0;
};

/// Marks the calling thread as a background builder or not (default not): a thread of the lowest OS
/// priority, which the OS may starve while other threads are busy. A compute() or prepare() that needs a
/// region such a thread is still building builds its own copy (bit for bit the same) instead of waiting
/// for it; the background build still fills the cache.
void setBackgroundBuilder(bool background);

/// Throws shatter::Error naming the bad field.
void checkDeformationSettings(const DeformationSettings& options);

/// The model `options.model` with `options`. Throws shatter::Error for bad options.
std::unique_ptr<Deformation> makeDeformation(const DeformationSettings& options = {});

/// Every tet of the asset: the region of an unbroken object.
std::vector<Index> allTets(const Asset& asset);

/// The tets with at least one node in `nodes` (asset node ids, any order): the deformation region of a
/// fragment whose nodes are `nodes`, counting a cut tet for every fragment that owns one of its nodes.
/// Increasing.
std::vector<Index> tetsTouchingNodes(const TetMesh& mesh, std::span<const Index> nodes);

} // namespace shatter::fracture
