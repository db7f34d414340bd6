// AnalyticFracture's brute-force references (classification, exact distances) and the fixture helpers
// (meshes, assets, random planes and sites).
#include "asset_build.h"
#include "fracture_fixtures.h"

#include "fracture_fixtures_state.h"
#include "mesh_import.h"
#include "shatter/error.h"
#include "test_paths.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace shatter::test
{

AnalyticFracture::State::State(const TetMesh& m, const TriMesh& s) : mesh(m), surface(s), bvh(s)
{
    if (mesh.nodeTetOffsets.size() != std::size_t(mesh.nodeCount()) + 1)
        throw Error("AnalyticFracture", "the tet mesh needs connectivity");
    meanEdge = mesh.meanEdgeLength();
    Aabb bounds;
    for (const Vec3& p : mesh.nodes)
        bounds.grow(p);
    diagonal = bounds.extent().norm();

    const Index tetCount = mesh.tetCount();
    regions.resize(tetCount);
    fragments.resize(1);
    FixtureFragment& whole = fragments[0];
    whole.alive = true;
    tetBoxes.resize(tetCount);
    for (Index t = 0; t < tetCount; ++t)
    {
        FixtureRegion region;
        region.fragment = 0;
        makeTetPolytope(mesh.corners(t), region.poly);
        region.volume = mesh.tetVolume(t);
        whole.volume += region.volume;
        whole.tets.push_back(t);
        whole.refs.push_back({t, 0, region.poly.bounds()});
        tetBoxes[t] = region.poly.bounds();
        regions[t].push_back(std::move(region));
    }
    whole.sortRefs();
    nodeFragment.assign(mesh.nodeCount(), 0);

    // Face neighbours through sorted node triples.
    std::vector<std::array<Index, 5>> faces; // sorted triple, tet, face
    for (Index t = 0; t < tetCount; ++t)
        for (int k = 0; k < 4; ++k)
        {
            std::array<Index, 3> key{mesh.tets[t][kTetFaces[k][0]], mesh.tets[t][kTetFaces[k][1]],
                                     mesh.tets[t][kTetFaces[k][2]]};
            std::sort(key.begin(), key.end());
            faces.push_back({key[0], key[1], key[2], t, Index(k)});
        }
    std::sort(faces.begin(), faces.end());
    faceNeighbors.assign(tetCount, {kInvalidIndex, kInvalidIndex, kInvalidIndex, kInvalidIndex});
    for (std::size_t i = 0; i + 1 < faces.size(); ++i)
        if (faces[i][0] == faces[i + 1][0] && faces[i][1] == faces[i + 1][1] &&
            faces[i][2] == faces[i + 1][2])
        {
            faceNeighbors[faces[i][3]][faces[i][4]] = faces[i + 1][3];
            faceNeighbors[faces[i + 1][3]][faces[i + 1][4]] = faces[i][3];
        }

    tetsByMinX.resize(tetCount);
    for (Index t = 0; t < tetCount; ++t)
    {
        tetsByMinX[t] = t;
        maxTetWidthX = std::max(maxTetWidthX, tetBoxes[t].extent().x());
    }
    std::sort(tetsByMinX.begin(), tetsByMinX.end(),
              [&](Index a, Index b) { return tetBoxes[a].min.x() < tetBoxes[b].min.x(); });
    const Real slack = Real(1e-9) * diagonal; // covers float rounding and the barycentric tolerance
    for (Index t : tetsByMinX)
    {
        const Aabb& b = tetBoxes[t];
        boxMinX.push_back(float(b.min.x() - slack));
        boxRest.push_back({float(b.max.x() + slack), float(b.min.y() - slack), float(b.max.y() + slack),
                           float(b.min.z() - slack), float(b.max.z() + slack)});
    }

    for (const Triangle& tri : surface.triangles)
    {
        Aabb box;
        for (Index v : tri)
            box.grow(surface.vertices[v]);
        triangleBoxes.push_back(box);
    }
    surfaceKnown.assign(mesh.nodeCount(), 0);
    surfaceDistance.resize(mesh.nodeCount());
}

Index AnalyticFracture::State::findTet(const Vec3& p) const
{
    // Every tet whose box holds p (boxes as floats rounded outward, sorted by min x), then the exact
    // barycentric test.
    const float x = float(p.x()), y = float(p.y()), z = float(p.z());
    std::size_t i = std::size_t(std::upper_bound(boxMinX.begin(), boxMinX.end(), x) - boxMinX.begin());
    const float stop = x - float(maxTetWidthX) * 1.001f;
    while (i-- > 0 && boxMinX[i] >= stop)
    {
        const std::array<float, 5>& b = boxRest[i];
        if (x > b[0] || y < b[1] || y > b[2] || z < b[3] || z > b[4])
            continue;
        const Index t = tetsByMinX[i];
        if (barycentric(mesh.corners(t), p).minCoeff() >= -1e-12)
            return t;
    }
    return kInvalidIndex;
}

const ReferenceDistance& AnalyticFracture::State::surfaceDistanceOf(Index node) const
{
    ReferenceDistance& out = surfaceDistance[node];
    if (surfaceKnown[node])
        return out;
    surfaceKnown[node] = 1;
    // Brute force over every triangle; the BVH answer only provides the pruning bound, and any closer
    // triangle found by the scan replaces it.
    const Vec3& x = mesh.nodes[node];
    const ClosestPoint hint = bvh.closestPoint(x);
    const Real bound = hint.distance + Real(1e-9);
    Real best = std::numeric_limits<Real>::infinity();
    Vec3 bestPoint = Vec3::Zero();
    std::vector<std::pair<Real, Vec3>> near;
    for (std::size_t t = 0; t < surface.triangles.size(); ++t)
    {
        if (triangleBoxes[t].distance(x) > bound)
            continue;
        const Triangle& tri = surface.triangles[t];
        const Vec3 c = closestPointOnTriangle(x, surface.vertices[tri[0]], surface.vertices[tri[1]],
                                              surface.vertices[tri[2]])
                           .point;
        const Real d = (c - x).norm();
        near.push_back({d, c});
        if (d < best)
        {
            best = d;
            bestPoint = c;
        }
    }
    out.distance = best;
    out.direction = best > 0 ? Vec3((bestPoint - x) / best) : Vec3::Zero();
    out.ambiguous = !(best > 1e-12);
    for (const auto& [d, c] : near)
        out.ambiguous |= d <= best + 1e-9 && (c - bestPoint).norm() > Real(1e-7) * diagonal;
    return out;
}

ReferencePoint AnalyticFracture::classify(const Vec3& p) const
{
    ReferencePoint r;
    const Real cap = Real(1e-3) * state->diagonal;
    const Real surfaceDistance = std::min(cap, state->bvh.closestPoint(p, cap).distance);
    const Index t = state->findTet(p);
    if (t == kInvalidIndex)
    {
        r.margin = surfaceDistance;
        return r;
    }
    for (const FixtureRegion& region : state->regions[t])
    {
        Real slack = std::numeric_limits<Real>::infinity();
        bool inside = true;
        for (const Plane& plane : region.planes)
        {
            const Real sd = plane.signedDistance(p);
            inside &= sd <= 0;
            slack = std::min(slack, -sd);
        }
        if (inside)
        {
            r.fragment = region.fragment;
            r.margin = std::min(slack, surfaceDistance);
            return r;
        }
    }
    return r; // on a crack to round-off: margin 0
}

ReferenceDistance AnalyticFracture::exactDistance(Index node) const
{
    const State& s = *state;
    ReferenceDistance best = s.surfaceDistanceOf(node);
    const Vec3& x = s.mesh.nodes[node];
    struct Candidate
    {
        Real distance;
        Vec3 direction;
    };
    std::vector<Candidate> candidates{{best.distance, best.direction}};
    for (const Plane& plane : s.fragments[s.nodeFragment[node]].history)
    {
        const Real d = std::max(Real(0), -plane.signedDistance(x));
        candidates.push_back({d, plane.normal});
        if (d < best.distance)
            best = {d, plane.normal, !(d > 1e-12)};
    }
    for (const Candidate& c : candidates)
        best.ambiguous |= c.distance <= best.distance + 1e-9 && c.direction.dot(best.direction) < 1 - 1e-9;
    return best;
}

ReferenceDistance AnalyticFracture::exactDistanceAt(const Vec3& p, FragmentId f) const
{
    const ClosestPoint hit = state->bvh.closestPoint(p);
    ReferenceDistance best{hit.distance,
                           hit.distance > 0 ? Vec3((hit.point - p) / hit.distance) : Vec3::Zero(), false};
    for (const Plane& plane : state->fragments[f].history)
    {
        const Real d = std::max(Real(0), -plane.signedDistance(p));
        if (d < best.distance)
            best = {d, plane.normal, false};
    }
    return best;
}

Real AnalyticFracture::distanceToFragment(const Vec3& p, FragmentId f, Real stopBelow, Real giveUpAbove) const
{
    // Regions sorted by box.min.x, scanned outward from p.x in both directions, so that near regions
    // come first and the x-gap prunes the rest: a region whose box starts more than `best` beyond p,
    // or ends (min.x + widest width) more than `best` before it, cannot be closer.
    const FixtureFragment& frag = state->fragments[f];
    const std::vector<FixtureRegionRef>& refs = frag.refs;
    std::size_t up =
        std::size_t(std::upper_bound(refs.begin(), refs.end(), p.x(),
                                     [](Real x, const FixtureRegionRef& r) { return x < r.box.min.x(); }) -
                    refs.begin());
    std::size_t down = up;
    Real best = giveUpAbove;
    bool found = false;
    auto visit = [&](const FixtureRegionRef& r)
    {
        const Real boxDistance = r.box.distance(p);
        if (boxDistance > best || (found && boxDistance >= best))
            return;
        const Real d = state->regions[r.tet][r.region].poly.distance(p);
        if (d <= best)
        {
            best = d;
            found = true;
        }
    };
    for (;;)
    {
        const bool canGoDown = down > 0 && refs[down - 1].box.min.x() >= p.x() - best - frag.maxRefWidthX;
        const bool canGoUp = up < refs.size() && refs[up].box.min.x() <= p.x() + best;
        if (!canGoDown && !canGoUp)
            break;
        if (canGoDown)
            visit(refs[--down]);
        if (canGoUp)
            visit(refs[up++]);
        if (found && best <= stopBelow)
            break;
    }
    return found ? best : std::numeric_limits<Real>::infinity();
}

std::vector<std::array<Vec3, 3>> AnalyticFracture::crackTriangles(FragmentId f) const
{
    std::vector<std::array<Vec3, 3>> triangles;
    for (const FixtureRegionRef& ref : state->fragments[f].refs)
    {
        const ConvexPolytope& poly = state->regions[ref.tet][ref.region].poly;
        for (const PolytopeFace& face : poly.faces)
            if (face.tag >= 4)
                for (Index k = 1; k + 1 < face.count; ++k)
                    triangles.push_back({poly.corners[face.first], poly.corners[face.first + k],
                                         poly.corners[face.first + k + 1]});
    }
    return triangles;
}

TriMesh subdividedBox(const Vec3& half, int n)
{
    TriMesh mesh;
    std::map<std::array<int, 3>, Index> ids;
    auto vertex = [&](std::array<int, 3> lattice)
    {
        const auto [it, inserted] = ids.try_emplace(lattice, Index(mesh.vertices.size()));
        if (inserted)
        {
            Vec3 p;
            for (int a = 0; a < 3; ++a)
                p[a] = -half[a] + 2 * half[a] * Real(lattice[a]) / Real(n);
            mesh.vertices.push_back(p);
        }
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side <= n; side += n)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j)
                {
                    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
                    std::array<Index, 4> q;
                    const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
                    for (int c = 0; c < 4; ++c)
                    {
                        std::array<int, 3> l{};
                        l[axis] = side;
                        l[u] = i + du[c];
                        l[v] = j + dv[c];
                        q[c] = vertex(l);
                    }
                    if (side == n)
                    {
                        mesh.triangles.push_back({q[0], q[1], q[2]});
                        mesh.triangles.push_back({q[0], q[2], q[3]});
                    }
                    else
                    {
                        mesh.triangles.push_back({q[0], q[2], q[1]});
                        mesh.triangles.push_back({q[0], q[3], q[2]});
                    }
                }
    return mesh;
}

std::shared_ptr<const Asset> buildTestAsset(TriMesh mesh, const std::string& name, Real maxEdgeFactor)
{
    AssetSettings options;
    options.tets.maxEdgeFactor = maxEdgeFactor;
    return std::make_shared<const Asset>(cookAsset(std::move(mesh), name, options));
}

std::shared_ptr<const Asset> loadTestAsset(const std::string& file, Real maxEdgeFactor)
{
    const std::filesystem::path path = meshDir() / file;
    if (!std::filesystem::exists(path))
        throw Error(path.string(), "test asset is missing");
    return buildTestAsset(importMesh(path), std::filesystem::path(file).stem().string(), maxEdgeFactor);
}

Plane randomPlane(const Aabb& box, std::mt19937_64& rng)
{
    std::uniform_real_distribution<Real> u(0.25, 0.75);
    std::normal_distribution<Real> g;
    const Vec3 point = box.min + box.extent().cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
    Vec3 n(g(rng), g(rng), g(rng));
    n.normalize();
    return {n, n.dot(point)};
}

std::vector<Vec3> randomSites(const AnalyticFracture& fixture, const TetMesh& mesh, FragmentId f, int k,
                              std::mt19937_64& rng)
{
    std::vector<Vec3> pool;
    for (Index n = 0; n < mesh.nodeCount(); ++n)
        if (fixture.nodeFragment(n) == f)
            pool.push_back(mesh.nodes[n]);
    if (pool.size() < std::size_t(k))
        throw Error("randomSites", "fragment " + std::to_string(f) + " has too few nodes");
    std::shuffle(pool.begin(), pool.end(), rng);
    pool.resize(k);
    std::normal_distribution<Real> g;
    for (Vec3& p : pool)
        p += Real(0.05) * fixture.meanEdgeLength() * Vec3(g(rng), g(rng), g(rng)).normalized();
    return pool;
}

FractureResult randomVoronoiSplit(AnalyticFracture& fixture, const TetMesh& mesh, FragmentId parent, int k,
                                  std::mt19937_64& rng)
{
    for (int attempt = 0; attempt < 50; ++attempt)
        if (std::optional<FractureResult> r =
                fixture.splitVoronoi(parent, randomSites(fixture, mesh, parent, k, rng)))
            return std::move(*r);
    throw Error("randomVoronoiSplit", "no acceptable sites after 50 attempts");
}

std::vector<FractureResult> randomPlaneCuts(AnalyticFracture& fixture, const Aabb& box, int cuts,
                                            std::mt19937_64& rng)
{
    std::vector<FractureResult> events;
    for (int c = 0; c < cuts; ++c)
    {
        for (int attempt = 0;; ++attempt)
        {
            if (attempt == 50)
                throw Error("randomPlaneCuts", "no acceptable plane after 50 attempts");
            std::vector<FractureResult> cut = fixture.cutAll(randomPlane(box, rng));
            if (cut.empty())
                continue;
            for (FractureResult& r : cut)
                events.push_back(std::move(r));
            break;
        }
    }
    return events;
}

} // namespace shatter::test
