// Scene assets as a user's cache directory meets them: a cache file that exists but cannot be used is
// rebuilt, and the run is told so (RunSettings::assetWarning) instead of rebuilding in silence.
#include "shatter/scenes/scene.h"
#include "shatter/scenes/scene_world.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace
{

using namespace shatter::scenes;
namespace fs = std::filesystem;

// The .shatter files in `dir`.
std::vector<fs::path> cacheFiles(const fs::path& dir)
{
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".shatter")
            files.push_back(e.path());
    return files;
}

TEST(SceneAssets, AnUnusableCacheIsRebuiltWithAWarning)
{
    const fs::path dir = fs::path(SHATTER_BINARY_DIR) / "test_scratch" / "scene_assets";
    fs::remove_all(dir);
    fs::create_directories(dir / "cache");

    // A rigid ball (no fracture precomputation: the asset alone builds in a fraction of a second).
    Scene scene;
    scene.name = "cache check";
    SceneObject ball;
    ball.asset = (assetDirectory() / "meshes" / "ball.obj").string();
    ball.fracturable = false;
    scene.objects.push_back(ball);

    RunSettings options;
    options.assetCacheDir = dir / "cache";
    std::vector<std::string> warnings;
    options.assetWarning = [&warnings](std::string_view message)
    {
        warnings.emplace_back(message);
    };
    {
        const SceneWorld first(scene, options);
    }
    EXPECT_EQ(warnings.size(), 0u) << "a first build is not a rebuild";
    const std::vector<fs::path> files = cacheFiles(dir / "cache");
    ASSERT_EQ(files.size(), 1u);

    // Truncate it. The process keeps loaded assets by mesh path, so the next world uses a copy of the
    // mesh: the same bytes, hence the same cache file.
    fs::resize_file(files[0], fs::file_size(files[0]) / 2);
    fs::create_directories(dir / "copy");
    fs::copy_file(ball.asset, dir / "copy" / "ball.obj");
    scene.objects[0].asset = (dir / "copy" / "ball.obj").string();
    {
        const SceneWorld second(scene, options);
    }
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find(files[0].string()), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("truncated"), std::string::npos) << warnings[0];

    // The rebuilt file is good: a third copy loads it without a word.
    fs::create_directories(dir / "copy2");
    fs::copy_file(ball.asset, dir / "copy2" / "ball.obj");
    scene.objects[0].asset = (dir / "copy2" / "ball.obj").string();
    {
        const SceneWorld third(scene, options);
    }
    EXPECT_EQ(warnings.size(), 1u);
    EXPECT_EQ(cacheFiles(dir / "cache").size(), 1u);
}

} // namespace
