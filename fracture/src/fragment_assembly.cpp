// Fragment surfaces from the per-tet triangles (CVD §5): vertices are welded by their keys (the same
// key always has the same position, fracture_vertex.cpp), triangles go to the fragment of their
// piece, and each fragment's vertices are numbered in order of first use. Chunks are merged in region
// order, so the meshes are identical for any thread count. Mass properties come from the closed
// surface by the divergence theorem (fragment_mesh.h).
#include "tessellation_detail.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>

namespace shatter::fracture::detail
{

namespace
{

constexpr std::uint64_t kNoCell = ~std::uint64_t(0); // cells use 63 bits

} // namespace

Index weldPositions(const std::vector<Vec3>& positions, Real eps, std::vector<Index>& target)
{
    // Representatives per cell as linked lists in insertion order (head, tail, next), the cells in
    // an open-addressing table (linear probing, at most half full): no allocation per cell.
    struct Cell
    {
        std::uint64_t key = kNoCell;
        Index head = kInvalidIndex, tail = kInvalidIndex;
    };
    std::size_t capacity = 16;
    while (capacity < 2 * positions.size())
        capacity *= 2;
    std::vector<Cell> grid(capacity);
    auto probe = [&](std::uint64_t cell) -> Cell&
    {
        std::size_t h = std::size_t((cell * 0x9e3779b97f4a7c15ull) >> 20) & (capacity - 1);
        while (grid[h].key != kNoCell && grid[h].key != cell)
            h = (h + 1) & (capacity - 1);
        return grid[h];
    };
    std::vector<Index> next(positions.size(), kInvalidIndex);
    // Cell coordinates, 21 bits each; the cell of a neighbour is the vertex's plus (dx, dy, dz).
    auto cellOf = [](const std::array<std::int64_t, 3>& q, int dx, int dy, int dz)
    {
        const auto c = [](std::int64_t v, int d)
        {
            return std::uint64_t(v + d) & 0x1fffff;
        };
        return c(q[0], dx) | c(q[1], dy) << 21 | c(q[2], dz) << 42;
    };
    // Almost every neighbour cell is empty: bit filters over hashed cells answer most lookups
    // without touching the table (filters have no false negatives). The coarse one, over blocks of
    // 4×4×4 cells, covers the 27 neighbour cells with at most 8 lookups; the fine one is asked
    // only when a block is occupied.
    std::vector<std::uint64_t> occupied(std::size_t(1) << 14, 0);      // 2^20 bits, per cell
    std::vector<std::uint64_t> occupiedBlock(std::size_t(1) << 14, 0); // 2^20 bits, per block
    auto filterHash = [](std::uint64_t cell)
    {
        return (cell * 0x9e3779b97f4a7c15ull) >> 44; // 20 bits
    };
    auto isSet = [&](const std::vector<std::uint64_t>& bits, std::uint64_t cell)
    {
        const std::uint64_t h = filterHash(cell);
        return (bits[h >> 6] >> (h & 63)) & 1;
    };
    auto set = [&](std::vector<std::uint64_t>& bits, std::uint64_t cell)
    {
        const std::uint64_t h = filterHash(cell);
        bits[h >> 6] |= std::uint64_t(1) << (h & 63);
    };
    auto blockOf = [](std::int64_t x, std::int64_t y, std::int64_t z)
    {
        return (std::uint64_t(x) & 0x1fffff) | (std::uint64_t(y) & 0x1fffff) << 21 |
               (std::uint64_t(z) & 0x1fffff) << 42;
    };
    target.resize(positions.size());
    Index welded = 0;
    for (Index i = 0; i < positions.size(); ++i)
    {
        target[i] = i;
        const Vec3& p = positions[i];
        const std::array<std::int64_t, 3> q{std::int64_t(std::floor(p.x() / eps)),
                                            std::int64_t(std::floor(p.y() / eps)),
                                            std::int64_t(std::floor(p.z() / eps))};
        bool near = false; // a block around the 27 cells holds a representative
        for (std::int64_t bx = (q[0] - 1) >> 2; bx <= (q[0] + 1) >> 2 && !near; ++bx)
            for (std::int64_t by = (q[1] - 1) >> 2; by <= (q[1] + 1) >> 2 && !near; ++by)
                for (std::int64_t bz = (q[2] - 1) >> 2; bz <= (q[2] + 1) >> 2 && !near; ++bz)
                    near = isSet(occupiedBlock, blockOf(bx, by, bz));
        if (near)
            for (int dx = -1; dx <= 1 && target[i] == i; ++dx)
                for (int dy = -1; dy <= 1 && target[i] == i; ++dy)
                    for (int dz = -1; dz <= 1 && target[i] == i; ++dz)
                    {
                        const std::uint64_t cell = cellOf(q, dx, dy, dz);
                        if (!isSet(occupied, cell))
                            continue; // no representative in that cell
                        const Cell& c = probe(cell);
                        for (Index j = c.head; j != kInvalidIndex; j = next[j])
                            if ((positions[j] - p).norm() <= eps)
                            {
                                target[i] = j;
                                break;
                            }
                    }
        if (target[i] == i)
        {
            const std::uint64_t cell = cellOf(q, 0, 0, 0);
            set(occupied, cell);
            set(occupiedBlock, blockOf(q[0] >> 2, q[1] >> 2, q[2] >> 2));
            Cell& c = probe(cell);
            if (c.key == kNoCell)
                c = {cell, i, i};
            else
            {
                next[c.tail] = i;
                c.tail = i;
            }
        }
        else
            ++welded;
    }
    return welded;
}

void assembleMeshes(const TessContext& ctx, const std::vector<ChunkOutput>& chunks,
                    const std::vector<Index>& pieceFragment, Index fragmentCount, FractureResult& result,
                    TessellationStats& stats)
{
    const Region& region = ctx.region;
    const TetMesh& mesh = ctx.state.asset().tetMesh;
    std::unordered_map<VertexKey, Index, VertexKeyHash> global;
    std::vector<Vec3> positions;
    struct Tri
    {
        Index fragment;
        std::array<Index, 3> v;
        std::uint8_t crack;
    };
    std::vector<Tri> triangles;
    std::vector<Index> remap, keyGlobal;
    // Global vertex ids in order of first use over the region tets in order; node vertices by node id.
    std::vector<Index> nodeGlobal(mesh.nodeCount(), kInvalidIndex);
    std::size_t keyCount = 0, triangleCount = 0;
    for (const ChunkOutput& chunk : chunks)
    {
        keyCount += chunk.keys.size();
        triangleCount += chunk.triangles.size();
    }
    const bool singleChunk = chunks.size() == 1;
    if (!singleChunk)
        global.reserve(keyCount);
    positions.reserve(keyCount + mesh.surfaceNodeCount);
    triangles.reserve(triangleCount + 2 * std::size_t(mesh.surfaceNodeCount));
    auto nodeId = [&](Index node)
    {
        Index& id = nodeGlobal[node];
        if (id == kInvalidIndex)
        {
            id = Index(positions.size());
            positions.push_back(ctx.meshNodes[node]);
        }
        return id;
    };
    const Index slotCount = Index(region.tets.size());
    std::size_t c = 0, cursor = 0; // the cursor cut tet: chunks[c].slots[cursor]
    auto startChunk = [&]
    {
        if (c < chunks.size())
        {
            remap.resize(chunks[c].refs.size());
            keyGlobal.assign(chunks[c].keys.size(), kInvalidIndex);
        }
    };
    startChunk();
    for (Index slot = 0; slot < slotCount; ++slot)
    {
        if (c < chunks.size() && chunks[c].slots[cursor] == slot)
        {
            const ChunkOutput& chunk = chunks[c];
            const Index refBegin = cursor ? chunk.refEnd[cursor - 1] : 0;
            const Index triBegin = cursor ? chunk.triangleEnd[cursor - 1] : 0;
            for (Index r = refBegin; r < chunk.refEnd[cursor]; ++r)
            {
                const Index ref = chunk.refs[r];
                if (ref & ChunkOutput::kNodeRef)
                {
                    remap[r] = nodeId(ref & ~ChunkOutput::kNodeRef);
                    continue;
                }
                Index& id = keyGlobal[ref];
                if (id == kInvalidIndex)
                {
                    // A chunk holds each key once, so a single chunk's keys are all new.
                    Index found = Index(positions.size());
                    if (!singleChunk)
                        found = global.try_emplace(chunk.keys[ref], found).first->second;
                    if (found == positions.size())
                    {
                        positions.push_back(chunk.positions[r]);
                        stats.fractureVertices += chunk.keys[ref].nodeCount >= 2;
                        stats.constrainedVertices += chunk.keyStatus[ref] == VertexStatus::Constrained;
                        stats.singularVertices += chunk.keyStatus[ref] == VertexStatus::Singular;
                    }
                    id = found;
                }
                remap[r] = id;
            }
            for (Index i = triBegin; i < chunk.triangleEnd[cursor]; ++i)
            {
                const OutTriangle& t = chunk.triangles[i];
                triangles.push_back(
                    {pieceFragment[t.piece], {remap[t.v[0]], remap[t.v[1]], remap[t.v[2]]}, t.crack});
            }
            if (++cursor == chunk.slots.size())
            {
                ++c;
                cursor = 0;
                startChunk();
            }
            continue;
        }
        // An uncut tet: its boundary faces (original surface, crack 0; or facing a tet without the
        // parent, crack 1) as single triangles of its one piece, corners the mesh nodes.
        const unsigned boundary = region.boundary[slot];
        if (boundary == 0)
            continue;
        const Tet& tet = mesh.tets[region.tets[slot]];
        const Index fragment = pieceFragment[region.pieceStart[slot]];
        for (int f = 0; f < 4; ++f)
        {
            const bool surface = boundary & (1u << f), crack = boundary & (0x10u << f);
            if (!surface && !crack)
                continue;
            // kTetFaces is clockwise from outside: swap two corners for an outward triangle. Ids
            // are given in the order c[1], c[2], c[0].
            const auto& k = kTetFaces[f];
            const Index v1 = nodeId(tet[k[1]]);
            const Index v2 = nodeId(tet[k[2]]);
            const Index v0 = nodeId(tet[k[0]]);
            triangles.push_back({fragment, {v0, v2, v1}, std::uint8_t(crack)});
        }
    }
    // Position weld (a safety net: with complete keys no vertex needed it in the stress runs): a point
    // reached through two different keys (a corner of a clipped polytope that lies on more planes than
    // its simplex needs, or on more than a key holds, tessellation_region.cpp) has two positions that
    // differ by round-off. Vertices closer than 1e-10 of the bounding diagonal are merged into the
    // earliest one (ids in merge order: deterministic); triangles that collapse are dropped by both
    // sides alike, which keeps every surface closed.
    {
        Aabb box;
        for (const Vec3& p : positions)
            box.grow(p);
        const Real eps = 1e-10 * std::max(box.extent().norm(), Real(1e-300));
        std::vector<Index> target;
        const Index welded = weldPositions(positions, eps, target);
        stats.weldedVertices += welded;
        // Without a weld no triangle changes: its corners are distinct (within one tet, distinct
        // vertices have distinct keys).
        if (welded != 0)
        {
            std::vector<Tri> kept;
            kept.reserve(triangles.size());
            for (Tri t : triangles)
            {
                for (Index& v : t.v)
                    v = target[v];
                if (t.v[0] != t.v[1] && t.v[1] != t.v[2] && t.v[0] != t.v[2])
                    kept.push_back(t);
            }
            triangles = std::move(kept);
        }
    }

    // Per fragment, vertices numbered in order of first use (triangles stably grouped by fragment:
    // a counting sort).
    std::vector<Index> fragmentStart(fragmentCount + 1, 0);
    for (const Tri& t : triangles)
        ++fragmentStart[t.fragment + 1];
    for (Index f = 0; f < fragmentCount; ++f)
        fragmentStart[f + 1] += fragmentStart[f];
    std::vector<FragmentMesh> meshes(fragmentCount);
    for (Index f = 0; f < fragmentCount; ++f)
    {
        meshes[f].surface.triangles.reserve(fragmentStart[f + 1] - fragmentStart[f]);
        // A closed surface has about half as many vertices as triangles.
        meshes[f].surface.vertices.reserve((fragmentStart[f + 1] - fragmentStart[f]) / 2 + 4);
        meshes[f].crack.reserve(fragmentStart[f + 1] - fragmentStart[f]);
    }
    std::vector<Tri> grouped(triangles.size());
    for (const Tri& t : triangles)
        grouped[fragmentStart[t.fragment]++] = t;
    triangles = std::move(grouped);
    std::vector<Index> local(positions.size(), kInvalidIndex);
    std::vector<Index> stamp(positions.size(), kInvalidIndex);
    for (const Tri& t : triangles)
    {
        FragmentMesh& m = meshes[t.fragment];
        Triangle tri;
        for (int c = 0; c < 3; ++c)
        {
            const Index g = t.v[c];
            if (stamp[g] != t.fragment)
            {
                stamp[g] = t.fragment;
                local[g] = Index(m.surface.vertices.size());
                m.surface.vertices.push_back(positions[g]);
            }
            tri[c] = local[g];
        }
        m.surface.triangles.push_back(tri);
        m.crack.push_back(t.crack);
    }
    stats.triangles = 0;
    stats.mass.clear();
    for (Index f = 0; f < fragmentCount; ++f)
    {
        FragmentMesh& m = meshes[f];
        stats.triangles += Index(m.surface.triangles.size());
        result.meshes.push_back(std::make_shared<const FragmentMesh>(std::move(m)));
    }
}

} // namespace shatter::fracture::detail
