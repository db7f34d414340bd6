#include "large_array.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace shatter::detail
{

void* allocateHugePageAligned(std::size_t bytes)
{
    void* memory = ::operator new(bytes, std::align_val_t(kHugePageBytes));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Only whole huge pages can be backed by one. The advice is a hint: where it fails (huge pages
    // disabled, an old kernel) the array keeps ordinary pages, so its result is ignored.
    (void)madvise(memory, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
    return memory;
}

void freeHugePageAligned(void* memory) noexcept
{
    ::operator delete(memory, std::align_val_t(kHugePageBytes));
}

} // namespace shatter::detail
