// LargeArray: an ordinary vector for small sizes; from 2 MiB on, storage on a huge-page boundary
// that keeps its contents through growth, copies and moves.
#include "large_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace shatter::test
{
namespace
{

bool hugePageAligned(const void* p)
{
    return reinterpret_cast<std::uintptr_t>(p) % detail::kHugePageBytes == 0;
}

TEST(LargeArray, SmallArraysAreOrdinaryVectors)
{
    LargeArray<int> a(1000);
    std::iota(a.begin(), a.end(), 0);
    EXPECT_EQ(a[999], 999);
    a.clear();
    a.shrink_to_fit();
    EXPECT_TRUE(a.empty());
}

TEST(LargeArray, LargeArraysStartOnAHugePageAndKeepTheirContents)
{
    const std::size_t n = detail::kHugePageBytes / sizeof(std::uint64_t); // exactly 2 MiB
    LargeArray<std::uint64_t> a;
    for (std::size_t i = 0; i < 3 * n + 7; ++i) // grows through the threshold, reallocating
    {
        a.push_back(i * 2654435761u);
        if (a.capacity() * sizeof(std::uint64_t) >= detail::kHugePageBytes)
        {
            ASSERT_TRUE(hugePageAligned(a.data())) << "capacity " << a.capacity();
        }
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(a[i], i * 2654435761u) << i;

    const LargeArray<std::uint64_t> copy = a;
    EXPECT_TRUE(hugePageAligned(copy.data()));
    EXPECT_EQ(copy, a);
    const std::uint64_t* storage = a.data();
    const LargeArray<std::uint64_t> moved = std::move(a);
    EXPECT_EQ(moved.data(), storage); // a move keeps the storage (equal allocators)
    EXPECT_EQ(moved, copy);
}

TEST(LargeArray, RefusesImpossibleSizes)
{
    LargeArrayAllocator<std::uint64_t> allocator;
    EXPECT_THROW((void)allocator.allocate(std::size_t(-1) / 4), std::bad_array_new_length);
}

} // namespace
} // namespace shatter::test
