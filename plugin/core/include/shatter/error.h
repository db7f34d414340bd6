// Errors for bad input, asserts for bugs: bad input (a file, a setting) is something a caller can
// report and recover from, so it throws shatter::Error; a broken internal invariant is a bug and
// asserts.
#pragma once

#include <stdexcept>
#include <string>

namespace shatter
{

/// The one exception type Shatter throws for bad input: a broken mesh, a corrupt cache file, a bad
/// setting. `source()` names the file (or the setting, or "<memory>") and `problem()` says what is
/// wrong with it; `what()` is "source: problem".
class Error : public std::runtime_error
{
public:
    Error(std::string source, std::string problem);

    const std::string& source() const noexcept { return m_source; }
    const std::string& problem() const noexcept { return m_problem; }

private:
    std::string m_source;
    std::string m_problem;
};

/// Called by SHATTER_ASSERT on a broken internal invariant: prints and aborts.
[[noreturn]] void assertFailed(const char* expression, const char* file, int line, const char* message);

} // namespace shatter

// Internal invariants. On in Debug builds and in the sanitizer build (SHATTER_ENABLE_ASSERTS).
#if !defined(NDEBUG) || defined(SHATTER_ENABLE_ASSERTS)
#define SHATTER_ASSERT(expr, ...)                                                                            \
    ((expr) ? static_cast<void>(0) : ::shatter::assertFailed(#expr, __FILE__, __LINE__, "" __VA_ARGS__))
#else
#define SHATTER_ASSERT(expr, ...) static_cast<void>(0)
#endif
