#include "shatter/error.h"

#include <cstdio>
#include <cstdlib>

namespace shatter
{

Error::Error(std::string source, std::string problem)
    : std::runtime_error(source + ": " + problem), m_source(std::move(source)), m_problem(std::move(problem))
{
}

void assertFailed(const char* expression, const char* file, int line, const char* message)
{
    std::fprintf(stderr, "%s:%d: assertion failed: %s %s\n", file, line, expression, message);
    std::abort();
}

} // namespace shatter
