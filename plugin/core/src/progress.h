// Progress reporting for long work (asset build), shown as a bar in terminals and in the demo.
#pragma once

#include <functional>
#include <string_view>

namespace shatter
{

/// Called with the current stage's name and the overall fraction done in [0, 1]. May be empty.
using ProgressCallback = std::function<void(std::string_view stage, double fraction)>;

} // namespace shatter
