#include "report/report_diff.hpp"

#include "report/report_query.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>

namespace cudacheck {

namespace {

constexpr const char* absent = "absent";

std::string or_unknown(const std::string& text) { return text.empty() ? "unknown" : text; }

// Adds a difference when the two texts differ.
void compare(std::vector<Difference>& differences, std::string_view kind, std::string subject,
             const std::string& before, const std::string& after) {
    if (before != after)
        differences.push_back(Difference{std::string(kind), std::move(subject), before, after, std::nullopt});
}

// Keyed views of both sides, in A's order then B's additions, so output order is stable.
template <typename Value>
void compare_keyed(const std::vector<std::pair<std::string, Value>>& before,
                   const std::vector<std::pair<std::string, Value>>& after, const auto& on_both,
                   const auto& on_one_side) {
    std::map<std::string, const Value*> in_after;
    for (const auto& [key, value] : after) in_after.emplace(key, &value);
    std::map<std::string, bool> seen;
    for (const auto& [key, value] : before) {
        seen[key] = true;
        const auto found = in_after.find(key);
        if (found == in_after.end()) on_one_side(key, &value, nullptr);
        else on_both(key, value, *found->second);
    }
    for (const auto& [key, value] : after)
        if (!seen.contains(key)) on_one_side(key, nullptr, &value);
}

void compare_versions(const Report& a, const Report& b, std::vector<Difference>& differences) {
    compare(differences, "version", "driver", or_unknown(a.versions.driver), or_unknown(b.versions.driver));
    compare(differences, "version", "driver_cuda", or_unknown(a.versions.driver_cuda),
            or_unknown(b.versions.driver_cuda));
    compare(differences, "version", "runtime", or_unknown(a.versions.runtime), or_unknown(b.versions.runtime));
    compare(differences, "version", "nvcc", or_unknown(a.versions.nvcc), or_unknown(b.versions.nvcc));
}

std::vector<std::pair<std::string, const LibraryResolutionInfo*>> libraries_of(const Report& report) {
    std::vector<std::pair<std::string, const LibraryResolutionInfo*>> keyed;
    for (const LibraryResolutionInfo* library : resolved_libraries(report))
        keyed.emplace_back(library->soname, library);
    return keyed;
}

std::string describe(const LibraryResolutionInfo& library) {
    return fmt::format("{} {} {}", library.version.empty() ? "version unknown" : library.version, library.origin,
                       library.real_path);
}

void compare_libraries(const Report& a, const Report& b, ReportDiff& diff) {
    // A report without libraries.resolution says nothing about libraries: no difference to claim.
    if (!has_check(a, "libraries.resolution") || !has_check(b, "libraries.resolution")) return;
    // One written before the `libraries` section has its copies as evidence text only: not compared,
    // and said, since "no differences" would claim the libraries are the same.
    if (libraries_predate_section(a) || libraries_predate_section(b)) {
        const char* which = libraries_predate_section(a) && libraries_predate_section(b) ? "A and B"
                            : libraries_predate_section(a)                               ? "A"
                                                                                         : "B";
        diff.not_compared.push_back(fmt::format("libraries: in {}, {}", which, libraries_predate_section_text));
        return;
    }
    compare_keyed<const LibraryResolutionInfo*>(
        libraries_of(a), libraries_of(b),
        [&](const std::string& soname, const LibraryResolutionInfo* before, const LibraryResolutionInfo* after) {
            compare(diff.differences, "library", soname, describe(*before), describe(*after));
        },
        [&](const std::string& soname, const LibraryResolutionInfo* const* before,
            const LibraryResolutionInfo* const* after) {
            compare(diff.differences, "library", soname, before != nullptr ? describe(**before) : absent,
                    after != nullptr ? describe(**after) : absent);
        });
}

// What a device is, property by property, for comparison.
std::vector<std::pair<std::string, std::string>> properties_of(const DeviceInfo& device) {
    return {{"name", device.name},
            {"compute capability", fmt::format("{}.{}", device.cc_major, device.cc_minor)},
            {"architecture", device.architecture},
            {"memory", fmt::format("{} bytes", device.total_memory_bytes)},
            {"multiprocessors", std::to_string(device.multiprocessors)},
            {"SM clock", fmt::format("{} kHz", device.sm_clock_khz)},
            {"memory clock", fmt::format("{} kHz", device.memory_clock_khz)},
            {"memory bus", fmt::format("{} bits", device.memory_bus_width_bits)},
            {"L2 cache", fmt::format("{} bytes", device.l2_cache_bytes)},
            {"ECC", device.ecc_enabled ? "on" : "off"},
            {"compute mode", device.compute_mode},
            {"integrated", device.integrated ? "yes" : "no"},
            {"TCC driver", device.tcc_driver ? "yes" : "no"}};
}

void compare_devices(const Report& a, const Report& b, std::vector<Difference>& differences) {
    const auto keyed = [](const Report& report) {
        std::vector<std::pair<std::string, DeviceInfo>> devices;
        for (const DeviceInfo& device : report.devices)
            devices.emplace_back(fmt::format("device {}", device.ordinal), device);
        return devices;
    };
    compare(differences, "device", "count", std::to_string(a.devices.size()), std::to_string(b.devices.size()));
    compare_keyed<DeviceInfo>(
        keyed(a), keyed(b),
        [&](const std::string& key, const DeviceInfo& before, const DeviceInfo& after) {
            const auto before_properties = properties_of(before);
            const auto after_properties = properties_of(after);
            for (std::size_t i = 0; i < before_properties.size(); ++i)
                compare(differences, "device", key + " " + before_properties[i].first, before_properties[i].second,
                        after_properties[i].second);
        },
        [&](const std::string& key, const DeviceInfo* before, const DeviceInfo* after) {
            compare(differences, "device", key, before != nullptr ? before->name : absent,
                    after != nullptr ? after->name : absent);
        });
}

std::vector<std::pair<std::string, const CheckResult*>> results_of(const Report& report) {
    std::vector<std::pair<std::string, const CheckResult*>> keyed;
    for (const CheckResult& result : report.checks) keyed.emplace_back(check_label(result), &result);
    return keyed;
}

std::string status_text(const CheckResult& result) {
    return result.code.empty() ? std::string(to_string(result.status))
                               : fmt::format("{} {}", to_string(result.status), result.code);
}

void compare_statuses(const Report& a, const Report& b, std::vector<Difference>& differences) {
    compare_keyed<const CheckResult*>(
        results_of(a), results_of(b),
        [&](const std::string& label, const CheckResult* before, const CheckResult* after) {
            compare(differences, "status", label, status_text(*before), status_text(*after));
        },
        [&](const std::string& label, const CheckResult* const* before, const CheckResult* const* after) {
            compare(differences, "status", label, before != nullptr ? status_text(**before) : "not run",
                    after != nullptr ? status_text(**after) : "not run");
        });
}

std::vector<std::pair<std::string, Metric>> figures_of(const Report& report) {
    std::vector<std::pair<std::string, Metric>> keyed;
    for (const CheckResult& result : report.checks)
        for (const Metric& metric : result.metrics)
            if (is_performance_figure(metric))
                keyed.emplace_back(fmt::format("{} {}", check_label(result), metric.name), metric);
    return keyed;
}

std::string figure_text(const Metric& metric) { return fmt::format("{:.4g} {}", metric.value, metric.unit); }

// A duration in milliseconds, for the time units checks report; nullopt for anything else.
std::optional<double> milliseconds_of(const Metric& metric) {
    if (metric.unit == "ms") return metric.value;
    if (metric.unit == "s") return metric.value * 1e3;
    if (metric.unit == "us") return metric.value / 1e3;
    return std::nullopt;
}

// Below a millisecond a step's time is the scheduler's, not the step's: 0.05 ms against 0.5 ms is
// no regression (such pairs would read "-90%").
constexpr double timing_floor_ms = 1.0;

void compare_figures(const Report& a, const Report& b, double threshold_percent, std::vector<Difference>& differences) {
    compare_keyed<Metric>(
        figures_of(a), figures_of(b),
        [&](const std::string& label, const Metric& before, const Metric& after) {
            if (before.value == after.value) return;
            const std::optional<double> before_ms = milliseconds_of(before);
            const std::optional<double> after_ms = milliseconds_of(after);
            if (before_ms && after_ms && std::max(*before_ms, *after_ms) < timing_floor_ms) return;
            // From zero any change is infinitely large: always reported.
            const double change =
                before.value != 0.0 ? 100.0 * (after.value - before.value) / std::fabs(before.value) : INFINITY;
            if (std::fabs(change) <= threshold_percent && before.unit == after.unit) return;
            differences.push_back(Difference{"metric", label, figure_text(before), figure_text(after),
                                             std::isfinite(change) ? std::optional<double>(change) : std::nullopt});
        },
        [&](const std::string& label, const Metric* before, const Metric* after) {
            compare(differences, "metric", label, before != nullptr ? figure_text(*before) : absent,
                    after != nullptr ? figure_text(*after) : absent);
        });
}

}  // namespace

ReportDiff diff_reports(const Report& before, const Report& after, double threshold_percent) {
    ReportDiff diff;
    diff.threshold_percent = threshold_percent;
    // A quick report lacks what a standard one measured: the levels differ, and the rest follows from it.
    compare(diff.differences, "option", "level", before.level, after.level);
    compare(diff.differences, "option", "strict", before.strict ? "on" : "off", after.strict ? "on" : "off");
    compare_versions(before, after, diff.differences);
    compare_libraries(before, after, diff);
    compare_devices(before, after, diff.differences);
    compare_statuses(before, after, diff.differences);
    compare_figures(before, after, threshold_percent, diff.differences);
    return diff;
}

}  // namespace cudacheck
