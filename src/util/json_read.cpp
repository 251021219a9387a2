#include "util/json_read.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace cudacheck {
namespace {

// Keys and values come from the file: a newline or another control character in one must not
// break the one-line message, so each is shown as an escape ("\n", "\x01").
std::string one_line(std::string_view text) {
    std::string shown;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\n') shown += "\\n";
        else if (byte < 0x20 || byte == 0x7f) shown += fmt::format("\\x{:02x}", byte);
        else shown += c;
    }
    return shown;
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix: "parse error at line 3,
// column 5: syntax error ...".
std::string parse_error_text(const nlohmann::json::exception& parse_error) {
    const std::string text = parse_error.what();
    const std::size_t end = text.find("] ");
    return end == std::string::npos ? text : text.substr(end + 2);
}

}  // namespace

JsonShapeError::JsonShapeError(std::string pointer, std::string problem)
    : nlohmann::json::exception(0, (pointer.empty() ? one_line(problem) : one_line(pointer) + ": " + one_line(problem)).c_str()),
      pointer_(one_line(pointer)),
      problem_(one_line(problem)) {}

JsonShapeError JsonShapeError::within(std::string_view prefix) const { return JsonShapeError(std::string(prefix) + pointer_, problem_); }

std::optional<int> schema_major(std::string_view version) {
    const std::vector<std::string> parts = sys::split(version, '.');
    if (parts.size() != 3) return std::nullopt;
    for (const std::string& part : parts)
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6) return std::nullopt;
    return std::stoi(parts.front());
}

std::string where(const std::string& name, const JsonShapeError& shape_error) {
    return shape_error.pointer().empty() ? fmt::format("{}: {}", name, shape_error.problem())
                                         : fmt::format("{}: at {}: {}", name, shape_error.pointer(), shape_error.problem());
}

std::optional<ordered_json> read_json_file(const std::string& path, std::string& error) {
    // Reports are small (a 2 x H200 report is 60 kB); the cap keeps a wrong file (a disk image)
    // from filling memory, and says so instead of cutting the file short.
    std::string why;
    const std::optional<std::string> text = sys::read_regular_file(path, std::uint64_t{64} << 20, why);
    if (!text) {
        error = fmt::format("cannot read {}: {}", path, why);
        return std::nullopt;
    }
    return parse_json_text(*text, path, error);
}

std::optional<std::size_t> nesting_deeper_than(std::string_view text, std::size_t limit) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

std::optional<ordered_json> parse_json_text(std::string_view text, const std::string& name, std::string& error) {
    // No cudacheck document nests more than a few levels; deeper input would only exercise the
    // recursion of the code that walks it (issue 18: SIGSEGV at 50,000 levels).
    if (const std::optional<std::size_t> at = nesting_deeper_than(text, max_json_depth)) {
        error = fmt::format("{}: nested deeper than {} levels (at byte {}): not a cudacheck document", name, max_json_depth, *at);
        return std::nullopt;
    }
    try {
        return ordered_json::parse(text);
    } catch (const nlohmann::json::exception& parse_error) {
        // Mostly parse_error; out_of_range for a number too large for a double (1e999).
        error = fmt::format("{}: not valid JSON: {}", name, parse_error_text(parse_error));
    }
    return std::nullopt;
}

}  // namespace cudacheck
