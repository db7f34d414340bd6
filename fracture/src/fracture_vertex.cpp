// Fracture vertices (CVD §5, eq. 13). A vertex lies in a simplex S of the tet mesh (edge, face, tet,
// or a node) where the crack functions of one or more classes are equal. Eq. 13 is the case of one
// class holding M functions on an M-node simplex: [D −1; 1ᵀ 0] [b; d] = [0; 1]. Eliminating the common
// distance d leaves M − 1 rows (g_1 − g_j)(b) = 0 plus Σb = 1, which is what solveVertex builds; with
// several classes (a new crack meeting an earlier one inside a repeated-fracture tet) each class adds
// its own rows. The position depends only on the key — sorted nodes and the functions' values there —
// so every tet that meets the vertex computes it bit for bit (watertight without a shared table).
//
// Constrained approximation (CVD §5): an edge solution always lies inside (the values are adjusted so
// that it is at least edgeMargin away from the nodes, tessellation_values.cpp); a face or tet solution
// may not. It is then clamped to b ≥ 0 and renormalised, which keeps it on its simplex (locality) and
// moves it the least for a vertex just outside; a singular system takes the simplex's centroid.
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <Eigen/LU>

#include <algorithm>
#include <cstring>

namespace shatter::fracture::detail
{

namespace
{

// Sorts the first n entries (std::sort on a partial std::array trips GCC's -Warray-bounds).
template <std::size_t N, class Less>
void insertionSort(std::array<int, N>& a, int n, Less less)
{
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && less(a[j], a[j - 1]); --j)
            std::swap(a[j], a[j - 1]);
}

std::size_t simplexHash(const std::array<Index, 4>& nodes)
{
    std::uint64_t h = 0;
    for (Index n : nodes)
        h = (h ^ n) * 0x9e3779b97f4a7c15ull;
    return std::size_t(h >> 17);
}

} // namespace

Index ValueTable::find(Index node, std::uint32_t site) const
{
    // A node has a few sites: a linear scan beats a binary search.
    const Index end = offsets[node + 1];
    Index i = offsets[node];
    while (i < end && sites[i] != site)
        ++i;
    SHATTER_ASSERT(i != end, "value table lacks a site at a node");
    return i;
}

bool VertexKey::operator==(const VertexKey& o) const
{
    if (nodeCount != o.nodeCount || functionCount != o.functionCount || nodes != o.nodes)
        return false;
    for (int f = 0; f < functionCount; ++f)
        if (classOf[f] != o.classOf[f] || values[f] != o.values[f])
            return false;
    return true;
}

std::size_t VertexKeyHash::operator()(const VertexKey& k) const
{
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::uint64_t v)
    {
        h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    };
    for (Index n : k.nodes)
        mix(n);
    mix(std::uint64_t(k.nodeCount) << 8 | k.functionCount);
    for (int f = 0; f < k.functionCount; ++f)
    {
        mix(k.classOf[f]);
        for (int i = 0; i < k.nodeCount; ++i)
        {
            std::uint64_t bits;
            std::memcpy(&bits, &k.values[f][i], sizeof bits);
            mix(bits);
        }
    }
    return std::size_t(h);
}

void canonicalize(VertexKey& key)
{
    if (key.nodeCount == 0)
        return;
    // Nodes increasing, values permuted along.
    std::array<int, 4> order{0, 1, 2, 3};
    insertionSort(order, key.nodeCount, [&](int a, int b) { return key.nodes[a] < key.nodes[b]; });
    VertexKey sorted;
    sorted.nodeCount = key.nodeCount;
    for (int i = 0; i < key.nodeCount; ++i)
    {
        sorted.nodes[i] = key.nodes[order[i]];
        for (int f = 0; f < key.functionCount; ++f)
            sorted.values[f][i] = key.values[f][order[i]];
    }
    // Functions by values (restricted to the simplex), classes renumbered by first use. Every function
    // is kept (up to kMaxKeyFunctions): the key must name exactly one point.
    std::array<int, kMaxKeyFunctions> fo;
    for (int j = 0; j < kMaxKeyFunctions; ++j)
        fo[j] = j;
    insertionSort(fo, key.functionCount,
                  [&](int a, int b)
                  {
                      for (int i = 0; i < key.nodeCount; ++i)
                          if (sorted.values[a][i] != sorted.values[b][i])
                              return sorted.values[a][i] < sorted.values[b][i];
                      return key.classOf[a] < key.classOf[b];
                  });
    std::array<int, 16> classMap;
    classMap.fill(-1);
    int classes = 0, count = 0;
    VertexKey out = sorted;
    for (int j = 0; j < key.functionCount; ++j)
    {
        const int f = fo[j];
        int& c = classMap[key.classOf[f]];
        if (c < 0)
            c = classes++;
        out.values[count] = sorted.values[f];
        out.classOf[count] = std::uint8_t(c);
        ++count;
    }
    for (int j = count; j < kMaxKeyFunctions; ++j)
    {
        out.values[j] = {};
        out.classOf[j] = 0;
    }
    out.functionCount = std::uint8_t(count);
    for (int i = out.nodeCount; i < 4; ++i)
        out.nodes[i] = 0;
    key = out;
}

Vec3 solveVertex(const VertexKey& key, const std::vector<Vec3>& meshNodes, const Vec3* fallback,
                 VertexStatus& status)
{
    status = VertexStatus::Exact;
    const int n = key.nodeCount;
    SHATTER_ASSERT(n >= 1 && n <= 4, "solveVertex needs a simplex");
    Vec3 centroid = Vec3::Zero();
    for (int i = 0; i < n; ++i)
        centroid += meshNodes[key.nodes[i]];
    centroid /= Real(n);
    if (n == 1)
        return meshNodes[key.nodes[0]];

    Eigen::Matrix<Real, 4, 4> a = Eigen::Matrix<Real, 4, 4>::Identity();
    Eigen::Matrix<Real, 4, 1> rhs = Eigen::Matrix<Real, 4, 1>::Zero();
    int row = 0;
    for (int f = 0; f < key.functionCount && row < n; ++f)
    {
        int first = -1;
        for (int g = 0; g < f; ++g)
            if (key.classOf[g] == key.classOf[f])
            {
                first = g;
                break;
            }
        if (first < 0)
            continue;
        if (row >= n - 1)
        {
            row = n; // over-determined (a degenerate crossing): fall back
            break;
        }
        for (int i = 0; i < n; ++i)
            a(row, i) = key.values[first][i] - key.values[f][i];
        ++row;
    }
    if (row != n - 1)
    {
        status = VertexStatus::Singular;
        return fallback ? *fallback : centroid;
    }
    for (int i = 0; i < n; ++i)
        a(row, i) = 1;
    for (int i = n; i < 4; ++i)
        a(row, i) = 0;
    rhs[row] = 1;
    // Unused rows/columns keep the identity, so the 4×4 solve is the n×n one.
    for (int r = 0; r < n; ++r)
        for (int c = n; c < 4; ++c)
            a(r, c) = 0;
    for (int r = n; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            a(r, c) = r == c ? 1 : 0;
    // Scale rows so the pivoting threshold is relative.
    for (int r = 0; r < n; ++r)
    {
        const Real s = a.row(r).cwiseAbs().maxCoeff();
        if (s > 0)
        {
            a.row(r) /= s;
            rhs[r] /= s;
        }
    }
    const Eigen::FullPivLU<Eigen::Matrix<Real, 4, 4>> lu(a);
    if (lu.rank() < 4)
    {
        status = VertexStatus::Singular;
        return fallback ? *fallback : centroid;
    }
    Eigen::Matrix<Real, 4, 1> b = lu.solve(rhs);
    bool outside = false;
    for (int i = 0; i < n; ++i)
        outside |= !(b[i] >= 0);
    if (outside)
    {
        status = VertexStatus::Constrained;
        Real sum = 0;
        for (int i = 0; i < n; ++i)
        {
            b[i] = std::isfinite(b[i]) ? std::max(b[i], Real(0)) : Real(0);
            sum += b[i];
        }
        if (!(sum > 0))
        {
            status = VertexStatus::Singular;
            return fallback ? *fallback : centroid;
        }
        for (int i = 0; i < n; ++i)
            b[i] /= sum;
    }
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < n; ++i)
        p += b[i] * meshNodes[key.nodes[i]];
    return p;
}

void ChunkOutput::beginTet(const Tet& nodes)
{
    tetNodes = nodes;
    tetNodeRefs.fill(kInvalidIndex);
}

void ChunkOutput::endTet()
{
    refEnd.push_back(Index(refs.size()));
    triangleEnd.push_back(Index(triangles.size()));
}

Index ChunkOutput::node(Index n, const std::vector<Vec3>& meshNodes)
{
    for (int k = 0; k < 4; ++k)
        if (tetNodes[k] == n)
        {
            if (tetNodeRefs[k] == kInvalidIndex)
            {
                SHATTER_ASSERT(n < kNodeRef, "node id too large for a vertex reference");
                tetNodeRefs[k] = Index(refs.size());
                refs.push_back(n | kNodeRef);
                positions.push_back(meshNodes[n]);
            }
            return tetNodeRefs[k];
        }
    SHATTER_ASSERT(false, "a node vertex that is not a node of the current tet");
    return kInvalidIndex;
}

Index ChunkOutput::vertex(const VertexKey& key, const std::vector<Vec3>& meshNodes, const Vec3* fallback)
{
    if (isNodeKey(key))
        return node(key.nodes[0], meshNodes);
    const Index next = Index(refs.size());
    const auto [it, inserted] = lookup.try_emplace(key, next);
    if (!inserted)
        return it->second;
    refs.push_back(Index(keys.size()));
    keys.push_back(key);
    if (key.nodeCount == 0)
    {
        SHATTER_ASSERT(fallback, "a polygon centre needs its position");
        positions.push_back(*fallback);
        keyStatus.push_back(VertexStatus::Exact);
        return next;
    }
    VertexStatus status;
    positions.push_back(solveVertex(key, meshNodes, fallback, status));
    keyStatus.push_back(status);
    return next;
}

Index ChunkOutput::siteVertex(const ValueTable& table, const Index* nodes, const std::uint32_t* sites,
                              int count, const std::vector<Vec3>& meshNodes)
{
    std::array<Index, 4> sorted{kInvalidIndex, kInvalidIndex, kInvalidIndex, kInvalidIndex};
    for (int i = 0; i < count; ++i)
        sorted[i] = nodes[i];
    for (int i = 1; i < count; ++i) // insertion sort (≤ 4 entries)
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; --j)
            std::swap(sorted[j], sorted[j - 1]);
    if (2 * (simplexCount + 1) > simplexTable.size())
    {
        std::vector<SimplexEntry> old = std::move(simplexTable);
        simplexTable.assign(std::max<std::size_t>(64, 2 * old.size()), SimplexEntry{});
        for (const SimplexEntry& e : old)
            if (e.vertex != kInvalidIndex)
            {
                std::size_t h = simplexHash(e.nodes) & (simplexTable.size() - 1);
                while (simplexTable[h].vertex != kInvalidIndex)
                    h = (h + 1) & (simplexTable.size() - 1);
                simplexTable[h] = e;
            }
    }
    std::size_t h = simplexHash(sorted) & (simplexTable.size() - 1);
    while (simplexTable[h].vertex != kInvalidIndex)
    {
        if (simplexTable[h].nodes == sorted)
            return simplexTable[h].vertex;
        h = (h + 1) & (simplexTable.size() - 1);
    }
    const Index id = vertex(siteVertexKey(table, nodes, count, sites, count), meshNodes);
    simplexTable[h] = {sorted, id};
    ++simplexCount;
    return id;
}

void ChunkOutput::triangle(Index piece, Index a, Index b, Index c, std::uint8_t crack)
{
    // Collapsed vertices of the canonical schemes (tessellation_tet.cpp) give repeated corners.
    if (a == b || b == c || a == c)
        return;
    triangles.push_back({piece, {a, b, c}, crack});
}

VertexKey nodeKey(Index node)
{
    VertexKey key;
    key.nodes[0] = node;
    key.nodeCount = 1;
    return key;
}

VertexKey siteVertexKey(const ValueTable& table, const Index* nodes, int nodeCount,
                        const std::uint32_t* sites, int siteCount)
{
    VertexKey key;
    key.nodeCount = std::uint8_t(nodeCount);
    key.functionCount = std::uint8_t(siteCount);
    for (int i = 0; i < nodeCount; ++i)
        key.nodes[i] = nodes[i];
    for (int f = 0; f < siteCount; ++f)
    {
        key.classOf[f] = 0;
        for (int i = 0; i < nodeCount; ++i)
            key.values[f][i] = table.value(nodes[i], sites[f]);
    }
    canonicalize(key);
    return key;
}

} // namespace shatter::fracture::detail
