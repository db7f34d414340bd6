// Face neighbours of the tets of an asset (tessellation_detail.h: TetFaces), for the region walk and
// the boundary faces of the tessellation (CVD §5). They depend only on the asset's tet mesh, so they
// are built once per asset and kept while the asset lives (a weak reference, so a freed asset's entry
// is dropped and never matched by a new asset at the same address).
#include "tessellation_detail.h"

#include <mutex>

namespace shatter::fracture::detail
{

namespace
{

// Face neighbours: the other tet holding the three nodes of the face. A face of the (manifold) tet mesh
// has at most two tets, so a neighbour found from one side is also set from the other.
void buildTetFaces(const TetMesh& mesh, TetFaces& faces)
{
    constexpr Index kUnknown = kInvalidIndex - 1;
    faces.across.assign(mesh.tetCount(), {kUnknown, kUnknown, kUnknown, kUnknown});
    faces.acrossFace.assign(mesh.tetCount(), {-1, -1, -1, -1});
    for (Index t = 0; t < mesh.tetCount(); ++t)
    {
        const Tet& tet = mesh.tets[t];
        for (int f = 0; f < 4; ++f)
        {
            if (faces.across[t][f] != kUnknown)
                continue;
            const auto& c = kTetFaces[f];
            Index other = kInvalidIndex;
            int otherFace = -1;
            const Index a = tet[c[0]], b = tet[c[1]], d = tet[c[2]];
            for (Index i = mesh.nodeTetOffsets[a]; i < mesh.nodeTetOffsets[a + 1] && other == kInvalidIndex;
                 ++i)
            {
                const Index u = mesh.nodeTets[i];
                if (u == t)
                    continue;
                const Tet& o = mesh.tets[u];
                auto has = [&](Index n)
                {
                    return o[0] == n || o[1] == n || o[2] == n || o[3] == n;
                };
                if (!has(b) || !has(d))
                    continue;
                other = u;
                otherFace = 0; // face k of a tet is opposite its node k: the node not in this face
                while (o[otherFace] == a || o[otherFace] == b || o[otherFace] == d)
                    ++otherFace;
            }
            faces.across[t][f] = other;
            faces.acrossFace[t][f] = std::int8_t(otherFace);
            if (other != kInvalidIndex)
            {
                faces.across[other][otherFace] = t;
                faces.acrossFace[other][otherFace] = std::int8_t(f);
            }
        }
    }
}

} // namespace

std::shared_ptr<const TetFaces> tetFaces(const ObjectState& state)
{
    struct Entry
    {
        std::weak_ptr<const Asset> asset;
        std::shared_ptr<const TetFaces> faces;
    };
    static std::mutex mutex;
    static std::vector<Entry> cache;
    const std::shared_ptr<const Asset>& asset = state.assetPointer();
    std::lock_guard<std::mutex> lock(mutex);
    std::erase_if(cache, [](const Entry& e) { return e.asset.expired(); });
    for (const Entry& e : cache)
        if (!e.asset.owner_before(asset) && !asset.owner_before(e.asset))
            return e.faces;
    auto faces = std::make_shared<TetFaces>();
    buildTetFaces(asset->tetMesh, *faces);
    cache.push_back({asset, faces});
    return faces;
}

} // namespace shatter::fracture::detail
