// Python's packaging rules after pypa/packaging, the library pip vendors (pip/_vendor/packaging):
// each function names the one it follows. Sources: https://github.com/pypa/packaging/tree/main/src/packaging
// (version.py, specifiers.py, markers.py, _parser.py, requirements.py, tags.py, _manylinux.py,
// utils.py) and the specifications on packaging.python.org (version specifiers, dependency
// specifiers, core metadata, platform compatibility tags, binary distribution format).
#include "util/python_packaging.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <initializer_list>
#include <limits>
#include <set>
#include <tuple>

namespace cudacheck::packaging {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), lower);
    return out;
}
std::string_view trimmed(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}
bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
// Text from a file, shown in a one-line message: control characters escaped, at most 120 bytes.
std::string shown(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 120)) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else out += c;
    }
    if (text.size() > 120) out += "...";
    return out;
}
using sys::split;
// Up to 18 decimal digits: every real version number fits; Python's unbounded ints are not needed.
std::optional<std::uint64_t> number(std::string_view digits) {
    if (digits.empty() || digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), is_digit))
        return std::nullopt;
    std::uint64_t value = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return value;
}

// ---- version parsing: packaging.version.VERSION_PATTERN, by hand -------------------------------------
class VersionReader {
public:
    explicit VersionReader(std::string_view text) : text_(text) {}
    [[nodiscard]] bool done() const { return pos_ == text_.size(); }
    [[nodiscard]] std::size_t pos() const { return pos_; }
    void seek(std::size_t pos) { pos_ = pos; }
    bool eat(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
        return false;
    }
    bool eat_separator() {
        if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '_' || text_[pos_] == '.'))
            return ++pos_, true;
        return false;
    }
    std::string_view digits() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
        return text_.substr(start, pos_ - start);
    }
    // The first of `words` the text continues with (the regex's alternation order).
    std::optional<std::string_view> word(std::initializer_list<std::string_view> words) {
        for (const std::string_view w : words)
            if (text_.substr(pos_, w.size()) == w) {
                pos_ += w.size();
                return w;
            }
        return std::nullopt;
    }
    [[nodiscard]] std::string_view rest() const { return text_.substr(pos_); }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

struct VersionParse {
    Version version;
    std::string error;  // empty when parsed
};

// Reads `[sep] label [sep] [N]` at the reader; nullopt (reader unmoved) when no label follows.
std::optional<std::uint64_t> labelled_number(VersionReader& reader, std::initializer_list<std::string_view> labels,
                                             std::string_view* label, bool& too_large) {
    const std::size_t start = reader.pos();
    reader.eat_separator();
    const std::optional<std::string_view> found = reader.word(labels);
    if (!found) {
        reader.seek(start);
        return std::nullopt;
    }
    if (label) *label = *found;
    reader.eat_separator();
    const std::string_view n = reader.digits();
    // A separator without a number stays consumed, as the regex's greedy [-_\.]? takes it: every part
    // after this one starts with an optional separator of its own, and "1.0a." is a valid version.
    if (n.empty()) return 0;
    const std::optional<std::uint64_t> value = number(n);
    if (!value) too_large = true;
    return value.value_or(0);
}

VersionParse read_version(std::string_view raw) {
    VersionParse result;
    const std::string text = lowered(trimmed(raw));
    auto fail = [&](std::string why) {
        result.error = fmt::format("invalid version '{}': {}", shown(raw), why);
        return result;
    };
    if (text.empty()) return fail("empty");
    VersionReader reader(text);
    reader.eat('v');
    bool too_large = false;
    std::string_view first = reader.digits();
    if (first.empty()) return fail("no release number");
    if (reader.eat('!')) {
        const std::optional<std::uint64_t> epoch = number(first);
        if (!epoch) too_large = true;
        result.version.epoch = epoch.value_or(0);
        first = reader.digits();
        if (first.empty()) return fail("no release number after the epoch");
    }
    auto push_release = [&](std::string_view n) {
        const std::optional<std::uint64_t> value = number(n);
        if (!value) too_large = true;
        result.version.release.push_back(value.value_or(0));
    };
    push_release(first);
    while (true) {
        const std::size_t before = reader.pos();
        if (!reader.eat('.')) break;
        const std::string_view n = reader.digits();
        if (n.empty()) {
            reader.seek(before);
            break;
        }
        push_release(n);
        if (result.version.release.size() > 64) return fail("more than 64 release numbers");
    }
    std::string_view label;
    if (const auto pre =
            labelled_number(reader, {"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"}, &label, too_large)) {
        const char kind = (label == "alpha" || label == "a") ? 'a' : (label == "beta" || label == "b") ? 'b' : 'c';
        result.version.pre = std::pair{kind, *pre};
    }
    {
        const std::size_t before = reader.pos();
        if (reader.eat('-') && !reader.digits().empty()) {
            reader.seek(before + 1);
            const std::optional<std::uint64_t> value = number(reader.digits());
            if (!value) too_large = true;
            result.version.post = value.value_or(0);
        } else {
            reader.seek(before);
            if (const auto post = labelled_number(reader, {"post", "rev", "r"}, nullptr, too_large))
                result.version.post = post;
        }
    }
    if (const auto dev = labelled_number(reader, {"dev"}, nullptr, too_large)) result.version.dev = dev;
    if (reader.eat('+')) {
        const std::string_view local = reader.rest();
        if (local.empty()) return fail("an empty local version after '+'");
        std::string part;
        for (std::size_t i = 0; i <= local.size(); ++i) {
            if (i == local.size() || local[i] == '.' || local[i] == '-' || local[i] == '_') {
                if (part.empty()) return fail("an empty part in the local version");
                if (std::all_of(part.begin(), part.end(), is_digit)) {
                    const std::optional<std::uint64_t> value = number(part);
                    if (!value) too_large = true;
                    part = std::to_string(value.value_or(0));
                }
                result.version.local.push_back(part);
                part.clear();
            } else if (is_alnum(local[i])) {
                part += local[i];
            } else {
                return fail(fmt::format("'{}' in the local version", shown(local.substr(i, 1))));
            }
        }
        reader.seek(text.size());
    }
    if (!reader.done()) return fail(fmt::format("unexpected '{}'", shown(reader.rest())));
    if (too_large) return fail("a number of more than 18 digits");
    return result;
}

int compare_numbers(std::uint64_t a, std::uint64_t b) { return a < b ? -1 : a > b ? 1 : 0; }

// packaging.version._cmpkey, one field at a time.
int compare_versions(const Version& a, const Version& b) {
    if (int c = compare_numbers(a.epoch, b.epoch)) return c;
    auto significant = [](const std::vector<std::uint64_t>& release) {
        std::size_t n = release.size();
        while (n > 0 && release[n - 1] == 0) --n;
        return n;
    };
    const std::size_t na = significant(a.release), nb = significant(b.release);
    for (std::size_t i = 0; i < std::min(na, nb); ++i)
        if (int c = compare_numbers(a.release[i], b.release[i])) return c;
    if (na != nb) return na < nb ? -1 : 1;
    // _pre: a dev release without pre or post sorts before every pre-release; no pre sorts last.
    auto pre_rank = [](const Version& v) -> std::tuple<int, char, std::uint64_t> {
        if (!v.pre && !v.post && v.dev) return {0, 0, 0};
        if (!v.pre) return {2, 0, 0};
        return {1, v.pre->first, v.pre->second};
    };
    if (const auto ra = pre_rank(a), rb = pre_rank(b); ra != rb) return ra < rb ? -1 : 1;
    // _post: none sorts first.
    const auto post_a = a.post ? std::pair{1, *a.post} : std::pair{0, std::uint64_t{0}};
    const auto post_b = b.post ? std::pair{1, *b.post} : std::pair{0, std::uint64_t{0}};
    if (post_a != post_b) return post_a < post_b ? -1 : 1;
    // _dev: none sorts last.
    const auto dev_a = a.dev ? std::pair{0, *a.dev} : std::pair{1, std::uint64_t{0}};
    const auto dev_b = b.dev ? std::pair{0, *b.dev} : std::pair{1, std::uint64_t{0}};
    if (dev_a != dev_b) return dev_a < dev_b ? -1 : 1;
    // _local: none sorts first; numeric parts after alphanumeric ones, numbers by value.
    if (a.local.empty() != b.local.empty()) return a.local.empty() ? -1 : 1;
    for (std::size_t i = 0; i < std::min(a.local.size(), b.local.size()); ++i) {
        const std::string& x = a.local[i];
        const std::string& y = b.local[i];
        const bool xn = std::all_of(x.begin(), x.end(), is_digit), yn = std::all_of(y.begin(), y.end(), is_digit);
        if (xn != yn) return xn ? 1 : -1;
        if (xn) {
            if (int c = compare_numbers(number(x).value_or(0), number(y).value_or(0))) return c;
        } else if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    if (a.local.size() != b.local.size()) return a.local.size() < b.local.size() ? -1 : 1;
    return 0;
}

}  // namespace

std::string Version::text() const {
    std::string out;
    if (epoch != 0) out += fmt::format("{}!", epoch);
    for (std::size_t i = 0; i < release.size(); ++i) out += fmt::format("{}{}", i ? "." : "", release[i]);
    if (pre) out += fmt::format("{}{}", pre->first == 'c' ? "rc" : std::string(1, pre->first), pre->second);
    if (post) out += fmt::format(".post{}", *post);
    if (dev) out += fmt::format(".dev{}", *dev);
    for (std::size_t i = 0; i < local.size(); ++i) out += (i ? "." : "+") + local[i];
    return out;
}

Version Version::public_version() const {
    Version v = *this;
    v.local.clear();
    return v;
}

Version Version::base_version() const {
    Version v;
    v.epoch = epoch;
    v.release = release;
    return v;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
    const int c = compare_versions(a, b);
    return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}
bool operator==(const Version& a, const Version& b) { return compare_versions(a, b) == 0; }

Expected<Version> parse_version(std::string_view text) {
    VersionParse parsed = read_version(text);
    if (!parsed.error.empty()) return Error{parsed.error};
    return std::move(parsed.version);
}

// ---- specifiers: packaging.specifiers.Specifier --------------------------------------------------------

namespace {

// The version part of a specifier must match the operator's own pattern (Specifier._regex).
Expected<Specifier> read_specifier(std::string_view raw) {
    const std::string_view text = trimmed(raw);
    std::string op;
    for (const std::string_view candidate : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"})
        if (starts_with(text, candidate)) {
            op = std::string(candidate);
            break;
        }
    if (op.empty()) return Error{fmt::format("invalid specifier '{}': no operator (==, >=, ~=, ...)", shown(text))};
    const std::string_view version = trimmed(text.substr(op.size()));
    auto fail = [&](std::string_view why) {
        return Error{fmt::format("invalid specifier '{}': {}", shown(text), why)};
    };
    if (version.empty()) return fail("no version");
    if (op == "===") {
        if (std::any_of(version.begin(), version.end(), [](char c) { return is_space(c) || c == ';' || c == ')'; }))
            return fail("a space, ';' or ')' in the version");
        return Specifier{op, std::string(version)};
    }
    const bool wildcard = ends_with(version, ".*");
    if (wildcard && op != "==" && op != "!=") return fail("a '.*' prefix match is only for == and !=");
    const VersionParse parsed = read_version(wildcard ? version.substr(0, version.size() - 2) : version);
    if (!parsed.error.empty()) return fail(parsed.error);
    const Version& v = parsed.version;
    if (std::any_of(version.begin(), version.end(), is_space)) return fail("a space in the version");
    if (wildcard && (v.pre || v.post || v.dev || !v.local.empty()))
        return fail("a '.*' prefix match of a version with a pre, post, dev or local part");
    if (!v.local.empty() && op != "==" && op != "!=") return fail(fmt::format("a local version with {}", op));
    if (op == "~=" && v.release.size() < 2) return fail("~= needs at least two release numbers (~=2.0)");
    return Specifier{op, std::string(version)};
}

// packaging.specifiers._version_split: "0!1.2rc1" -> {"0", "1", "2", "rc1"}, the epoch first.
std::vector<std::string> version_split(std::string_view version) {
    std::vector<std::string> result;
    const std::size_t bang = version.rfind('!');
    result.emplace_back(bang == std::string_view::npos ? "0" : std::string(version.substr(0, bang)));
    for (std::string& item : split(bang == std::string_view::npos ? version : version.substr(bang + 1), '.')) {
        // _prefix_regex: ^([0-9]+)((?:a|b|c|rc)[0-9]+)$
        std::size_t digits = 0;
        while (digits < item.size() && is_digit(item[digits])) ++digits;
        const std::string_view tail = std::string_view(item).substr(digits);
        std::size_t label = 0;
        if (starts_with(tail, "rc")) label = 2;
        else if (!tail.empty() && (tail[0] == 'a' || tail[0] == 'b' || tail[0] == 'c')) label = 1;
        const bool prefixed = digits > 0 && label > 0 && tail.size() > label &&
                              std::all_of(tail.begin() + static_cast<std::ptrdiff_t>(label), tail.end(), is_digit);
        if (prefixed) {
            result.push_back(item.substr(0, digits));
            result.emplace_back(tail);
        } else {
            result.push_back(std::move(item));
        }
    }
    return result;
}

bool is_release_part(const std::string& part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), is_digit);
}

// _compare_equal with ".*": the public version, canonical with its trailing zeros kept, split, padded
// with "0" release parts to the prefix's length, then cut to it.
bool prefix_equal(const Version& prospective, std::string_view prefix_text) {
    const Version prefix = read_version(prefix_text).version;
    std::vector<std::string> spec = version_split(prefix.text());
    std::vector<std::string> candidate = version_split(prospective.public_version().text());
    // _pad_version: release parts padded to the same count, the rest kept.
    auto release_count = [](const std::vector<std::string>& parts) {
        std::size_t n = 1;  // the epoch
        while (n < parts.size() && is_release_part(parts[n])) ++n;
        return n;
    };
    const std::size_t spec_release = release_count(spec), candidate_release = release_count(candidate);
    if (candidate_release < spec_release)
        candidate.insert(candidate.begin() + static_cast<std::ptrdiff_t>(candidate_release),
                         spec_release - candidate_release, "0");
    if (candidate.size() > spec.size()) candidate.resize(spec.size());
    // The split parts compare as strings, numbers already canonical ("01" -> "1") by text().
    return candidate == spec;
}

}  // namespace

std::string SpecifierSet::text() const {
    std::string out;
    for (const Specifier& clause : clauses) out += (out.empty() ? "" : ",") + clause.op + clause.version;
    return out;
}

Expected<SpecifierSet> parse_specifier_set(std::string_view text) {
    SpecifierSet set;
    if (trimmed(text).empty()) return set;
    for (const std::string& part : split(text, ',')) {
        Expected<Specifier> clause = read_specifier(part);
        if (!clause) return clause.error();
        set.clauses.push_back(std::move(*clause));
        if (set.clauses.size() > 256) return Error{"more than 256 clauses in one specifier"};
    }
    return set;
}

bool specifier_allows(const Specifier& clause, const Version& item, bool prereleases) {
    if (item.is_prerelease() && !prereleases) return false;
    if (clause.op == "===") {
        // _compare_arbitrary: the version's normalised text against the specifier's, ignoring case.
        return lowered(item.text()) == lowered(clause.version);
    }
    const bool wildcard = ends_with(clause.version, ".*");
    if (clause.op == "==" || clause.op == "!=") {
        bool equal = false;
        if (wildcard) {
            equal = prefix_equal(item, std::string_view(clause.version).substr(0, clause.version.size() - 2));
        } else {
            const Version spec = read_version(clause.version).version;
            // Without a local part in the specifier, the candidate's own local part is ignored.
            equal = spec.local.empty() ? item.public_version() == spec : item == spec;
        }
        return clause.op == "==" ? equal : !equal;
    }
    const Version spec = read_version(clause.version).version;
    if (clause.op == "~=") {
        // _compare_compatible: >= spec and == the release without its last number (and suffixes).
        std::vector<std::string> parts = version_split(clause.version.empty() ? "" : spec.text());
        std::vector<std::string> prefix;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const std::string& p = parts[i];
            if (i > 0 && (starts_with(p, "dev") || starts_with(p, "a") || starts_with(p, "b") || starts_with(p, "rc") ||
                          starts_with(p, "post")))
                break;
            prefix.push_back(p);
        }
        prefix.pop_back();
        std::string joined = prefix.front() + "!";
        for (std::size_t i = 1; i < prefix.size(); ++i) joined += (i > 1 ? "." : "") + prefix[i];
        return item.public_version() >= spec && prefix_equal(item, joined);
    }
    if (clause.op == "<=") return item.public_version() <= spec;
    if (clause.op == ">=") return item.public_version() >= spec;
    if (clause.op == "<") {
        // _compare_less_than: a pre-release of the version named is not "less than" it.
        if (!(item < spec)) return false;
        if (!spec.is_prerelease() && item.is_prerelease() && item.base_version() == spec.base_version()) return false;
        return true;
    }
    if (clause.op == ">") {
        // _compare_greater_than: nor is a post-release or a local version of it "greater".
        if (!(item > spec)) return false;
        if (!spec.is_postrelease() && item.is_postrelease() && item.base_version() == spec.base_version()) return false;
        if (!item.local.empty() && item.base_version() == spec.base_version()) return false;
        return true;
    }
    return false;
}

bool specifier_allows(const SpecifierSet& set, const Version& version, std::optional<bool> prereleases) {
    // SpecifierSet.prereleases: allowed when any clause names a pre-release (!= and .* never do).
    bool allow = false;
    if (prereleases) {
        allow = *prereleases;
    } else {
        for (const Specifier& clause : set.clauses) {
            if (clause.op == "!=" || ends_with(clause.version, ".*")) continue;
            const VersionParse parsed = read_version(clause.version);
            if (parsed.error.empty() && parsed.version.is_prerelease()) allow = true;
        }
    }
    if (version.is_prerelease() && !allow) return false;
    return std::all_of(set.clauses.begin(), set.clauses.end(),
                       [&](const Specifier& clause) { return specifier_allows(clause, version, true); });
}

// ---- markers: packaging.markers / _parser.py / _tokenizer.py ------------------------------------------

namespace {

// The environment names markers may use, legacy dotted spellings included (_tokenizer's VARIABLE).
std::optional<std::string> canonical_variable(std::string_view name) {
    static const std::pair<std::string_view, std::string_view> names[] = {
        {"python_version", "python_version"},
        {"python_full_version", "python_full_version"},
        {"os_name", "os_name"},
        {"os.name", "os_name"},
        {"sys_platform", "sys_platform"},
        {"sys.platform", "sys_platform"},
        {"platform_release", "platform_release"},
        {"platform_system", "platform_system"},
        {"platform_version", "platform_version"},
        {"platform.version", "platform_version"},
        {"platform_machine", "platform_machine"},
        {"platform.machine", "platform_machine"},
        {"platform_python_implementation", "platform_python_implementation"},
        {"platform.python_implementation", "platform_python_implementation"},
        {"python_implementation", "platform_python_implementation"},
        {"implementation_name", "implementation_name"},
        {"implementation_version", "implementation_version"},
        {"extra", "extra"},
        {"extras", "extras"},
        {"dependency_groups", "dependency_groups"},
    };
    for (const auto& [spelling, canonical] : names)
        if (name == spelling) return std::string(canonical);
    return std::nullopt;
}

enum class Truth { no, yes, unknown };

struct MarkerValue {
    bool variable = false;
    std::string text;  // the variable's canonical name, or the string
};

class MarkerParser {
public:
    MarkerParser(std::string_view text, const MarkerEnvironment& environment, std::string_view extra)
        : text_(text), environment_(environment), extra_(extra) {}

    Expected<MarkerVerdict> run() {
        Truth truth = Truth::no;
        if (Expected<void> parsed = parse_or(truth); !parsed) return parsed.error();
        skip_space();
        if (pos_ != text_.size()) return error("unexpected text");
        if (truth == Truth::unknown) return MarkerVerdict{false, reason_};
        return MarkerVerdict{truth == Truth::yes, {}};
    }

private:
    Error error(std::string_view what) const {
        return Error{fmt::format("invalid marker '{}': {} at column {}", shown(text_), what, pos_ + 1)};
    }
    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    }
    // A word ("and", "or", "in", "not") standing alone.
    bool keyword(std::string_view word) {
        skip_space();
        if (text_.substr(pos_, word.size()) != word) return false;
        const std::size_t end = pos_ + word.size();
        if (end < text_.size() && (is_alnum(text_[end]) || text_[end] == '_' || text_[end] == '.')) return false;
        pos_ = end;
        return true;
    }

    // marker = and_expr ("or" and_expr)*; and binds tighter (_evaluate_markers' groups).
    Expected<void> parse_or(Truth& truth) {
        if (++depth_ > 64) return error("more than 64 nested parentheses");
        Truth left = Truth::no;
        if (Expected<void> parsed = parse_and(left); !parsed) return parsed;
        while (keyword("or")) {
            Truth right = Truth::no;
            if (Expected<void> parsed = parse_and(right); !parsed) return parsed;
            left = (left == Truth::yes || right == Truth::yes)           ? Truth::yes
                   : (left == Truth::unknown || right == Truth::unknown) ? Truth::unknown
                                                                         : Truth::no;
        }
        --depth_;
        truth = left;
        return {};
    }
    Expected<void> parse_and(Truth& truth) {
        Truth left = Truth::no;
        if (Expected<void> parsed = parse_atom(left); !parsed) return parsed;
        while (keyword("and")) {
            Truth right = Truth::no;
            if (Expected<void> parsed = parse_atom(right); !parsed) return parsed;
            left = (left == Truth::no || right == Truth::no)             ? Truth::no
                   : (left == Truth::unknown || right == Truth::unknown) ? Truth::unknown
                                                                         : Truth::yes;
        }
        truth = left;
        return {};
    }
    Expected<void> parse_atom(Truth& truth) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '(') {
            ++pos_;
            if (Expected<void> parsed = parse_or(truth); !parsed) return parsed;
            skip_space();
            if (pos_ >= text_.size() || text_[pos_] != ')') return error("expected ')'");
            ++pos_;
            return {};
        }
        Expected<MarkerValue> lhs = parse_value();
        if (!lhs) return lhs.error();
        Expected<std::string> op = parse_op();
        if (!op) return op.error();
        Expected<MarkerValue> rhs = parse_value();
        if (!rhs) return rhs.error();
        truth = compare(*lhs, *op, *rhs);
        return {};
    }
    Expected<MarkerValue> parse_value() {
        skip_space();
        if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
            const char quote = text_[pos_];
            const std::size_t end = text_.find(quote, pos_ + 1);
            if (end == std::string_view::npos) return error("an unterminated string");
            MarkerValue value{false, std::string(text_.substr(pos_ + 1, end - pos_ - 1))};
            pos_ = end + 1;
            return value;
        }
        std::size_t end = pos_;
        while (end < text_.size() && (is_alnum(text_[end]) || text_[end] == '_' || text_[end] == '.')) ++end;
        const std::optional<std::string> name = canonical_variable(text_.substr(pos_, end - pos_));
        if (!name) return error("expected a marker variable (python_version, sys_platform, extra, ...) or a string");
        pos_ = end;
        return MarkerValue{true, *name};
    }
    Expected<std::string> parse_op() {
        skip_space();
        for (const std::string_view op : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"})
            if (text_.substr(pos_, op.size()) == op) {
                pos_ += op.size();
                return std::string(op);
            }
        if (keyword("in")) return std::string("in");
        const std::size_t before = pos_;
        if (keyword("not") && keyword("in")) return std::string("not in");
        pos_ = before;
        return error("expected a comparison (==, <, in, not in, ...)");
    }

    // The value of an environment variable; nullopt when it is not known here.
    std::optional<std::string> lookup(const std::string& name) const {
        const MarkerEnvironment& e = environment_;
        const std::string* value = nullptr;
        if (name == "extra") return std::string(extra_);
        if (name == "python_version") value = &e.python_version;
        else if (name == "python_full_version") value = &e.python_full_version;
        else if (name == "os_name") value = &e.os_name;
        else if (name == "sys_platform") value = &e.sys_platform;
        else if (name == "platform_release") value = &e.platform_release;
        else if (name == "platform_system") value = &e.platform_system;
        else if (name == "platform_version") value = &e.platform_version;
        else if (name == "platform_machine") value = &e.platform_machine;
        else if (name == "platform_python_implementation") value = &e.platform_python_implementation;
        else if (name == "implementation_name") value = &e.implementation_name;
        else if (name == "implementation_version") value = &e.implementation_version;
        if (!value || value->empty()) return std::nullopt;
        return *value;
    }

    // _eval_op: a PEP 440 comparison where "<op><rhs>" is a valid specifier, else Python's string
    // operators; ~= and === on strings are undefined (packaging raises; here: not satisfied).
    Truth compare(const MarkerValue& lhs_value, const std::string& op, const MarkerValue& rhs_value) {
        std::string lhs = lhs_value.text, rhs = rhs_value.text;
        for (auto [side, value] : {std::pair{&lhs, &lhs_value}, std::pair{&rhs, &rhs_value}}) {
            if (!value->variable) continue;
            const std::optional<std::string> known = lookup(value->text);
            if (!known) {
                if (reason_.empty()) reason_ = fmt::format("the marker needs {}, which is not known here", value->text);
                return Truth::unknown;
            }
            *side = *known;
        }
        // PEP 685: extras compare by their normalised names.
        if ((lhs_value.variable && lhs_value.text == "extra") || (rhs_value.variable && rhs_value.text == "extra")) {
            lhs = normalize_name(lhs);
            rhs = normalize_name(rhs);
        }
        if (op != "in" && op != "not in") {
            if (Expected<Specifier> spec = read_specifier(op + rhs)) {
                const VersionParse candidate = read_version(lhs);
                if (spec->op == "===") return lowered(trimmed(lhs)) == lowered(spec->version) ? Truth::yes : Truth::no;
                if (!candidate.error.empty()) return Truth::no;
                return specifier_allows(*spec, candidate.version, true) ? Truth::yes : Truth::no;
            }
        }
        bool result = false;
        if (op == "in") result = rhs.find(lhs) != std::string::npos;
        else if (op == "not in") result = rhs.find(lhs) == std::string::npos;
        else if (op == "==") result = lhs == rhs;
        else if (op == "!=") result = lhs != rhs;
        else if (op == "<") result = lhs < rhs;
        else if (op == "<=") result = lhs <= rhs;
        else if (op == ">") result = lhs > rhs;
        else if (op == ">=") result = lhs >= rhs;
        else {
            if (reason_.empty()) reason_ = fmt::format("'{}' {} '{}' is undefined", shown(lhs), op, shown(rhs));
            return Truth::unknown;
        }
        return result ? Truth::yes : Truth::no;
    }

    std::string_view text_;
    const MarkerEnvironment& environment_;
    std::string_view extra_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    std::string reason_;
};

}  // namespace

Expected<MarkerVerdict> evaluate_marker(std::string_view marker, const MarkerEnvironment& environment,
                                        std::string_view extra) {
    if (marker.size() > std::size_t{64} * 1024) return Error{"invalid marker: longer than 64 KiB"};
    return MarkerParser(marker, environment, extra).run();
}

// ---- requirements and metadata ------------------------------------------------------------------------

std::string normalize_name(std::string_view name) {
    // canonicalize_name: re.sub(r"[-_.]+", "-", name).lower()
    std::string normal;
    for (const char c : name) {
        if (c == '-' || c == '_' || c == '.') {
            if (normal.empty() || normal.back() != '-') normal += '-';
        } else {
            normal += lower(c);
        }
    }
    return normal;
}

namespace {

// _tokenizer's IDENTIFIER: [a-zA-Z0-9][a-zA-Z0-9._-]* ending in a letter or digit.
std::size_t identifier_length(std::string_view text) {
    if (text.empty() || !is_alnum(text[0])) return 0;
    std::size_t end = 1;
    while (end < text.size() && (is_alnum(text[end]) || text[end] == '.' || text[end] == '_' || text[end] == '-'))
        ++end;
    while (end > 1 && !is_alnum(text[end - 1])) --end;
    return end;
}

}  // namespace

Expected<Requirement> parse_requirement(std::string_view raw) {
    const std::string_view text = trimmed(raw);
    auto fail = [&](std::string_view why) {
        return Error{fmt::format("invalid requirement '{}': {}", shown(text), why)};
    };
    if (text.size() > std::size_t{64} * 1024) return fail("longer than 64 KiB");
    Requirement requirement;
    std::size_t pos = identifier_length(text);
    if (pos == 0) return fail("no distribution name");
    requirement.name = std::string(text.substr(0, pos));
    auto skip = [&] {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    };
    skip();
    if (pos < text.size() && text[pos] == '[') {
        const std::size_t close = text.find(']', pos);
        if (close == std::string_view::npos) return fail("no ']' after the extras");
        const std::string_view inside = trimmed(text.substr(pos + 1, close - pos - 1));
        if (!inside.empty())
            for (const std::string& extra : split(inside, ',')) {
                const std::string_view name = trimmed(extra);
                if (name.empty() || identifier_length(name) != name.size()) return fail("an invalid extra name");
                requirement.extras.emplace_back(name);
            }
        pos = close + 1;
        skip();
    }
    std::string_view marker_part;
    bool has_marker = false;
    if (pos < text.size() && text[pos] == '@') {
        ++pos;
        skip();
        const std::size_t end = text.find_first_of(" \t", pos);
        requirement.url =
            std::string(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
        if (requirement.url.empty()) return fail("no URL after '@'");
        pos = end == std::string_view::npos ? text.size() : end;
        skip();
        if (pos < text.size()) {
            if (text[pos] != ';') return fail("expected ';' after the URL");
            has_marker = true;
            marker_part = text.substr(pos + 1);
        }
    } else {
        const std::size_t semicolon = text.find(';', pos);
        std::string_view spec =
            trimmed(text.substr(pos, semicolon == std::string_view::npos ? std::string_view::npos : semicolon - pos));
        if (semicolon != std::string_view::npos) {
            has_marker = true;
            marker_part = text.substr(semicolon + 1);
        }
        if (!spec.empty() && spec.front() == '(') {
            if (spec.back() != ')') return fail("no ')' after the version specifier");
            spec = trimmed(spec.substr(1, spec.size() - 2));
        }
        if (!spec.empty()) {
            Expected<SpecifierSet> set = parse_specifier_set(spec);
            if (!set) return fail(set.error().message);
            requirement.specifier = std::move(*set);
        }
    }
    if (has_marker) {
        requirement.marker = std::string(trimmed(marker_part));
        if (requirement.marker.empty()) return fail("an empty marker after ';'");
        // Parsed now, so that a requirement that is kept has a marker that evaluates.
        const Expected<MarkerVerdict> check = evaluate_marker(requirement.marker, MarkerEnvironment{}, "");
        if (!check) return fail(check.error().message);
    }
    return requirement;
}

MarkerVerdict requirement_applies(const Requirement& requirement, const MarkerEnvironment& environment,
                                  std::span<const std::string> extras) {
    if (requirement.marker.empty()) return {true, {}};
    std::string reason;
    std::vector<std::string_view> contexts{""};
    for (const std::string& extra : extras) contexts.emplace_back(extra);
    for (const std::string_view extra : contexts) {
        const Expected<MarkerVerdict> verdict = evaluate_marker(requirement.marker, environment, extra);
        if (!verdict) return {false, verdict.error().message};
        if (verdict->holds) return {true, {}};
        if (reason.empty()) reason = verdict->reason;
    }
    return {false, reason};
}

Expected<Metadata> parse_metadata(std::string_view text) {
    if (text.size() > max_metadata_bytes)
        return Error{fmt::format("METADATA is larger than {} MiB", max_metadata_bytes >> 20)};
    Metadata metadata;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        pos = end == std::string_view::npos ? text.size() : end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        // The email format (RFC 5322, Python's email.feedparser): an empty line ends the headers; a
        // line starting with a space or tab folds into the header before it; anything else that is
        // not "Name:" starts the body early.
        if (line.empty()) break;
        if (line.front() == ' ' || line.front() == '\t') {
            if (metadata.headers.empty()) break;
            metadata.headers.back().second += "\n";
            metadata.headers.back().second += line;
            continue;
        }
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0 ||
            !std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                         [](char c) { return c > 0x20 && c < 0x7f; }))
            break;
        metadata.headers.emplace_back(std::string(line.substr(0, colon)), std::string(trimmed(line.substr(colon + 1))));
    }
    for (const auto& [key, value] : metadata.headers) {
        const std::string name = lowered(key);
        if (name == "metadata-version") metadata.metadata_version = value;
        else if (name == "name" && metadata.name.empty()) metadata.name = value;
        else if (name == "version" && metadata.version.empty()) metadata.version = value;
        else if (name == "requires-python") metadata.requires_python = value;
        else if (name == "provides-extra") metadata.provides_extra.push_back(value);
        else if (name == "requires-dist") {
            Expected<Requirement> requirement = parse_requirement(value);
            if (requirement) metadata.requires_dist.push_back(std::move(*requirement));
            else metadata.unreadable_requirements.emplace_back(value, requirement.error().message);
        }
    }
    if (metadata.name.empty()) return Error{"METADATA has no Name header"};
    if (metadata.version.empty()) return Error{"METADATA has no Version header"};
    return metadata;
}

// ---- wheel names and tags --------------------------------------------------------------------------------

std::vector<Tag> WheelName::tags() const {
    std::vector<Tag> out;
    for (const std::string& python : python_tags)
        for (const std::string& abi : abi_tags)
            for (const std::string& platform : platform_tags) out.push_back(Tag{python, abi, platform});
    return out;
}

Expected<WheelName> parse_wheel_filename(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    const std::string_view file_name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    auto fail = [&](std::string_view why) {
        return Error{fmt::format("invalid wheel file name '{}': {}", shown(file_name), why)};
    };
    if (file_name.size() > 4096) return fail("longer than 4096 bytes");
    if (!ends_with(file_name, ".whl")) return fail("it does not end in .whl");
    // packaging.utils.parse_wheel_filename: 4 or 5 dashes; name-version[-build]-python-abi-platform.
    const std::vector<std::string> parts = split(file_name.substr(0, file_name.size() - 4), '-');
    if (parts.size() != 5 && parts.size() != 6)
        return fail("expected name-version[-build]-python-abi-platform.whl (PEP 427)");
    WheelName wheel;
    wheel.distribution = parts[0];
    if (wheel.distribution.empty() || wheel.distribution.find("__") != std::string::npos ||
        !std::all_of(wheel.distribution.begin(), wheel.distribution.end(),
                     [](char c) { return is_alnum(c) || c == '_' || c == '.'; }))
        return fail("an invalid distribution name");
    wheel.version = parts[1];
    if (!parse_version(wheel.version)) return fail(fmt::format("an invalid version '{}'", shown(wheel.version)));
    if (parts.size() == 6) {
        // A build tag starts with a digit (PEP 427).
        if (parts[2].empty() || !is_digit(parts[2][0])) return fail("a build tag must start with a digit");
        wheel.build = parts[2];
    }
    const std::size_t t = parts.size() - 3;
    for (auto [field, target] : {std::pair{parts[t], &wheel.python_tags}, std::pair{parts[t + 1], &wheel.abi_tags},
                                 std::pair{parts[t + 2], &wheel.platform_tags}}) {
        // Tags compare lower case (packaging.tags.Tag); a compressed set is dot-separated (PEP 425).
        for (const std::string& tag : split(lowered(field), '.')) {
            if (tag.empty()) return fail("an empty tag");
            target->push_back(tag);
        }
    }
    return wheel;
}

std::string Interpreter::version_text() const { return fmt::format("{}.{}", major, minor); }

std::vector<std::string> manylinux_platforms(std::string_view arch, std::pair<int, int> glibc) {
    // _manylinux._have_compatible_abi: the architectures manylinux is defined for (the 32-bit ones
    // need an ELF check of the interpreter there; here the caller's word is taken).
    static const std::set<std::string, std::less<>> allowed = {"x86_64", "i686",   "aarch64",     "ppc64",  "ppc64le",
                                                               "s390x",  "armv7l", "loongarch64", "riscv64"};
    std::vector<std::string> out;
    if (!allowed.contains(arch)) return out;
    // The oldest glibc: 2.17 everywhere, 2.5 on x86 (PEP 600's lowest manylinux1 baseline).
    const std::pair<int, int> too_old = (arch == "x86_64" || arch == "i686") ? std::pair{2, 4} : std::pair{2, 16};
    std::vector<std::pair<int, int>> maxima{glibc};
    // Compatibility across glibc majors is assumed, each older major to its minor 50 (_LAST_GLIBC_MINOR).
    for (int major = glibc.first - 1; major > 1; --major) maxima.emplace_back(major, 50);
    for (const auto& [major, max_minor] : maxima) {
        const int min_minor = major == too_old.first ? too_old.second : -1;
        for (int minor = max_minor; minor > min_minor; --minor) {
            out.push_back(fmt::format("manylinux_{}_{}_{}", major, minor, arch));
            // The legacy names, right after their glibc version (_LEGACY_MANYLINUX_MAP).
            if (major == 2 && minor == 17) out.push_back(fmt::format("manylinux2014_{}", arch));
            if (major == 2 && minor == 12) out.push_back(fmt::format("manylinux2010_{}", arch));
            if (major == 2 && minor == 5) out.push_back(fmt::format("manylinux1_{}", arch));
        }
    }
    return out;
}

std::vector<std::string> linux_platforms(const Interpreter& interpreter, TagRules rules) {
    // tags._linux_platforms: sysconfig's "linux-x86_64" normalised ('-' and '.' to '_').
    std::string arch = interpreter.machine;
    std::replace(arch.begin(), arch.end(), '-', '_');
    std::replace(arch.begin(), arch.end(), '.', '_');
    std::vector<std::string> out;
    if (rules.linux_first) out.push_back("linux_" + arch);
    if (interpreter.glibc) {
        const std::vector<std::string> manylinux = manylinux_platforms(arch, *interpreter.glibc);
        out.insert(out.end(), manylinux.begin(), manylinux.end());
    }
    if (!rules.linux_first) out.push_back("linux_" + arch);
    return out;
}

std::vector<std::string> cpython_abis(const Interpreter& interpreter) {
    // tags._cpython_abis: "cp" + version + threading "t" + debug "d" + pymalloc "m" (before 3.8) +
    // ucs4 "u" (before 3.3); a debug build of 3.8+ also loads the release ABI's extensions.
    const std::string version = fmt::format("{}{}", interpreter.major, interpreter.minor);
    const auto has = [&](char flag) { return interpreter.abiflags.find(flag) != std::string::npos; };
    const bool new_enough = std::pair{interpreter.major, interpreter.minor} >= std::pair{3, 8};
    const std::string threading = has('t') ? "t" : "";
    std::string abi = "cp" + version + threading + (has('d') ? "d" : "");
    if (!new_enough) abi += std::string(has('m') ? "m" : "") + (has('u') ? "u" : "");
    std::vector<std::string> abis{abi};
    if (new_enough && has('d')) abis.push_back("cp" + version + threading);
    return abis;
}

std::vector<Tag> cpython_tags(int major, int minor, std::span<const std::string> abis_given,
                              std::span<const std::string> platforms, TagRules rules) {
    const std::string interpreter = fmt::format("cp{}{}", major, minor);
    // _is_threaded_cpython: the first CPython ABI ("cp313t") says whether the build is free-threaded.
    bool threaded = false;
    for (const std::string& abi : abis_given) {
        if (rules.abi3t && abi == "abi3t") {
            threaded = true;
            break;
        }
        if (starts_with(abi, "cp") && abi.size() > 2 && is_digit(abi[2])) {
            threaded = abi.find('t', 2) != std::string::npos;
            break;
        }
    }
    std::vector<std::string> abis;
    for (const std::string& abi : abis_given)
        if (abi != "abi3" && abi != "none" && !(rules.abi3t && threaded && abi == "abi3t")) abis.push_back(abi);
    std::vector<Tag> out;
    for (const std::string& abi : abis)
        for (const std::string& platform : platforms) out.push_back({interpreter, abi, platform});
    // _abi3_applies: CPython 3.2 and newer, not free-threaded; _abi3t_applies: the same, free-threaded.
    const bool recent = std::pair{major, minor} >= std::pair{3, 2};
    const bool abi3 = recent && !threaded;
    const bool abi3t = rules.abi3t && recent && threaded;
    if (abi3)
        for (const std::string& platform : platforms) out.push_back({interpreter, "abi3", platform});
    if (abi3t)
        for (const std::string& platform : platforms) out.push_back({interpreter, "abi3t", platform});
    for (const std::string& platform : platforms) out.push_back({interpreter, "none", platform});
    if (abi3 || abi3t)
        for (int older = minor - 1; older > 1; --older)
            for (const std::string& platform : platforms)
                out.push_back({fmt::format("cp{}{}", major, older), abi3 ? "abi3" : "abi3t", platform});
    return out;
}

std::vector<Tag> compatible_tags(int major, int minor, std::string_view interpreter,
                                 std::span<const std::string> platforms) {
    // _py_interpreter_range: pyXY, pyX, then every older minor down to pyX0.
    std::vector<std::string> range{fmt::format("py{}{}", major, minor), fmt::format("py{}", major)};
    for (int older = minor - 1; older >= 0; --older) range.push_back(fmt::format("py{}{}", major, older));
    std::vector<Tag> out;
    for (const std::string& version : range)
        for (const std::string& platform : platforms) out.push_back({version, "none", platform});
    if (!interpreter.empty()) out.push_back({std::string(interpreter), "none", "any"});
    for (const std::string& version : range) out.push_back({version, "none", "any"});
    return out;
}

std::vector<Tag> generic_tags(std::string_view interpreter, std::span<const std::string> abis_given,
                              std::span<const std::string> platforms) {
    std::vector<std::string> abis(abis_given.begin(), abis_given.end());
    if (std::find(abis.begin(), abis.end(), "none") == abis.end()) abis.emplace_back("none");
    std::vector<Tag> out;
    for (const std::string& abi : abis)
        for (const std::string& platform : platforms) out.push_back({std::string(interpreter), abi, platform});
    return out;
}

std::vector<Tag> supported_tags(const Interpreter& interpreter, TagRules rules) {
    // tags.sys_tags: cpython_tags (or generic_tags), then compatible_tags with "cpXY" (PyPy: "pp3").
    const std::vector<std::string> platforms = linux_platforms(interpreter, rules);
    const std::string nodot = fmt::format("{}{}", interpreter.major, interpreter.minor);
    std::vector<Tag> tags;
    std::string compatible_interpreter;
    if (interpreter.implementation == "cp") {
        tags = cpython_tags(interpreter.major, interpreter.minor, cpython_abis(interpreter), platforms, rules);
        compatible_interpreter = "cp" + nodot;
    } else {
        std::vector<std::string> abis;
        if (!interpreter.pypy_abi.empty()) abis.push_back(interpreter.pypy_abi);
        tags = generic_tags(interpreter.implementation + nodot, abis, platforms);
        if (interpreter.implementation == "pp") compatible_interpreter = "pp3";
    }
    std::vector<Tag> compatible =
        compatible_tags(interpreter.major, interpreter.minor, compatible_interpreter, platforms);
    tags.insert(tags.end(), compatible.begin(), compatible.end());
    return tags;
}

namespace {

struct PlatformFacts {
    std::string family;  // "manylinux", "musllinux", "linux", "windows", "macos", "any", "other"
    std::string arch;
    std::pair<int, int> glibc{0, 0};  // manylinux only
    std::string label;                // "manylinux_2_28"
};

PlatformFacts platform_facts(const std::string& platform) {
    PlatformFacts facts;
    if (platform == "any") {
        facts.family = "any";
        return facts;
    }
    auto legacy = [&](std::string_view prefix, std::pair<int, int> glibc) {
        if (!starts_with(platform, prefix)) return false;
        facts = {"manylinux", platform.substr(prefix.size()), glibc, std::string(prefix.substr(0, prefix.size() - 1))};
        return true;
    };
    if (legacy("manylinux2014_", {2, 17}) || legacy("manylinux2010_", {2, 12}) || legacy("manylinux1_", {2, 5}))
        return facts;
    for (const std::string_view family : {"manylinux_", "musllinux_"}) {
        if (!starts_with(platform, family)) continue;
        // manylinux_X_Y_arch: the arch may itself hold '_' (x86_64).
        const std::vector<std::string> parts = split(std::string_view(platform).substr(family.size()), '_');
        if (parts.size() >= 3 && number(parts[0]) && number(parts[1])) {
            facts.family = std::string(family.substr(0, family.size() - 1));
            facts.glibc = {static_cast<int>(std::min<std::uint64_t>(*number(parts[0]), 1000)),
                           static_cast<int>(std::min<std::uint64_t>(*number(parts[1]), 1000))};
            facts.label = fmt::format("{}_{}_{}", facts.family, parts[0], parts[1]);
            for (std::size_t i = 2; i < parts.size(); ++i) facts.arch += (i > 2 ? "_" : "") + parts[i];
            return facts;
        }
    }
    if (starts_with(platform, "linux_")) {
        facts.family = "linux";
        facts.arch = platform.substr(6);
    } else if (starts_with(platform, "win")) {
        facts.family = "windows";
    } else if (starts_with(platform, "macosx")) {
        facts.family = "macos";
    } else {
        facts.family = "other";
    }
    return facts;
}

// Why none of the wheel's platforms is one the interpreter accepts.
std::string platform_reason(const WheelName& wheel, const Interpreter& interpreter) {
    std::vector<PlatformFacts> facts;
    for (const std::string& platform : wheel.platform_tags) facts.push_back(platform_facts(platform));
    const std::string joined = fmt::format("{}", fmt::join(wheel.platform_tags, "."));
    // A manylinux tag for this architecture: the glibc it needs is the reason.
    const PlatformFacts* lowest = nullptr;
    for (const PlatformFacts& f : facts)
        if (f.family == "manylinux" && f.arch == interpreter.machine && (!lowest || f.glibc < lowest->glibc))
            lowest = &f;
    if (lowest) {
        if (!interpreter.glibc)
            return fmt::format("needs glibc {}.{} ({}), this machine's C library is not glibc", lowest->glibc.first,
                               lowest->glibc.second, lowest->label);
        if (*interpreter.glibc < lowest->glibc)
            return fmt::format("needs glibc {}.{} ({}), this machine has {}.{}", lowest->glibc.first,
                               lowest->glibc.second, lowest->label, interpreter.glibc->first,
                               interpreter.glibc->second);
        return fmt::format("its platform {} is older than any manylinux pip accepts", joined);
    }
    for (const PlatformFacts& f : facts)
        if (f.family == "musllinux" && f.arch == interpreter.machine)
            return fmt::format("built for musl libc ({}), this machine's is {}", f.label,
                               interpreter.glibc ? "glibc" : "not known");
    std::set<std::string> archs;
    for (const PlatformFacts& f : facts)
        if (!f.arch.empty()) archs.insert(f.arch);
    if (!archs.empty() && !archs.contains(interpreter.machine))
        return fmt::format("built for {}, this machine is {}", fmt::join(archs, ", "), interpreter.machine);
    for (const PlatformFacts& f : facts) {
        if (f.family == "windows") return fmt::format("built for Windows ({})", joined);
        if (f.family == "macos") return fmt::format("built for macOS ({})", joined);
    }
    return fmt::format("built for the platform {}, which this machine does not accept", joined);
}

// "cp311" -> {3, 11}; "py3" -> {3, -1}; nullopt for other shapes.
std::optional<std::pair<int, int>> tag_version(std::string_view digits) {
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit) || digits.size() > 4)
        return std::nullopt;
    const int major = digits[0] - '0';
    if (digits.size() == 1) return std::pair{major, -1};
    return std::pair{major, static_cast<int>(number(digits.substr(1)).value_or(0))};
}

std::string version_name(std::pair<int, int> v) {
    return v.second < 0 ? fmt::format("{}", v.first) : fmt::format("{}.{}", v.first, v.second);
}

struct PythonReason {
    bool version_only = false;       // a plain version mismatch, merged across tags
    std::optional<std::pair<int, int>> version;
    std::string text;
};

PythonReason python_reason(const std::string& python, const std::string& abi, const Interpreter& interpreter) {
    const std::string ours = interpreter.version_text() + (interpreter.free_threaded() ? "t" : "");
    const bool cpython_abi = starts_with(abi, "cp") && abi.size() > 2 && is_digit(abi[2]);
    if ((cpython_abi || abi == "abi3") && interpreter.implementation != "cp")
        return {false, std::nullopt,
                fmt::format("a CPython ABI tag {} on another implementation ({})", abi,
                            interpreter.implementation == "pp" ? "PyPy" : interpreter.implementation)};
    if (starts_with(python, "pp") && interpreter.implementation != "pp")
        return {false, std::nullopt, fmt::format("built for PyPy ({})", python)};
    const std::size_t letters =
        starts_with(python, "cp") || starts_with(python, "py") || starts_with(python, "pp") ? 2 : 0;
    const std::optional<std::pair<int, int>> wanted =
        letters ? tag_version(std::string_view(python).substr(2)) : std::nullopt;
    if (!wanted) return {false, std::nullopt, fmt::format("built for the interpreter {}", python)};
    if (abi == "abi3") {
        if (interpreter.free_threaded())
            return {false, std::nullopt,
                    fmt::format("a stable-ABI wheel ({}-abi3) does not load on free-threaded Python ({})", python,
                                ours)};
        return {false, std::nullopt,
                fmt::format("built for Python {} or newer ({}-abi3), this interpreter is {}", version_name(*wanted),
                            python, ours)};
    }
    const std::pair<int, int> have{interpreter.major, interpreter.minor};
    if (cpython_abi) {
        const std::optional<std::pair<int, int>> abi_version = [&]() -> std::optional<std::pair<int, int>> {
            std::size_t end = 2;
            while (end < abi.size() && is_digit(abi[end])) ++end;
            return tag_version(std::string_view(abi).substr(2, end - 2));
        }();
        if (abi_version && *abi_version != have)
            return {true, abi_version,
                    fmt::format("built for Python {} ({}), this interpreter is {}", version_name(*abi_version), abi,
                                ours)};
        const bool wheel_threaded = abi.find('t') != std::string::npos;
        if (wheel_threaded && !interpreter.free_threaded())
            return {false, std::nullopt,
                    fmt::format("built for free-threaded Python ({}), this interpreter is {} with the GIL", abi, ours)};
        if (!wheel_threaded && interpreter.free_threaded())
            return {false, std::nullopt,
                    fmt::format("built for Python {} with the GIL ({}), this interpreter is free-threaded ({})",
                                version_name(have), abi, ours)};
        return {false, std::nullopt,
                fmt::format("built for the ABI {}, this interpreter's is {}", abi, cpython_abis(interpreter).front())};
    }
    if (wanted->first != have.first || (wanted->second >= 0 && *wanted != have))
        return {true, wanted,
                fmt::format("built for Python {} ({}), this interpreter is {}", version_name(*wanted), python, ours)};
    return {false, std::nullopt, fmt::format("its tag {}-{} is not one this interpreter accepts", python, abi)};
}

}  // namespace

WheelFit wheel_fits(const WheelName& wheel, const Interpreter& interpreter) {
    const std::vector<Tag> supported = supported_tags(interpreter);
    return wheel_fits(wheel, supported, interpreter);
}

WheelFit wheel_fits(const WheelName& wheel, std::span<const Tag> supported, const Interpreter& interpreter) {
    WheelFit fit;
    const std::vector<Tag> tags = wheel.tags();
    for (std::size_t i = 0; i < supported.size(); ++i)
        if (std::find(tags.begin(), tags.end(), supported[i]) != tags.end()) {
            fit.fits = true;
            fit.priority = i;
            fit.tag = supported[i];
            return fit;
        }
    std::set<std::pair<std::string, std::string>> pairs;
    std::set<std::string> platforms;
    for (const Tag& tag : supported) {
        pairs.emplace(tag.interpreter, tag.abi);
        platforms.insert(tag.platform);
    }
    bool python_ok = false, platform_ok = false;
    for (const Tag& tag : tags) {
        python_ok = python_ok || pairs.contains({tag.interpreter, tag.abi});
        platform_ok = platform_ok || platforms.contains(tag.platform);
    }
    std::vector<std::string> reasons;
    if (!python_ok) {
        std::vector<PythonReason> each;
        for (const std::string& python : wheel.python_tags)
            for (const std::string& abi : wheel.abi_tags) each.push_back(python_reason(python, abi, interpreter));
        const bool all_versions = std::all_of(each.begin(), each.end(), [](const auto& r) { return r.version_only; });
        if (all_versions && each.size() > 1) {
            std::set<std::pair<int, int>> versions;
            for (const PythonReason& r : each) versions.insert(*r.version);
            std::vector<std::string> names;
            for (const auto& v : versions) names.push_back(version_name(v));
            reasons.push_back(fmt::format("built for Python {} ({}), this interpreter is {}", fmt::join(names, ", "),
                                          fmt::join(wheel.python_tags, "."),
                                          interpreter.version_text() + (interpreter.free_threaded() ? "t" : "")));
        } else if (!each.empty()) {
            const auto first = std::find_if(each.begin(), each.end(), [](const auto& r) { return !r.version_only; });
            reasons.push_back(all_versions || first == each.end() ? each.front().text : first->text);
        }
    }
    if (!platform_ok) reasons.push_back(platform_reason(wheel, interpreter));
    if (reasons.empty()) {
        std::vector<std::string> texts;
        for (const Tag& tag : tags) texts.push_back(tag.text());
        reasons.push_back(fmt::format("none of its tags ({}) is one this interpreter accepts", fmt::join(texts, ", ")));
    }
    fit.why_not = fmt::format("{}", fmt::join(reasons, "; "));
    return fit;
}

Expected<bool> python_allows(std::string_view requires_python, std::string_view python_full_version) {
    Expected<SpecifierSet> set = parse_specifier_set(requires_python);
    if (!set) return Error{fmt::format("Requires-Python: {}", set.error().message)};
    Expected<Version> version = parse_version(python_full_version);
    if (!version) return version.error();
    // pip's check_requires_python: SpecifierSet.contains(version, prereleases=True).
    return specifier_allows(*set, *version, true);
}

// ---- CUDA majors -------------------------------------------------------------------------------------------

std::optional<int> cuda_major_of_name(std::string_view distribution) {
    const std::string name = normalize_name(distribution);
    auto digits_after = [&](std::string_view prefix, std::size_t at) -> std::string_view {
        std::size_t end = at + prefix.size();
        while (end < name.size() && is_digit(name[end])) ++end;
        return std::string_view(name).substr(at + prefix.size(), end - at - prefix.size());
    };
    // NVIDIA's wheels for one CUDA major: nvidia-cudnn-cu13, nvidia-cublas-cu12, nvidia-nccl-cu11.
    if (starts_with(name, "nvidia-")) {
        const std::size_t at = name.rfind("-cu");
        if (at != std::string::npos && at > 6) {
            const std::string_view major = digits_after("-cu", at);
            if (!major.empty() && at + 3 + major.size() == name.size() && major.size() <= 2)
                return static_cast<int>(*number(major));
        }
        return std::nullopt;
    }
    // JAX's CUDA plugins: jax-cuda12-plugin, jax-cuda13-pjrt.
    if (starts_with(name, "jax-cuda")) {
        const std::string_view major = digits_after("jax-cuda", 0);
        const std::string_view rest = std::string_view(name).substr(8 + major.size());
        if (!major.empty() && major.size() <= 2 && (rest == "-plugin" || rest == "-pjrt"))
            return static_cast<int>(*number(major));
        return std::nullopt;
    }
    // CuPy: cupy-cuda12x, cupy-cuda13x; before CUDA 11.2 one per minor (cupy-cuda102, cupy-cuda111).
    if (starts_with(name, "cupy-cuda")) {
        const std::string_view digits = digits_after("cupy-cuda", 0);
        const std::string_view rest = std::string_view(name).substr(9 + digits.size());
        if (digits.size() == 2 && rest == "x") return static_cast<int>(*number(digits));
        if ((digits.size() == 3 || digits.size() == 4) && rest.empty())
            return static_cast<int>(*number(digits.substr(0, digits.size() - 1)));
    }
    return std::nullopt;
}

namespace {

// Distributions whose version's major is the CUDA major they belong to: the toolkit metapackage,
// the CUDA Python bindings, and CUDA 13's un-suffixed NVIDIA wheels of components versioned with
// the toolkit (nvidia-cuda-runtime 13.0.96, nvidia-cublas 13.1.0.3, nvidia-nvjitlink 13.0.88 in
// the torch 2.11 venv, tests/fixtures/frameworks/h200-venv). cuFFT, cuRAND, cuSOLVER, cuSPARSE,
// cuFile, cuDNN and NCCL carry their own version numbers (nvidia-cufft 12.0 is CUDA 13's) and are
// left out.
bool versioned_with_cuda(const std::string& name) {
    static const std::set<std::string, std::less<>> names = {
        "cuda-toolkit",        "cuda-bindings",      "cuda-python",
        "nvidia-cuda-runtime", "nvidia-cuda-nvrtc",  "nvidia-cuda-cupti",
        "nvidia-cuda-nvcc",    "nvidia-nvjitlink",   "nvidia-cublas",
        "nvidia-nvtx",         "nvidia-cuda-cccl",   "nvidia-cuda-cuobjdump",
        "nvidia-cuda-crt",     "nvidia-cuda-opencl", "nvidia-cuda-sanitizer-api"};
    return names.contains(name);
}

// The CUDA majors a specifier lets through: [low, high], high = INT_MAX when unbounded.
std::pair<int, int> major_range(const SpecifierSet& set) {
    int low = 0, high = std::numeric_limits<int>::max();
    for (const Specifier& clause : set.clauses) {
        const bool wildcard = ends_with(clause.version, ".*");
        const VersionParse parsed =
            read_version(wildcard ? std::string_view(clause.version).substr(0, clause.version.size() - 2)
                                  : std::string_view(clause.version));
        if (!parsed.error.empty() || parsed.version.release.empty()) continue;
        const int major = static_cast<int>(std::min<std::uint64_t>(parsed.version.major(), 100000));
        const bool exact_major = std::all_of(parsed.version.release.begin() + 1, parsed.version.release.end(),
                                             [](std::uint64_t n) { return n == 0; });
        if (clause.op == "==" || clause.op == "===" || clause.op == "~=") {
            low = std::max(low, major);
            high = std::min(high, major);
        } else if (clause.op == ">=" || clause.op == ">") {
            low = std::max(low, major);
        } else if (clause.op == "<=") {
            high = std::min(high, major);
        } else if (clause.op == "<") {
            high = std::min(high, exact_major ? major - 1 : major);
        }
    }
    return {low, high};
}

}  // namespace

CudaRequirements cuda_major_of_requirements(std::span<const Requirement> requires_dist,
                                            const MarkerEnvironment& environment, std::span<const std::string> extras) {
    CudaRequirements result;
    for (const Requirement& requirement : requires_dist) {
        if (!requirement_applies(requirement, environment, extras).holds) continue;
        const std::string name = requirement.normalized_name();
        std::string written = requirement.name;
        if (!requirement.extras.empty()) written += fmt::format("[{}]", fmt::join(requirement.extras, ","));
        written += requirement.specifier.text();
        if (const std::optional<int> major = cuda_major_of_name(name)) {
            result.pins.push_back({written, *major, fmt::format("the name {}", name)});
            continue;
        }
        if (!versioned_with_cuda(name)) continue;
        const auto [low, high] = major_range(requirement.specifier);
        if (low == 0 && high == std::numeric_limits<int>::max()) continue;  // any version: no pin
        if (low > high) {
            result.ambiguous.push_back(fmt::format("{} allows no version", written));
        } else if (low == high || high == std::numeric_limits<int>::max()) {
            // ">=13.0.48" alone: the newest release pip picks, today of that major.
            result.pins.push_back({written, low, fmt::format("the version {}", requirement.specifier.text())});
        } else {
            result.ambiguous.push_back(fmt::format("{} allows CUDA {} to {}", written, low, high));
        }
    }
    std::set<int> majors;
    for (const CudaPin& pin : result.pins) majors.insert(pin.cuda_major);
    if (majors.size() == 1) {
        result.cuda_major = *majors.begin();
    } else if (majors.size() > 1) {
        std::vector<std::string> each;
        for (const int major : majors) {
            const auto pin = std::find_if(result.pins.begin(), result.pins.end(),
                                          [&](const CudaPin& p) { return p.cuda_major == major; });
            each.push_back(fmt::format("{} (CUDA {})", pin->requirement, major));
        }
        result.ambiguous.push_back(fmt::format("the pins disagree: {}", fmt::join(each, ", ")));
    }
    return result;
}

MarkerEnvironment marker_environment(const Interpreter& interpreter, std::string_view python_full_version) {
    MarkerEnvironment environment;
    environment.python_version = interpreter.version_text();
    environment.python_full_version =
        python_full_version.empty() ? interpreter.version_text() + ".0" : std::string(python_full_version);
    if (interpreter.implementation == "pp") {
        environment.implementation_name = "pypy";
        environment.platform_python_implementation = "PyPy";
        environment.implementation_version.clear();  // PyPy's own version, not known from the tags
    } else {
        environment.implementation_name = "cpython";
        environment.platform_python_implementation = "CPython";
        environment.implementation_version = environment.python_full_version;
    }
    environment.platform_machine = interpreter.machine;
    return environment;
}

}  // namespace cudacheck::packaging
