// Live plots of the last seconds of per-step statistics: several series in one frame with a legend,
// drawn with ImGui's draw list (Debian's ImGui has no ImPlot).
#pragma once

#include <imgui.h>

#include <span>
#include <string>
#include <vector>

namespace shatter::demo
{

struct PlotSeries
{
    const char* label;
    ImU32 color;
    std::vector<float> values; ///< oldest first
};

/// A plot `height` pixels high across the available width; the y range is [0, max of all series]
/// rounded up, labelled with `unit`.
void multiPlot(const char* id, std::span<const PlotSeries> series, float height, const char* unit);

} // namespace shatter::demo
