// `cudacheck render REPORT.json [--format F] [-o FILE]`: a report saved as JSON, written again in
// any format, as the run that made it would have written it. The report is read and checked as
// `diff` reads it (any 1.x schema; another major is refused). JSON to JSON is the file itself,
// byte for byte, once it reads as a report: rendering never rewrites what a run recorded (an
// older schema's report keeps its schema_version).
#include "cli/render_command.hpp"

#include "cli/command_support.hpp"
#include "render/renderer.hpp"
#include "report/report.hpp"
#include "report/report_json.hpp"
#include "util/atomic_file.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace cudacheck {

CLI::App* setup_render(CLI::App& app, RenderCommandOptions& options) {
    CLI::App* render = app.add_subcommand(
        "render", "Write a saved JSON report in another format (table, json, markdown, junit, prometheus, html)");
    render->add_option("report", options.report, "The report (JSON, as `cudacheck -o report.json` wrote it)")
        ->required();
    render
        ->add_option("--format", options.format,
                     "table, json, markdown, junit, prometheus or html (default: from -o's extension, else table)")
        ->check(CLI::IsMember({"table", "json", "markdown", "junit", "prometheus", "html"}));
    render->add_option("-o,--output", options.output, "Write it to FILE atomically instead of stdout (`-` is stdout)");
    render->add_flag("-v,--verbose", options.verbose, "The table and Markdown show the evidence behind every verdict");
    add_colour_options(*render, options.color);
    render->footer(
        "Exit codes: 0 written; 2 the report cannot be read, is not a cudacheck report, or the output cannot be "
        "written.");
    return render;
}

int run_render(const RenderCommandOptions& options) {
    const bool to_file = !options.output.empty() && options.output != standard_output_name;
    std::optional<Format> format =
        options.format.empty() ? std::optional<Format>(Format::table) : format_from_string(options.format);
    if (options.format.empty() && to_file) {
        format = format_for_output(options.output);
        if (!format) {
            usage_error(
                fmt::format("-o {}: the extension {} names no report format (.json, .md, .xml, .prom, .html; .txt or "
                            "none for the table; or give "
                            "--format)",
                            options.output, options.output.substr(options.output.rfind('.'))));
            return exit_usage;
        }
    }
    const Expected<Report> report = read_report_file(options.report);
    if (!report) {
        usage_error(report.error().message);
        return exit_usage;
    }
    std::optional<AtomicFile> file;
    if (to_file) {
        Expected<AtomicFile> created = AtomicFile::create(options.output);
        if (!created) {
            usage_error(created.error().message);
            return exit_usage;
        }
        file.emplace(std::move(*created));
    }
    std::string text;
    if (*format == Format::json) {
        // The file as it is: it read as a report just now.
        const std::optional<std::string> original = sys::read_file(options.report, std::size_t{64} << 20);
        if (!original) {
            usage_error(fmt::format("cannot read {} again", options.report));
            return exit_usage;
        }
        text = *original;
    } else {
        RenderOptions render_options;
        render_options.verbose = options.verbose;
        render_options.color =
            !to_file && *format == Format::table && colour_wanted(options.color, Environment::from_process());
        if (!to_file) render_options.width = output_width(Environment::from_process());  // a file never wraps
        std::ostringstream out;
        make_renderer(*format, render_options)->render(*report, out);
        text = out.str();
    }
    if (file) {
        if (const Expected<void> committed = file->commit(text); !committed) {
            usage_error(committed.error().message);
            return exit_usage;
        }
        return exit_ok;
    }
    std::cout.flush();
    if (const Expected<void> written = write_whole(STDOUT_FILENO, text); !written) {
        usage_error("cannot write to standard output: " + written.error().message);
        return exit_usage;
    }
    return exit_ok;
}

}  // namespace cudacheck
