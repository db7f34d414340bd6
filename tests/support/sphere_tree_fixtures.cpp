#include "sphere_tree_fixtures.h"

#include "test_assets.h"

#include "fracture_fixtures.h"
#include "test_meshes.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <mutex>

namespace shatter::test
{

Real convexHullArea(std::vector<Eigen::Vector2d> points)
{
    std::sort(points.begin(), points.end(),
              [](const Eigen::Vector2d& a, const Eigen::Vector2d& b)
              { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
    if (points.size() < 3)
        return 0;
    auto cross = [](const Eigen::Vector2d& o, const Eigen::Vector2d& a, const Eigen::Vector2d& b)
    {
        return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
    };
    // Andrew's monotone chain.
    std::vector<Eigen::Vector2d> hull(2 * points.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
    {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], points[i]) <= 0)
            --k;
        hull[k++] = points[i];
    }
    for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;)
    {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0)
            --k;
        hull[k++] = points[i];
    }
    Real area = 0;
    for (std::size_t i = 0; i + 1 < k; ++i)
        area += hull[i].x() * hull[i + 1].y() - hull[i + 1].x() * hull[i].y();
    return std::abs(area) / 2;
}

Real contactHullArea(const std::vector<Contact>& contacts, const Vec3& n)
{
    const Vec3 u = n.unitOrthogonal();
    const Vec3 v = n.cross(u);
    std::vector<Eigen::Vector2d> projected;
    for (const Contact& c : contacts)
        projected.emplace_back(c.position.dot(u), c.position.dot(v));
    return convexHullArea(std::move(projected));
}

TriMesh geodesicSphere(int frequency, Real radius)
{
    const TriMesh base = icosphere(0);
    TriMesh mesh;
    std::map<std::array<int, 6>, Index> ids; // sorted (corner, weight) pairs → vertex
    auto vertex = [&](const Triangle& tri, int i, int j)
    {
        const std::array<std::pair<int, int>, 3> w{
            {{int(tri[0]), frequency - i - j}, {int(tri[1]), i}, {int(tri[2]), j}}};
        std::array<std::pair<int, int>, 3> sorted = w;
        std::sort(sorted.begin(), sorted.end());
        std::array<int, 6> key{-1, -1, -1, -1, -1, -1};
        int k = 0;
        for (const auto& [corner, weight] : sorted)
            if (weight > 0)
            {
                key[k++] = corner;
                key[k++] = weight;
            }
        const auto [it, inserted] = ids.try_emplace(key, Index(mesh.vertices.size()));
        if (inserted)
        {
            Vec3 p = Vec3::Zero();
            for (const auto& [corner, weight] : w)
                p += Real(weight) * base.vertices[Index(corner)];
            mesh.vertices.push_back(radius * p.normalized());
        }
        return it->second;
    };
    for (const Triangle& tri : base.triangles)
        for (int i = 0; i < frequency; ++i)
            for (int j = 0; i + j < frequency; ++j)
            {
                mesh.triangles.push_back({vertex(tri, i, j), vertex(tri, i + 1, j), vertex(tri, i, j + 1)});
                if (i + j + 2 <= frequency)
                    mesh.triangles.push_back(
                        {vertex(tri, i + 1, j), vertex(tri, i + 1, j + 1), vertex(tri, i, j + 1)});
            }
    return mesh;
}

std::shared_ptr<const Asset> cachedMeshAsset(const std::string& file)
{
    return sharedAsset(std::filesystem::path(file).stem().string());
}

QueryStats queryAllFragmentPairs(const ObjectState& state, QueryScratch& scratch, std::vector<Contact>& out)
{
    const QuerySettings options{ContactMode::Adaptive, TraversalOrder::MaxDistance,
                                defaultContactTolerance(state.asset().radius())};
    QueryStats total;
    for (FragmentId a = 0; a < state.fragmentCount(); ++a)
        for (FragmentId b = 0; b < state.fragmentCount(); ++b)
        {
            if (a == b || !state.alive(a) || !state.alive(b))
                continue;
            QueryStats stats;
            Index budget = kInitialContactBudget;
            out.clear();
            collide(state.sphereForest(), a, Eigen::Isometry3d::Identity(), FragmentFieldView(state, b),
                    options, budget, scratch, out, &stats);
            total.visitedNodes += stats.visitedNodes;
            total.contacts += stats.contacts;
            total.collidingPoints += stats.collidingPoints;
        }
    return total;
}

std::vector<Index> treePoints(const SphereForest& forest, FragmentId f)
{
    std::vector<Index> nodes, points;
    if (forest.root(f) == kInvalidIndex)
        return points;
    nodes.push_back(forest.root(f));
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        const SphereNode& node = forest.tree().nodes[nodes[i]];
        if (forest.tree().pointNode[node.point] == nodes[i])
            points.push_back(node.point);
        for (Index c : forest.tree().children(nodes[i]))
            nodes.push_back(c);
    }
    return points;
}

} // namespace shatter::test
