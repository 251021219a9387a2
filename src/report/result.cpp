#include "report/result.hpp"
#include "report/report.hpp"
#include "report/result_builder.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace cudacheck {

namespace {
constexpr std::array<std::string_view, 6> status_names{"pass", "skip", "warn", "fail", "timeout", "error"};
}  // namespace

std::string_view to_string(Status status) { return status_names[static_cast<std::size_t>(status)]; }

std::optional<Status> status_from_string(std::string_view text) {
    for (std::size_t i = 0; i < status_names.size(); ++i)
        if (status_names[i] == text) return static_cast<Status>(i);
    return std::nullopt;
}

int severity_rank(Status status) { return static_cast<int>(status); }

namespace {
// In the order of enum class Remedy.
constexpr std::array<std::string_view, 9> remedy_names{"none",        "fix_config", "investigate",
                                                       "restart_app", "reset_gpu",  "drain_p2p",
                                                       "bus_reset",   "reboot",     "service"};
}  // namespace

std::string_view to_string(Remedy remedy) { return remedy_names[static_cast<std::size_t>(remedy)]; }

std::optional<Remedy> remedy_from_string(std::string_view text) {
    for (std::size_t i = 0; i < remedy_names.size(); ++i)
        if (remedy_names[i] == text) return static_cast<Remedy>(i);
    return std::nullopt;
}

std::string_view action_class(Remedy remedy) {
    switch (remedy) {
        case Remedy::none: return "none";
        case Remedy::fix_config: return "config";
        case Remedy::investigate: return "triage";
        case Remedy::restart_app: return "app";
        case Remedy::reset_gpu:
        case Remedy::drain_p2p:
        case Remedy::bus_reset:
        case Remedy::reboot: return "reset";
        case Remedy::service: return "isolate";
    }
    return "none";
}

namespace {
// In the order of enum class Unit.
constexpr std::array<std::string_view, 18> unit_names{"TFLOP/s", "GFLOP/s", "GB/s", "Gsamples/s", "ms",    "MHz",
                                                      "C",       "W",       "%",    "B",          "bytes", "count",
                                                      "ratio",   "value",   "KiB",  "MiB",        "GiB",   "TiB"};
}  // namespace

std::string_view to_string(Unit unit) { return unit_names[static_cast<std::size_t>(unit)]; }

std::optional<Unit> unit_from_string(std::string_view text) {
    for (std::size_t i = 0; i < unit_names.size(); ++i)
        if (unit_names[i] == text) return static_cast<Unit>(i);
    return std::nullopt;
}

std::string flat_metric_name(std::string_view flat, const MetricLabels& labels) {
    std::string name;
    std::vector<bool> used(labels.size(), false);
    for (std::size_t at = 0; at < flat.size();) {
        const std::size_t open = flat.find('{', at);
        name.append(flat.substr(at, open == std::string_view::npos ? std::string_view::npos : open - at));
        if (open == std::string_view::npos) break;
        const std::size_t close = flat.find('}', open);
        if (close == std::string_view::npos)
            throw std::logic_error(fmt::format("metric name '{}' has an unclosed {{", flat));
        const std::string_view label = flat.substr(open + 1, close - open - 1);
        const auto found =
            std::find_if(labels.begin(), labels.end(), [&](const auto& pair) { return pair.first == label; });
        if (found == labels.end())
            throw std::logic_error(fmt::format("metric name '{}' needs the label '{}'", flat, label));
        used[static_cast<std::size_t>(found - labels.begin())] = true;
        name += found->second;
        at = close + 1;
    }
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (!used[i])
            throw std::logic_error(fmt::format("metric name '{}' does not name the label '{}'", flat, labels[i].first));
    return name;
}

Metric make_metric(const MetricFamily& family, double value, MetricLabels labels) {
    std::string name = flat_metric_name(family.flat, labels);
    return Metric{std::move(name),
                  value,
                  std::string(to_string(family.unit)),
                  std::string(family.name),
                  std::move(labels),
                  std::string(family.help),
                  family.measured};
}

void ResultBuilder::evidence(std::string key, std::string value, double number, Unit unit) {
    // NaN and infinity are no figure (JSON has no number for them): the text alone then.
    if (!std::isfinite(number)) evidence_.push_back({std::move(key), std::move(value)});
    else evidence_.push_back({std::move(key), std::move(value), number, std::string(to_string(unit))});
}

void ResultBuilder::evidence(std::string key, std::string value, double number) {
    if (!std::isfinite(number)) evidence_.push_back({std::move(key), std::move(value)});
    else evidence_.push_back({std::move(key), std::move(value), number, std::string()});
}

void ResultBuilder::evidence(std::string key, std::string value) {
    evidence_.push_back({std::move(key), std::move(value)});
}

void ResultBuilder::evidence(Evidence item) {
    if (item.number && !std::isfinite(*item.number)) {
        item.number.reset();
        item.unit.clear();
    }
    evidence_.push_back(std::move(item));
}

void ResultBuilder::evidence_bytes(std::string key, std::uint64_t bytes) {
    // Scaled as format_bytes scales, so that the number is the one its text shows.
    constexpr std::array<Unit, 4> units{Unit::kib, Unit::mib, Unit::gib, Unit::tib};
    double value = static_cast<double>(bytes);
    std::size_t scale = 0;
    while (value >= 1024.0 && scale < units.size()) {
        value /= 1024.0;
        ++scale;
    }
    std::string text = format_bytes(bytes);
    if (scale == 0) {
        evidence(std::move(key), std::move(text));
        return;
    }
    // One decimal, rounded half to even as fmt rounds "{:.1f}" (value * 10 is exact: a byte count
    // divided by a power of two, times ten, fits a double's 53 bits for any size below 2^49 bytes).
    evidence(std::move(key), std::move(text), std::nearbyint(value * 10.0) / 10.0, units[scale - 1]);
}

CheckResult ResultBuilder::finish(std::string check_id, std::optional<int> device) && {
    CheckResult result;
    result.check_id = std::move(check_id);
    result.device = device;
    result.evidence = std::move(evidence_);
    result.metrics = std::move(metrics_);
    result.series = std::move(series_);
    result.shared_gpu = std::move(shared_gpu_);
    if (skip_reason_ && findings_.empty()) {
        result.status = Status::skip;
        result.skip_reason = *skip_reason_;
        result.message = *skip_reason_;
        return result;
    }
    // Worst finding first; equal ones keep the order the check found them in.
    std::stable_sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) {
        return severity_rank(a.status) > severity_rank(b.status);
    });
    result.findings = std::move(findings_);
    if (result.findings.empty()) {
        result.status = Status::pass;
        result.message = std::move(summary_);
        return result;
    }
    const Finding& worst = result.findings.front();
    result.status = worst.status;
    result.code = worst.code;
    result.message = worst.message;
    result.remediation = worst.remediation;
    return result;
}

Summary summarize(const std::vector<CheckResult>& results) {
    Summary summary;
    int worst_non_skip = -1;
    for (const CheckResult& result : results) {
        ++summary.counts[static_cast<std::size_t>(result.status)];
        if (result.status != Status::skip) worst_non_skip = std::max(worst_non_skip, severity_rank(result.status));
    }
    if (worst_non_skip >= 0) summary.overall = static_cast<Status>(worst_non_skip);
    else summary.overall = Status::skip;  // nothing ran, or everything was skipped: nothing was verified
    return summary;
}

int exit_code_for(const Summary& summary, bool strict) {
    switch (summary.overall) {
        case Status::pass: return exit_ok;
        case Status::warn: return strict ? exit_check_failed : exit_ok;
        case Status::skip:  // nothing was verified: skip never counts as pass
        case Status::fail:
        case Status::timeout:
        case Status::error: return exit_check_failed;
    }
    return exit_internal;
}

}  // namespace cudacheck
