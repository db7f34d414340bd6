#include "shatter/large_array.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace shatter::detail
{

void* allocateHugePageAligned(std::size_t bytes)
{
    void* memory = nullptr;
    if (posix_memalign(&memory, kHugePageBytes, bytes) != 0)
        throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Only whole huge pages can be backed by one. The advice is a hint: where it fails (huge pages
    // disabled, an old kernel) the array keeps ordinary pages, so its result is ignored.
    (void)madvise(memory, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
    return memory;
}

void freeHugePageAligned(void* memory) noexcept
{
    std::free(memory);
}

} // namespace shatter::detail
