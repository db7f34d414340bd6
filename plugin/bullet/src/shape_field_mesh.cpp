// The distance field of a triangle mesh (btBvhTriangleMeshShape, btScaledBvhTriangleMeshShape,
// btHeightfieldTerrainShape, btGImpactMeshShape):
// our TriangleBvh over its triangles answers the closest point, and the angle-weighted pseudonormal of
// the face, edge or vertex holding it gives the side (Bærentzen & Aanæs 2005), as in
// signed_distance.h — but Bullet meshes are usually open (terrain, floors), so the solid is a layer:
// the points on the back side of the surface within `thickness` of it (see shape_field.h).
//
// Why a layer. An open surface has no inside; a ground mesh still has to push fragments up when they
// sink into it (TVCG §3's penetration). Treating the back side as solid down to a depth keeps the
// push-out direction through the front surface, and bounding the depth keeps a thin floor from
// grabbing objects that are really underneath it.
//
// sphereTest. A sphere that does not touch the surface touches the layer only if some point of it is
// on the back side within `thickness`, so it lies within r + thickness of the surface: one BVH query
// with that reach decides "no" for most spheres. For a closed, consistently oriented mesh the side is
// the same for all points of a ball that misses the surface (the pseudonormal sign is the winding
// number's), so a ball on the front side is culled. On an open mesh the side can change off the
// surface (around a boundary edge, between two sheets), so there the reach test alone decides.
#include "shape_field_detail.h"

#include "shatter/error.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btStridingMeshInterface.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>

#include <cmath>
#include <map>

namespace shatter::detail
{

namespace
{

// Collects triangle corners and welds exactly equal ones (a mesh interface reports a shared vertex
// with identical bits every time), so edges and vertices get proper pseudonormals.
class TriangleCollector : public btInternalTriangleIndexCallback, public btTriangleCallback
{
public:
    explicit TriangleCollector(const Vec3& scale) : scale(scale) {}

    void processTriangle(btVector3* triangle, int part, int index) override
    {
        internalProcessTriangleIndex(triangle, part, index);
    }
    void internalProcessTriangleIndex(btVector3* triangle, int, int) override
    {
        Triangle t;
        for (int k = 0; k < 3; ++k)
        {
            const Vec3 v =
                scale.cwiseProduct(Vec3(Real(triangle[k].x()), Real(triangle[k].y()), Real(triangle[k].z())));
            const auto [it, inserted] = ids.try_emplace({v.x(), v.y(), v.z()}, Index(mesh.vertices.size()));
            if (inserted)
                mesh.vertices.push_back(v);
            t[k] = it->second;
        }
        mesh.triangles.push_back(t);
    }

    TriMesh mesh;

private:
    Vec3 scale;
    std::map<std::array<Real, 3>, Index> ids;
};

// Angle of the triangle's corner k.
Real cornerAngle(const TriMesh& mesh, const Triangle& t, int k)
{
    const Vec3& a = mesh.vertices[t[k]];
    const Vec3 u = mesh.vertices[t[(k + 1) % 3]] - a;
    const Vec3 v = mesh.vertices[t[(k + 2) % 3]] - a;
    return std::atan2(u.cross(v).norm(), u.dot(v));
}

Vec3 normalizedOr(const Vec3& v, const Vec3& fallback)
{
    const Real len = v.norm();
    return len > 0 ? Vec3(v / len) : fallback;
}

} // namespace

MeshField MeshField::make(const btCollisionShape& shape, Real thickness)
{
    const btVector3 huge(BT_LARGE_FLOAT, BT_LARGE_FLOAT, BT_LARGE_FLOAT);
    const int type = shape.getShapeType();
    if (type == TERRAIN_SHAPE_PROXYTYPE || type == GIMPACT_SHAPE_PROXYTYPE)
    {
        // Their own triangle enumeration applies their scaling (a GImpact mesh must have had its
        // updateBound(), as Bullet's GImpact algorithm requires too).
        TriangleCollector collector(Vec3::Ones());
        static_cast<const btConcaveShape&>(shape).processAllTriangles(&collector, -huge, huge);
        if (type == TERRAIN_SHAPE_PROXYTYPE)
        {
            // A height map's front is up whatever its triangles' winding (btHeightfieldTerrainShape can
            // flip it): turn each triangle to face along the up axis.
            const int up = static_cast<const btHeightfieldTerrainShape&>(shape).getUpAxis();
            TriMesh& mesh = collector.mesh;
            for (Index t = 0; t < mesh.triangles.size(); ++t)
                if (mesh.normal(t)[up] < 0)
                    std::swap(mesh.triangles[t][1], mesh.triangles[t][2]);
        }
        return make(std::move(collector.mesh), thickness);
    }
    const btTriangleMeshShape* meshShape = nullptr;
    Vec3 scale = Vec3::Ones();
    if (type == SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE)
    {
        const auto& scaled = static_cast<const btScaledBvhTriangleMeshShape&>(shape);
        meshShape = scaled.getChildShape();
        const btVector3& s = scaled.getLocalScaling();
        scale = Vec3(Real(s.x()), Real(s.y()), Real(s.z()));
    }
    else if (type == TRIANGLE_MESH_SHAPE_PROXYTYPE || type == MULTIMATERIAL_TRIANGLE_MESH_PROXYTYPE)
        meshShape = static_cast<const btTriangleMeshShape*>(&shape);
    if (!meshShape || !meshShape->getMeshInterface())
        throw Error(shape.getName(), "not a triangle mesh shape with a mesh interface");
    // Every triangle: the interface applies its own scaling (the mesh shape's local scaling), the
    // scaled wrapper's scaling comes on top.
    TriangleCollector collector(scale);
    meshShape->getMeshInterface()->InternalProcessAllTriangles(&collector, -huge, huge);
    return make(std::move(collector.mesh), thickness);
}

MeshField MeshField::make(TriMesh input, Real thickness)
{
    MeshField f;
    f.thickness = thickness;
    for (const Vec3& v : input.vertices)
        if (!v.allFinite())
            throw Error("triangle mesh", "a vertex is not finite");
    // Zero-area triangles have no normal to give a side: drop them (their edges belong to others).
    f.mesh.vertices = std::move(input.vertices);
    for (const Triangle& t : input.triangles)
    {
        for (Index v : t)
            if (v >= f.mesh.vertices.size())
                throw Error("triangle mesh", "a vertex index is out of range");
        const Vec3& a = f.mesh.vertices[t[0]];
        if ((f.mesh.vertices[t[1]] - a).cross(f.mesh.vertices[t[2]] - a).squaredNorm() > 0)
            f.mesh.triangles.push_back(t);
    }
    if (f.mesh.triangles.empty())
        throw Error("triangle mesh", "the mesh has no triangle with positive area");

    const Index n = Index(f.mesh.triangles.size());
    f.faceNormals.resize(n);
    for (Index t = 0; t < n; ++t)
        f.faceNormals[t] = f.mesh.normal(t);

    // Edge pseudonormals: sum of the adjacent face normals (one face on a boundary edge). The edge is
    // closed when exactly two triangles use it, once in each direction.
    struct EdgeInfo
    {
        Vec3 sum = Vec3::Zero();
        int forward = 0, backward = 0;
    };
    std::map<std::pair<Index, Index>, EdgeInfo> edges;
    for (Index t = 0; t < n; ++t)
        for (int k = 0; k < 3; ++k)
        {
            const Index a = f.mesh.triangles[t][k], b = f.mesh.triangles[t][(k + 1) % 3];
            EdgeInfo& e = edges[{std::min(a, b), std::max(a, b)}];
            e.sum += f.faceNormals[t];
            (a < b ? e.forward : e.backward) += 1;
        }
    f.closed = true;
    for (const auto& [key, e] : edges)
        f.closed = f.closed && e.forward == 1 && e.backward == 1;
    f.edgeNormals.resize(n);
    for (Index t = 0; t < n; ++t)
        for (int k = 0; k < 3; ++k)
        {
            const Index a = f.mesh.triangles[t][k], b = f.mesh.triangles[t][(k + 1) % 3];
            f.edgeNormals[t][k] = normalizedOr(edges[{std::min(a, b), std::max(a, b)}].sum, f.faceNormals[t]);
        }
    std::vector<Vec3> vertexSum(f.mesh.vertices.size(), Vec3::Zero());
    for (Index t = 0; t < n; ++t)
        for (int k = 0; k < 3; ++k)
            vertexSum[f.mesh.triangles[t][k]] +=
                cornerAngle(f.mesh, f.mesh.triangles[t], k) * f.faceNormals[t];
    f.vertexNormals.resize(vertexSum.size());
    for (std::size_t v = 0; v < vertexSum.size(); ++v)
        f.vertexNormals[v] = normalizedOr(vertexSum[v], Vec3::UnitZ());

    f.bvh = TriangleBvh(f.mesh);
    const Aabb box = f.bvh.bounds();
    f.surfaceTolerance = Real(1e-12) * box.extent().norm();
    for (const Vec3& v : f.mesh.vertices)
        f.originRadius = std::max(f.originRadius, v.norm());
    return f;
}

const Vec3& MeshField::pseudonormal(const ClosestPoint& hit) const
{
    switch (hit.feature)
    {
    case TriangleFeature::Face:
        return faceNormals[hit.triangle];
    case TriangleFeature::Edge0:
    case TriangleFeature::Edge1:
    case TriangleFeature::Edge2:
        return edgeNormals[hit.triangle][int(hit.feature) - int(TriangleFeature::Edge0)];
    default:
        return vertexNormals[mesh.triangles[hit.triangle][int(hit.feature) - int(TriangleFeature::Vertex0)]];
    }
}

FieldSample MeshField::sample(const Vec3& p, Real band) const
{
    FieldSample s;
    const Real reach = thickness + std::max(band, Real(0)) + surfaceTolerance;
    const ClosestPoint hit =
        bvh.closestPoint(p, std::nextafter(reach, std::numeric_limits<Real>::infinity()));
    if (!hit.found())
        return s;
    const Real d = hit.distance;
    if (d <= surfaceTolerance)
    {
        s.distance = 0;
        s.normal = faceNormals[hit.triangle];
        s.near = true;
        return s;
    }
    const Vec3 away = (p - hit.point) / d; // from the surface to p
    if (away.dot(pseudonormal(hit)) >= 0)
    {
        s.distance = d; // in front of the surface
        s.normal = away;
        s.near = d <= band;
    }
    else if (d <= thickness)
    {
        s.distance = -d; // inside the layer: out through the front surface
        s.normal = -away;
        s.near = true;
    }
    else
    {
        s.distance = d - thickness; // under the layer (a lower bound of the true distance)
        s.normal = away;
        s.near = s.distance <= band;
    }
    return s;
}

bool MeshField::sphereTest(const Vec3& p, Real r) const
{
    const Real reach = r + thickness + surfaceTolerance;
    const ClosestPoint hit =
        bvh.closestPoint(p, std::nextafter(reach, std::numeric_limits<Real>::infinity()));
    if (!hit.found())
        return false;
    if (hit.distance <= r + surfaceTolerance || !closed)
        return true;
    // Closed mesh, the ball misses the surface: it touches the layer iff its centre is behind it.
    return (p - hit.point).dot(pseudonormal(hit)) < 0;
}

} // namespace shatter::detail
