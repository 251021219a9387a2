// Reading JSON documents that people and other programs write (reports, policies): every value's
// type is checked before use, and every problem names its place as a JSON pointer. get<T>() alone
// would convert silently (a negative number into a huge unsigned one) and say nowhere where.
#pragma once

#include "render/report_json.hpp"

#include <climits>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cudacheck::json_read {

using json = ordered_json;

// RFC 6901: "~" and "/" inside a key are escaped.
inline std::string pointer_token(std::string_view key) {
    std::string token;
    for (char c : key) {
        if (c == '~') token += "~0";
        else if (c == '/') token += "~1";
        else token += c;
    }
    return "/" + token;
}

template <typename T>
bool holds(const json& value) {
    if constexpr (std::is_same_v<T, std::string>) return value.is_string();
    else if constexpr (std::is_same_v<T, bool>) return value.is_boolean();
    else if constexpr (std::is_same_v<T, double>) return value.is_number();
    else if constexpr (std::is_same_v<T, std::uint64_t>) return value.is_number_unsigned();
    else {
        static_assert(std::is_same_v<T, int>);
        if (value.is_number_unsigned()) return value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX);
        return value.is_number_integer() && value.get<std::int64_t>() >= INT_MIN;
    }
}

template <typename T>
std::string_view type_word() {
    if constexpr (std::is_same_v<T, std::string>) return "a string";
    else if constexpr (std::is_same_v<T, bool>) return "true or false";
    else if constexpr (std::is_same_v<T, double>) return "a number";
    else if constexpr (std::is_same_v<T, std::uint64_t>) return "a non-negative integer";
    else return "an integer";
}

inline std::string describe_value(const json& value) {
    const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

inline const json& member(const json& object, std::string_view key) {
    if (!object.is_object()) throw JsonShapeError("", fmt::format("expected an object, found {}", describe_value(object)));
    const auto found = object.find(key);
    if (found == object.end()) throw JsonShapeError(pointer_token(key), "missing");
    return *found;
}

template <typename T>
T read(const json& object, std::string_view key) {
    const json& value = member(object, key);
    if (!holds<T>(value)) throw JsonShapeError(pointer_token(key), fmt::format("expected {}, found {}", type_word<T>(), describe_value(value)));
    return value.get<T>();
}

// null -> empty optional.
template <typename T>
std::optional<T> read_optional(const json& object, std::string_view key) {
    if (member(object, key).is_null()) return std::nullopt;
    return read<T>(object, key);
}

// null -> "", for the fields text_or_null writes.
inline std::string read_text(const json& object, std::string_view key) { return read_optional<std::string>(object, key).value_or(""); }

// Calls `read_element` on each element of the array `key`; a problem inside one names its index.
template <typename ReadElement>
void for_each_element(const json& object, std::string_view key, ReadElement&& read_element) {
    const json& array = member(object, key);
    if (!array.is_array()) throw JsonShapeError(pointer_token(key), fmt::format("expected an array, found {}", describe_value(array)));
    for (std::size_t index = 0; index < array.size(); ++index) {
        try {
            read_element(array[index]);
        } catch (const JsonShapeError& error) {
            throw error.within(fmt::format("{}/{}", pointer_token(key), index));
        }
    }
}

// Reads the object `key` with `read_part`; a problem inside it names the key.
template <typename ReadPart>
auto read_part(const json& object, std::string_view key, ReadPart&& read_part) {
    const json& part = member(object, key);
    try {
        return read_part(part);
    } catch (const JsonShapeError& error) {
        throw error.within(pointer_token(key));
    }
}

// An array of strings, e.g. argv.
inline std::vector<std::string> read_strings(const json& object, std::string_view key) {
    std::vector<std::string> strings;
    for_each_element(object, key, [&](const json& item) {
        if (!item.is_string()) throw JsonShapeError("", fmt::format("expected a string, found {}", describe_value(item)));
        strings.push_back(item.get<std::string>());
    });
    return strings;
}

}  // namespace cudacheck::json_read
