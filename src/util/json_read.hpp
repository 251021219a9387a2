// Reading JSON documents that people and other programs write (reports, policies): files and text
// parsed with one-line errors, every value's type checked before use, and every problem named by
// its place as a JSON pointer. get<T>() alone would convert silently (a negative number into a huge
// unsigned one) and say nowhere where. The report's own reader is report/report_json.
#pragma once

#include "util/expected.hpp"

#include <climits>
#include <cstdint>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cudacheck {

using ordered_json = nlohmann::ordered_json;

// A document that does not have the shape a reader expects, and where: `pointer` is a JSON pointer
// into the document ("/checks/3/status"; empty for the whole document). It is one of nlohmann's
// exceptions so that callers that already catch those keep working. Keys and values come from the
// file: control characters in them are shown escaped, so the message stays on one line.
class JsonShapeError : public nlohmann::json::exception {
public:
    JsonShapeError(std::string pointer, std::string problem);
    [[nodiscard]] const std::string& pointer() const { return pointer_; }
    [[nodiscard]] const std::string& problem() const { return problem_; }
    // The same problem seen from an enclosing value: within("/checks/3") of "/status".
    [[nodiscard]] JsonShapeError within(std::string_view prefix) const;

private:
    std::string pointer_;
    std::string problem_;
};

// "FILE: at /checks/3/status: unknown status 'x'": the one-line message for a bad document.
[[nodiscard]] std::string where(const std::string& name, const JsonShapeError& shape_error);

// The major version of a "MAJOR.MINOR.PATCH" text; empty when it is not one.
[[nodiscard]] std::optional<int> schema_major(std::string_view version);

// ordered_json::parse in linear time (nlohmann's own parser scans an object's keys at each
// insert, minutes for 1,000,000 keys): the same document, the same exceptions, a repeated key as
// nlohmann keeps it (first place, last value). No depth limit: see parse_json_text.
[[nodiscard]] ordered_json parse_ordered_json(std::string_view text);
// Parses JSON text; the error ("NAME: not valid JSON: parse error at line 3, column 5: ...") when it
// is not JSON.
[[nodiscard]] Expected<ordered_json> parse_json_text(std::string_view text, const std::string& name);
// The deepest nesting parse_json_text accepts, and where text first nests deeper than `limit`
// (strings skipped; nothing is parsed).
inline constexpr std::size_t max_json_depth = 1000;
[[nodiscard]] std::optional<std::size_t> nesting_deeper_than(std::string_view text, std::size_t limit);
// Runs `read` (a *_from_json function) on a document. The readers throw JsonShapeError from deep
// inside a document, where the place is known; this is where it stops: it becomes the error, one
// line naming the file and the place, and no exception leaves a reader.
template <typename Read>
[[nodiscard]] auto read_document(const ordered_json& document, const std::string& name, Read&& read)
    -> Expected<decltype(read(document))> {
    try {
        return read(document);
    } catch (const JsonShapeError& shape_error) {
        return Error{where(name, shape_error)};
    }
}
// Reads and parses a JSON file; the error (one line naming the file, and the line and column of a
// syntax error) when it cannot be read or is not JSON.
[[nodiscard]] Expected<ordered_json> read_json_file(const std::string& path);
// A document from a file, or from text, through `read` (a *_from_json function): the one way
// reports and policies are read, so both fail with the same kind of message.
template <typename Read>
[[nodiscard]] auto read_file_as(const std::string& path, Read&& read)
    -> Expected<decltype(read(std::declval<const ordered_json&>()))> {
    const Expected<ordered_json> document = read_json_file(path);
    if (!document) return document.error();
    return read_document(*document, path, read);
}
template <typename Read>
[[nodiscard]] auto parse_text_as(std::string_view text, const std::string& name, Read&& read)
    -> Expected<decltype(read(std::declval<const ordered_json&>()))> {
    const Expected<ordered_json> document = parse_json_text(text, name);
    if (!document) return document.error();
    return read_document(*document, name, read);
}

}  // namespace cudacheck

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
    if (!object.is_object())
        throw JsonShapeError("", fmt::format("expected an object, found {}", describe_value(object)));
    const auto found = object.find(key);
    if (found == object.end()) throw JsonShapeError(pointer_token(key), "missing");
    return *found;
}

template <typename T>
T read(const json& object, std::string_view key) {
    const json& value = member(object, key);
    if (!holds<T>(value))
        throw JsonShapeError(pointer_token(key),
                             fmt::format("expected {}, found {}", type_word<T>(), describe_value(value)));
    return value.get<T>();
}

// null -> empty optional.
template <typename T>
std::optional<T> read_optional(const json& object, std::string_view key) {
    if (member(object, key).is_null()) return std::nullopt;
    return read<T>(object, key);
}

// null -> "", for the fields text_or_null writes.
inline std::string read_text(const json& object, std::string_view key) {
    return read_optional<std::string>(object, key).value_or("");
}

// Calls `read_element` on each element of the array `key`; a problem inside one names its index.
template <typename ReadElement>
void for_each_element(const json& object, std::string_view key, ReadElement&& read_element) {
    const json& array = member(object, key);
    if (!array.is_array())
        throw JsonShapeError(pointer_token(key), fmt::format("expected an array, found {}", describe_value(array)));
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
        if (!item.is_string())
            throw JsonShapeError("", fmt::format("expected a string, found {}", describe_value(item)));
        strings.push_back(item.get<std::string>());
    });
    return strings;
}

}  // namespace cudacheck::json_read
