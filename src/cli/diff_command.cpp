#include "cli/diff_command.hpp"

#include "cli/command_support.hpp"
#include "render/renderer.hpp"
#include "report/report.hpp"
#include "report/report_diff.hpp"
#include "report/report_json.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>

namespace cudacheck {

CLI::App* setup_diff(CLI::App& app, DiffCommandOptions& options) {
    CLI::App* diff = app.add_subcommand(
        "diff", "Compare two JSON reports: versions, libraries, devices, statuses, figures (exit 1 when they differ)");
    diff->add_option("a", options.before, "The first report (JSON, e.g. from a machine that works)")->required();
    diff->add_option("b", options.after, "The second report (JSON)")->required();
    diff->add_option("--format", options.format, "table or json (default table)")
        ->check(CLI::IsMember({"table", "json"}));
    diff->add_option("--threshold", options.threshold_percent,
                     "Report a performance figure only when it moved by more than PERCENT (default 10)")
        ->check(CLI::Range(0.0, 1000000.0))
        ->check(finite_number);
    diff->footer("Exit codes: 0 no differences beyond the threshold; 1 differences; 2 bad input.");
    return diff;
}

int run_diff(const DiffCommandOptions& options) {
    const Expected<Report> before = read_report_file(options.before);
    if (!before) {
        usage_error(before.error().message);
        return exit_usage;
    }
    const Expected<Report> after = read_report_file(options.after);
    if (!after) {
        usage_error(after.error().message);
        return exit_usage;
    }
    const ReportDiff diff = diff_reports(*before, *after, options.threshold_percent);
    render_diff(diff, options.before, options.after, *format_from_string(options.format), std::cout);
    std::cout.flush();
    return diff.differences.empty() ? exit_ok : exit_check_failed;
}

}  // namespace cudacheck
