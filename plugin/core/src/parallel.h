// A minimal parallel-for over index ranges with std::thread, for preprocessing (asset build) and the
// fracture pipeline. Not for per-step work: it starts threads on every call.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace shatter
{

/// Number of worker threads to use for `requested` (0: all hardware threads), at least 1.
inline unsigned resolveThreadCount(unsigned requested)
{
    return requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

/// Calls body(begin, end) on contiguous chunks of [0, count) from up to `threads` threads (0: all
/// cores) and waits. The first exception thrown by a chunk is rethrown on the calling thread.
template <class Body>
void parallelFor(std::size_t count, unsigned threads, Body&& body)
{
    const std::size_t workers =
        std::min<std::size_t>(resolveThreadCount(threads), std::max<std::size_t>(count, 1));
    if (workers <= 1)
    {
        body(std::size_t(0), count);
        return;
    }
    std::vector<std::exception_ptr> errors(workers);
    std::vector<std::thread> pool;
    pool.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
    {
        const std::size_t begin = count * w / workers, end = count * (w + 1) / workers;
        pool.emplace_back(
            [&, w, begin, end]
            {
                try
                {
                    body(begin, end);
                }
                catch (...)
                {
                    errors[w] = std::current_exception();
                }
            });
    }
    for (std::thread& t : pool)
        t.join();
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace shatter
