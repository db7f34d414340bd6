#include "test_paths.h"

#include <gtest/gtest.h>

namespace shatter::test
{

std::filesystem::path scratchDir(const std::string& name)
{
    // ctest runs tests in parallel processes, so the folder carries the running test's full name:
    // two tests sharing a fixture must never clear each other's files.
    std::string unique = name;
    if (const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info())
        unique += std::string("/") + test->test_suite_name() + "." + test->name();
    for (char& c : unique)
        if (c == '#' || c == ' ')
            c = '_';
    const std::filesystem::path dir = std::filesystem::path(SHATTER_BINARY_DIR) / "test_scratch" / unique;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

} // namespace shatter::test
