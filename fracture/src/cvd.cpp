// Lloyd's method for the discrete, weighted CVD of a fragment's nodes (CVD §3.2-3.3).
//
// The energy is E_D = Σ_i Σ_{v in cell i} w_v ‖x_v − s_i‖² (CVD eq. 3 with the integral over a cell
// replaced by a sum over its nodes, §3.3), where x_v is the node's point in the metric space (3-D, warped
// 3-D, or the interior embedding of §3.2) and w_v the node weight (strain energy W^α·β integrated over
// the node's dual volume, fracture_degree.h). By Theorem 1 / Corollary 1, the CVD under the interior
// distance is the Euclidean CVD of the embedded points, so the site update is the plain weighted mean
// in R^d (eq. 14-15: p̄* = ∫ x̄ W / ∫ W), and sites stay free points of R^d; their 3-D positions are never
// needed ("it is sufficient to store their high-dimensional positions and the cell-classification of
// the nodes").
//
// Each iteration floods labels (cvd_flood.cpp) and moves the sites to their cells' centroids; the flood's
// keys give E_D of its labels for free, and the loop stops once a flood gains less than
// energyTolerance of E_D: Lloyd's method converges linearly and slowly along flat valleys of E_D, where
// further floods move the cell boundaries by a node or two. The
// centroid step never increases E_D for fixed labels; the flood step is the nearest-site assignment
// restricted to connected cells, so it may raise E_D slightly where a node's nearest site is not
// reachable through its own material. In practice E_D decreases to within rounding (cvd_test checks).
//
// Empty cells (a site whose nearest node another site claimed first) are reseeded at the node that
// contributes most, w·dist², to the cell with the largest E_D,i — splitting the worst cell, as in the
// energy-weighted seeding of §3.3. A non-empty cell of zero weight keeps the unweighted mean of its
// nodes, so it does not jump around forever. Cells still empty at the end are dropped and the sites
// renumbered (only possible with fewer distinct nodes than sites).
#include "cvd.h"

#include "shatter/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace shatter::fracture
{
namespace
{

constexpr const char* kSource = "computeCvd";

void checkFinite(std::span<const Real> values, const char* what)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw Error(kSource, std::string(what) + " entry " + std::to_string(i) + " is not finite");
}

Real metricDiameter(std::span<const Real> coords, std::size_t dim)
{
    std::vector<Real> lo(dim, std::numeric_limits<Real>::infinity());
    std::vector<Real> hi(dim, -std::numeric_limits<Real>::infinity());
    for (std::size_t i = 0; i < coords.size(); i += dim)
        for (std::size_t c = 0; c < dim; ++c)
        {
            lo[c] = std::min(lo[c], coords[i + c]);
            hi[c] = std::max(hi[c], coords[i + c]);
        }
    Real sum = 0;
    for (std::size_t c = 0; c < dim; ++c)
        sum += (hi[c] - lo[c]) * (hi[c] - lo[c]);
    return std::sqrt(sum);
}

/// Sites ← weighted centroids of their cells (CVD eq. 14-15); empty cells reseeded (file comment).
/// Returns the number of reseeded cells.
int updateSites(std::span<const Real> coords, std::size_t dim, std::span<const Real> weights,
                std::span<const std::uint32_t> labels, std::vector<Real>& sites)
{
    const std::size_t siteCount = sites.size() / dim;
    const std::size_t n = labels.size();
    std::vector<Real> sum(sites.size(), 0), mass(siteCount, 0);
    std::vector<Index> members(siteCount, 0);
    for (std::size_t v = 0; v < n; ++v)
    {
        const std::size_t s = labels[v];
        mass[s] += weights[v];
        ++members[s];
        for (std::size_t c = 0; c < dim; ++c)
            sum[s * dim + c] += weights[v] * coords[v * dim + c];
    }
    bool weightless = false; // a cell whose nodes all weigh 0 takes their plain centroid
    for (std::size_t s = 0; s < siteCount; ++s)
    {
        if (mass[s] > 0)
            for (std::size_t c = 0; c < dim; ++c)
                sites[s * dim + c] = sum[s * dim + c] / mass[s];
        else
            weightless |= members[s] > 0;
    }
    if (weightless)
    {
        std::vector<Real> plain(sites.size(), 0);
        for (std::size_t v = 0; v < n; ++v)
            if (!(mass[labels[v]] > 0))
                for (std::size_t c = 0; c < dim; ++c)
                    plain[labels[v] * dim + c] += coords[v * dim + c];
        for (std::size_t s = 0; s < siteCount; ++s)
            if (!(mass[s] > 0) && members[s] > 0)
                for (std::size_t c = 0; c < dim; ++c)
                    sites[s * dim + c] = plain[s * dim + c] / Real(members[s]);
    }

    int reseeded = 0;
    std::vector<Real> contribution;
    std::vector<Real> energy;
    for (std::size_t s = 0; s < siteCount; ++s)
    {
        if (members[s] > 0)
            continue;
        if (contribution.empty())
        {
            contribution.resize(n);
            energy.assign(siteCount, 0);
            for (std::size_t v = 0; v < n; ++v)
            {
                Real d2 = 0;
                for (std::size_t c = 0; c < dim; ++c)
                {
                    const Real d = coords[v * dim + c] - sites[labels[v] * dim + c];
                    d2 += d * d;
                }
                contribution[v] = weights[v] * d2;
                energy[labels[v]] += contribution[v];
            }
        }
        const std::size_t worst =
            std::size_t(std::max_element(energy.begin(), energy.end()) - energy.begin());
        if (!(energy[worst] > 0))
            break; // nothing left to split: the remaining empty cells stay empty
        std::size_t best = n;
        for (std::size_t v = 0; v < n; ++v)
            if (labels[v] == worst && (best == n || contribution[v] > contribution[best]))
                best = v;
        SHATTER_ASSERT(best < n);
        for (std::size_t c = 0; c < dim; ++c)
            sites[s * dim + c] = coords[best * dim + c];
        energy[worst] -= contribution[best];
        contribution[best] = 0;
        ++reseeded;
    }
    return reseeded;
}

} // namespace

VoronoiLabelling computeCvd(const FragmentRegion& region, std::span<const Real> weights,
                            std::span<const Real> coords, int dimension, std::span<const Real> initialSites,
                            const CvdSettings& settings, CvdStats* stats)
{
    const auto start = std::chrono::steady_clock::now();
    const Index n = region.nodeCount();
    if (n == 0)
        throw Error(kSource, "the region has no nodes");
    if (region.adjacencyOffsets.size() != std::size_t(n) + 1 || region.nodeVolumes.size() != n)
        throw Error(kSource, "the region's adjacency or volumes do not match its nodes");
    if (settings.maxIterations < 1)
        throw Error(kSource, "maxIterations must be at least 1");
    if (!(settings.moveTolerance >= 0) || !std::isfinite(settings.moveTolerance))
        throw Error(kSource, "moveTolerance must be finite and non-negative");
    if (!(settings.energyTolerance >= 0) || !std::isfinite(settings.energyTolerance))
        throw Error(kSource, "energyTolerance must be finite and non-negative");
    if (weights.size() != n)
        throw Error(kSource,
                    "expected " + std::to_string(n) + " node weights, got " + std::to_string(weights.size()));
    checkFinite(weights, "weight");
    Real totalWeight = 0;
    for (std::size_t v = 0; v < n; ++v)
    {
        if (weights[v] < 0)
            throw Error(kSource, "weight " + std::to_string(v) + " is negative");
        totalWeight += weights[v];
    }
    if (!(totalWeight > 0))
        throw Error(kSource, "all node weights are zero");

    VoronoiLabelling out;
    out.parent = region.parent;
    out.dimension = dimension;
    out.nodes = region.nodes;
    out.nodeCoords = gatherRegionCoords(region, coords, dimension);
    checkFinite(out.nodeCoords, "metric coordinate");
    const std::size_t dim = std::size_t(dimension);
    if (initialSites.empty() || initialSites.size() % dim != 0)
        throw Error(kSource, "initial sites must be a positive multiple of the dimension, got " +
                                 std::to_string(initialSites.size()) + " reals");
    const std::size_t siteCount = initialSites.size() / dim;
    if (siteCount > n)
        throw Error(kSource, std::to_string(siteCount) + " sites for " + std::to_string(n) + " nodes");
    checkFinite(initialSites, "initial site coordinate");

    CvdStats local;
    CvdStats& st = stats ? *stats : local;
    st = CvdStats{};
    st.diameter = metricDiameter(out.nodeCoords, dim);
    const Real tolerance = settings.moveTolerance * st.diameter;

    std::vector<Real> sites(initialSites.begin(), initialSites.end()), old(sites.size());
    std::vector<std::uint32_t> labels, previous;
    FloodWorkspace workspace;
    setFloodCoordinates(workspace, out.nodeCoords, dimension);
    // One flood from the current sites; returns E_D of its labels and those sites, Σ w_v ‖x_v − s‖²
    // from the flood's own keys (the squared distance of each node to its site).
    auto floodOnce = [&]
    {
        floodLabels(region, out.nodeCoords, dimension, sites, settings.threads, previous, workspace, labels);
        ++st.iterations;
        Real energy = 0;
        for (std::size_t v = 0; v < n; ++v)
            energy += weights[v] * workspace.key[v];
        if (settings.recordEnergies)
            st.energyHistory.push_back(energy);
        return energy;
    };
    Real lastEnergy = 0;
    bool justReseeded = false;
    for (int iteration = 0; iteration < settings.maxIterations; ++iteration)
    {
        const Real energy = floodOnce();
        if (labels == previous)
        {
            st.converged = true;
            break;
        }
        // Lloyd's slow tail: the centroid step gains less than energyTolerance of E_D (after a reseed the
        // energy is not comparable: a cell was just split).
        if (iteration > 0 && !justReseeded && settings.energyTolerance > 0 &&
            lastEnergy - energy <= settings.energyTolerance * lastEnergy)
        {
            st.converged = true;
            break;
        }
        lastEnergy = energy;
        if (iteration + 1 == settings.maxIterations)
            break; // keep the sites that produced these labels
        old = sites;
        const int reseeded = updateSites(out.nodeCoords, dim, weights, labels, sites);
        st.reseeded += reseeded;
        justReseeded = reseeded > 0;
        Real move2 = 0;
        for (std::size_t s = 0; s < siteCount; ++s)
        {
            Real d2 = 0;
            for (std::size_t c = 0; c < dim; ++c)
                d2 += (sites[s * dim + c] - old[s * dim + c]) * (sites[s * dim + c] - old[s * dim + c]);
            move2 = std::max(move2, d2);
        }
        previous.swap(labels);
        if (std::sqrt(move2) < tolerance)
        {
            // The sites are (nearly) still: one last flood so that labels and sites agree.
            floodOnce();
            st.converged = true;
            break;
        }
    }

    // Drop cells that stayed empty and renumber the rest in site order.
    std::vector<std::uint32_t> remap(siteCount, 0);
    std::vector<std::uint8_t> used(siteCount, 0);
    for (std::uint32_t l : labels)
        used[l] = 1;
    std::uint32_t kept = 0;
    for (std::size_t s = 0; s < siteCount; ++s)
    {
        if (!used[s])
            continue;
        remap[s] = kept;
        for (std::size_t c = 0; c < dim; ++c)
            out.siteCoords.push_back(sites[s * dim + c]);
        ++kept;
    }
    for (std::uint32_t& l : labels)
        l = remap[l];
    out.siteCount = kept;
    out.labels = std::move(labels);

    st.cellEnergy = cellEnergies(out.nodeCoords, dimension, weights, out.labels, out.siteCoords);
    st.totalEnergy = std::accumulate(st.cellEnergy.begin(), st.cellEnergy.end(), Real(0));
    st.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

} // namespace shatter::fracture
