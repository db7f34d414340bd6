// CLI11 options whose value is one of a few names, each standing for an enum value (--contacts adaptive).
// CLI11's CheckedTransformer prints the mapped values beside the names in --help and in its errors, and
// an enum without operator<< prints as nothing ("{adaptive->,full->}"); this validator shows the names
// only, in the order given, and its error names the bad value and the choices.
#pragma once

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace shatter::cli
{

/// A transform for an option of enum type T: a name of one of `values` (as `name` spells it, any case)
/// becomes that value; anything else is a CLI::ValidationError. Help shows "{name1,name2,...}".
template <typename T>
CLI::Validator namedChoices(std::initializer_list<T> values, std::string_view (*name)(T))
{
    static_assert(std::is_enum_v<T>, "namedChoices maps names to enum values");
    std::vector<std::pair<std::string, T>> choices;
    std::string help, names; // "{adaptive,full,fixed8}" and "adaptive, full, fixed8"
    for (T v : values)
    {
        choices.emplace_back(std::string(name(v)), v);
        help += (help.empty() ? "{" : ",") + choices.back().first;
        names += (names.empty() ? "" : ", ") + choices.back().first;
    }
    help += "}";
    // CLI11 converts the transformed text to the enum through its underlying integer.
    auto transform = [choices, names](std::string& input) -> std::string
    {
        const std::string key = CLI::detail::to_lower(input);
        for (const auto& [n, v] : choices)
            if (CLI::detail::to_lower(n) == key)
            {
                input = std::to_string(static_cast<std::underlying_type_t<T>>(v));
                return {};
            }
        return "unknown value \"" + input + "\", expected one of " + names;
    };
    return CLI::Validator(transform, help, "named choices");
}

} // namespace shatter::cli
