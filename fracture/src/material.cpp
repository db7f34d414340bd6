// checkMaterial: the one place a Material is validated, called by every function that takes one, so a
// bad setting is reported by name, in the same words everywhere, before any solve.
#include "shatter/fracture/material.h"

#include "shatter/error.h"

#include <cmath>
#include <sstream>

namespace shatter::fracture
{
namespace
{

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& problem)
{
    throw Error(source, field + " " + problem);
}

std::string show(Real value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

void requirePositive(const std::string& source, const char* field, Real value)
{
    if (!std::isfinite(value) || value <= 0)
        fail(source, field, "must be finite and > 0 (got " + show(value) + ")");
}

} // namespace

Material glass()
{
    Material m;
    m.density = 2500;
    m.youngsModulus = 7e10;
    m.poissonRatio = 0.22;
    m.energyExponent = 2;
    m.toughness = 1.5e-6;
    return m;
}

void checkMaterial(const Material& material, Index tetCount, const std::string& source)
{
    // Sane ranges: outside them a body's mass or stiffness is a typo, and single-precision Bullet or the
    // solve would lose it (a density of 1e-300 made a static body).
    if (!(material.density >= 1e-3 && material.density <= 1e6))
        fail(source, "density", "must lie in [1e-3, 1e6] kg/m^3 (got " + show(material.density) + ")");
    if (!(material.youngsModulus > 0 && material.youngsModulus <= 1e13))
        fail(source, "youngsModulus", "must lie in (0, 1e13] Pa (got " + show(material.youngsModulus) + ")");
    // ν → 0.5 makes λ = Eν/((1+ν)(1−2ν)) blow up (incompressible locking in P1 tets); ν ≤ −1 makes μ ≤ 0.
    if (!std::isfinite(material.poissonRatio) || material.poissonRatio <= -1 || material.poissonRatio >= 0.5)
        fail(source, "poissonRatio", "must lie in (-1, 0.5) (got " + show(material.poissonRatio) + ")");
    if (!std::isfinite(material.toughness) || material.toughness < 0)
        fail(source, "toughness", "must be finite and >= 0 (got " + show(material.toughness) + ")");
    if (!std::isfinite(material.energyExponent) || material.energyExponent < 0)
        fail(source, "energyExponent", "must be finite and >= 0 (got " + show(material.energyExponent) + ")");
    if (!material.weakness.empty())
    {
        if (material.weakness.size() != tetCount)
            fail(source, "weakness",
                 "has " + std::to_string(material.weakness.size()) + " entries, the mesh has " +
                     std::to_string(tetCount) + " tets (one per tet, or empty)");
        for (std::size_t t = 0; t < material.weakness.size(); ++t)
            if (!std::isfinite(material.weakness[t]) || material.weakness[t] < 0)
                fail(source, "weakness",
                     "entry " + std::to_string(t) + " must be finite and >= 0 (got " +
                         show(material.weakness[t]) + ")");
    }
    const MetricWarp& warp = material.warp;
    if (!warp.linear.allFinite())
        fail(source, "warp.linear", "must be finite");
    if (std::abs(warp.linear.determinant()) <= 1e-12 * std::pow(warp.linear.norm(), 3))
        fail(source, "warp.linear", "must be invertible");
    if (!std::isfinite(warp.waveAmplitude) || warp.waveAmplitude < 0)
        fail(source, "warp.waveAmplitude", "must be finite and >= 0 (got " + show(warp.waveAmplitude) + ")");
    if (warp.waveAmplitude > 0)
    {
        requirePositive(source, "warp.waveLength", warp.waveLength);
        if (!warp.waveDirection.allFinite() || warp.waveDirection.norm() <= 0)
            fail(source, "warp.waveDirection", "must be a finite, non-zero vector");
        if (!warp.wavePhaseDirection.allFinite() || warp.wavePhaseDirection.norm() <= 0)
            fail(source, "warp.wavePhaseDirection", "must be a finite, non-zero vector");
    }
    if (material.maxFragments < 1)
        fail(source, "maxFragments", "must be >= 1 (got " + std::to_string(material.maxFragments) + ")");
    if (!std::isfinite(material.minFragmentVolume) || material.minFragmentVolume < 0)
        fail(source, "minFragmentVolume",
             "must be finite and >= 0 (got " + show(material.minFragmentVolume) + ")");
}

} // namespace shatter::fracture
