#include "report/report_query.hpp"

#include "util/system.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

std::string check_label(const CheckResult& result) {
    return result.device ? fmt::format("{}[{}]", result.check_id, *result.device) : result.check_id;
}

bool is_performance_figure(const Metric& metric) {
    return metric.unit != "count" && metric.unit != "ratio" && metric.unit != "value";
}

namespace {

constexpr std::string_view resolution_check = "libraries.resolution";

}  // namespace

bool has_check(const Report& report, std::string_view check_id) {
    return std::any_of(report.checks.begin(), report.checks.end(),
                       [&](const CheckResult& result) { return result.check_id == check_id; });
}

bool libraries_predate_section(const Report& report) {
    return !report.libraries && has_check(report, resolution_check);
}

std::vector<const LibraryResolutionInfo*> resolved_libraries(const Report& report) {
    std::vector<const LibraryResolutionInfo*> resolved;
    if (!report.libraries) return resolved;
    for (const LibraryInfo& library : report.libraries->found)
        for (const LibraryResolutionInfo& resolution : library.resolved) resolved.push_back(&resolution);
    return resolved;
}

std::vector<LibraryCopyView> library_copies(const Report& report) {
    std::vector<LibraryCopyView> copies;
    if (!report.libraries) return copies;
    for (const LibraryInfo& library : report.libraries->found) {
        for (const LibraryResolutionInfo& resolution : library.resolved)
            copies.push_back({library.name, resolution.soname, resolution.version, resolution.origin, resolution.path,
                              resolution.real_path, true});
        for (const LibraryCopyInfo& copy : library.copies) {
            const bool picked =
                std::any_of(library.resolved.begin(), library.resolved.end(),
                            [&](const LibraryResolutionInfo& resolution) {
                                return resolution.soname == copy.soname && resolution.real_path == copy.real_path;
                            });
            if (!picked)
                copies.push_back(
                    {library.name, copy.soname, copy.version, copy.origin, copy.path, copy.real_path, false});
        }
    }
    return copies;
}

namespace {

std::string version_or_unknown(const std::string& version) { return version.empty() ? "version unknown" : version; }

}  // namespace

std::string describe_resolution(const LibraryResolutionInfo& resolution) {
    return fmt::format("{} {} {}{} ({})", version_or_unknown(resolution.version), resolution.origin, resolution.path,
                       resolution.real_path != resolution.path ? " -> " + resolution.real_path : "", resolution.rule);
}

std::string describe_copy(const LibraryCopyInfo& copy) {
    return fmt::format("{} {}{} {}", version_or_unknown(copy.version), copy.origin,
                       copy.package.empty() ? "" : fmt::format(" ({})", copy.package), copy.path);
}

std::string describe_sharing(const GpuSharing& sharing) {
    std::vector<std::string> parts;
    for (const SharingProcess& process : sharing.processes) {
        std::vector<std::string> details;
        if (process.sm_percent) details.push_back(fmt::format("SM {:.0f}%", *process.sm_percent));
        if (process.memory_bytes) details.push_back(format_bytes(*process.memory_bytes));
        parts.push_back(fmt::format("pid {}{}{}", process.pid, process.name.empty() ? "" : " " + process.name,
                                    details.empty() ? "" : fmt::format(" ({})", fmt::join(details, ", "))));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::optional<std::vector<long>> parse_dotted_version(std::string_view text) {
    text = sys::trim(text);
    if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
    std::vector<long> parts;
    for (const std::string& part : sys::split(text, '.')) {
        long number = 0;
        const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), number);
        if (part.empty() || part.size() > 9 || error != std::errc{} || end != part.data() + part.size() || number < 0)
            return std::nullopt;
        parts.push_back(number);
    }
    if (parts.empty()) return std::nullopt;
    return parts;
}

int compare_with_bound(const std::vector<long>& version, const std::vector<long>& bound) {
    for (std::size_t i = 0; i < bound.size(); ++i) {
        const long component = i < version.size() ? version[i] : 0;
        if (component != bound[i]) return component < bound[i] ? -1 : 1;
    }
    return 0;
}

}  // namespace cudacheck
