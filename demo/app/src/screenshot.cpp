#include "screenshot.h"

#include "render_target.h"

#include <glad/gl.h>

#include <stb_image_write.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace shatter::demo
{

std::vector<std::uint8_t> readFinalImage(const RenderTarget& target)
{
    const int w = target.width(), h = target.height();
    std::vector<std::uint8_t> pixels(std::size_t(w) * h * 3);
    target.bindForRead();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    // GL's first row is the bottom one.
    std::vector<std::uint8_t> row(std::size_t(w) * 3);
    for (int y = 0; y < h / 2; ++y)
    {
        std::uint8_t* a = pixels.data() + std::size_t(y) * w * 3;
        std::uint8_t* b = pixels.data() + std::size_t(h - 1 - y) * w * 3;
        std::memcpy(row.data(), a, row.size());
        std::memcpy(a, b, row.size());
        std::memcpy(b, row.data(), row.size());
    }
    return pixels;
}

void writePng(const std::filesystem::path& file, int width, int height, const std::vector<std::uint8_t>& rgb)
{
    if (file.has_parent_path())
        std::filesystem::create_directories(file.parent_path());
    if (!stbi_write_png(file.c_str(), width, height, 3, rgb.data(), width * 3))
        throw std::runtime_error(file.string() + ": cannot write the PNG");
}

double luminanceDeviation(const std::vector<std::uint8_t>& rgb)
{
    const std::size_t n = rgb.size() / 3;
    if (!n)
        return 0;
    double sum = 0, squares = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        const double y = 0.2126 * rgb[3 * i] + 0.7152 * rgb[3 * i + 1] + 0.0722 * rgb[3 * i + 2];
        sum += y;
        squares += y * y;
    }
    const double mean = sum / double(n);
    return std::sqrt(std::max(0.0, squares / double(n) - mean * mean));
}

} // namespace shatter::demo
