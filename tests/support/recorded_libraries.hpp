// The recorded example reports (docs/examples/) predate the report's `libraries` section (schema
// 1.10.0): their library facts are only libraries.resolution's evidence lines, which cudacheck
// no longer reads back. This reads those lines of a recorded report into the section, so that the
// tests of the section's readers (the HTML page, fleet) keep the recorded machines' copies until
// the examples are recorded again. Test fixtures only: nothing in src/ parses evidence.
#pragma once

#include "report/report.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace cudacheck::test {

namespace recorded_detail {

inline bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// The libraries.resolution line of one soname, as the check wrote it up to schema 1.9.0:
// "<version> <origin>[ (<package>)] <path>[ -> <real path>][ (<rule>)]", the version maybe
// "version unknown"; a copy the loader does not pick starts "also " or "not on the loader's path: ".
struct Line {
    bool picked = true;
    std::string version, origin, package, path, real_path, rule;
};

inline Line read_line(std::string_view rest) {
    Line line;
    for (const std::string_view other : {std::string_view("also "), std::string_view("not on the loader's path: ")})
        if (starts_with(rest, other)) rest.remove_prefix(other.size()), line.picked = false;
    if (starts_with(rest, "version unknown ")) rest.remove_prefix(16);
    else {
        line.version = std::string(rest.substr(0, rest.find(' ')));
        rest.remove_prefix(std::min(rest.size(), line.version.size() + 1));
    }
    line.origin = std::string(rest.substr(0, rest.find(' ')));
    rest.remove_prefix(std::min(rest.size(), line.origin.size() + 1));
    if (starts_with(rest, "(") && rest.find(") ") != std::string_view::npos) {
        line.package = std::string(rest.substr(1, rest.find(") ") - 1));
        rest.remove_prefix(rest.find(") ") + 2);
    }
    if (line.picked)
        if (const std::size_t rule = rest.rfind(" ("); rule != std::string_view::npos) {
            line.rule = std::string(rest.substr(rule + 2, rest.size() - rule - 3));
            rest = rest.substr(0, rule);
        }
    line.path = std::string(rest.substr(0, rest.find(" -> ")));
    line.real_path =
        rest.find(" -> ") == std::string_view::npos ? line.path : std::string(rest.substr(rest.find(" -> ") + 4));
    return line;
}

}  // namespace recorded_detail

// The section a recorded report's libraries.resolution evidence describes (one library per soname,
// named by it), and as loaded_by_cudacheck the files its GPU checks' *_path evidence names.
// Unchanged when the report has a section already or no libraries.resolution.
inline void add_recorded_libraries_section(Report& report) {
    if (report.libraries) return;
    const CheckResult* resolution = nullptr;
    for (const CheckResult& result : report.checks)
        if (result.check_id == "libraries.resolution") resolution = &result;
    if (resolution == nullptr) return;
    LibrariesInfo section;
    for (const Evidence& evidence : resolution->evidence) {
        if (evidence.key.find(".so") == std::string::npos) {
            if (evidence.key == "ld_so_cache") section.ld_so_cache = evidence.value;
            if (evidence.key == "directories_searched") section.directories_searched = std::stoi(evidence.value);
            continue;
        }
        LibraryInfo* library = nullptr;
        for (LibraryInfo& known : section.found)
            if (known.name == evidence.key) library = &known;
        if (library == nullptr)
            library = &section.found.emplace_back(
                LibraryInfo{.name = evidence.key, .sonames = {evidence.key}, .resolved = {}, .copies = {}});
        const recorded_detail::Line line = recorded_detail::read_line(evidence.value);
        if (line.picked)
            library->resolved.push_back({.soname = evidence.key,
                                         .path = line.path,
                                         .real_path = line.real_path,
                                         .rule = line.rule,
                                         .version = line.version,
                                         .origin = line.origin,
                                         .package = line.package});
        library->copies.push_back({.soname = evidence.key,
                                   .path = line.path,
                                   .real_path = line.real_path,
                                   .version = line.version,
                                   .origin = line.origin,
                                   .package = line.package});
    }
    for (const CheckResult& result : report.checks)
        for (const Evidence& evidence : result.evidence)
            if (evidence.key.ends_with("_path") && recorded_detail::starts_with(evidence.value, "/"))
                section.loaded_by_cudacheck.push_back(evidence.value);
    std::sort(section.loaded_by_cudacheck.begin(), section.loaded_by_cudacheck.end());
    section.loaded_by_cudacheck.erase(std::unique(section.loaded_by_cudacheck.begin(),
                                                  section.loaded_by_cudacheck.end()),
                                      section.loaded_by_cudacheck.end());
    report.libraries = std::move(section);
}

}  // namespace cudacheck::test
