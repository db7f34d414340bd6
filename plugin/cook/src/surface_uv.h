// The input mesh's texture coordinates, kept with the asset for fragment export (fragmentUvs in
// shatter/cook.h). The asset's surface is the input surface welded and possibly repaired, so its
// triangles do not map one to one onto the file's; the file's textured triangles are kept as they are
// (positions and UVs per corner, in the asset's frame) and a fragment's surface triangle finds the one
// it lies in geometrically.
#pragma once

#include "asset_data.h"

#include <filesystem>
#include <vector>

namespace shatter
{

/// One triangle of the input file with its corners' positions and texture coordinates.
struct TexturedTriangle
{
    float position[3][3]; ///< corners, the asset's (material) frame, input units
    float uv[3][2];       ///< (u, v) per corner
};

/// The textured triangles of a mesh file, as assimp reads it (polygons triangulated, scene nodes'
/// transforms applied, as importMesh does); empty when the file has no texture coordinates or assimp
/// cannot read them (its UVs are optional). Only for a file importMesh accepted: assimp's own loaders
/// are not trusted with corrupt files (mesh_import.cpp).
std::vector<TexturedTriangle> readTexturedTriangles(const std::filesystem::path& meshFile);

/// Stores them as the asset's "cook/surface uv" section (nothing for none).
void setSurfaceUvs(Asset& asset, const std::vector<TexturedTriangle>& triangles);
/// The asset's stored textured triangles; empty when it has none. Throws shatter::Error naming the
/// asset for a malformed section.
std::vector<TexturedTriangle> surfaceUvs(const Asset& asset);

} // namespace shatter
