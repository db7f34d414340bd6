// Reading the final frame back and writing it as a PNG (headless mode, docs screenshots, tests).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace shatter::demo
{

class RenderTarget;

/// RGB pixels of the target's final image, top row first.
std::vector<std::uint8_t> readFinalImage(const RenderTarget& target);
/// Writes RGB pixels (top row first) as a PNG. Throws std::runtime_error naming the file on failure.
void writePng(const std::filesystem::path& file, int width, int height, const std::vector<std::uint8_t>& rgb);
/// Standard deviation of the pixel luminances (0 for a blank image), as the tests measure it.
double luminanceDeviation(const std::vector<std::uint8_t>& rgb);

} // namespace shatter::demo
