// Asset: the runtime part (the build lives in the cooking library, asset_build.cpp), and the public
// entry points of shatter/asset.h, which wrap Asset::load/save for code that sees Asset only opaquely.
#include "asset_data.h"

#include "shatter/error.h"

namespace shatter
{

Real Asset::radius() const
{
    return Real(0.5) * surface.bounds().extent().norm();
}

const AssetSection* Asset::findSection(std::string_view sectionName) const
{
    for (const AssetSection& section : sections)
        if (section.name == sectionName)
            return &section;
    return nullptr;
}

void Asset::setSection(std::string sectionName, std::vector<std::byte> bytes)
{
    for (AssetSection& section : sections)
        if (section.name == sectionName)
        {
            section.bytes = std::move(bytes);
            return;
        }
    sections.push_back({std::move(sectionName), std::move(bytes)});
}

std::shared_ptr<const Asset> loadAsset(const std::filesystem::path& cacheFile)
{
    return std::make_shared<const Asset>(Asset::load(cacheFile));
}

void saveAsset(const Asset& asset, const std::filesystem::path& cacheFile)
{
    asset.save(cacheFile);
}

AssetInfo assetInfo(const Asset& asset)
{
    AssetInfo info;
    info.name = asset.name;
    info.surfaceVertices = Index(asset.surface.vertices.size());
    info.surfaceTriangles = Index(asset.surface.triangles.size());
    info.tetNodes = asset.pointCount();
    info.tets = Index(asset.tetMesh.tets.size());
    info.radius = asset.radius();
    info.bounds = asset.surface.bounds();
    info.formatVersion = Asset::kFormatVersion; // a loaded asset of another version was rejected
    info.contentKey = asset.sourceHash;
    return info;
}

} // namespace shatter
