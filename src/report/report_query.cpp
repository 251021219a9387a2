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

bool is_performance_figure(const Metric& metric) { return metric.unit != "count" && metric.unit != "ratio" && metric.unit != "value"; }

namespace {

constexpr std::string_view resolution_check = "libraries.resolution";

}  // namespace

bool has_check(const Report& report, std::string_view check_id) {
    return std::any_of(report.checks.begin(), report.checks.end(), [&](const CheckResult& result) { return result.check_id == check_id; });
}

std::vector<ResolvedLibrary> library_copies(const Report& report) {
    std::vector<ResolvedLibrary> libraries;
    for (const CheckResult& result : report.checks) {
        if (result.check_id != resolution_check) continue;
        for (const Evidence& evidence : result.evidence) {
            // Library evidence is keyed by soname; the check's other evidence is not.
            if (evidence.key.find(".so") == std::string::npos) continue;
            const std::string& value = evidence.value;
            ResolvedLibrary library{evidence.key, {}, {}, {}, {}, value, true};
            // "<version> <origin> <path>[ -> <real path>] (<rule>)", the version maybe "version unknown";
            // copies the loader does not pick start "also " or "not on the loader's path: ".
            std::string_view rest = value;
            for (const std::string_view other : {std::string_view("also "), std::string_view("not on the loader's path: ")})
                if (sys::starts_with(rest, other)) {
                    rest.remove_prefix(other.size());
                    library.loaded_by_loader = false;
                }
            if (sys::starts_with(rest, "version unknown ")) rest.remove_prefix(16);
            else {
                library.version = std::string(rest.substr(0, rest.find(' ')));
                rest.remove_prefix(std::min(rest.size(), library.version.size() + 1));
            }
            library.origin = std::string(rest.substr(0, rest.find(' ')));
            rest.remove_prefix(std::min(rest.size(), library.origin.size() + 1));
            // "(nvidia-cudnn-cu13) /path": the wheel's package before the path.
            if (sys::starts_with(rest, "(") && rest.find(") ") != std::string_view::npos) rest.remove_prefix(rest.find(") ") + 2);
            if (const std::size_t rule = rest.rfind(" ("); rule != std::string_view::npos) rest = rest.substr(0, rule);
            library.listed_path = std::string(rest.substr(0, rest.find(" -> ")));
            if (const std::size_t arrow = rest.find(" -> "); arrow != std::string_view::npos) rest = rest.substr(arrow + 4);
            library.path = std::string(rest);
            libraries.push_back(std::move(library));
        }
    }
    return libraries;
}

std::vector<ResolvedLibrary> resolved_libraries(const Report& report) {
    std::vector<ResolvedLibrary> libraries = library_copies(report);
    std::erase_if(libraries, [](const ResolvedLibrary& library) { return !library.loaded_by_loader; });
    return libraries;
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
        if (part.empty() || part.size() > 9 || error != std::errc{} || end != part.data() + part.size() || number < 0) return std::nullopt;
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
