// shatter_asset: builds asset cache files from meshes and prints what they hold.
//   shatter_asset build IN -o OUT.shatter [--repair] [--radius-edge R] [--force]
//   shatter_asset info FILE [--json]
#include "progress_bar.h"

#include "asset.h"
#include "asset_build.h"
#include "shatter/error.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

namespace
{

nlohmann::json assetInfo(const shatter::Asset& asset)
{
    return {{"name", asset.name},
            {"triangles", asset.surface.triangles.size()},
            {"tetrahedra", asset.tetMesh.tets.size()},
            {"points", asset.pointCount()},
            {"surface_vertices", asset.surface.vertices.size()},
            {"interior_nodes", asset.pointCount() - asset.surface.vertices.size()},
            {"volume", asset.tetMesh.totalVolume()},
            {"radius", asset.radius()},
            {"sphere_tree_nodes", asset.sphereTree.nodes.size()},
            {"grid_points", asset.surfaceGrid.pointCount()}};
}

int build(const std::string& input, const std::string& output, const shatter::AssetSettings& options,
          bool force)
{
    const auto start = std::chrono::steady_clock::now();
    std::string why;
    shatter::Asset asset;
    shatter::cli::ProgressBar bar("building", true);
    if (force)
    {
        asset = shatter::buildAssetFromFile(input, options, bar.callback());
        asset.save(output);
        why = "--force";
    }
    else
    {
        asset = shatter::loadOrBuildAsset(input, output, options, bar.callback(), &why);
    }
    bar.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (why.empty())
        std::printf("%s is up to date\n", output.c_str());
    else
        std::printf("built %s (%s) in %.2f s\n", output.c_str(), why.c_str(), seconds);
    std::printf("%s\n", assetInfo(asset).dump().c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"shatter_asset: build and inspect Shatter asset cache files"};
    app.require_subcommand(1);

    shatter::AssetSettings options;
    std::string input, output;
    bool force = false;
    CLI::App* buildCommand = app.add_subcommand("build", "Build an asset cache file from a mesh");
    buildCommand->add_option("mesh", input, "Input mesh (OBJ, PLY, STL, OFF, glTF, ...)")->required();
    buildCommand->add_option("-o,--output", output, "Output cache file (.shatter)")->required();
    buildCommand->add_flag("--repair", options.import.repair,
                           "Remove degenerate/duplicate faces, fix orientation, close holes");
    buildCommand->add_option("--radius-edge", options.tets.maxRadiusEdgeRatio, "TetGen radius-edge bound")
        ->check(CLI::Range(1.0, 2.0))
        ->capture_default_str();
    buildCommand->add_flag("--force", force, "Rebuild even if the cache file is up to date");

    std::string infoFile;
    bool json = false;
    CLI::App* infoCommand = app.add_subcommand("info", "Print the sizes of an asset cache file");
    infoCommand->add_option("file", infoFile, "Asset cache file (.shatter)")->required();
    infoCommand->add_flag("--json", json, "Print JSON");

    CLI11_PARSE(app, argc, argv);

    try
    {
        if (*buildCommand)
            return build(input, output, options, force);
        const shatter::Asset asset = shatter::Asset::load(infoFile);
        const nlohmann::json info = assetInfo(asset);
        if (json)
            std::printf("%s\n", info.dump().c_str());
        else
            for (const auto& [key, value] : info.items())
                std::printf("%-18s %s\n", key.c_str(), value.dump().c_str());
        return 0;
    }
    catch (const shatter::Error& error)
    {
        std::fprintf(stderr, "shatter_asset: error: %s\n", error.what());
        return 1;
    }
}
