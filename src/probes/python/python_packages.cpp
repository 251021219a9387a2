#include "probes/python/python_packages.hpp"

#include "util/python_packaging.hpp"
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

std::optional<InstalledDistribution> parse_dist_info_name(std::string_view directory_name) {
    constexpr std::string_view suffix = ".dist-info";
    if (directory_name.size() <= suffix.size() ||
        directory_name.substr(directory_name.size() - suffix.size()) != suffix)
        return std::nullopt;
    const std::string_view base = directory_name.substr(0, directory_name.size() - suffix.size());
    // PEP 427 escapes "-" in both parts to "_", so the first "-" separates them.
    const std::size_t dash = base.find('-');
    if (dash == 0 || dash == std::string_view::npos || dash + 1 == base.size()) return std::nullopt;
    return InstalledDistribution{packaging::normalize_name(base.substr(0, dash)),
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

bool satisfies(std::string_view version, std::string_view specifier) {
    const Expected<packaging::Version> parsed = packaging::parse_version(version);
    const Expected<packaging::SpecifierSet> set = packaging::parse_specifier_set(specifier);
    if (!parsed || !set) return true;
    return packaging::specifier_allows(*set, *parsed, true);
}

std::string extension_module(const std::string& directory, std::string_view prefix) {
    for (const std::string& name : sys::list_directory(directory))
        if (sys::starts_with(name, prefix) && name.size() > 3 && name.substr(name.size() - 3) == ".so")
            return directory + "/" + name;
    return {};
}

}  // namespace cudacheck
