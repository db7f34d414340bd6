// Private to the deformation models (fem_deformation.cpp, modal_deformation.cpp): the elastic
// discretisation of one region (P1 tets, CVD §3.3), the load, inertia relief, the per-tet energy, and
// the per-region cache both models keep.
//
// Degrees of freedom live on *slots*, not nodes: a slot is a (component, node) pair, where components
// are the face-connected parts of the region. A region whose parts touch only along an edge or at a
// node (possible for a fragment's tet set) would otherwise have hinge mechanisms, zero-energy modes
// beyond the six rigid ones that neither pinning nor a shift removes cleanly. Splitting the shared
// node into one slot per component makes each component a free body with exactly six rigid modes (a
// face-connected P1 tet set is rigid once one tet is: every added tet shares three fixed nodes). The
// usual region — one object or one fragment — has one component and slots = nodes.
#pragma once

#include "asset_data.h"
#include "shatter/error.h"
#include "shatter/fracture/material.h"
#include "strain_energy.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace shatter::fracture::detail
{

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// Lamé parameters from (E, ν): λ = Eν/((1+ν)(1−2ν)), μ = E/(2(1+ν)).
struct Lame
{
    Real lambda = 0;
    Real mu = 0;
};
Lame lameParameters(const Material& material);

/// The P1 discretisation of one region; see the file comment for slots.
struct ElasticRegion
{
    std::vector<Index> tets;                    ///< asset tet ids, increasing
    std::vector<Index> nodes;                   ///< asset node ids of those tets, increasing
    std::vector<std::array<Index, 4>> tetSlots; ///< per region tet: its four slots
    std::vector<Index> tetComponent;            ///< per region tet
    std::vector<Real> tetVolume;                ///< per region tet, > 0
    std::vector<Index> slotNode;                ///< per slot: index into `nodes`
    std::vector<Vec3> slotPosition;             ///< per slot: rest position
    std::vector<Real> slotVolume;               ///< per slot: ¼ Σ incident tet volumes (lumped mass / ρ)
    std::vector<Index> componentOffsets;        ///< slots of component c: [offsets[c], offsets[c+1])
    std::vector<Index> boundarySlots;           ///< slots on a face of exactly one region tet, increasing
    Real meanEdge = 0;                          ///< mean tet edge length of the asset

    Index slotCount() const { return Index(slotNode.size()); }
    Index dofCount() const { return 3 * slotCount(); }
    Index componentCount() const { return Index(componentOffsets.size()) - 1; }
};

/// D = [x1 − x0, x2 − x0, x3 − x0] of region tet `i`, from its slots' rest positions.
inline Mat3 tetEdges(const ElasticRegion& region, std::size_t i)
{
    const std::array<Index, 4>& s = region.tetSlots[i];
    const Vec3& x0 = region.slotPosition[s[0]];
    Mat3 d;
    d.col(0) = region.slotPosition[s[1]] - x0;
    d.col(1) = region.slotPosition[s[2]] - x0;
    d.col(2) = region.slotPosition[s[3]] - x0;
    return d;
}

/// ∇ of the four barycentric coordinates of region tet `i`: the rows of D⁻¹ and minus their sum.
/// Recomputed where needed rather than stored (four Vec3 a tet would dominate a large region's memory);
/// buildRegion rejects degenerate tets.
inline std::array<Vec3, 4> tetGradient(const ElasticRegion& region, std::size_t i)
{
    const Mat3 inv = tetEdges(region, i).inverse();
    std::array<Vec3, 4> g;
    g[1] = inv.row(0).transpose();
    g[2] = inv.row(1).transpose();
    g[3] = inv.row(2).transpose();
    g[0] = -(g[1] + g[2] + g[3]);
    return g;
}

/// A validated, normalised region request: its sorted tets and the key of its cache entry.
struct RegionKey
{
    std::uint64_t hash = 0; ///< of the asset's fingerprint and sizes and the tet ids (none when whole)
    Real youngsModulus = 0, poissonRatio = 0, density = 0;
    int modes = 0;
    bool operator==(const RegionKey&) const = default;
};
struct RegionRequest
{
    std::vector<Index> tets;
    RegionKey key;
    bool whole = false; ///< every tet of the asset: the unbroken object
};

/// Checks the material and the tet ids (throws shatter::Error) and normalises the region.
RegionRequest makeRequest(const Asset& asset, std::span<const Index> tets, const Material& material,
                          int modes);

/// Builds the discretisation of a normalised region.
std::shared_ptr<const ElasticRegion> buildRegion(const Asset& asset, std::vector<Index> tets);

/// Assembles K over the DOFs (3·slot + axis). dofMap[dof] is the DOF's row in the result, or −1 to
/// drop it (pinned); `rows` is the size of the result. An empty dofMap keeps every DOF.
SparseMatrix assembleStiffness(const ElasticRegion& region, const Lame& lame, std::span<const int> dofMap,
                               int rows);

/// The nodal load (3 × slotCount): each force spread over the boundary slots near its point with
/// normalised Gaussian weights of standard deviation `radius` (a point load would make the energy
/// depend on the mesh). Throws shatter::Error for a non-finite force.
Eigen::VectorXd spreadForces(const ElasticRegion& region, Real radius, std::span<const ImpactForce> forces);

/// The same load as visits visit(boundary slot, its share of one force), force by force, without the
/// DOF vector (the criterion's bound projects it on the modes directly). Throws shatter::Error for a
/// non-finite force.
template <class Visit>
void forEachSpreadForce(const ElasticRegion& region, Real radius, std::span<const ImpactForce> forces,
                        Visit&& visit)
{
    std::vector<Real> d2(region.boundarySlots.size());
    for (std::size_t f = 0; f < forces.size(); ++f)
    {
        const ImpactForce& impact = forces[f];
        if (!impact.point.allFinite() || !impact.force.allFinite())
            throw Error("impact forces", "force " + std::to_string(f) + " is not finite");
        if (impact.force.squaredNorm() == 0)
            continue;
        Real nearest = std::numeric_limits<Real>::infinity();
        for (std::size_t i = 0; i < d2.size(); ++i)
        {
            d2[i] = (region.slotPosition[region.boundarySlots[i]] - impact.point).squaredNorm();
            nearest = std::min(nearest, d2[i]);
        }
        // w = exp(−(d² − d²_min) / 2r²): a Gaussian of the distance for a point on the surface; the shift
        // by the nearest node keeps the weights from underflowing when the point lies off the region
        // (e.g. a contact reported slightly outside a fragment). Weights below 1e-4 are dropped.
        const Real cutoff = 2 * radius * radius * std::log(1e4);
        Real sum = 0;
        for (std::size_t i = 0; i < d2.size(); ++i)
        {
            const Real excess = d2[i] - nearest;
            d2[i] = excess <= cutoff ? std::exp(-excess / (2 * radius * radius)) : 0; // now the weight
            sum += d2[i];
        }
        SHATTER_ASSERT(sum >= 1);
        for (std::size_t i = 0; i < d2.size(); ++i)
            if (d2[i] > 0)
                visit(region.boundarySlots[i], (d2[i] / sum) * impact.force);
    }
}

/// Inertia relief (the body is free, so a contact load alone is not in equilibrium): per component,
/// subtracts m_v (a + α × (x_v − c)) from each nodal force, where a and α are the rigid accelerations
/// the net force and torque would cause with the lumped masses. The load is then self-equilibrated:
/// zero net force and torque per component.
void relieveInertia(const ElasticRegion& region, Real density, Eigen::VectorXd& load);

/// Per-tet energy U_e = V_e (μ ε:ε + ½ λ (tr ε)²) of the displacement `u` (3 × slotCount), and the
/// per-node sums (¼ of each incident tet, CVD §3.3), into a StrainEnergy over the region.
StrainEnergy strainEnergy(const ElasticRegion& region, const Lame& lame, const Eigen::VectorXd& u);

/// Memory held by a region's discretisation, bytes (for the caches' budgets).
std::size_t memoryBytes(const ElasticRegion& region);

/// Whether the calling thread builds cache entries in the background (a thread of the lowest OS
/// priority, which the OS may starve while other threads are busy); see RegionCache. Set by that thread.
bool& backgroundBuilder();

/// A least-recently-used cache of per-region entries, guarded by a mutex. Entries are immutable and
/// shared, so callers solve on them without holding the lock. The budget is memory, not a count: a
/// scene's live fragments should all stay cached (a basis evicted is seconds of work again), and one
/// large factorisation weighs as much as hundreds of small bases. A whole object's entry (RegionRequest::
/// whole) is never evicted and does not count against the budget: it serves every unbroken instance of
/// its asset, and fragments' entries must not push it out. An entry is built outside the lock (a
/// basis takes up to seconds): other regions stay available meanwhile, and a second caller of the same
/// region waits for the first one's build instead of repeating it — unless a background builder is
/// building it: a caller with a deadline then builds its own copy (the same entry, bit for bit) rather
/// than wait on a thread that may not get the CPU, and leaves caching to the background build.
template <class Entry>
class RegionCache
{
public:
    /// `budget`: bytes of unpinned entries kept (the newest is kept even if larger); `bytesOf`: an
    /// entry's memory.
    RegionCache(std::size_t budget, std::size_t (*bytesOf)(const Entry&)) : budget(budget), bytesOf(bytesOf)
    {
    }

    /// The entry of `request`, built by build(request.tets) if it is not cached. What build throws
    /// reaches every caller waiting for that entry, and the entry is not kept.
    template <class Build>
    std::shared_ptr<const Entry> findOrBuild(const RegionRequest& request, Build&& build)
    {
        std::promise<std::shared_ptr<const Entry>> promise;
        std::shared_future<std::shared_ptr<const Entry>> future;
        bool building = false, own = false;
        std::uint64_t ticket = 0;
        {
            const std::lock_guard lock(mutex);
            for (auto it = items.begin(); it != items.end(); ++it)
                if (it->key == request.key && it->tets == request.tets)
                {
                    items.splice(items.begin(), items, it); // most recently used first
                    future = items.front().entry;
                    own = items.front().background && !backgroundBuilder() &&
                          future.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
                    break;
                }
            if (!future.valid())
            {
                building = true;
                future = promise.get_future().share();
                ticket = ++tickets;
                items.push_front(
                    {request.key, request.tets, request.whole, backgroundBuilder(), ticket, 0, future});
            }
        }
        if (own)
            return build(request.tets);
        if (building)
        {
            try
            {
                std::shared_ptr<const Entry> entry = build(request.tets);
                const std::size_t bytes = entry ? bytesOf(*entry) : 0;
                promise.set_value(std::move(entry));
                const std::lock_guard lock(mutex);
                for (Item& item : items)
                    if (item.ticket == ticket)
                        item.bytes = bytes;
                evict(ticket);
            }
            catch (...)
            {
                promise.set_exception(std::current_exception());
                const std::lock_guard lock(mutex);
                std::erase_if(items, [&](const Item& item) { return item.ticket == ticket; });
            }
        }
        return future.get();
    }
    /// Drops the entry of `request` unless it is pinned (callers holding it keep it alive).
    void erase(const RegionRequest& request)
    {
        const std::lock_guard lock(mutex);
        std::erase_if(items, [&](const Item& item)
                      { return !item.pinned && item.key == request.key && item.tets == request.tets; });
    }
    void clear()
    {
        const std::lock_guard lock(mutex);
        items.clear();
    }
    std::size_t size() const
    {
        const std::lock_guard lock(mutex);
        return items.size();
    }

private:
    struct Item
    {
        RegionKey key;
        std::vector<Index> tets;
        bool pinned = false;
        bool background = false;  // built by a background builder
        std::uint64_t ticket = 0; // identifies an item across its build
        std::size_t bytes = 0;    // 0 until built
        std::shared_future<std::shared_ptr<const Entry>> entry;
    };
    // Drops the least recently used unpinned items while their memory exceeds the budget, never the
    // item `keep` (just built). Caller holds the lock.
    void evict(std::uint64_t keep)
    {
        std::size_t used = 0;
        for (const Item& item : items)
            used += item.pinned ? 0 : item.bytes;
        for (auto it = items.end(); used > budget && it != items.begin();)
        {
            --it;
            if (it->pinned || it->ticket == keep || it->bytes == 0)
                continue;
            used -= it->bytes;
            it = items.erase(it);
        }
    }
    std::size_t budget;
    std::size_t (*bytesOf)(const Entry&);
    std::uint64_t tickets = 0;
    mutable std::mutex mutex;
    std::list<Item> items;
};

} // namespace shatter::fracture::detail
