// The human-readable table: one line per check (and device), remediation under problems, summary.
#include "render/renderer.hpp"
#include "render/text_support.hpp"

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
            out << paint(result.status, fmt::format("{:<7}", status_word(result.status))) << ' '
                << fmt::format("{:<{}}  {}\n", check_label(result), width, line);
            // Every finding after the headline, then each finding's fix.
            for (std::size_t i = 0; i < result.findings.size(); ++i) {
                const Finding& finding = result.findings[i];
                if (i > 0) out << indent << paint(finding.status, status_word(finding.status)) << ' ' << finding.message << '\n';
                out << indent << "fix: " << finding.remediation << fmt::format("  [{}]\n", finding.code);
            }
            if (options_.verbose)
                for (const Evidence& evidence : result.evidence) out << indent << "· " << evidence.key << ": " << evidence.value << '\n';
        }
        const Summary& summary = report.summary;
        const std::string counts = summary_counts(summary);
        out << '\n'
            << fmt::format("{} — ", counts) << paint(summary.overall, status_word(summary.overall))
            << fmt::format(" (exit {}) in {:.0f} ms\n", report.exit_code, report.duration_ms);
        if (report.redaction) out << redaction_note(*report.redaction) << '\n';
        if (summary.overall == Status::skip) out << "Nothing was verified: every selected check was skipped.\n";
        if (summary.count(Status::warn) + summary.count(Status::fail) + summary.count(Status::error) > 0)
            out << "`cudacheck explain CODE` describes a code; `-v` shows the evidence behind each verdict.\n";
    }

    RenderOptions options_;
};

}  // namespace

std::unique_ptr<Renderer> make_table_renderer(RenderOptions options) { return std::make_unique<TableRenderer>(options); }

}  // namespace cudacheck
