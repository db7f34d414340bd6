#include "json_reader.h"

#include "shatter/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

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

// "line L, column C" of byte offset `byte` (1-based, as editors show them).
std::string lineAndColumn(const std::string& text, std::size_t byte)
{
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i)
    {
        if (text[i] == '\n')
        {
            ++line;
            column = 1;
        }
        else
            ++column;
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Where the parser is, as a JSON pointer: one frame per open object or array.
struct ParseFrame
{
    bool array = false;
    long index = -1;            // array: the current element
    std::string key;            // object: the current member
    std::set<std::string> keys; // object: the members seen so far (a set: a hostile file may hold many)
};

} // namespace

nlohmann::json parseJson(const std::string& text, const std::filesystem::path& file)
{
    std::vector<ParseFrame> frames;
    const auto elementStarts = [&frames]
    {
        if (!frames.empty() && frames.back().array)
            ++frames.back().index;
    };
    const auto pointer = [&frames]
    {
        std::string p;
        for (const ParseFrame& f : frames)
            p += "/" + (f.array ? std::to_string(f.index) : escapeKey(f.key));
        return p;
    };
    using Event = nlohmann::json::parse_event_t;
    const nlohmann::json::parser_callback_t track = [&](int, Event event, nlohmann::json& parsed)
    {
        switch (event)
        {
        case Event::object_start:
        case Event::array_start:
            elementStarts();
            frames.push_back({event == Event::array_start, -1, {}, {}});
            break;
        case Event::object_end:
        case Event::array_end:
            frames.pop_back();
            break;
        case Event::key:
        {
            ParseFrame& f = frames.back();
            f.key = parsed.get<std::string>();
            if (!f.keys.insert(f.key).second)
                throw Error(file.string(), pointer() + ": duplicate key \"" + f.key + "\"");
            break;
        }
        case Event::value:
            elementStarts();
            break;
        }
        return true;
    };
    try
    {
        return nlohmann::json::parse(text, track);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        const std::string what = e.what();
        const auto pos = what.find("parse error");
        throw Error(file.string(), "invalid JSON at " + lineAndColumn(text, e.byte) + ": " +
                                       (pos == std::string::npos ? what : what.substr(pos)));
    }
    catch (const nlohmann::json::exception& e)
    {
        // out_of_range 406, "number overflow parsing '1e999'": no double holds the number. The
        // exception has no offset; the token's first occurrence gives the line.
        const std::string what = e.what();
        std::string where;
        if (const auto open = what.find("parsing '"); open != std::string::npos)
        {
            const std::size_t begin = open + 9;
            const std::string token = what.substr(begin, what.find('\'', begin) - begin);
            if (const auto at = text.find(token); !token.empty() && at != std::string::npos)
                where = " at " + lineAndColumn(text, at + 1);
        }
        throw Error(file.string(), "invalid JSON" + where + ": " + what);
    }
}

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
    for (const auto& item : json->items())
    {
        const std::string& key = item.key(); // not a structured binding: clang 14 cannot capture one
        const bool known = std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
        if (known)
            continue;
        std::string list;
        for (const char* k : keys)
            list += std::string(list.empty() ? "" : ", ") + k;
        JsonNode(item.value(), path + "/" + escapeKey(key), *file)
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

double JsonNode::number(double lo, std::optional<double> hi, bool loExclusive) const
{
    const double x = number();
    if (!(loExclusive ? x > lo : x >= lo) || (hi && x > *hi))
    {
        std::string range = std::string(loExclusive ? "> " : ">= ") + nlohmann::json(lo).dump();
        if (hi)
            range += " and <= " + nlohmann::json(*hi).dump();
        fail("must be " + range + ", found " + json->dump());
    }
    return x;
}

int JsonNode::integer(int lo, int hi) const
{
    const int v = integer();
    if (v < lo || v > hi)
        fail("must be >= " + std::to_string(lo) + " and <= " + std::to_string(hi) + ", found " +
             std::to_string(v));
    return v;
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

Eigen::Vector3d JsonNode::vector3(double limit) const
{
    const Eigen::Vector3d v = vector3();
    if (!(v.cwiseAbs().maxCoeff() <= limit))
        fail("components must be within ±" + nlohmann::json(limit).dump() + ", found " + json->dump());
    return v;
}

void readOptionalWithin(const JsonNode& object, const char* key, Eigen::Vector3d& out, double limit)
{
    if (auto v = object.find(key))
        out = v->vector3(limit);
}

void readOptionalInRange(const JsonNode& object, const char* key, int& out, int lo, int hi)
{
    if (auto v = object.find(key))
        out = v->integer(lo, hi);
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

void readOptionalInRange(const JsonNode& object, const char* key, double& out, double lo,
                         std::optional<double> hi, bool loExclusive)
{
    if (auto v = object.find(key))
        out = v->number(lo, hi, loExclusive);
}

} // namespace shatter::scenes
