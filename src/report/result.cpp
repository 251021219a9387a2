#include "cudacheck/report.hpp"
#include "cudacheck/result.hpp"
#include "cudacheck/result_builder.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

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

std::optional<EvidenceFigure> evidence_figure(std::string_view text) {
    // The units cudacheck's checks write after a figure; anything else is not taken for one.
    static constexpr std::array<std::string_view, 16> units{"C", "W", "MHz", "bytes", "KiB", "MiB", "GiB", "TiB",
                                                            "GB/s", "TFLOP/s", "ms", "us", "s", "%", "GB", "Gbit/s"};
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos || space == 0) return std::nullopt;
    const std::string_view unit = text.substr(space + 1);
    if (std::find(units.begin(), units.end(), unit) == units.end()) return std::nullopt;
    double number = 0;
    const char* end = text.data() + space;
    const auto [stop, error] = std::from_chars(text.data(), end, number, std::chars_format::fixed);
    if (error != std::errc{} || stop != end || !std::isfinite(number)) return std::nullopt;
    return EvidenceFigure{number, std::string(unit)};
}

void ResultBuilder::evidence(std::string key, std::string value, double number, std::string unit) {
    // NaN and infinity are no figure (JSON has no number for them): the text alone then.
    if (!std::isfinite(number)) evidence_.push_back({std::move(key), std::move(value)});
    else evidence_.push_back({std::move(key), std::move(value), number, std::move(unit)});
}

void ResultBuilder::evidence(std::string key, std::string value) {
    if (const std::optional<EvidenceFigure> figure = evidence_figure(value))
        evidence_.push_back({std::move(key), std::move(value), figure->number, figure->unit});
    else
        evidence_.push_back({std::move(key), std::move(value)});
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
