#include "file_browser.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace shatter::demo
{

FileBrowser::FileBrowser(std::string t, std::vector<std::string> e, std::filesystem::path start)
    : title(std::move(t)), extensions(std::move(e)), folder(std::move(start))
{
}

void FileBrowser::list()
{
    entries.clear();
    error.clear();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
    {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.')
            continue;
        std::string ext = entry.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        if (entry.is_directory(ec) ||
            std::find(extensions.begin(), extensions.end(), ext) != extensions.end())
            entries.push_back(entry);
    }
    if (ec)
        error = folder.string() + ": " + ec.message();
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b)
              {
                  if (a.is_directory() != b.is_directory())
                      return a.is_directory();
                  return a.path().filename() < b.path().filename();
              });
}

std::optional<std::filesystem::path> FileBrowser::draw()
{
    std::optional<std::filesystem::path> chosen;
    if (wantOpen)
    {
        ImGui::OpenPopup(title.c_str());
        wantOpen = false;
        pathText.clear();
        list();
    }
    ImGui::SetNextWindowSize(ImVec2(560, 420), ImGuiCond_Appearing);
    if (!ImGui::BeginPopupModal(title.c_str(), nullptr))
        return chosen;
    if (ImGui::Button("Up"))
    {
        folder = folder.parent_path();
        list();
    }
    ImGui::SameLine();
    if (ImGui::Button("Home"))
    {
        if (const char* home = std::getenv("HOME"))
            folder = home;
        list();
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s", folder.string().c_str());
    if (!error.empty())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", error.c_str());
    ImGui::BeginChild("entries", ImVec2(0, -ImGui::GetFrameHeightWithSpacing() * 2), true);
    for (const auto& entry : entries)
    {
        const bool dir = entry.is_directory();
        const std::string label = (dir ? "[dir] " : "") + entry.path().filename().string();
        if (ImGui::Selectable(label.c_str(), pathText == entry.path().string(),
                              ImGuiSelectableFlags_AllowDoubleClick))
        {
            if (dir)
            {
                folder = entry.path();
                list();
                break;
            }
            pathText = entry.path().string();
            if (ImGui::IsMouseDoubleClicked(0))
                chosen = entry.path();
        }
    }
    ImGui::EndChild();
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##path", "or type a path", &pathText);
    if (ImGui::Button("Open") && !pathText.empty())
        chosen = std::filesystem::path(pathText);
    ImGui::SameLine();
    if (ImGui::Button("Cancel"))
        ImGui::CloseCurrentPopup();
    if (chosen)
        ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return chosen;
}

} // namespace shatter::demo
