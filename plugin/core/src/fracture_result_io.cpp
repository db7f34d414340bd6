#include "fracture_result_io.h"

#include <cmath>
#include <string>

namespace shatter
{

namespace
{

// Limits of a plausible result (far above any real event), so that a corrupt count fails here rather
// than as a huge allocation.
constexpr std::uint64_t kMaxFragments = std::uint64_t(1) << 16;

void writeMesh(BinaryWriter& w, const FragmentMesh& mesh)
{
    w.vec3s(mesh.surface.vertices);
    w.array(mesh.surface.triangles);
    w.array(mesh.crack);
}

std::shared_ptr<const FragmentMesh> readMesh(BinaryReader& r, std::size_t index)
{
    auto mesh = std::make_shared<FragmentMesh>();
    mesh->surface.vertices = r.vec3s();
    mesh->surface.triangles = r.array<Triangle>();
    mesh->crack = r.array<std::uint8_t>();
    const std::string which = "fragment mesh " + std::to_string(index);
    for (const Vec3& v : mesh->surface.vertices)
        if (!v.allFinite())
            r.fail(which + " has a non-finite vertex");
    const std::size_t vertexCount = mesh->surface.vertices.size();
    for (const Triangle& t : mesh->surface.triangles)
        for (Index v : t)
            if (v >= vertexCount)
                r.fail(which + " has a triangle that refers to vertex " + std::to_string(v) + " of " +
                       std::to_string(vertexCount));
    if (!mesh->crack.empty() && mesh->crack.size() != mesh->surface.triangles.size())
        r.fail(which + " has " + std::to_string(mesh->crack.size()) + " crack flags for " +
               std::to_string(mesh->surface.triangles.size()) + " triangles");
    return mesh;
}

} // namespace

void writeFractureResult(BinaryWriter& w, const FractureResult& result)
{
    w.value(result.parent);
    w.array(result.fragments);
    w.array(result.nodes);
    w.array(result.nodeFragments);
    // Field by field: the struct has padding, whose bytes would make two saves of one state differ.
    w.value<std::uint64_t>(result.cutTets.size());
    for (const CutTetRecord& record : result.cutTets)
    {
        w.value(record.tet);
        w.value(record.count);
        w.value(record.fragments);
        w.value(record.values);
    }
    w.array(result.cutEdges);
    w.value<std::uint64_t>(result.meshes.size());
    for (const auto& mesh : result.meshes)
    {
        SHATTER_ASSERT(mesh, "apply() accepted the result: its meshes are not null");
        writeMesh(w, *mesh);
    }
}

FractureResult readFractureResult(BinaryReader& r)
{
    FractureResult result;
    result.parent = r.value<FragmentId>();
    result.fragments = r.array<FragmentId>(kMaxFragments);
    result.nodes = r.array<Index>();
    result.nodeFragments = r.array<FragmentId>();
    if (result.nodes.size() != result.nodeFragments.size())
        r.fail("a fracture event lists " + std::to_string(result.nodes.size()) + " nodes and " +
               std::to_string(result.nodeFragments.size()) + " node fragments");
    constexpr std::size_t kRecordBytes = sizeof(Index) + 1 + sizeof(CutTetRecord::fragments) +
                                         sizeof(CutTetRecord::values);
    const auto records = r.value<std::uint64_t>();
    if (records > r.remaining() / kRecordBytes)
        r.fail("a fracture event lists " + std::to_string(records) + " cut tets, more than the bytes hold");
    result.cutTets.resize(records);
    for (CutTetRecord& record : result.cutTets)
    {
        record.tet = r.value<Index>();
        record.count = r.value<std::uint8_t>();
        record.fragments = r.value<std::array<FragmentId, 4>>();
        record.values = r.value<std::array<std::array<Real, 4>, 4>>();
    }
    result.cutEdges = r.array<CutEdge>();
    for (const CutTetRecord& record : result.cutTets)
        for (const auto& row : record.values)
            for (Real v : row)
                if (!std::isfinite(v))
                    r.fail("a fracture event's record of tet " + std::to_string(record.tet) +
                           " has a non-finite value");
    for (const CutEdge& edge : result.cutEdges)
        if (!(edge.t > 0 && edge.t < 1))
            r.fail("a fracture event's cut edge (" + std::to_string(edge.node0) + ", " +
                   std::to_string(edge.node1) + ") is not cut strictly between its nodes");
    const auto meshCount = r.value<std::uint64_t>();
    if (meshCount != 0 && meshCount != result.fragments.size())
        r.fail("a fracture event has " + std::to_string(meshCount) + " meshes for " +
               std::to_string(result.fragments.size()) + " fragments");
    result.meshes.reserve(meshCount);
    for (std::uint64_t i = 0; i < meshCount; ++i)
        result.meshes.push_back(readMesh(r, i));
    return result;
}

} // namespace shatter
