// GLSL 3.30 sources of the demo's programs.
#pragma once

namespace shatter::demo::shaders
{

/// Lit meshes: hemispheric ambient + a directional key light with a PCF shadow map, glazed original
/// surface and matte crack faces, contact darkening near the ground, ACES tone mapping.
extern const char* const kMeshVertex;
extern const char* const kMeshFragment;
/// Depth only, from the light.
extern const char* const kShadowVertex;
extern const char* const kShadowFragment;
/// The ground plane: anti-aliased metre and decimetre grid lines, shadows, fading into the horizon.
extern const char* const kGroundVertex;
extern const char* const kGroundFragment;
/// Background gradient (full-screen triangle).
extern const char* const kSkyVertex;
extern const char* const kSkyFragment;
/// Coloured debug lines.
extern const char* const kLineVertex;
extern const char* const kLineFragment;
/// Distance-field slice: a material-frame quad textured with (fragment id, distance).
extern const char* const kSliceVertex;
extern const char* const kSliceFragment;

} // namespace shatter::demo::shaders
