#include "util/json_read.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

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

// Builds an ordered_json from nlohmann's SAX events as its own DOM parser does, but in linear time
// because nlohmann's parser adds each key with ordered_map::operator[], which scans every key
// already in the object, so an object of 1,000,000 keys took minutes. Here a key is appended to the
// object's vector directly, and an object past a few keys gets a hash index (of positions, so the
// keys are not stored twice) to find a repeated key. A repeated key keeps what nlohmann 3.11 does
// today: the first key's place, the last value (json_sax_dom_parser::key uses operator[]).
class LinearDomBuilder {
public:
    using object_t = ordered_json::object_t;
    using items_t = object_t::Container;

    // Parsing stops (sax_parse returns false) at a value nested deeper than `depth_limit`.
    LinearDomBuilder(ordered_json& root, std::size_t depth_limit) : root_(root), depth_limit_(depth_limit) {}

    bool null() { return value(nullptr); }
    bool boolean(bool v) { return value(v); }
    bool number_integer(ordered_json::number_integer_t v) { return value(v); }
    bool number_unsigned(ordered_json::number_unsigned_t v) { return value(v); }
    bool number_float(ordered_json::number_float_t v, const std::string& /*text*/) { return value(v); }
    bool string(std::string& v) { return value(v); }
    bool binary(ordered_json::binary_t& v) { return value(std::move(v)); }
    bool start_object(std::size_t /*unknown*/) {
        if (too_deep()) return false;
        open_.push_back(Open{place(ordered_json::value_t::object), nullptr});
        return true;
    }
    bool end_object() {
        open_.pop_back();
        return true;
    }
    bool start_array(std::size_t /*unknown*/) {
        if (too_deep()) return false;
        open_.push_back(Open{place(ordered_json::value_t::array), nullptr});
        return true;
    }
    bool end_array() {
        open_.pop_back();
        return true;
    }
    bool key(std::string& name) {
        Open& open = open_.back();
        items_t& items = *open.value->get_ptr<object_t*>();
        // Few keys: a scan is cheaper than a hash index (most objects in a report have under 20).
        constexpr std::size_t scan_limit = 16;
        if (!open.index && items.size() < scan_limit) {
            for (auto& item : items)
                if (item.first == name) {
                    element_ = &item.second;
                    return true;
                }
            items.emplace_back(name, nullptr);
            element_ = &items.back().second;
            return true;
        }
        if (!open.index) {
            open.index = std::make_unique<KeyIndex>(items.size() * 2, Hash{&items}, Equal{&items});
            for (std::size_t at = 0; at < items.size(); ++at) open.index->insert(at);
        }
        items.emplace_back(name, nullptr);
        const auto [found, added] = open.index->insert(items.size() - 1);
        if (!added) items.pop_back();
        element_ = &items[*found].second;
        return true;
    }
    // As json_sax_dom_parser with exceptions allowed: the parser's own exception, so messages do
    // not change.
    template <class Exception>
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& error) {
        throw error;
    }

private:
    struct Hash {
        const items_t* items;
        std::size_t operator()(std::size_t at) const { return std::hash<std::string>{}((*items)[at].first); }
    };
    struct Equal {
        const items_t* items;
        bool operator()(std::size_t a, std::size_t b) const { return (*items)[a].first == (*items)[b].first; }
    };
    using KeyIndex = std::unordered_set<std::size_t, Hash, Equal>;
    struct Open {
        ordered_json* value;
        std::unique_ptr<KeyIndex> index;  // objects only, once past scan_limit keys
    };

    [[nodiscard]] bool too_deep() const { return open_.size() >= depth_limit_; }
    template <typename Value>
    bool value(Value&& v) {
        place(std::forward<Value>(v));
        return true;
    }
    // Where a new value goes: the root, the end of the open array, or the open object's last key.
    // Pointers into a parent stay valid: nothing is added to it until its child is closed.
    template <typename Value>
    ordered_json* place(Value&& v) {
        if (open_.empty()) {
            root_ = ordered_json(std::forward<Value>(v));
            return &root_;
        }
        ordered_json* parent = open_.back().value;
        if (parent->is_array()) {
            auto& array = *parent->get_ptr<ordered_json::array_t*>();
            array.emplace_back(std::forward<Value>(v));
            return &array.back();
        }
        *element_ = ordered_json(std::forward<Value>(v));
        return element_;
    }

    ordered_json& root_;
    std::size_t depth_limit_;
    std::vector<Open> open_;
    ordered_json* element_ = nullptr;
};

}  // namespace

namespace {

// Empty when `text` nests deeper than `depth_limit`.
std::optional<ordered_json> parse_within(std::string_view text, std::size_t depth_limit) {
    ordered_json result;
    LinearDomBuilder builder(result, depth_limit);
    if (!ordered_json::sax_parse(text, &builder)) return std::nullopt;
    return result;
}

}  // namespace

ordered_json parse_ordered_json(std::string_view text) {
    return *parse_within(text, std::numeric_limits<std::size_t>::max());
}

JsonShapeError::JsonShapeError(std::string pointer, std::string problem)
    : nlohmann::json::exception(
          0, (pointer.empty() ? one_line(problem) : one_line(pointer) + ": " + one_line(problem)).c_str()),
      pointer_(one_line(pointer)),
      problem_(one_line(problem)) {}

JsonShapeError JsonShapeError::within(std::string_view prefix) const {
    return JsonShapeError(std::string(prefix) + pointer_, problem_);
}

std::optional<int> schema_major(std::string_view version) {
    const std::vector<std::string> parts = sys::split(version, '.');
    if (parts.size() != 3) return std::nullopt;
    for (const std::string& part : parts)
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6)
            return std::nullopt;
    return std::stoi(parts.front());
}

std::string where(const std::string& name, const JsonShapeError& shape_error) {
    return shape_error.pointer().empty()
               ? fmt::format("{}: {}", name, shape_error.problem())
               : fmt::format("{}: at {}: {}", name, shape_error.pointer(), shape_error.problem());
}

Expected<ordered_json> read_json_file(const std::string& path) {
    // Reports are small (a 2 x H200 report is 60 kB); the cap keeps a wrong file (a disk image)
    // from filling memory, and says so instead of cutting the file short.
    const Expected<std::string> text = sys::read_regular_file(path, std::uint64_t{64} << 20);
    if (!text) return Error{fmt::format("cannot read {}: {}", path, text.error().message), text.error().code};
    return parse_json_text(*text, path);
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

Expected<ordered_json> parse_json_text(std::string_view text, const std::string& name) {
    // No cudacheck document nests more than a few levels; deeper input would only exercise the
    // recursion of the code that walks it (SIGSEGV at 50,000 levels). The parser stops
    // at that depth; only then is the text scanned again for the byte to name (a separate scan of
    // every document was 7% of `fleet`'s time).
    const auto too_deep = [&]() -> Error {
        const std::optional<std::size_t> at = nesting_deeper_than(text, max_json_depth);
        return Error{fmt::format("{}: nested deeper than {} levels (at byte {}): not a cudacheck document", name,
                                 max_json_depth, at.value_or(0))};
    };
    try {
        std::optional<ordered_json> document = parse_within(text, max_json_depth);
        if (!document) return too_deep();
        return std::move(*document);
    } catch (const nlohmann::json::exception& parse_error) {
        // Mostly parse_error; out_of_range for a number too large for a double (1e999).
        return Error{fmt::format("{}: not valid JSON: {}", name, parse_error_text(parse_error))};
    }
}

}  // namespace cudacheck
