// Colours: materials by asset name, distinct fragment colours, sRGB ↔ linear.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <string>

namespace shatter::demo
{

/// sRGB (display) → linear, per channel.
Eigen::Vector3f srgbToLinear(const Eigen::Vector3f& srgb);

/// Display colours of one kind of object: its glazed outside, its broken inside, and how glossy it is.
struct Appearance
{
    Eigen::Vector3f surface; ///< sRGB
    Eigen::Vector3f crack;   ///< sRGB
    float gloss = 0.5f;      ///< 0 matte .. 1 glazed
};

/// By procedural asset name (piggy_bank, plate, brick, shelf, ball), else a neutral ceramic.
Appearance appearanceFor(const std::string& assetName);
/// The steel of thrown balls.
Appearance ballAppearance();

/// A well-separated, saturated colour per index (golden-ratio hues), sRGB.
Eigen::Vector3f distinctColor(std::uint32_t index);

} // namespace shatter::demo
