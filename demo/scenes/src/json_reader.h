// JsonNode: a read-only view of one value of a parsed JSON file that knows its JSON pointer
// ("/objects/3/material/toughness") and its file, so that every loading error names both (bad input is
// a shatter::Error that says where, never an assert). Typed getters check the type; allowOnly() rejects
// unknown keys (a misspelt key must not be silently ignored).
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace shatter::scenes
{

/// Parses a JSON document strictly: invalid JSON (with its line and column), a number too large for a
/// double, and a key that appears twice in one object (which a plain parse lets the last copy win) are
/// shatter::Error naming `file`.
nlohmann::json parseJson(const std::string& text, const std::filesystem::path& file);

class JsonNode
{
public:
    JsonNode(const nlohmann::json& value, std::string pointer, const std::filesystem::path& file);

    const nlohmann::json& value() const { return *json; }
    /// The JSON pointer of this value ("" for the document root).
    const std::string& pointer() const { return path; }

    /// Throws shatter::Error(file, "<pointer>: <problem>").
    [[noreturn]] void fail(const std::string& problem) const;

    /// Member `key` of this object; fails if this is not an object or the key is missing.
    JsonNode operator[](const char* key) const;
    /// Member `key` if present.
    std::optional<JsonNode> find(const char* key) const;
    /// Element i of this array.
    JsonNode operator[](std::size_t i) const;
    /// Number of elements of this array (fails for non-arrays).
    std::size_t size() const;

    /// Fails for a non-object, or an object with a key outside `keys`.
    void allowOnly(std::initializer_list<const char*> keys) const;

    double number() const; ///< any finite number
    /// number() with lo ≤ value (lo < value if loExclusive) and value ≤ hi when given; the message names
    /// the bounds.
    double number(double lo, std::optional<double> hi = std::nullopt, bool loExclusive = false) const;
    int integer() const; ///< an integral number that fits an int
    /// integer() in [lo, hi]; the message names the bounds.
    int integer(int lo, int hi) const;
    bool boolean() const;
    std::string string() const;
    Eigen::Vector3d vector3() const; ///< [x, y, z]
    /// vector3() with every component in [−limit, limit]; the message names the bound.
    Eigen::Vector3d vector3(double limit) const;

private:
    const nlohmann::json* json;
    std::string path;
    const std::filesystem::path* file;
};

/// Reads optional member `key` of `object` into `out`, leaving `out` as it is if the key is missing.
void readOptional(const JsonNode& object, const char* key, bool& out);
void readOptional(const JsonNode& object, const char* key, std::string& out);

/// Reads optional [x, y, z] `key` with every component in [−limit, limit].
void readOptionalWithin(const JsonNode& object, const char* key, Eigen::Vector3d& out, double limit);
/// Reads optional integer `key` in [lo, hi].
void readOptionalInRange(const JsonNode& object, const char* key, int& out, int lo, int hi);

/// Reads optional number `key` and checks lo ≤ value (and value ≤ hi when given); the message names the
/// bounds.
void readOptionalInRange(const JsonNode& object, const char* key, double& out, double lo,
                         std::optional<double> hi = std::nullopt, bool loExclusive = false);

} // namespace shatter::scenes
