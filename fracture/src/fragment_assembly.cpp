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

void assembleMeshes(const TessContext& ctx, const std::vector<ChunkOutput>& chunks,
                    const std::vector<Index>& pieceFragment, Index fragmentCount, FractureResult& result,
                    TessellationStats& stats)
{
    const Region& region = ctx.region;
    const TetMesh& mesh = ctx.state.asset().tetMesh;
    const TetFaces& faces = *region.faces;
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
                    const auto [it, inserted] = global.try_emplace(chunk.keys[ref], Index(positions.size()));
                    if (inserted)
                    {
                        positions.push_back(chunk.positions[r]);
                        stats.constrainedVertices += chunk.keyStatus[ref] == VertexStatus::Constrained;
                        stats.singularVertices += chunk.keyStatus[ref] == VertexStatus::Singular;
                    }
                    id = it->second;
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
        {
            // An uncut tet: its boundary faces (original surface, crack 0; or facing a tet without the
            // parent, crack 1) as single triangles of its one piece, corners the mesh nodes.
            const Index t = region.tets[slot];
            const std::array<Index, 4>& across = faces.across[t];
            if (across[0] != kInvalidIndex && across[1] != kInvalidIndex && across[2] != kInvalidIndex &&
                across[3] != kInvalidIndex && region.tetSlot[across[0]] != kInvalidIndex &&
                region.tetSlot[across[1]] != kInvalidIndex && region.tetSlot[across[2]] != kInvalidIndex &&
                region.tetSlot[across[3]] != kInvalidIndex)
                continue;
            const Tet& tet = mesh.tets[t];
            const Index fragment = pieceFragment[region.pieceStart[slot]];
            for (int f = 0; f < 4; ++f)
            {
                const Index other = across[f];
                const bool crack = other != kInvalidIndex && region.tetSlot[other] == kInvalidIndex;
                if (other != kInvalidIndex && !crack)
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
        // Almost every neighbour cell is empty: a bit filter over hashed cells answers most of the 27
        // lookups per vertex without touching the table.
        std::vector<std::uint64_t> occupied(std::size_t(1) << 14, 0); // 2^20 bits
        auto filterHash = [](std::uint64_t cell)
        {
            return (cell * 0x9e3779b97f4a7c15ull) >> 44; // 20 bits
        };
        auto filterSlot = [&](std::uint64_t cell)
        {
            return filterHash(cell) >> 6;
        };
        auto filterBit = [&](std::uint64_t cell)
        {
            return std::uint64_t(1) << (filterHash(cell) & 63);
        };
        std::vector<Index> target(positions.size());
        Index welded = 0;
        for (Index i = 0; i < positions.size(); ++i)
        {
            target[i] = i;
            const Vec3& p = positions[i];
            const std::array<std::int64_t, 3> q{std::int64_t(std::floor(p.x() / eps)),
                                                std::int64_t(std::floor(p.y() / eps)),
                                                std::int64_t(std::floor(p.z() / eps))};
            for (int dx = -1; dx <= 1 && target[i] == i; ++dx)
                for (int dy = -1; dy <= 1 && target[i] == i; ++dy)
                    for (int dz = -1; dz <= 1 && target[i] == i; ++dz)
                    {
                        const std::uint64_t cell = cellOf(q, dx, dy, dz);
                        if (!(occupied[filterSlot(cell)] & filterBit(cell)))
                            continue; // no representative in that cell (a filter: no false negatives)
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
                occupied[filterSlot(cell)] |= filterBit(cell);
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
    stats.fractureVertices = 0;
    for (const auto& [key, id] : global)
        stats.fractureVertices += key.nodeCount >= 2;

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
