#include "shaders.h"

namespace shatter::demo::shaders
{

// Shared by the lit programs: tone mapping, gamma and the shadow lookup.
#define SHATTER_LIGHTING_COMMON                                                                              \
    "uniform sampler2DShadow uShadowMap;\n"                                                                  \
    "uniform float uShadowTexel;\n"                                                                          \
    "vec3 toneMap(vec3 c) {\n"                                                                               \
    "    c *= 0.95;\n"                                                                                       \
    "    vec3 m = (c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14);\n"                               \
    "    return pow(clamp(m, 0.0, 1.0), vec3(1.0 / 2.2));\n"                                                 \
    "}\n"                                                                                                    \
    "float shadowAt(vec4 lightPos, float bias) {\n"                                                          \
    "    vec3 p = lightPos.xyz / lightPos.w * 0.5 + 0.5;\n"                                                  \
    "    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) return 1.0;\n"              \
    "    float s = 0.0;\n"                                                                                   \
    "    for (int y = -2; y <= 2; ++y)\n"                                                                    \
    "        for (int x = -2; x <= 2; ++x)\n"                                                                \
    "            s += texture(uShadowMap, vec3(p.xy + vec2(x, y) * uShadowTexel, p.z - bias));\n"            \
    "    return s / 25.0;\n"                                                                                 \
    "}\n"

const char* const kMeshVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aCrack;
uniform mat4 uModel;
uniform mat4 uViewProj;
uniform mat4 uLightViewProj;
out vec3 vWorld;
out vec3 vNormal;
out float vCrack;
out vec4 vLightPos;
void main() {
    vec4 world = uModel * vec4(aPosition, 1.0);
    vWorld = world.xyz;
    vNormal = mat3(uModel) * aNormal;
    vCrack = aCrack;
    vLightPos = uLightViewProj * world;
    gl_Position = uViewProj * world;
}
)";

const char* const kMeshFragment = "#version 330 core\n" SHATTER_LIGHTING_COMMON R"(
in vec3 vWorld;
in vec3 vNormal;
in float vCrack;
in vec4 vLightPos;
uniform vec3 uBaseColor;   // linear
uniform vec3 uCrackColor;  // linear
uniform vec3 uLightDir;    // toward the light
uniform vec3 uCameraPos;
uniform vec3 uSkyColor;
uniform vec3 uGroundColor;
uniform float uGroundY;
uniform float uSceneScale;
uniform float uGloss;      // 0 matte .. 1 glazed
uniform float uHighlight;  // picked body
out vec4 fragColor;
void main() {
    vec3 n = normalize(vNormal);
    if (!gl_FrontFacing) n = -n;
    vec3 v = normalize(uCameraPos - vWorld);
    vec3 l = normalize(uLightDir);
    float crack = clamp(vCrack, 0.0, 1.0);
    vec3 albedo = mix(uBaseColor, uCrackColor, crack);
    // Crack faces: a faint grain so they read as broken material.
    float grain = fract(sin(dot(floor(vWorld * 400.0), vec3(12.9898, 78.233, 37.719))) * 43758.5453);
    albedo *= 1.0 - crack * 0.10 * grain;

    float ndl = max(dot(n, l), 0.0);
    float shadow = shadowAt(vLightPos, 0.0015 + 0.003 * (1.0 - ndl));
    float hemi = 0.5 + 0.5 * n.y;
    float nearGround = clamp((vWorld.y - uGroundY) / (0.04 * uSceneScale), 0.0, 1.0);
    float ao = mix(0.55, 1.0, sqrt(nearGround));
    vec3 ambient = mix(uGroundColor, uSkyColor, hemi) * albedo * ao;
    vec3 diffuse = albedo * vec3(1.0, 0.95, 0.88) * 1.55 * ndl * shadow;
    float gloss = uGloss * (1.0 - crack);
    vec3 h = normalize(l + v);
    float spec = pow(max(dot(n, h), 0.0), mix(12.0, 90.0, gloss)) * mix(0.03, 0.6, gloss) * shadow * step(0.0, ndl);
    float rim = pow(1.0 - max(dot(n, v), 0.0), 4.0) * 0.25;
    vec3 color = ambient + diffuse + vec3(spec) + rim * uSkyColor * ao;
    color = mix(color, color + vec3(0.35, 0.18, 0.05), uHighlight);
    fragColor = vec4(toneMap(color), 1.0);
}
)";

const char* const kShadowVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
uniform mat4 uModel;
uniform mat4 uLightViewProj;
void main() { gl_Position = uLightViewProj * uModel * vec4(aPosition, 1.0); }
)";

const char* const kShadowFragment = R"(#version 330 core
void main() {}
)";

const char* const kGroundVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
uniform mat4 uViewProj;
uniform mat4 uLightViewProj;
out vec3 vWorld;
out vec4 vLightPos;
void main() {
    vWorld = aPosition;
    vLightPos = uLightViewProj * vec4(aPosition, 1.0);
    gl_Position = uViewProj * vec4(aPosition, 1.0);
}
)";

const char* const kGroundFragment = "#version 330 core\n" SHATTER_LIGHTING_COMMON R"(
in vec3 vWorld;
in vec4 vLightPos;
uniform vec3 uCameraPos;
uniform vec3 uGroundAlbedo;
uniform vec3 uSkyColor;
uniform vec3 uHorizonColor;
uniform vec3 uLightDir;
uniform float uGridStep;   // minor grid spacing, m
uniform float uFadeDistance;
out vec4 fragColor;
float gridLine(vec2 p, float stepSize, float width) {
    vec2 q = p / stepSize;
    vec2 d = abs(fract(q - 0.5) - 0.5) / fwidth(q);
    return 1.0 - clamp(min(d.x, d.y) / width, 0.0, 1.0);
}
void main() {
    float minor = gridLine(vWorld.xz, uGridStep, 1.0);
    float major = gridLine(vWorld.xz, uGridStep * 10.0, 1.4);
    vec3 albedo = uGroundAlbedo * (1.0 - 0.10 * minor - 0.22 * major);
    float ndl = max(normalize(uLightDir).y, 0.0);
    float shadow = shadowAt(vLightPos, 0.0015);
    vec3 color = albedo * (0.6 * uSkyColor + vec3(1.0, 0.95, 0.88) * 1.55 * ndl * mix(0.3, 1.0, shadow));
    vec3 mapped = toneMap(color);
    float dist = length(vWorld.xz - uCameraPos.xz);
    float fade = smoothstep(0.25 * uFadeDistance, uFadeDistance, dist);
    fragColor = vec4(mix(mapped, uHorizonColor, fade), 1.0);
}
)";

const char* const kSkyVertex = R"(#version 330 core
out vec2 vNdc;
void main() {
    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    vNdc = p;
    gl_Position = vec4(p, 0.9999, 1.0);
}
)";

const char* const kSkyFragment = R"(#version 330 core
in vec2 vNdc;
uniform mat4 uInverseViewProj;
uniform vec3 uZenithColor;   // display colours
uniform vec3 uHorizonColor;
out vec4 fragColor;
void main() {
    vec4 a = uInverseViewProj * vec4(vNdc, -1.0, 1.0);
    vec4 b = uInverseViewProj * vec4(vNdc, 1.0, 1.0);
    vec3 dir = normalize(b.xyz / b.w - a.xyz / a.w);
    float t = pow(clamp(dir.y, 0.0, 1.0), 0.6);
    fragColor = vec4(mix(uHorizonColor, uZenithColor, t), 1.0);
}
)";

const char* const kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec4 aColor;
uniform mat4 uViewProj;
uniform mat4 uModel;
out vec4 vColor;
void main() {
    vColor = aColor;
    gl_Position = uViewProj * uModel * vec4(aPosition, 1.0);
}
)";

const char* const kLineFragment = R"(#version 330 core
in vec4 vColor;
uniform float uAlpha;
out vec4 fragColor;
void main() { fragColor = vec4(vColor.rgb, vColor.a * uAlpha); }
)";

const char* const kSliceVertex = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec2 aUv;
uniform mat4 uModel;
uniform mat4 uViewProj;
out vec2 vUv;
void main() {
    vUv = aUv;
    gl_Position = uViewProj * uModel * vec4(aPosition, 1.0);
}
)";

const char* const kSliceFragment = R"(#version 330 core
in vec2 vUv;
uniform sampler2D uField;   // r: fragment id (−1 outside), g: distance to that fragment's surface
uniform float uFragment;
uniform float uBand;        // isoline spacing, m
uniform vec3 uColor;        // display colour of the fragment
out vec4 fragColor;
void main() {
    vec2 s = texture(uField, vUv).rg;
    if (abs(s.r - uFragment) > 0.5) discard;
    float d = s.g;
    float t = fract(d / uBand);
    float line = 1.0 - smoothstep(0.0, 0.12, min(t, 1.0 - t));
    float shade = 0.45 + 0.55 * exp(-d / (4.0 * uBand));
    vec3 c = mix(uColor * shade, vec3(0.05), 0.65 * line);
    fragColor = vec4(c, 0.92);
}
)";

} // namespace shatter::demo::shaders
