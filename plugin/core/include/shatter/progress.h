// Progress reporting for long load-time work (the asset build), shown as a bar in terminals and in
// the demo. Public: the cooking library's entry points (shatter/cook.h) take one.
#pragma once

#include <functional>
#include <string_view>

namespace shatter
{

/// Called with the current stage's name and the overall fraction done, in [0, 1] and never
/// decreasing; the last call says "done" with 1. An empty callback reports nothing (the default).
using ProgressCallback = std::function<void(std::string_view stage, double fraction)>;

} // namespace shatter
