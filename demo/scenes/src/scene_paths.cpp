// Where shipped scenes and meshes are (assets/ of the source tree, or $SHATTER_ASSET_DIR), and how a
// scene object's "asset" names its mesh file.
#include "shatter/error.h"
#include "shatter/scenes/scene.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace shatter::scenes
{

namespace
{

constexpr std::array<const char*, 5> kProceduralAssets = {"piggy_bank", "plate", "brick", "shelf", "ball"};

/// "shipped scenes: bricks, drop_piggies, ..." for error messages.
std::string shippedScenesText()
{
    std::string text;
    for (const std::string& n : builtInSceneNames())
        text += (text.empty() ? "shipped scenes: " : ", ") + n;
    return text.empty() ? "no shipped scenes in " + (assetDirectory() / "scenes").string() : text;
}

} // namespace

std::filesystem::path assetDirectory()
{
    if (const char* dir = std::getenv("SHATTER_ASSET_DIR"); dir && *dir)
        return dir;
    return SHATTER_SCENES_ASSET_DIR;
}

std::vector<std::string> builtInSceneNames()
{
    std::vector<std::string> names;
    const std::filesystem::path dir = assetDirectory() / "scenes";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end()); // directory order is not stable
    return names;
}

std::filesystem::path builtInScenePath(const std::string& name)
{
    const std::filesystem::path path = assetDirectory() / "scenes" / (name + ".json");
    if (!std::filesystem::is_regular_file(path))
        throw Error(name, "no shipped scene of that name in " + (assetDirectory() / "scenes").string() +
                              " (" + shippedScenesText() + ")");
    return path;
}

std::filesystem::path resolveScenePath(const std::string& argument)
{
    const std::filesystem::path path(argument);
    if (std::filesystem::exists(path))
        return path;
    if (path.has_extension() || path.has_parent_path())
        throw Error(argument, "no such file, and not a shipped scene (" + shippedScenesText() + ")");
    return builtInScenePath(argument);
}

std::filesystem::path resolveMesh(const std::string& asset, const std::filesystem::path& sceneFile)
{
    const bool procedural =
        std::find_if(kProceduralAssets.begin(), kProceduralAssets.end(),
                     [&](const char* n) { return asset == n; }) != kProceduralAssets.end();
    std::filesystem::path path =
        procedural ? assetDirectory() / "meshes" / (asset + ".obj") : std::filesystem::path(asset);
    if (!procedural && path.is_relative() && !sceneFile.empty())
        path = sceneFile.parent_path() / path;
    if (!std::filesystem::is_regular_file(path))
        throw Error(path.string(),
                    procedural ? "procedural mesh missing (regenerate assets/meshes with shatter_make_assets)"
                               : "mesh file not found (asset \"" + asset +
                                     "\" is neither piggy_bank, plate, brick, shelf, ball nor "
                                     "an existing path)");
    return path;
}

} // namespace shatter::scenes
