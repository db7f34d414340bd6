// A small ImGui file picker (Dear ImGui has none): a folder listing filtered by extension, a path field,
// and parent / home shortcuts. Used for scene files and user meshes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shatter::demo
{

class FileBrowser
{
public:
    FileBrowser(std::string title, std::vector<std::string> extensions, std::filesystem::path start);

    void open() { wantOpen = true; }
    /// Draws the popup if open; returns the chosen file once.
    std::optional<std::filesystem::path> draw();

private:
    void list();

    std::string title;
    std::vector<std::string> extensions; ///< lower case, with the dot
    std::filesystem::path folder;
    std::string pathText;
    std::vector<std::filesystem::directory_entry> entries;
    std::string error;
    bool wantOpen = false;
};

} // namespace shatter::demo
