// Happens-before edges for ThreadSanitizer where oneTBB makes them.
//
// Debian's oneTBB is not built with ThreadSanitizer, so the handoffs inside libtbb (a task enqueued on
// one thread and run on another, a loop's join) are invisible to it. Under -fsanitize=thread these
// tell it what oneTBB guarantees: release before the handoff, acquire on the other side, on the same
// address. Elsewhere they compile to nothing. Races between the tasks themselves are still reported.
// A task must be made (its closure written) before the release: oneTBB copies a parallel_for's body
// inside parallel_for, after any release the caller could make, so tasks are made with
// task_group::defer first. And a task must acquire before it reads its closure, so the token is a
// variable at namespace scope, never a captured address.
#pragma once

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
#endif

namespace shatter
{

/// Everything this thread did so far happens before whatever follows a tsanAcquire of `token`.
inline void tsanRelease([[maybe_unused]] const void* token) noexcept
{
#if defined(__SANITIZE_THREAD__)
    __tsan_release(const_cast<void*>(token));
#endif
}

/// See tsanRelease.
inline void tsanAcquire([[maybe_unused]] const void* token) noexcept
{
#if defined(__SANITIZE_THREAD__)
    __tsan_acquire(const_cast<void*>(token));
#endif
}

} // namespace shatter
