#include "test_paths.h"

namespace shatter::test
{

std::filesystem::path scratchDir(const std::string& name)
{
    const std::filesystem::path dir = std::filesystem::path(SHATTER_BINARY_DIR) / "test_scratch" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

} // namespace shatter::test
