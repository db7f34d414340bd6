// The separating axis test between oriented boxes (oriented_box.h), which the collision algorithm uses
// to skip pairs: it must never call touching boxes separated (a skipped pair loses its contacts), and
// it should separate turned boxes whose world boxes overlap (the point of using it).
#include "oriented_box.h"

#include <LinearMath/btQuaternion.h>
#include <gtest/gtest.h>

#include <random>

namespace shatter
{
namespace
{

OrientedBox box(const btVector3& centre, const btQuaternion& rotation, const btVector3& half)
{
    return {centre, btMatrix3x3(rotation), half};
}

bool contains(const OrientedBox& b, const btVector3& p)
{
    const btVector3 local = (p - b.centre) * b.axes;
    for (int i = 0; i < 3; ++i)
        if (btFabs(local[i]) > b.half[i])
            return false;
    return true;
}

btVector3 worldHalfExtents(const OrientedBox& b)
{
    btVector3 half(0, 0, 0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            half[i] += btFabs(b.axes[i][j]) * b.half[j];
    return half;
}

TEST(OrientedBox, TurnedRodsSideBySideAreSeparatedThoughTheirWorldBoxesOverlap)
{
    // Two rods 2 m long and 10 cm thick, turned 45° about z, 30 cm apart across their length.
    const btQuaternion turn(btVector3(0, 0, 1), SIMD_PI / 4);
    const btVector3 half(1, 0.05f, 0.05f);
    const btVector3 across = btMatrix3x3(turn) * btVector3(0, 1, 0);
    const OrientedBox a = box(btVector3(0, 0, 0), turn, half);
    const OrientedBox b = box(btScalar(0.3) * across, turn, half);
    const btVector3 reach = worldHalfExtents(a) + worldHalfExtents(b);
    const btVector3 offset = b.centre - a.centre;
    for (int i = 0; i < 3; ++i)
        ASSERT_LT(btFabs(offset[i]), reach[i]) << "the world boxes must overlap on axis " << i;
    EXPECT_TRUE(separated(a, b));
    EXPECT_TRUE(separated(b, a));

    // Brought to 9.9 cm apart (closer than their thickness) they overlap.
    const OrientedBox c = box(btScalar(0.099) * across, turn, half);
    EXPECT_FALSE(separated(a, c));
    EXPECT_FALSE(separated(c, a));
}

TEST(OrientedBox, BoxesThatTouchAreNeverSeparated)
{
    // Face to face, exactly touching, and a cube standing on its corner on another's face.
    const btQuaternion none = btQuaternion::getIdentity();
    const OrientedBox a = box(btVector3(0, 0, 0), none, btVector3(1, 1, 1));
    EXPECT_FALSE(separated(a, box(btVector3(0, 2, 0), none, btVector3(1, 1, 1))));
    EXPECT_TRUE(separated(a, box(btVector3(0, 2.01f, 0), none, btVector3(1, 1, 1))));
    // The cube's diagonal (1, 1, 1) turned onto y: its corner −(1, 1, 1) points straight down.
    const btQuaternion corner(btVector3(-1, 0, 1), btAcos(1 / btSqrt(btScalar(3))));
    const btScalar height = btSqrt(btScalar(3)); // centre to corner of a unit-half cube
    EXPECT_FALSE(separated(a, box(btVector3(0, 1 + height - 0.001f, 0), corner, btVector3(1, 1, 1))));
    EXPECT_TRUE(separated(a, box(btVector3(0, 1 + height + 0.01f, 0), corner, btVector3(1, 1, 1))));
}

TEST(OrientedBox, NeverSeparatesBoxesThatShareAPoint)
{
    // Random pairs; a point of a inside b (sampled) proves they overlap, so separated must be false.
    // The pairs cover both outcomes, and separated pairs are checked against the samples too.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(-1, 1), size(0.05f, 1);
    int overlapping = 0, separatedPairs = 0;
    for (int pair = 0; pair < 2000; ++pair)
    {
        auto randomBox = [&]
        {
            btQuaternion q(unit(rng), unit(rng), unit(rng), unit(rng));
            if (q.length2() < 1e-4f)
                q = btQuaternion::getIdentity();
            q.normalize();
            return box(btVector3(unit(rng), unit(rng), unit(rng)), q,
                       btVector3(size(rng), size(rng), size(rng)));
        };
        const OrientedBox a = randomBox(), b = randomBox();
        bool shared = false;
        for (int s = 0; s < 400 && !shared; ++s)
            shared = contains(b, a.centre + a.axes * btVector3(unit(rng) * a.half[0], unit(rng) * a.half[1],
                                                               unit(rng) * a.half[2]));
        const bool apart = separated(a, b);
        EXPECT_EQ(apart, separated(b, a)) << "pair " << pair;
        if (shared)
        {
            ++overlapping;
            EXPECT_FALSE(apart) << "pair " << pair << " shares a point";
        }
        separatedPairs += apart;
    }
    EXPECT_GT(overlapping, 200);
    EXPECT_GT(separatedPairs, 200);
}

} // namespace
} // namespace shatter
