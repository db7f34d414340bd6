#include "plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shatter::demo
{
namespace
{
float niceCeiling(float value)
{
    if (value <= 0)
        return 1;
    const float magnitude = std::pow(10.0f, std::floor(std::log10(value)));
    for (float step : {1.0f, 2.0f, 2.5f, 5.0f, 10.0f})
        if (value <= step * magnitude)
            return step * magnitude;
    return 10 * magnitude;
}
} // namespace

void multiPlot(const char* id, std::span<const PlotSeries> series, float height, const char* unit)
{
    ImGui::PushID(id);
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + width, origin.y + height);
    draw->AddRectFilled(origin, end, IM_COL32(20, 22, 27, 220), 4);

    float top = 0;
    std::size_t samples = 0;
    for (const PlotSeries& s : series)
    {
        for (float v : s.values)
            top = std::max(top, v);
        samples = std::max(samples, s.values.size());
    }
    top = niceCeiling(top * 1.05f);
    // Grid: quarter lines.
    for (int i = 1; i < 4; ++i)
    {
        const float y = origin.y + height * float(i) / 4;
        draw->AddLine(ImVec2(origin.x, y), ImVec2(end.x, y), IM_COL32(255, 255, 255, 18));
    }
    char text[64];
    std::snprintf(text, sizeof text, "%g %s", double(top), unit);
    draw->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(200, 200, 210, 160), text);

    if (samples > 1)
    {
        const float dx = width / float(samples - 1);
        std::vector<ImVec2> points;
        for (const PlotSeries& s : series)
        {
            points.clear();
            const std::size_t offset = samples - s.values.size();
            for (std::size_t i = 0; i < s.values.size(); ++i)
                points.emplace_back(origin.x + dx * float(offset + i),
                                    end.y - 1 - (height - 2) * std::clamp(s.values[i] / top, 0.0f, 1.0f));
            draw->AddPolyline(points.data(), int(points.size()), s.color, 0, 1.6f);
        }
    }
    ImGui::Dummy(ImVec2(width, height));
    // Legend with the latest values.
    for (std::size_t i = 0; i < series.size(); ++i)
    {
        const PlotSeries& s = series[i];
        char legend[64];
        std::snprintf(legend, sizeof legend, "%s %.3g", s.label,
                      s.values.empty() ? 0.0 : double(s.values.back()));
        const float itemWidth = 14 + ImGui::CalcTextSize(legend).x;
        if (i)
        {
            ImGui::SameLine();
            if (ImGui::GetContentRegionAvail().x < itemWidth)
                ImGui::NewLine();
        }
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float line = ImGui::GetTextLineHeight();
        draw->AddRectFilled(ImVec2(p.x, p.y + line * 0.35f), ImVec2(p.x + 10, p.y + line * 0.65f), s.color,
                            2);
        ImGui::Dummy(ImVec2(12, line));
        ImGui::SameLine(0, 2);
        ImGui::TextDisabled("%s", legend);
    }
    ImGui::PopID();
}

} // namespace shatter::demo
