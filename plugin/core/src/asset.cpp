// Asset: the runtime part (the build lives in the cooking library, asset_build.cpp), and the public
// entry points of shatter/asset.h, which wrap Asset::load/save for code that sees Asset only opaquely.
#include "asset_data.h"

#include "binary_io.h"
#include "shatter/error.h"

#include <algorithm>

namespace shatter
{

Real Asset::radius() const
{
    return Real(0.5) * surface.bounds().extent().norm();
}

std::vector<std::byte> AssetSection::read() const
{
    if (!file)
        return bytes;
    std::vector<std::byte> stored = file->read(fileOffset, fileSize);
    if (quickHash64(stored) != fileChecksum)
        throw Error(file->path(), "section '" + name + "' changed since the file was loaded");
    return stored;
}

std::vector<std::byte> AssetSection::readFirst(std::uint64_t count) const
{
    if (!file)
        return {bytes.begin(), bytes.begin() + std::ptrdiff_t(std::min<std::uint64_t>(count, bytes.size()))};
    return file->read(fileOffset, std::min(count, fileSize));
}

const AssetSection* Asset::findSection(std::string_view sectionName) const
{
    for (const AssetSection& section : sections)
        if (section.name == sectionName)
            return &section;
    return nullptr;
}

std::optional<std::vector<std::byte>> Asset::readSection(std::string_view sectionName) const
{
    const AssetSection* section = findSection(sectionName);
    if (!section)
        return std::nullopt;
    return section->read();
}

void Asset::setSection(AssetSection section)
{
    for (AssetSection& existing : sections)
        if (existing.name == section.name)
        {
            existing = std::move(section);
            return;
        }
    sections.push_back(std::move(section));
}

void Asset::setSection(std::string sectionName, std::vector<std::byte> bytes)
{
    AssetSection section;
    section.name = std::move(sectionName);
    section.bytes = std::move(bytes);
    setSection(std::move(section));
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
