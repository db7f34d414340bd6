// Storage for the large, read-mostly arrays that collision queries index at random (the tet locator's
// frames and cell lists): allocations of 2 MiB and more start on a 2 MiB boundary, and on Linux they
// ask for transparent huge pages (madvise), where the kernel allows them. A query touches a few bytes
// in each of many 4 KiB pages of these arrays, so with small pages nearly every access also misses the
// TLB, and the more so the larger the object; one huge page covers 512 small ones. Smaller arrays get
// the plain std::allocator.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace shatter
{

namespace detail
{
/// Allocates `bytes` (≥ kHugePageBytes) on a huge-page boundary with the huge-page advice; throws
/// std::bad_alloc. Freed with freeHugePageAligned.
void* allocateHugePageAligned(std::size_t bytes);
void freeHugePageAligned(void* memory) noexcept;
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
} // namespace detail

/// A std::allocator that places large arrays on huge pages (see the file comment).
template <class T>
struct LargeArrayAllocator
{
    using value_type = T;

    LargeArrayAllocator() = default;
    template <class U>
    LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept
    {
    }

    T* allocate(std::size_t n)
    {
        if (n > std::size_t(-1) / sizeof(T))
            throw std::bad_array_new_length();
        if (n * sizeof(T) >= detail::kHugePageBytes)
            return static_cast<T*>(detail::allocateHugePageAligned(n * sizeof(T)));
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* memory, std::size_t n) noexcept
    {
        if (n * sizeof(T) >= detail::kHugePageBytes)
            detail::freeHugePageAligned(memory);
        else
            std::allocator<T>().deallocate(memory, n);
    }

    template <class U>
    bool operator==(const LargeArrayAllocator<U>&) const noexcept
    {
        return true;
    }
};

/// A vector for the large arrays of the query structures.
template <class T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

} // namespace shatter
