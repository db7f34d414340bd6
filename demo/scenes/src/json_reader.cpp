#include "json_reader.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shatter::scenes
{

namespace
{

const char* typeName(const nlohmann::json& v)
{
    return v.type_name();
}

// RFC 6901 escaping of one key.
std::string escapeKey(const std::string& key)
{
    std::string out;
    for (char c : key)
    {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

} // namespace

JsonNode::JsonNode(const nlohmann::json& value, std::string pointer, const std::filesystem::path& f)
    : json(&value), path(std::move(pointer)), file(&f)
{
}

void JsonNode::fail(const std::string& problem) const
{
    throw Error(file->string(), (path.empty() ? std::string("/") : path) + ": " + problem);
}

JsonNode JsonNode::operator[](const char* key) const
{
    std::optional<JsonNode> member = find(key);
    if (!member)
        fail(std::string("missing required key \"") + key + "\"");
    return *member;
}

std::optional<JsonNode> JsonNode::find(const char* key) const
{
    if (!json->is_object())
        fail(std::string("expected an object, found ") + typeName(*json));
    const auto it = json->find(key);
    if (it == json->end())
        return std::nullopt;
    return JsonNode(*it, path + "/" + escapeKey(key), *file);
}

JsonNode JsonNode::operator[](std::size_t i) const
{
    if (!json->is_array())
        fail(std::string("expected an array, found ") + typeName(*json));
    if (i >= json->size())
        fail("index " + std::to_string(i) + " out of range");
    return JsonNode((*json)[i], path + "/" + std::to_string(i), *file);
}

std::size_t JsonNode::size() const
{
    if (!json->is_array())
        fail(std::string("expected an array, found ") + typeName(*json));
    return json->size();
}

void JsonNode::allowOnly(std::initializer_list<const char*> keys) const
{
    if (!json->is_object())
        fail(std::string("expected an object, found ") + typeName(*json));
    for (const auto& [key, value] : json->items())
    {
        const bool known = std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
        if (known)
            continue;
        std::string list;
        for (const char* k : keys)
            list += std::string(list.empty() ? "" : ", ") + k;
        JsonNode(value, path + "/" + escapeKey(key), *file)
            .fail("unknown key (expected one of: " + list + ")");
    }
}

double JsonNode::number() const
{
    if (!json->is_number())
        fail(std::string("expected a number, found ") + typeName(*json));
    const double v = json->get<double>();
    if (!std::isfinite(v))
        fail("expected a finite number");
    return v;
}

int JsonNode::integer() const
{
    if (!json->is_number_integer())
    {
        if (json->is_number_float())
        {
            const double v = json->get<double>();
            if (std::isfinite(v) && v == std::floor(v) && std::abs(v) <= std::numeric_limits<int>::max())
                return int(v);
        }
        fail(std::string("expected an integer, found ") +
             (json->is_number() ? json->dump() : typeName(*json)));
    }
    const long long v = json->get<long long>();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        fail("integer out of range");
    return int(v);
}

bool JsonNode::boolean() const
{
    if (!json->is_boolean())
        fail(std::string("expected true or false, found ") + typeName(*json));
    return json->get<bool>();
}

std::string JsonNode::string() const
{
    if (!json->is_string())
        fail(std::string("expected a string, found ") + typeName(*json));
    return json->get<std::string>();
}

Eigen::Vector3d JsonNode::vector3() const
{
    if (!json->is_array() || json->size() != 3)
        fail(std::string("expected an array of 3 numbers [x, y, z], found ") +
             (json->is_array() ? "an array of " + std::to_string(json->size())
                               : std::string(typeName(*json))));
    return {(*this)[std::size_t(0)].number(), (*this)[std::size_t(1)].number(),
            (*this)[std::size_t(2)].number()};
}

void readOptional(const JsonNode& object, const char* key, double& out)
{
    if (auto v = object.find(key))
        out = v->number();
}

void readOptional(const JsonNode& object, const char* key, int& out)
{
    if (auto v = object.find(key))
        out = v->integer();
}

void readOptional(const JsonNode& object, const char* key, bool& out)
{
    if (auto v = object.find(key))
        out = v->boolean();
}

void readOptional(const JsonNode& object, const char* key, std::string& out)
{
    if (auto v = object.find(key))
        out = v->string();
}

void readOptional(const JsonNode& object, const char* key, Eigen::Vector3d& out)
{
    if (auto v = object.find(key))
        out = v->vector3();
}

void readOptionalInRange(const JsonNode& object, const char* key, double& out, double lo,
                         std::optional<double> hi, bool loExclusive)
{
    const std::optional<JsonNode> v = object.find(key);
    if (!v)
        return;
    const double x = v->number();
    const bool lowOk = loExclusive ? x > lo : x >= lo;
    if (!lowOk || (hi && x > *hi))
    {
        std::string range = std::string(loExclusive ? "> " : ">= ") + nlohmann::json(lo).dump();
        if (hi)
            range += " and <= " + nlohmann::json(*hi).dump();
        v->fail("must be " + range + ", found " + v->value().dump());
    }
    out = x;
}

} // namespace shatter::scenes
