// Switches read from the environment by tests and benchmarks.
#pragma once

#include <cstdlib>
#include <string_view>

namespace shatter::test
{

/// True when the variable is set to something other than "" or "0".
inline bool envFlag(const char* name)
{
    const char* value = std::getenv(name);
    return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

/// SHATTER_LONG_TESTS=1: randomized tests run their full counts (CI runs the reduced ones).
inline bool longTests()
{
    return envFlag("SHATTER_LONG_TESTS");
}

/// SHATTER_BENCH_SMOKE=1 (set by ctest): benchmarks use small inputs so the smoke run stays quick.
inline bool benchSmokeMode()
{
    return envFlag("SHATTER_BENCH_SMOKE");
}

} // namespace shatter::test
