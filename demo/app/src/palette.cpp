#include "palette.h"

#include <cmath>

namespace shatter::demo
{
namespace
{
Eigen::Vector3f hsv(float h, float s, float v)
{
    const float k[3] = {5, 3, 1};
    Eigen::Vector3f c;
    for (int i = 0; i < 3; ++i)
    {
        const float x = std::fmod(k[i] + h * 6, 6.0f);
        c[i] = v - v * s * std::max(0.0f, std::min({x, 4 - x, 1.0f}));
    }
    return c;
}

Eigen::Vector3f rgb(int r, int g, int b)
{
    return Eigen::Vector3f(float(r), float(g), float(b)) / 255.0f;
}
} // namespace

Eigen::Vector3f srgbToLinear(const Eigen::Vector3f& s)
{
    Eigen::Vector3f out;
    for (int i = 0; i < 3; ++i)
        out[i] = s[i] <= 0.04045f ? s[i] / 12.92f : std::pow((s[i] + 0.055f) / 1.055f, 2.4f);
    return out;
}

Appearance appearanceFor(const std::string& name)
{
    if (name.find("piggy") != std::string::npos)
        return {rgb(240, 150, 170), rgb(236, 222, 205), 0.9f}; // pink glaze, bisque inside
    if (name.find("plate") != std::string::npos)
        return {rgb(232, 238, 244), rgb(205, 200, 190), 0.95f}; // white porcelain
    if (name.find("brick") != std::string::npos)
        return {rgb(172, 78, 52), rgb(208, 128, 92), 0.1f}; // fired clay
    if (name.find("shelf") != std::string::npos)
        return {rgb(150, 108, 72), rgb(196, 160, 118), 0.25f}; // wood
    if (name.find("ball") != std::string::npos)
        return ballAppearance();
    return {rgb(120, 170, 210), rgb(235, 215, 190), 0.7f}; // user meshes: blue glaze
}

Appearance ballAppearance()
{
    return {rgb(92, 98, 110), rgb(92, 98, 110), 0.8f};
}

Eigen::Vector3f distinctColor(std::uint32_t index)
{
    const float h = std::fmod(0.07f + 0.61803398875f * float(index), 1.0f);
    const float s = (index % 3 == 0) ? 0.55f : 0.68f;
    const float v = (index % 2 == 0) ? 0.95f : 0.82f;
    return hsv(h, s, v);
}

} // namespace shatter::demo
