// The multilevel fragment grid (TVCG §4.5): level geometry, conservative culling against exact
// sphere-box tests with more than a thousand fragments, the OR-of-children invariant after marking
// and clearing, marking by cell range as by box, and effective culling of far spheres.
#include "multilevel_grid.h"
#include "shatter/error.h"

#include <gtest/gtest.h>

#include <random>

namespace shatter
{
namespace
{

Aabb unitBox()
{
    Aabb box;
    box.grow(Vec3(-1, -0.5, -0.25));
    box.grow(Vec3(1, 0.5, 0.25));
    return box;
}

struct MarkedBox
{
    Aabb box;
    FragmentId fragment;
};

std::vector<MarkedBox> randomBoxes(int count, FragmentId fragments, std::mt19937_64& rng)
{
    std::uniform_real_distribution<Real> u(0, 1);
    std::vector<MarkedBox> boxes;
    const Aabb bounds = unitBox();
    for (int i = 0; i < count; ++i)
    {
        const Vec3 c = bounds.min + bounds.extent().cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
        const Vec3 h = Vec3(u(rng), u(rng), u(rng)) * 0.03;
        Aabb b;
        b.grow(c - h);
        b.grow(c + h);
        boxes.push_back({b, FragmentId(i % fragments)});
    }
    return boxes;
}

TEST(MultilevelGrid, RejectsBadInput)
{
    EXPECT_THROW(MultilevelGrid(Aabb{}, 0.1), Error);
    EXPECT_THROW(MultilevelGrid(unitBox(), 0), Error);
    MultilevelGridSettings options;
    options.cellFactor = -1;
    EXPECT_THROW(MultilevelGrid(unitBox(), 0.1, options), Error);
}

TEST(MultilevelGrid, LevelsDoubleUpToASingleCell)
{
    const MultilevelGrid grid(unitBox(), 0.05);
    ASSERT_GE(grid.levelCount(), 2);
    for (int l = 1; l < grid.levelCount(); ++l)
        EXPECT_DOUBLE_EQ(grid.cellSize(l), 2 * grid.cellSize(l - 1));
    const auto top = grid.dimensions(grid.levelCount() - 1);
    EXPECT_EQ(top[0] * top[1] * top[2], 1u);
    EXPECT_EQ(grid.levelFor(0.01), 0);
    EXPECT_EQ(grid.levelFor(0.025), 1); // 2r = 0.05 is not > 0.05
    EXPECT_EQ(grid.levelFor(100), -1);
    for (Real r : {0.001, 0.02, 0.07, 0.3})
    {
        const int l = grid.levelFor(r);
        ASSERT_GE(l, 0);
        EXPECT_GT(grid.cellSize(l), 2 * r);
        if (l > 0)
        {
            EXPECT_LE(grid.cellSize(l - 1), 2 * r);
        }
    }
}

TEST(MultilevelGrid, NeverCullsASphereTouchingAMarkedBoxWithOverAThousandFragments)
{
    std::mt19937_64 rng(1);
    MultilevelGrid grid(unitBox(), 0.04);
    const FragmentId fragments = 1500;
    grid.reserveFragments(fragments);
    EXPECT_GE(grid.capacity(), fragments);
    const std::vector<MarkedBox> boxes = randomBoxes(4000, fragments, rng);
    std::vector<Index> dirty;
    std::vector<FragmentId> all;
    for (FragmentId f = 0; f < fragments; ++f)
        all.push_back(f);
    for (const MarkedBox& b : boxes)
        grid.mark(b.box, b.fragment, dirty);
    grid.propagate(dirty, all);

    // Per fragment, its boxes.
    std::vector<std::vector<Aabb>> byFragment(fragments);
    for (const MarkedBox& b : boxes)
        byFragment[b.fragment].push_back(b.box);
    std::uniform_real_distribution<Real> u(0, 1);
    Index touching = 0, far = 0, culled = 0;
    for (int i = 0; i < 100000; ++i)
    {
        const Vec3 p =
            Vec3(-1.2, -0.7, -0.45) + Vec3(2.4, 1.4, 0.9).cwiseProduct(Vec3(u(rng), u(rng), u(rng)));
        const Real r = std::pow(Real(10), -3 + 2.5 * u(rng));
        const FragmentId f = FragmentId(u(rng) * fragments) % fragments;
        Real distance = std::numeric_limits<Real>::infinity();
        for (const Aabb& b : byFragment[f])
            distance = std::min(distance, b.distance(p));
        const bool may = grid.mayIntersect(p, r, f);
        if (distance <= r)
        {
            ++touching;
            ASSERT_TRUE(may) << p.transpose() << " r " << r << " fragment " << f;
        }
        else if (distance > 6 * r)
        {
            ++far;
            culled += !may;
        }
    }
    EXPECT_GT(touching, 100u);
    std::printf("%u touching spheres kept; %.3f of %u spheres farther than 6r culled\n", touching,
                Real(culled) / Real(far), far);
    EXPECT_GT(Real(culled) / Real(far), 0.8);
}

TEST(MultilevelGrid, MarkingACellRangeSetsTheSameBitsAndDirtyCellsAsItsBox)
{
    std::mt19937_64 rng(3);
    MultilevelGrid byBox(unitBox(), 0.05);
    MultilevelGrid byRange(unitBox(), 0.05);
    const FragmentId fragments = 100;
    byBox.reserveFragments(fragments);
    byRange.reserveFragments(fragments);
    std::vector<Index> dirtyBox, dirtyRange;
    Index marked = 0;
    for (const MarkedBox& b : randomBoxes(400, fragments, rng))
    {
        bool fits = false;
        const CellRange range = byRange.cellRange(b.box, fits);
        ASSERT_TRUE(fits);
        byBox.mark(b.box, b.fragment, dirtyBox);
        byRange.mark(range, b.fragment, dirtyRange);
        marked += !range.empty();
    }
    EXPECT_GT(marked, 300u);
    EXPECT_EQ(dirtyBox, dirtyRange);
    const auto dims = byBox.dimensions(0);
    for (FragmentId f = 0; f < fragments; ++f)
        for (Index z = 0; z < dims[2]; ++z)
            for (Index y = 0; y < dims[1]; ++y)
                for (Index x = 0; x < dims[0]; ++x)
                    ASSERT_EQ(byBox.cellHas(0, x, y, z, f), byRange.cellHas(0, x, y, z, f));

    // A box outside the grid has an empty range; one spanning more than 255 cells does not fit.
    Aabb outside;
    outside.grow(Vec3(5, 5, 5));
    outside.grow(Vec3(6, 6, 6));
    bool fits = false;
    EXPECT_TRUE(byRange.cellRange(outside, fits).empty());
    EXPECT_TRUE(fits);
    Aabb rod;
    rod.grow(Vec3(0, 0, 0));
    rod.grow(Vec3(1, 0.01, 0.01));
    const MultilevelGrid fine(rod, 0.002); // 501 cells along x
    fine.cellRange(rod, fits);
    EXPECT_FALSE(fits);
    Aabb part;
    part.grow(Vec3(0.1, 0, 0));
    part.grow(Vec3(0.2, 0.01, 0.01));
    const int along = fine.cellRange(part, fits).count[0]; // 50 cells, 51 or 52 with round-off
    EXPECT_GE(along, 50);
    EXPECT_LE(along, 52);
    EXPECT_TRUE(fits);
}

TEST(MultilevelGrid, CoarseCellsAreTheOrOfTheirChildren)
{
    std::mt19937_64 rng(2);
    MultilevelGrid grid(unitBox(), 0.05);
    const FragmentId fragments = 200;
    grid.reserveFragments(fragments);
    std::vector<Index> dirty;
    std::vector<FragmentId> all;
    for (FragmentId f = 0; f < fragments; ++f)
        all.push_back(f);
    for (const MarkedBox& b : randomBoxes(500, fragments, rng))
        grid.mark(b.box, b.fragment, dirty);
    grid.propagate(dirty, all);
    // Clear half of the fragments over their whole region, as apply() does for a broken parent.
    for (FragmentId f = 0; f < fragments; f += 2)
        grid.clear(unitBox(), f, dirty);
    grid.propagate(dirty, all);

    for (int l = 1; l < grid.levelCount(); ++l)
    {
        const auto dims = grid.dimensions(l);
        const auto below = grid.dimensions(l - 1);
        for (Index z = 0; z < dims[2]; ++z)
            for (Index y = 0; y < dims[1]; ++y)
                for (Index x = 0; x < dims[0]; ++x)
                    for (FragmentId f = 0; f < fragments; f += 7)
                    {
                        bool any = false;
                        for (Index c = 0; c < 8; ++c)
                        {
                            const Index cx = 2 * x + (c & 1), cy = 2 * y + (c >> 1 & 1),
                                        cz = 2 * z + (c >> 2 & 1);
                            if (cx < below[0] && cy < below[1] && cz < below[2])
                                any |= grid.cellHas(l - 1, cx, cy, cz, f);
                        }
                        ASSERT_EQ(grid.cellHas(l, x, y, z, f), any) << "level " << l << " fragment " << f;
                        if (f % 2 == 0)
                        {
                            ASSERT_FALSE(grid.cellHas(l, x, y, z, f));
                        }
                    }
    }
}

TEST(MultilevelGrid, UnmarkedFragmentsAreAlwaysCulled)
{
    MultilevelGrid grid(unitBox(), 0.05);
    EXPECT_FALSE(grid.mayIntersect(Vec3::Zero(), 0.01, 3));
    EXPECT_FALSE(grid.mayIntersect(Vec3::Zero(), 0.01, 5000)); // beyond the capacity
    EXPECT_TRUE(grid.mayIntersect(Vec3::Zero(), 100, 3));      // no level is coarse enough
    EXPECT_TRUE(MultilevelGrid().mayIntersect(Vec3::Zero(), 0.01, 3));
}

} // namespace
} // namespace shatter
