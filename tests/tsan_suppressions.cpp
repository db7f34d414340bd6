// ThreadSanitizer's suppressions for the test programs of a SHATTER_SANITIZE_THREAD build.
//
// Debian's oneTBB is not built with ThreadSanitizer: the synchronisation inside libtbb is invisible to
// it, so the task objects oneTBB's headers construct on one thread and run on another look like races.
// Only reports whose innermost frame is oneTBB's own header code are suppressed (race_top), together
// with the std::atomic members of oneTBB's objects it reaches through; a race in Shatter's code still
// shows, with oneTBB frames further down its stack. The handoffs of Shatter's own oneTBB tasks (the
// narrow phase's, the fracture jobs') are annotated where they happen (thread_sanitizer.h).
extern "C" const char* __tsan_default_suppressions()
{
    return "race_top:/oneapi/tbb/\n"
           "race_top:std::atomic<tbb::\n"
           "race_top:std::__atomic_base<\n";
}
