// Fragment meshes and their mass properties (the volumes of a split must sum to
// the original's): computeMassProperties against closed forms (box, box with a cavity, sphere in the limit)
// and under rigid motions, its errors, and the fixtures' fragment surfaces after plane cuts and
// repeated Voronoi splits of the piggy bank and the plate: closed (volume = the exact region volume),
// exact (winding number = brute-force classification), split into original surface and crack faces.
#include "fracture_fixtures.h"
#include "test_assets.h"
#include "test_meshes.h"

#include "fragment_mesh.h"
#include "object_state.h"
#include "shatter/error.h"
#include "signed_distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <random>

namespace shatter::test
{
namespace
{

constexpr Real kPi = std::numbers::pi;

Mat3 inertiaTensor(const MassProperties& m)
{
    return m.principalAxes * m.principalInertia.asDiagonal() * m.principalAxes.transpose();
}

TEST(MassProperties, BoxMatchesClosedForm)
{
    const Vec3 half(0.5, 0.3, 0.2), center(1.0, -2.0, 0.5);
    const MassProperties m = computeMassProperties(box(half, center), 2.5);
    const Real volume = 8 * half.prod();
    EXPECT_NEAR(m.volume, volume, 1e-14);
    EXPECT_NEAR(m.mass, 2.5 * volume, 1e-14);
    EXPECT_LE((m.centerOfMass - center).norm(), 1e-14);
    // I_x = m (hy² + hz²) / 3 for half extents; ascending, x (the longest axis) has the smallest.
    const Real mass = 2.5 * volume;
    const Vec3 expected(mass * (half.y() * half.y() + half.z() * half.z()) / 3,
                        mass * (half.x() * half.x() + half.z() * half.z()) / 3,
                        mass * (half.x() * half.x() + half.y() * half.y()) / 3);
    EXPECT_LE((m.principalInertia - expected).norm(), 1e-13);
    EXPECT_NEAR(std::abs(m.principalAxes.col(0).x()), 1.0, 1e-12);
    EXPECT_NEAR(std::abs(m.principalAxes.col(2).z()), 1.0, 1e-12);
    EXPECT_NEAR(m.principalAxes.determinant(), 1.0, 1e-12);
}

TEST(MassProperties, CavityIsSubtracted)
{
    const Vec3 outer(1.0, 0.8, 0.6), inner(0.5, 0.3, 0.2);
    const MassProperties m = computeMassProperties(boxWithCavity(outer, inner), 1.0);
    const MassProperties o = computeMassProperties(box(outer), 1.0);
    const MassProperties i = computeMassProperties(box(inner), 1.0);
    EXPECT_NEAR(m.volume, o.volume - i.volume, 1e-13);
    EXPECT_LE((inertiaTensor(m) - (inertiaTensor(o) - inertiaTensor(i))).norm(), 1e-13);
}

TEST(MassProperties, SphereConvergesToClosedForm)
{
    const Real r = 1.5;
    Real previous = 1;
    for (int level = 3; level <= 5; ++level)
    {
        const MassProperties m = computeMassProperties(icosphere(level, r, Vec3(3, 4, 5)), 1.0);
        const Real volume = 4 * kPi * r * r * r / 3;
        const Real error = std::abs(m.volume - volume) / volume;
        const Real inertia = 0.4 * m.mass * r * r; // uniform ball about its centre
        EXPECT_LE((m.centerOfMass - Vec3(3, 4, 5)).norm(), 1e-12);
        EXPECT_LE((m.principalInertia - Vec3::Constant(inertia)).norm() / inertia, 3 * error + 1e-9);
        // Inscribed polyhedra converge quadratically in the edge length (halved per level).
        EXPECT_LT(error, previous / 3) << "level " << level;
        previous = error;
        std::printf("[ sphere     ] level %d: volume error %.2e\n", level, error);
    }
    EXPECT_LT(previous, 1e-3);
}

TEST(MassProperties, RigidMotionsMoveTheFrame)
{
    const TriMesh mesh = bumpySphere(3, 0.7, 0.3);
    const MassProperties m = computeMassProperties(mesh, 3.0);
    std::mt19937_64 rng(11);
    std::normal_distribution<Real> gauss;
    for (const Real distance : {0.0, 10.0, 1e4})
    {
        const Mat3 rotation = Eigen::Quaterniond(gauss(rng), gauss(rng), gauss(rng), gauss(rng))
                                  .normalized()
                                  .toRotationMatrix();
        const Vec3 shift = distance * Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
        TriMesh moved = mesh;
        for (Vec3& v : moved.vertices)
            v = rotation * v + shift;
        const MassProperties n = computeMassProperties(moved, 3.0);
        // Round-off grows with the coordinates' magnitude; the bounds-centred origin keeps it relative.
        const Real scale = 1e-12 * (1 + distance);
        EXPECT_NEAR(n.volume, m.volume, 1e-12 * (1 + distance) * m.volume);
        EXPECT_LE((n.centerOfMass - (rotation * m.centerOfMass + shift)).norm(), scale);
        EXPECT_LE((n.principalInertia - m.principalInertia).norm(), 1e-9 * m.principalInertia.norm());
        EXPECT_LE((inertiaTensor(n) - rotation * inertiaTensor(m) * rotation.transpose()).norm(),
                  1e-9 * m.principalInertia.norm());
        EXPECT_NEAR(n.principalAxes.determinant(), 1.0, 1e-12);
    }
}

TEST(MassProperties, RejectsBadInput)
{
    TriMesh inside = box(Vec3(1, 1, 1));
    flipTriangles(inside);
    EXPECT_THROW(computeMassProperties(inside, 1.0), Error);
    EXPECT_THROW(computeMassProperties(TriMesh{}, 1.0), Error);
    EXPECT_THROW(computeMassProperties(box(Vec3(1, 1, 1)), 0.0), Error);
    EXPECT_THROW(computeMassProperties(box(Vec3(1, 1, 1)), std::numeric_limits<Real>::quiet_NaN()), Error);
}

// --- Fixture fragment meshes ----------------------------------------------------------------------

Real tetMeshVolume(const TetMesh& mesh)
{
    Real v = 0;
    for (Index t = 0; t < mesh.tetCount(); ++t)
        v += mesh.tetVolume(t);
    return v;
}

// Area of a mesh's triangles with crack flag `crack`.
Real flaggedArea(const FragmentMesh& m, bool crack)
{
    Real a = 0;
    for (Index t = 0; t < m.surface.triangles.size(); ++t)
        if (m.isCrack(t) == crack)
            a += m.surface.area(t);
    return a;
}

struct Scenario
{
    const char* asset;
    bool voronoi; ///< repeated 3-site Voronoi splits of the largest fragment, else random plane cuts
    int count;
};

std::string scenarioName(const testing::TestParamInfo<Scenario>& info)
{
    return std::string(info.param.asset) + (info.param.voronoi ? "_voronoi" : "_planes") +
           std::to_string(info.param.count);
}

class FixtureMeshTest : public testing::TestWithParam<Scenario>
{
};

TEST_P(FixtureMeshTest, FragmentSurfacesAreClosedAndExact)
{
    const Scenario sc = GetParam();
    const std::shared_ptr<const Asset> asset = sharedAsset(sc.asset);
    const TetMesh& tets = asset->tetMesh;
    AnalyticFracture fixture(tets, asset->surface);
    ObjectState state(asset);
    std::mt19937_64 rng(1234 + sc.count);
    Aabb bounds;
    for (const Vec3& p : tets.nodes)
        bounds.grow(p);

    std::map<FragmentId, std::shared_ptr<const FragmentMesh>> meshes;
    auto take = [&](const FractureResult& r)
    {
        ASSERT_EQ(r.meshes.size(), r.fragments.size());
        state.apply(r);
        for (std::size_t i = 0; i < r.fragments.size(); ++i)
        {
            ASSERT_NE(r.meshes[i], nullptr);
            EXPECT_EQ(state.fragmentMesh(r.fragments[i]), r.meshes[i]); // ObjectState keeps them
            meshes[r.fragments[i]] = r.meshes[i];
        }
    };
    if (sc.voronoi)
        for (int i = 0; i < sc.count; ++i)
            take(randomVoronoiSplit(fixture, tets, fixture.largestFragment(), 3, rng));
    else
        for (const FractureResult& r : randomPlaneCuts(fixture, bounds, sc.count, rng))
            take(r);

    const Real assetVolume = tetMeshVolume(tets);
    Real surfaceArea = 0;
    for (Index t = 0; t < asset->surface.triangles.size(); ++t)
        surfaceArea += asset->surface.area(t);
    const std::vector<FragmentId> live = fixture.liveFragments();
    ASSERT_GE(live.size(), 2u);
    Real volumeSum = 0, originalArea = 0, worstRelative = 0;
    for (FragmentId f : live)
    {
        ASSERT_TRUE(meshes.count(f)) << "fragment " << f;
        const FragmentMesh& m = *meshes.at(f);
        ASSERT_EQ(m.crack.size(), m.surface.triangles.size());
        const MassProperties mp = computeMassProperties(m.surface, 1.0, "fragment " + std::to_string(f));
        const Real relative = std::abs(mp.volume - fixture.volume(f)) / fixture.volume(f);
        worstRelative = std::max(worstRelative, relative);
        EXPECT_LE(relative, 1e-9) << "fragment " << f;
        volumeSum += mp.volume;
        originalArea += flaggedArea(m, false);
        // Crack faces: the fixture's own list of crack triangles has the same area.
        Real crack = 0;
        for (const auto& tri : fixture.crackTriangles(f))
            crack += Real(0.5) * (tri[1] - tri[0]).cross(tri[2] - tri[0]).norm();
        EXPECT_NEAR(flaggedArea(m, true), crack, 1e-9 * surfaceArea) << "fragment " << f;
        // Rebuilding from the fixture's current state gives the same surface.
        EXPECT_EQ(fixture.fragmentMesh(f).surface.triangles.size(), m.surface.triangles.size());
    }
    EXPECT_NEAR(volumeSum, assetVolume, 1e-9 * assetVolume);
    EXPECT_NEAR(originalArea, surfaceArea, 1e-9 * surfaceArea); // the original surface, shared out exactly

    // Exact boundary: the winding number of fragment f's surface is 1 exactly where the brute-force
    // classification says f, 0 elsewhere (points within 1e-6 of a crack or the surface skipped).
    std::uniform_real_distribution<Real> unit(0, 1);
    const Real diagonal = bounds.extent().norm();
    const SignedDistanceField surface(asset->surface);
    int checked = 0;
    for (int i = 0; i < 150; ++i)
    {
        const Vec3 p = bounds.min + bounds.extent().cwiseProduct(Vec3(unit(rng), unit(rng), unit(rng)));
        const ReferencePoint ref = fixture.classify(p);
        if (ref.fragment != kNoFragment && ref.margin < 1e-6 * diagonal)
            continue;
        if (ref.fragment == kNoFragment && std::abs(surface.signedDistance(p).distance) < 1e-6 * diagonal)
            continue;
        ++checked;
        for (FragmentId f : live)
        {
            const Real w = windingNumber(meshes.at(f)->surface, p);
            ASSERT_NEAR(w, ref.fragment == f ? 1.0 : 0.0, 1e-6)
                << "fragment " << f << " at " << p.transpose();
        }
    }
    EXPECT_GT(checked, 100);
    std::printf(
        "[ fragments  ] %s: %zu live, worst |V_mesh - V_regions| / V %.1e, |sum V - V_asset| / V %.1e\n",
        scenarioName({sc, 0}).c_str(), live.size(), worstRelative,
        std::abs(volumeSum - assetVolume) / assetVolume);
}

INSTANTIATE_TEST_SUITE_P(Assets, FixtureMeshTest,
                         testing::Values(Scenario{"piggy_bank", true, 1}, Scenario{"piggy_bank", true, 3},
                                         Scenario{"piggy_bank", true, 10}, Scenario{"plate", true, 1},
                                         Scenario{"plate", true, 3}, Scenario{"plate", true, 10},
                                         Scenario{"piggy_bank", false, 3}, Scenario{"plate", false, 3}),
                         scenarioName);

TEST(FixtureMesh, UnbrokenObjectIsTheTetMeshBoundary)
{
    const std::shared_ptr<const Asset> asset = sharedAsset("plate");
    AnalyticFracture fixture(asset->tetMesh, asset->surface);
    const FragmentMesh m = fixture.fragmentMesh(0);
    EXPECT_EQ(flaggedArea(m, true), 0.0);
    const Real v = tetMeshVolume(asset->tetMesh);
    EXPECT_NEAR(computeMassProperties(m.surface, 1.0).volume, v, 1e-12 * v);
    EXPECT_NEAR(computeMassProperties(m.surface, 1.0).volume,
                computeMassProperties(asset->surface, 1.0).volume, 1e-9 * v);
    EXPECT_THROW(fixture.fragmentMesh(7), Error);
}

} // namespace
} // namespace shatter::test
