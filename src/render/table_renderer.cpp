// The human-readable table: one line per check (and device), remediation under problems, summary.
#include "render/renderer.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace cudacheck {

namespace {

std::string_view colour_of(Status status) {
    switch (status) {
        case Status::pass: return "\033[32m";
        case Status::skip: return "\033[2m";
        case Status::warn: return "\033[33m";
        default: return "\033[31m";
    }
}

std::string upper(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return result;
}

std::string_view count_label(Status status) {
    switch (status) {
        case Status::pass: return "passed";
        case Status::skip: return "skipped";
        case Status::warn: return "warned";
        case Status::fail: return "failed";
        case Status::timeout: return "timed out";
        case Status::error: return "errored";
    }
    return "";
}

std::string check_label(const CheckResult& result) {
    return result.device ? fmt::format("{}[{}]", result.check_id, *result.device) : result.check_id;
}

// The figure worth a glance: the first rate, bandwidth or time, not a count or an error ratio.
const Metric* key_figure(const CheckResult& result) {
    for (const Metric& metric : result.metrics)
        if (metric.unit != "count" && metric.unit != "ratio") return &metric;
    return nullptr;
}

std::string format_metric(const Metric& metric) {
    if (metric.value >= 100.0) return fmt::format("{:.0f} {}", metric.value, metric.unit);
    return fmt::format("{:.3g} {}", metric.value, metric.unit);
}

class TableRenderer final : public Renderer {
public:
    explicit TableRenderer(RenderOptions options) : options_(options) {}

private:
    std::string paint(Status status, std::string_view text) const {
        if (!options_.color) return std::string(text);
        return fmt::format("{}{}\033[0m", colour_of(status), text);
    }

    void do_render(const Report& report, std::ostream& out) const override {
        std::size_t width = 5;
        for (const CheckResult& result : report.checks) width = std::max(width, check_label(result).size());
        out << fmt::format("cudacheck {} · level {} · {}\n", report.tool_version, report.level, report.timestamp_utc);
        out << fmt::format("{:<7} {:<{}}  {}\n", "STATUS", "CHECK", width, "RESULT");
        const std::string indent(10 + width, ' ');  // under the RESULT column
        for (const CheckResult& result : report.checks) {
            std::string line = result.message;
            if (const Metric* key = key_figure(result)) line += fmt::format("  [{}]", format_metric(*key));
            out << paint(result.status, fmt::format("{:<7}", upper(to_string(result.status)))) << ' '
                << fmt::format("{:<{}}  {}\n", check_label(result), width, line);
            // Every finding after the headline, then each finding's fix.
            for (std::size_t i = 0; i < result.findings.size(); ++i) {
                const Finding& finding = result.findings[i];
                if (i > 0) out << indent << paint(finding.status, upper(to_string(finding.status))) << ' ' << finding.message << '\n';
                out << indent << "fix: " << finding.remediation << fmt::format("  [{}]\n", finding.code);
            }
            if (options_.verbose)
                for (const Evidence& evidence : result.evidence) out << indent << "· " << evidence.key << ": " << evidence.value << '\n';
        }
        const Summary& summary = report.summary;
        std::string counts = fmt::format("{} {}", summary.count(Status::pass), count_label(Status::pass));
        for (Status status : {Status::warn, Status::fail, Status::error, Status::timeout, Status::skip})
            if (summary.count(status) > 0) counts += fmt::format(", {} {}", summary.count(status), count_label(status));
        out << '\n'
            << fmt::format("{} — ", counts) << paint(summary.overall, upper(to_string(summary.overall)))
            << fmt::format(" (exit {}) in {:.0f} ms\n", report.exit_code, report.duration_ms);
        if (summary.overall == Status::skip) out << "Nothing was verified: every selected check was skipped.\n";
        if (summary.count(Status::warn) + summary.count(Status::fail) + summary.count(Status::error) > 0)
            out << "`cudacheck explain CODE` describes a code; `-v` shows the evidence behind each verdict.\n";
    }

    RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> make_table_renderer(RenderOptions options) { return std::make_unique<TableRenderer>(options); }

}  // namespace cudacheck
