// Test and benchmark helpers for the sphere forest and Algorithm 1: analytic fields (a ground plane, a
// ball), the brute-force reference of a query, a 2D convex hull for contact coverage, a geodesic
// sphere of any resolution, cached assets of the procedural meshes, and the queries between the pieces
// of a broken object.
#pragma once

#include "asset_data.h"
#include "object_state.h"
#include "sphere_tree_query.h"

#include <Eigen/Geometry>

#include <memory>
#include <string>
#include <vector>

namespace shatter::test
{

/// The half-space n·x < offset (solid below the plane), as a field for collide().
struct PlaneField
{
    Vec3 normal = Vec3::UnitY(); ///< unit, pointing out of the solid
    Real offset = 0;

    FieldSample sample(const Vec3& p, Real band) const
    {
        const Real d = normal.dot(p) - offset;
        return {d, normal, d < 0 || d < band};
    }
    bool sphereTest(const Vec3& p, Real radius) const { return normal.dot(p) - offset < radius; }
};

/// A solid ball, as a field for collide().
struct BallField
{
    Vec3 center = Vec3::Zero();
    Real radius = 1;

    FieldSample sample(const Vec3& p, Real band) const
    {
        const Vec3 r = p - center;
        const Real length = r.norm();
        const Real d = length - radius;
        return {d, length > 0 ? Vec3(r / length) : Vec3(Vec3::UnitY()), d < 0 || d < band};
    }
    bool sphereTest(const Vec3& p, Real r) const { return (p - center).norm() - radius < r; }
};

/// Every point of fragment f whose field sample is near with distance < tolerance, in point order:
/// what ContactMode::Full must return (as a set).
template <class Field>
std::vector<Contact> bruteForceContacts(const SphereForest& forest, FragmentId f,
                                        const Eigen::Isometry3d& aToB, const Field& field, Real tolerance)
{
    std::vector<Contact> out;
    for (Index p = 0; p < forest.pointCount(); ++p)
    {
        if (forest.pointFragment(p) != f)
            continue;
        const Vec3& x = forest.tree().points[p];
        const FieldSample s = field.sample(aToB * x, tolerance);
        if (s.near && s.distance < tolerance)
            out.push_back({x, s.normal, s.distance, p});
    }
    return out;
}

/// Area of the convex hull of 2D points (0 for fewer than three or collinear points).
Real convexHullArea(std::vector<Eigen::Vector2d> points);

/// Area of the convex hull of the contacts' positions projected onto the plane with unit normal n.
Real contactHullArea(const std::vector<Contact>& contacts, const Vec3& n);

/// A geodesic sphere: the icosahedron with every face split into frequency² triangles, projected onto
/// the sphere (20 · frequency² triangles, outward oriented).
TriMesh geodesicSphere(int frequency, Real radius);

/// loadTestAsset(file) built once per process and shared (asset builds take seconds).
std::shared_ptr<const Asset> cachedMeshAsset(const std::string& file);

/// One adaptive query (fresh budget, default tolerance) of every ordered pair of live fragments of
/// `state`, left in place so that pieces touch along their cracks, as in the step right after an
/// event; returns the queries' summed visited nodes, contacts and colliding points.
QueryStats queryAllFragmentPairs(const ObjectState& state, QueryScratch& scratch, std::vector<Contact>& out);

/// Points of fragment f's tree, each once, in breadth-first order of their highest node.
std::vector<Index> treePoints(const SphereForest& forest, FragmentId f);

} // namespace shatter::test
