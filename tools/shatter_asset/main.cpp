// shatter_asset: builds asset cache files from meshes and prints what they hold, through the public API
// (shatter/cook.h to build, shatter/asset.h to load and summarise).
//   shatter_asset build IN (-o OUT.shatter | --cache-dir DIR) [--repair] [--radius-edge R] [--force]
//   shatter_asset info FILE [--json]
//   shatter_asset precompute FILE [--poisson-ratio NU] [--density RHO] [--youngs-modulus E]
//                            [--toughness G] [--modes K] [--fem] [--no-degree-model]
// precompute adds fracture's per-asset sections (fracture_precompute.h: modal basis, the criterion
// bound's data, interior embedding, convexity, and the trained fracture degree model of CVD §4, the
// longest step) for glass() with the given ν, ρ, E and γ to FILE, so that loading it computes none of
// them; the scene library does the same on first use. The degree model is keyed by the whole material:
// it is found only for objects of exactly that material (a scene's material, e.g.).
// With --cache-dir the file is DIR/<stem>-<content key>.shatter (assetCacheFile), the name a game or
// the scene library looks up, so a prebuilt cache can be shipped or moved with its mesh.
#include "progress_bar.h"

#include "asset_data.h"
#include "fracture_precompute.h"
#include "shatter/asset.h"
#include "shatter/cook.h"
#include "shatter/error.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace
{

// JSON as text. An asset's name is its mesh file's stem, which need not be UTF-8: such bytes print as
// U+FFFD (nlohmann's plain dump throws on them).
std::string text(const nlohmann::json& j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json sections(const shatter::Asset& asset)
{
    nlohmann::json list = nlohmann::json::object();
    for (const shatter::AssetSection& s : asset.sections)
        list[s.name] = s.size();
    return list;
}

// The public summary plus a few internal sizes (the tool is in-tree and may look inside the asset).
nlohmann::json describe(const shatter::Asset& asset)
{
    const shatter::AssetInfo info = shatter::assetInfo(asset);
    char key[17];
    std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(info.contentKey));
    return {{"name", info.name},
            {"triangles", info.surfaceTriangles},
            {"tetrahedra", info.tets},
            {"points", info.tetNodes},
            {"surface_vertices", info.surfaceVertices},
            {"interior_nodes", info.tetNodes - info.surfaceVertices},
            {"volume", asset.tetMesh.totalVolume()},
            {"radius", info.radius},
            {"sphere_tree_nodes", asset.sphereTree.nodes.size()},
            {"grid_points", asset.surfaceGrid.pointCount()},
            {"format_version", info.formatVersion},
            {"content_key", key},
            {"sections", sections(asset)}};
}

int build(const std::string& input, const std::string& output, const shatter::AssetSettings& options,
          bool force)
{
    const auto start = std::chrono::steady_clock::now();
    shatter::AssetBuildResult result;
    shatter::cli::ProgressBar bar("building", true);
    if (force)
    {
        result = shatter::buildAsset(input, options, bar.callback());
        if (result.ok())
        {
            shatter::saveAsset(*result.asset, output); // throws shatter::Error naming the file
            result.rebuildReason = "--force";
        }
    }
    else
        result = shatter::loadOrBuildAsset(input, output, options, bar.callback());
    bar.finish();
    if (!result.ok())
    {
        std::fprintf(stderr, "shatter_asset: error: %s\n", result.error.c_str());
        return 1;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.rebuildReason.empty())
        std::printf("%s is up to date\n", output.c_str());
    else
        std::printf("built %s (%s) in %.2f s\n", output.c_str(), result.rebuildReason.c_str(), seconds);
    for (const std::string& note : result.importNotes)
        std::printf("import: %s\n", note.c_str());
    std::printf("%s\n", text(describe(*result.asset)).c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"shatter_asset: build and inspect Shatter asset cache files"};
    app.require_subcommand(1);

    shatter::AssetSettings options;
    std::string input, output, cacheDir;
    bool force = false;
    CLI::App* buildCommand = app.add_subcommand("build", "Build an asset cache file from a mesh");
    buildCommand->add_option("mesh", input, "Input mesh (OBJ, PLY, STL, OFF, glTF, ...)")->required();
    CLI::Option* outputOption =
        buildCommand->add_option("-o,--output", output, "Output cache file (.shatter)");
    buildCommand
        ->add_option("--cache-dir", cacheDir,
                     "Cache directory: the output is DIR/<stem>-<content key>.shatter (instead of -o)")
        ->excludes(outputOption);
    buildCommand->add_flag("--repair", options.import.repair,
                           "Remove degenerate/duplicate faces, fix orientation, close holes");
    buildCommand->add_option("--radius-edge", options.tets.maxRadiusEdgeRatio, "TetGen radius-edge bound")
        ->check(CLI::Range(1.0, 2.0))
        ->capture_default_str();
    buildCommand
        ->add_option(
            "--cell-factor", options.gridCellFactor,
            "Distance grid cell as a multiple of the mean surface edge (larger: coarser, smaller grid)")
        ->check(CLI::Range(1e-3, 1e3))
        ->capture_default_str();
    buildCommand->add_option("--max-tets", options.tets.maxTets, "Largest tet mesh to build")
        ->check(CLI::Range(1u, 1u << 30))
        ->capture_default_str();
    buildCommand->add_option("--max-grid-points", options.maxGridPoints, "Largest distance grid to build")
        ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 32))
        ->capture_default_str();
    buildCommand->add_flag("--force", force, "Rebuild even if the cache file is up to date");

    std::string infoFile;
    bool json = false;
    CLI::App* infoCommand = app.add_subcommand("info", "Print the sizes of an asset cache file");
    infoCommand->add_option("file", infoFile, "Asset cache file (.shatter)")->required();
    infoCommand->add_flag("--json", json, "Print JSON");

    std::string precomputeFile;
    shatter::fracture::Material material = shatter::fracture::glass();
    shatter::fracture::PipelineSettings pipeline;
    bool fem = false;
    CLI::App* precomputeCommand =
        app.add_subcommand("precompute", "Add fracture's precomputed sections to an asset cache file");
    precomputeCommand->add_option("file", precomputeFile, "Asset cache file (.shatter)")->required();
    precomputeCommand->add_option("--poisson-ratio", material.poissonRatio, "Poisson ratio ν of the material")
        ->check(CLI::Range(-0.99, 0.49))
        ->capture_default_str();
    precomputeCommand->add_option("--modes", pipeline.deformation.modeCount, "Modal basis size k")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    precomputeCommand->add_option("--density", material.density, "Density ρ of the material (kg/m³)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    precomputeCommand->add_option("--youngs-modulus", material.youngsModulus, "Young's modulus E (Pa)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    precomputeCommand->add_option("--toughness", material.toughness, "Fracture toughness γ")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    precomputeCommand->add_flag("--fem", fem, "FEM deformation: no modal basis or bound data");
    shatter::fracture::PrecomputeSettings precompute;
    bool noDegreeModel = false;
    precomputeCommand->add_flag("--no-degree-model", noDegreeModel,
                                "Skip the degree model's training (the pipeline then searches the degree)");

    CLI11_PARSE(app, argc, argv);

    try
    {
        if (*buildCommand)
        {
            if (output.empty() && cacheDir.empty())
                throw shatter::Error("shatter_asset build", "give the output file (-o) or a --cache-dir");
            if (output.empty())
            {
                std::filesystem::create_directories(cacheDir);
                output = shatter::assetCacheFile(input, cacheDir, options).string();
            }
            return build(input, output, options, force);
        }
        if (*precomputeCommand)
        {
            const auto start = std::chrono::steady_clock::now();
            pipeline.deformation.model =
                fem ? shatter::fracture::DeformationModel::Fem : shatter::fracture::DeformationModel::Modal;
            precompute.degreeModel = !noDegreeModel;
            shatter::Asset asset = shatter::Asset::load(precomputeFile);
            if (shatter::fracture::hasFracturePrecompute(asset, material, pipeline, precompute))
            {
                std::printf("%s is up to date\n", precomputeFile.c_str());
                return 0;
            }
            shatter::cli::ProgressBar bar("degree model", true);
            precompute.trainingProgress = bar.callback();
            shatter::fracture::addFracturePrecompute(
                asset, material, pipeline,
                [](const std::string& step) { std::fprintf(stderr, "computing %s\n", step.c_str()); },
                precompute);
            bar.finish();
            asset.save(precomputeFile);
            std::printf("added fracture sections to %s in %.2f s\n%s\n", precomputeFile.c_str(),
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                        text(sections(asset)).c_str());
            return 0;
        }
        const std::shared_ptr<const shatter::Asset> asset = shatter::loadAsset(infoFile);
        const nlohmann::json info = describe(*asset);
        if (json)
            std::printf("%s\n", text(info).c_str());
        else
            for (const auto& [key, value] : info.items())
                std::printf("%-18s %s\n", key.c_str(), text(value).c_str());
        return 0;
    }
    catch (const shatter::Error& error)
    {
        std::fprintf(stderr, "shatter_asset: error: %s\n", error.what());
        return 1;
    }
}
