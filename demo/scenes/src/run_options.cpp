// The spellings of RunSettings on the command line, in summaries and in the demo.
#include "shatter/scenes/scene_world.h"

#include <array>
#include <utility>

namespace shatter::scenes
{

namespace
{

constexpr std::array<std::pair<std::string_view, fracture::FragmentShapeKind>, 3> kCollision = {{
    {"shatter", fracture::FragmentShapeKind::Fracturable},
    {"gimpact", fracture::FragmentShapeKind::GImpact},
    {"hull", fracture::FragmentShapeKind::ConvexHull},
}};
constexpr std::array<std::pair<std::string_view, ContactMode>, 3> kContacts = {{
    {"adaptive", ContactMode::Adaptive},
    {"full", ContactMode::Full},
    {"fixed8", ContactMode::FixedBudget},
}};
constexpr std::array<std::pair<std::string_view, RestructureMethod>, 3> kRestructure = {{
    {"2013", RestructureMethod::Tvcg2013},
    {"2012", RestructureMethod::Sca2012},
    {"rebuild", RestructureMethod::Rebuild},
}};

template <typename Table, typename Value>
std::string_view nameOf(const Table& table, Value value)
{
    for (const auto& [name, v] : table)
        if (v == value)
            return name;
    return "?";
}

template <typename Value, typename Table>
std::optional<Value> valueOf(const Table& table, std::string_view name)
{
    for (const auto& [n, v] : table)
        if (n == name)
            return v;
    return std::nullopt;
}

} // namespace

std::string_view collisionName(fracture::FragmentShapeKind kind)
{
    return nameOf(kCollision, kind);
}

std::string_view contactsName(ContactMode mode)
{
    return nameOf(kContacts, mode);
}

std::string_view restructureName(RestructureMethod method)
{
    return nameOf(kRestructure, method);
}

std::optional<fracture::FragmentShapeKind> parseCollision(std::string_view name)
{
    return valueOf<fracture::FragmentShapeKind>(kCollision, name);
}

std::optional<ContactMode> parseContacts(std::string_view name)
{
    return valueOf<ContactMode>(kContacts, name);
}

std::optional<RestructureMethod> parseRestructure(std::string_view name)
{
    return valueOf<RestructureMethod>(kRestructure, name);
}

} // namespace shatter::scenes
