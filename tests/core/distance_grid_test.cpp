// Tests of the narrow-band surface distance grid (distance_grid.h, TVCG §4.4).
#include "distance_grid.h"
#include "shatter/error.h"
#include "signed_distance.h"

#include "test_meshes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>

namespace shatter
{
namespace
{

constexpr Real kRadius = 1.5;

// A sphere fine enough that its tessellation error is below the grid's interpolation error.
const TriMesh& sphereMesh()
{
    static const TriMesh mesh = test::icosphere(4, kRadius);
    return mesh;
}

const SignedDistanceField& sphereField()
{
    static const SignedDistanceField field(sphereMesh());
    return field;
}

const DistanceGrid& sphereGrid()
{
    static const DistanceGrid grid = DistanceGrid::build(sphereField());
    return grid;
}

// Largest gap between the icosphere and the true sphere.
Real tessellationError()
{
    Real inner = kRadius;
    for (const Triangle& t : sphereMesh().triangles)
        inner =
            std::min(inner, closestPointOnTriangle(Vec3::Zero(), sphereMesh().vertices[t[0]],
                                                   sphereMesh().vertices[t[1]], sphereMesh().vertices[t[2]])
                                .point.norm());
    return kRadius - inner;
}

TEST(DistanceGrid, DefaultsFollowTheMeshScale)
{
    const DistanceGrid& grid = sphereGrid();
    EXPECT_NEAR(grid.cellSize, 0.5 * sphereField().meanEdgeLength(), 1e-15);
    EXPECT_NEAR(grid.bandWidth, 3 * grid.cellSize, 1e-15);
    EXPECT_EQ(grid.values.size(), grid.pointCount());
    const Aabb covered = grid.bounds();
    EXPECT_TRUE((covered.min.array() <= sphereMesh().bounds().min.array() - grid.bandWidth).all());
    EXPECT_TRUE((covered.max.array() >= sphereMesh().bounds().max.array() + grid.bandWidth).all());
    EXPECT_NO_THROW(grid.validate("sphere"));
}

// Every grid point holds the exact distance in the band and ±bandWidth with its true side outside it;
// returns the number of points in the band.
std::size_t checkGridPoints(const DistanceGrid& grid, const SignedDistanceField& field)
{
    std::size_t inBand = 0;
    for (Index k = 0; k < grid.dims[2]; ++k)
        for (Index j = 0; j < grid.dims[1]; ++j)
            for (Index i = 0; i < grid.dims[0]; ++i)
            {
                const float value = grid.values[grid.pointIndex(i, j, k)];
                const SignedDistance exact = field.signedDistance(grid.pointPosition(i, j, k));
                if (std::abs(exact.distance) < grid.bandWidth * (1 - 1e-6))
                {
                    EXPECT_TRUE(grid.inBand(value));
                    EXPECT_EQ(value, static_cast<float>(exact.distance)) << i << " " << j << " " << k;
                    ++inBand;
                }
                else if (std::abs(exact.distance) > grid.bandWidth * (1 + 1e-6))
                {
                    EXPECT_EQ(std::abs(value), static_cast<float>(grid.bandWidth));
                    EXPECT_EQ(value < 0, exact.distance < 0) << i << " " << j << " " << k;
                }
                if (::testing::Test::HasFailure())
                    return inBand;
            }
    return inBand;
}

TEST(DistanceGrid, PointsHoldExactDistancesInTheBandAndTheirSideOutside)
{
    const DistanceGrid& grid = sphereGrid();
    const std::size_t inBand = checkGridPoints(grid, sphereField());
    // A shell of about 2 × band around the sphere's area.
    const Real shell = 4 * 3.14159 * kRadius * kRadius * 2 * grid.bandWidth / std::pow(grid.cellSize, 3);
    EXPECT_NEAR(Real(inBand), shell, 0.1 * shell);
}

TEST(DistanceGrid, SidesAreRightForSharpAndNestedShapesWithTheNarrowestBand)
{
    // A band of one cell is the narrowest for which the row sweep of the build knows every side.
    DistanceGridSettings options;
    options.bandCells = 1;
    options.cellSize = 0.04;
    for (const TriMesh& mesh :
         {test::bumpySphere(3, 1, 0.4), test::boxWithCavity({1, 0.8, 0.6}, {0.5, 0.4, 0.3}),
          test::torus(1, 0.25, 36, 12)})
    {
        const SignedDistanceField field(mesh);
        EXPECT_GT(checkGridPoints(DistanceGrid::build(field, options), field), 1000u);
    }
}

TEST(DistanceGrid, SamplesMatchTheSurfaceWithinCurvatureError)
{
    const DistanceGrid& grid = sphereGrid();
    const Real h = grid.cellSize;
    // Trilinear interpolation of a C² function errs by at most h²/8 · Σ|∂²f/∂x_a²|; for |x| that is
    // 3h² / (8 ρ) with ρ the smallest radius in the cell. The grid's corner values are the icosphere's
    // distances, within the tessellation error of the sphere's.
    const Real rho = kRadius - grid.bandWidth - h * std::sqrt(3.0);
    const Real tolerance = tessellationError() + 3 * h * h / (8 * rho) + 1e-6;
    std::mt19937_64 rng(31);
    std::normal_distribution<Real> gauss;
    std::uniform_real_distribution<Real> shell(-grid.bandWidth + h * std::sqrt(3.0),
                                               grid.bandWidth - h * std::sqrt(3.0));
    Real worst = 0;
    Real worstAngle = 0;
    for (int n = 0; n < 20000; ++n)
    {
        const Vec3 direction = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
        const Vec3 p = (kRadius + shell(rng)) * direction;
        const GridSample s = grid.sample(p);
        ASSERT_TRUE(s.valid) << p.transpose();
        worst = std::max(worst, std::abs(s.distance - (p.norm() - kRadius)));
        worstAngle = std::max(worstAngle, std::acos(std::min(1.0, s.gradient.normalized().dot(direction))));
        EXPECT_NEAR(s.gradient.norm(), 1, 0.1);
    }
    EXPECT_LT(worst, tolerance);
    EXPECT_LT(worstAngle, 0.1) << "radians";
    RecordProperty("worst_error_over_h2", std::to_string(worst / (h * h)));
}

TEST(DistanceGrid, SamplesAreInvalidOutsideTheBand)
{
    const DistanceGrid& grid = sphereGrid();
    const Real reach = grid.bandWidth + grid.cellSize * std::sqrt(3.0);
    std::mt19937_64 rng(37);
    std::uniform_real_distribution<Real> coordinate(-3 * kRadius, 3 * kRadius);
    int checked = 0;
    for (int n = 0; n < 20000; ++n)
    {
        const Vec3 p(coordinate(rng), coordinate(rng), coordinate(rng));
        if (std::abs(sphereField().signedDistance(p).distance) <= reach)
            continue;
        ASSERT_FALSE(grid.sample(p).valid) << p.transpose();
        ++checked;
    }
    EXPECT_GT(checked, 10000);
    EXPECT_FALSE(grid.sample(Vec3::Constant(std::nan(""))).valid);
    EXPECT_FALSE(DistanceGrid().sample(Vec3::Zero()).valid);
}

TEST(DistanceGrid, SameResultForAnyThreadCount)
{
    const TriMesh mesh = test::torus(1, 0.3, 40, 12);
    DistanceGridSettings options;
    options.threads = 1;
    const DistanceGrid serial = DistanceGrid::build(mesh, options);
    options.threads = 2;
    const DistanceGrid parallel = DistanceGrid::build(mesh, options);
    options.threads = 7;
    const DistanceGrid oversubscribed = DistanceGrid::build(mesh, options);
    EXPECT_EQ(serial.values, parallel.values);
    EXPECT_EQ(serial.values, oversubscribed.values);
    EXPECT_EQ(serial.dims, parallel.dims);
}

TEST(DistanceGrid, CavityPointsAreOutside)
{
    const TriMesh mesh = test::boxWithCavity({1, 1, 1}, {0.5, 0.5, 0.5});
    DistanceGridSettings options;
    options.cellSize = 0.05;
    const DistanceGrid grid = DistanceGrid::build(mesh, options);
    EXPECT_NEAR(grid.bandWidth, 0.15, 1e-15);
    // Far from every wall: only the side is stored, and the cavity's side is outside.
    const auto valueAt = [&](const Vec3& p)
    {
        const Vec3 u = (p - grid.origin) / grid.cellSize;
        return grid.values[grid.pointIndex(Index(std::lround(u.x())), Index(std::lround(u.y())),
                                           Index(std::lround(u.z())))];
    };
    EXPECT_EQ(valueAt(Vec3::Zero()), static_cast<float>(grid.bandWidth));
    EXPECT_EQ(valueAt(Vec3(0.75, 0, 0)), -static_cast<float>(grid.bandWidth));
    EXPECT_EQ(valueAt(Vec3(1.2, 0, 0)), static_cast<float>(grid.bandWidth));
    // Near the cavity's wall the samples are exact: the box's distance is linear along the x axis.
    const GridSample s = grid.sample(Vec3(0.42, 0.013, -0.02));
    ASSERT_TRUE(s.valid);
    EXPECT_NEAR(s.distance, 0.08, 1e-6);
    EXPECT_LT((s.gradient - Vec3(-1, 0, 0)).norm(), 1e-5);
}

TEST(DistanceGrid, ReportsProgressFromTheCallingThread)
{
    std::vector<double> fractions;
    DistanceGridSettings options;
    options.threads = 2;
    DistanceGrid::build(test::icosphere(2), options,
                        [&](std::string_view stage, double fraction)
                        {
                            EXPECT_EQ(stage, "distance grid");
                            fractions.push_back(fraction);
                        });
    ASSERT_FALSE(fractions.empty());
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_EQ(fractions.back(), 1.0);
}

TEST(DistanceGrid, RejectsBadSettingsAndBadData)
{
    const TriMesh mesh = test::box({1, 1, 1});
    for (auto change : {+[](DistanceGridSettings& o) { o.cellSize = -1; },
                        +[](DistanceGridSettings& o) { o.cellFactor = 0; },
                        +[](DistanceGridSettings& o) { o.bandCells = 0.5; },
                        +[](DistanceGridSettings& o)
                        {
                            o.cellSize = 1e-4;
                        }}) // 8e12 points > maxPoints
    {
        DistanceGridSettings options;
        change(options);
        EXPECT_THROW(DistanceGrid::build(mesh, options), Error);
    }
    EXPECT_THROW(DistanceGrid::build(SignedDistanceField()), Error);

    DistanceGrid grid = DistanceGrid::build(mesh);
    EXPECT_NO_THROW(grid.validate("box.cache"));
    DistanceGrid truncated = grid;
    truncated.values.pop_back();
    EXPECT_THROW(truncated.validate("box.cache"), Error);
    DistanceGrid corrupt = grid;
    corrupt.values[3] = std::nanf("");
    EXPECT_THROW(corrupt.validate("box.cache"), Error);
    DistanceGrid noSpacing = grid;
    noSpacing.cellSize = 0;
    EXPECT_THROW(noSpacing.validate("box.cache"), Error);
}

TEST(DistanceGrid, BuildsATwentyThousandTriangleMeshQuickly)
{
    const TriMesh mesh = test::icosphere(5); // 20,480 triangles
    const auto start = std::chrono::steady_clock::now();
    const DistanceGrid grid = DistanceGrid::build(mesh);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    RecordProperty("build_seconds", std::to_string(seconds));
    RecordProperty("points", std::to_string(grid.pointCount()));
#if defined(NDEBUG) && !defined(SHATTER_ENABLE_ASSERTS)
    EXPECT_LT(seconds, 2.0)
        << "the TVCG §4.4 grid is a preprocess, but a 20K-triangle mesh must stay interactive";
#endif
}

} // namespace
} // namespace shatter
