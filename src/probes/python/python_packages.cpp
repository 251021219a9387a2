#include "probes/python/python_packages.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cudacheck {

std::optional<long> decimal_number(std::string_view digits, long limit) {
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    long value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size() || value > limit) return std::nullopt;
    return value;
}

std::string normalise_distribution_name(std::string_view name) {
    std::string normal;
    for (const char c : name) {
        if (c == '-' || c == '_' || c == '.') {
            if (!normal.empty() && normal.back() != '-') normal += '-';
        } else {
            normal += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    while (!normal.empty() && normal.back() == '-') normal.pop_back();
    return normal;
}

std::optional<InstalledDistribution> parse_dist_info_name(std::string_view directory_name) {
    constexpr std::string_view suffix = ".dist-info";
    if (directory_name.size() <= suffix.size() ||
        directory_name.substr(directory_name.size() - suffix.size()) != suffix)
        return std::nullopt;
    const std::string_view base = directory_name.substr(0, directory_name.size() - suffix.size());
    // PEP 427 escapes "-" in both parts to "_", so the first "-" separates them.
    const std::size_t dash = base.find('-');
    if (dash == 0 || dash == std::string_view::npos || dash + 1 == base.size()) return std::nullopt;
    return InstalledDistribution{normalise_distribution_name(base.substr(0, dash)),
                                 std::string(base.substr(dash + 1)),
                                 {}};
}

std::vector<InstalledDistribution> installed_distributions(const std::string& site_packages) {
    std::vector<InstalledDistribution> found;
    for (const std::string& name : sys::list_directory(site_packages))
        if (std::optional<InstalledDistribution> distribution = parse_dist_info_name(name)) {
            distribution->dist_info = site_packages + "/" + name;
            found.push_back(std::move(*distribution));
        }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return found;
}

std::optional<std::string> Requirement::extra() const {
    // PEP 508 markers: `extra == "with-cuda"` (quotes either way, spaces optional).
    const std::size_t at = marker.find("extra");
    if (at == std::string::npos) return std::nullopt;
    const std::size_t equals = marker.find("==", at);
    if (equals == std::string::npos) return std::nullopt;
    const std::size_t open = marker.find_first_of("\"'", equals);
    if (open == std::string::npos) return std::nullopt;
    const std::size_t close = marker.find(marker[open], open + 1);
    if (close == std::string::npos) return std::nullopt;
    return marker.substr(open + 1, close - open - 1);
}

std::optional<Requirement> parse_requirement(std::string_view text) {
    Requirement requirement;
    const std::size_t semicolon = text.find(';');
    if (semicolon != std::string_view::npos) requirement.marker = std::string(sys::trim(text.substr(semicolon + 1)));
    std::string_view head = sys::trim(text.substr(0, semicolon));
    std::size_t name_end = 0;
    while (name_end < head.size() && (std::isalnum(static_cast<unsigned char>(head[name_end])) ||
                                      head[name_end] == '-' || head[name_end] == '_' || head[name_end] == '.'))
        ++name_end;
    if (name_end == 0) return std::nullopt;
    requirement.name = normalise_distribution_name(head.substr(0, name_end));
    head = sys::trim(head.substr(name_end));
    if (!head.empty() && head.front() == '[') {
        const std::size_t close = head.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        requirement.extras = std::string(sys::trim(head.substr(1, close - 1)));
        head = sys::trim(head.substr(close + 1));
    }
    if (!head.empty() && head.front() == '(' && head.back() == ')') head = sys::trim(head.substr(1, head.size() - 2));
    std::string specifier;
    for (const char c : head)
        if (!std::isspace(static_cast<unsigned char>(c))) specifier += c;
    if (!specifier.empty() && specifier.find_first_of("<>=!~") != 0) return std::nullopt;
    requirement.specifier = std::move(specifier);
    return requirement;
}

std::optional<DistributionMetadata> parse_metadata(std::string_view text) {
    DistributionMetadata metadata;
    for (const std::string& raw : sys::split(text, '\n')) {
        std::string_view line = raw;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) break;  // the body (the long description) follows the first blank line
        if (line.front() == ' ' || line.front() == '\t') continue;  // a folded continuation
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string key = sys::to_lower(line.substr(0, colon));
        const std::string_view value = sys::trim(line.substr(colon + 1));
        if (key == "name") metadata.name = std::string(value);
        else if (key == "version") metadata.version = std::string(value);
        else if (key == "requires-dist") {
            if (std::optional<Requirement> requirement = parse_requirement(value))
                metadata.requires_dist.push_back(std::move(*requirement));
            else ++metadata.unreadable_requirements;
        }
    }
    if (metadata.name.empty() || metadata.version.empty()) return std::nullopt;
    return metadata;
}

namespace {

// A Python string literal's value ('...' or "...", with \' and \" and \\ escapes); nullopt when the
// text is not exactly one.
std::optional<std::string> string_literal(std::string_view text) {
    if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') || text.back() != text.front())
        return std::nullopt;
    std::string value;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        char c = text[i];
        if (c == text.front()) return std::nullopt;  // two literals, or a quote inside
        if (c == '\\' && i + 2 < text.size()) c = text[++i];
        value += c;
    }
    return value;
}

bool is_identifier(std::string_view text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) return false;
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

PythonLiterals parse_python_literals(std::string_view text) {
    PythonLiterals literals;
    for (const std::string& raw : sys::split(text, '\n')) {
        std::string_view line = raw;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || std::isspace(static_cast<unsigned char>(line.front()))) continue;  // module level only
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos || equals + 1 >= line.size() || line[equals + 1] == '=') continue;
        std::string_view target = sys::trim(line.substr(0, equals));
        if (const std::size_t colon = target.find(':'); colon != std::string_view::npos)
            target = sys::trim(target.substr(0, colon));
        if (!is_identifier(target)) continue;
        std::string_view value = sys::trim(line.substr(equals + 1));
        if (const std::size_t hash = value.find(" #");
            hash != std::string_view::npos && value.front() != '\'' && value.front() != '"')
            value = sys::trim(value.substr(0, hash));
        if (value == "None") literals[std::string(target)] = std::nullopt;
        else if (std::optional<std::string> string = string_literal(value))
            literals[std::string(target)] = std::move(*string);
        else if (value == "True" || value == "False" ||
                 (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
                     return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
                 })))
            literals[std::string(target)] = std::string(value);
    }
    return literals;
}

namespace {

// The release numbers of a version: "9.19.0.56" -> {9, 19, 0, 56}; "2.11.0+cu130" -> {2, 11, 0};
// "1.0rc1" -> {1, 0}. Stops at the first part that is not a number.
std::vector<long> release_of(std::string_view version) {
    if (const std::size_t plus = version.find('+'); plus != std::string_view::npos) version = version.substr(0, plus);
    std::vector<long> numbers;
    for (const std::string& part : sys::split(version, '.')) {
        std::size_t digits = 0;
        while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits]))) ++digits;
        const std::optional<long> number = decimal_number(std::string_view(part).substr(0, digits));
        if (!number) break;
        numbers.push_back(*number);
        if (digits < part.size()) break;
    }
    return numbers;
}

int compare_releases(std::vector<long> a, std::vector<long> b) {
    const std::size_t size = std::max(a.size(), b.size());
    a.resize(size, 0);
    b.resize(size, 0);
    return a < b ? -1 : a > b ? 1 : 0;
}

}  // namespace

std::optional<std::string> minimum_version(std::string_view specifier) {
    for (const std::string& clause : sys::split(specifier, ','))
        for (const std::string_view op : {">=", "==", "~="})
            if (sys::starts_with(clause, op) && clause.find('*') == std::string::npos) return clause.substr(op.size());
    return std::nullopt;
}

bool satisfies(std::string_view version, std::string_view specifier) {
    const std::vector<long> have = release_of(version);
    for (const std::string& raw : sys::split(specifier, ',')) {
        const std::string clause(sys::trim(raw));
        if (clause.empty()) continue;
        std::size_t op_length = 0;
        while (op_length < clause.size() && std::string_view("<>=!~").find(clause[op_length]) != std::string_view::npos)
            ++op_length;
        const std::string op = clause.substr(0, op_length);
        std::string operand = clause.substr(op_length);
        const bool prefix = operand.size() > 2 && operand.substr(operand.size() - 2) == ".*";
        if (prefix) operand.resize(operand.size() - 2);
        const std::vector<long> want = release_of(operand);
        if (prefix) {
            const bool matches = have.size() >= want.size() && std::equal(want.begin(), want.end(), have.begin());
            if ((op == "==" && !matches) || (op == "!=" && matches)) return false;
            continue;
        }
        const int order = compare_releases(have, want);
        bool ok = false;
        if (op == "==" || op == "===") ok = order == 0;
        else if (op == "!=") ok = order != 0;
        else if (op == ">=") ok = order >= 0;
        else if (op == "<=") ok = order <= 0;
        else if (op == ">") ok = order > 0;
        else if (op == "<") ok = order < 0;
        else if (op == "~=") {
            // Compatible release: >= the operand and == all but its last number.
            std::vector<long> stem(want.begin(), want.end() - (want.size() > 1 ? 1 : 0));
            ok = order >= 0 && have.size() >= stem.size() && std::equal(stem.begin(), stem.end(), have.begin());
        }
        if (!ok) return false;
    }
    return true;
}

std::string extension_module(const std::string& directory, std::string_view prefix) {
    for (const std::string& name : sys::list_directory(directory))
        if (sys::starts_with(name, prefix) && name.size() > 3 && name.substr(name.size() - 3) == ".so")
            return directory + "/" + name;
    return {};
}

}  // namespace cudacheck
