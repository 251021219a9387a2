#include "cli/cli.hpp"

#include "core/atomic_file.hpp"
#include "core/build_info.hpp"
#include "core/report_builder.hpp"
#include "core/system.hpp"
#include "cudacheck/dynamic_library.hpp"
#include "cudacheck/engine.hpp"
#include "cudacheck/registry.hpp"
#include "probes/probes.hpp"
#include "render/renderer.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace cudacheck {

namespace {

constexpr const char* exit_codes_help =
    "Exit codes: 0 nothing failed (warnings allowed unless --strict); 1 a check failed, errored or timed out, "
    "a warning under --strict, or every selected check was skipped; 2 usage or input error; 3 internal error.";

void usage_error(const std::string& message) { std::cerr << "cudacheck: " << message << '\n'; }

void add_run_options(CLI::App& app, RunCommandOptions& options) {
    app.add_option("--format", options.format, "Output format: table or json (default: json for -o *.json, else table)")
        ->check(CLI::IsMember({"table", "json"}));
    app.add_option("-o,--output", options.output, "Write the report to FILE atomically (the table still goes to stdout)");
    app.add_option("--only", options.only, "Run only these checks: comma list of ids or prefixes (e.g. driver,cuda.devices)")
        ->delimiter(',');
    app.add_option("--skip", options.skip, "Skip these checks: comma list of ids or prefixes")->delimiter(',');
    app.add_option("--level", options.level, "quick (no CUDA initialisation, no GPU work), standard, or full")
        ->check(CLI::IsMember({"quick", "standard", "full"}));
    app.add_option("--devices", options.devices, "CUDA device ordinals to check, e.g. 0,1 (default: all)");
    app.add_flag("--strict", options.strict, "Treat warnings as failures (exit 1)");
    app.add_flag("--no-color", options.no_color, "No colours (also when NO_COLOR is set or stdout is not a terminal)");
    app.add_flag("-v,--verbose", options.verbose, "Show the evidence behind every verdict");
    app.add_flag("-q,--quiet", options.quiet, "With -o: print nothing on stdout");
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool colour_wanted(const RunCommandOptions& options, const Environment& environment) {
    if (options.no_color) return false;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(STDOUT_FILENO) == 1;
}

// Lets the selected checks start their preparation (opening cuBLAS(Lt) and cuDNN reads hundreds of
// megabytes) so it overlaps cuInit and the host checks. Only when a driver library exists (opening
// it costs ~1 ms): without one the GPU checks are skipped and the work would be wasted.
void prepare_selected_checks(const Selection& selection, Probes& probes) {
    if (!DynamicLibrary::open("libcuda.so.1").ok()) return;
    for (const Check* check : selection.checks)
        if (check->info().prepare) check->info().prepare(probes);
}

int run_command(const RunCommandOptions& options, const std::vector<std::string>& argv) {
    const auto start = std::chrono::steady_clock::now();
    const std::string timestamp = utc_timestamp_now();
    std::string error;
    const auto devices = parse_device_list(options.devices, error);
    if (!devices) {
        usage_error(error);
        return exit_usage;
    }
    const Registry registry(builtin_checks());
    Selection selection;
    try {
        selection = select_checks(registry, options.only, options.skip);
    } catch (const SelectionError& selection_error) {
        usage_error(selection_error.what());
        return exit_usage;
    }
    Format format = Format::table;
    if (!options.format.empty()) format = *format_from_string(options.format);
    else if (ends_with(options.output, ".json")) format = Format::json;

    std::optional<AtomicFile> output_file = options.output.empty() ? std::nullopt : AtomicFile::create(options.output, error);
    if (!options.output.empty()) {
        if (!output_file) {
            usage_error(error);
            return exit_usage;
        }
    }

    const Environment environment = Environment::from_process();
    RunOptions run_options;
    run_options.level = *level_from_string(options.level);
    ProbeSettings probe_settings;
    probe_settings.initialise_cuda = run_options.level != Level::quick;
    Probes probes(environment, probe_settings);
    run_options.devices = *devices;
    run_options.verbose = options.verbose;
    if (!run_options.devices.empty() && run_options.level != Level::quick) {
        // Ordinals can only be checked against a working driver; without one the driver checks
        // report the real problem and per-device checks are skipped anyway. At --level quick no
        // per-device work runs, and checking would cost the cuInit quick avoids.
        const DriverFacts& driver = probes.initialised_driver();
        if (driver.device_count)
            for (int ordinal : run_options.devices)
                if (ordinal >= *driver.device_count) {
                    usage_error(fmt::format("--devices {}: this machine has {} visible CUDA device(s) (ordinals 0..{})", ordinal,
                                            *driver.device_count, *driver.device_count - 1));
                    return exit_usage;
                }
    }

    if (probe_settings.initialise_cuda) prepare_selected_checks(selection, probes);
    std::vector<CheckResult> results = run_checks(EngineInput{selection, run_options, environment, probes});
    RunMetadata metadata;
    metadata.argv = argv;
    metadata.level = options.level;
    metadata.strict = options.strict;
    metadata.timestamp_utc = timestamp;
    metadata.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const Report report = assemble_report(std::move(results), probes, metadata);

    RenderOptions render_options;
    render_options.color = colour_wanted(options, environment);
    render_options.verbose = options.verbose;
    if (output_file) {
        std::ostringstream text;
        make_renderer(format, RenderOptions{false, options.verbose})->render(report, text);
        if (auto commit_error = output_file->commit(text.str())) {
            // The checks ran: keep their verdicts on stdout even though the file could not be written.
            usage_error(*commit_error);
            make_renderer(Format::table, render_options)->render(report, std::cout);
            return exit_usage;
        }
        if (!options.quiet) make_renderer(Format::table, render_options)->render(report, std::cout);
    } else {
        make_renderer(format, render_options)->render(report, std::cout);
    }
    std::cout.flush();
    return report.exit_code;
}

int list_command() {
    render_check_list(Registry(builtin_checks()), std::cout);
    return exit_ok;
}

int explain_command(const ExplainCommandOptions& options) {
    if (options.markdown) {
        render_catalog_markdown(std::cout);
        return exit_ok;
    }
    if (options.code.empty()) {
        usage_error("explain needs a code (e.g. `cudacheck explain CC210`) or --markdown");
        return exit_usage;
    }
    if (const CatalogEntry* entry = find_catalog_entry(options.code)) {
        render_catalog_entry(*entry, std::cout);
        return exit_ok;
    }
    usage_error(fmt::format("unknown code '{}'; closest: {} (`cudacheck explain --markdown` lists all)", options.code,
                            closest_catalog_codes(options.code)));
    return exit_usage;
}

}  // namespace

std::optional<std::vector<int>> parse_device_list(const std::string& text, std::string& error) {
    std::vector<int> ordinals;
    if (text == "all") return ordinals;
    for (const std::string& item : sys::split(text, ',')) {
        int ordinal = -1;
        const auto [end, failure] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
        if (item.empty() || failure != std::errc{} || end != item.data() + item.size() || ordinal < 0) {
            error = fmt::format("--devices '{}': expected 'all' or a comma list of device ordinals like 0,1", text);
            return std::nullopt;
        }
        if (std::find(ordinals.begin(), ordinals.end(), ordinal) == ordinals.end()) ordinals.push_back(ordinal);
    }
    return ordinals;
}

int run_cli(int argc, char** argv) {
    const std::vector<std::string> arguments(argv, argv + argc);
    CLI::App app{"cudacheck: can this machine run CUDA work? If not, what exactly is wrong and how to fix it.", "cudacheck"};
    app.footer(exit_codes_help);
    app.set_version_flag("--version", fmt::format("cudacheck {} (CUDA runtime {}, CUDA architectures {}, built with {})", build_info::version,
                                                  build_info::cuda_toolkit, build_info::cuda_architectures, build_info::compiler));
    app.require_subcommand(0, 1);

    // `cudacheck [options]` is `cudacheck run [options]`: the run options live on the top level and
    // the run subcommand passes them through (fallthrough).
    RunCommandOptions run_options;
    add_run_options(app, run_options);
    CLI::App* run = app.add_subcommand("run", "Run the checks (the default)")->fallthrough();
    CLI::App* list = app.add_subcommand("list", "List the checks: id, scope, level, description");
    ExplainCommandOptions explain_options;
    CLI::App* explain = app.add_subcommand("explain", "Explain a finding code: cause, remediation, docs");
    explain->add_option("code", explain_options.code, "A code such as CC210, or its name (libcuda-not-found)");
    explain->add_flag("--markdown", explain_options.markdown, "Print the whole catalogue as Markdown (docs/errors.md)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& parse_error) {
        usage_error(fmt::format("{} (see `cudacheck --help`)", parse_error.what()));
        return exit_usage;
    }
    if (list->parsed()) return list_command();
    if (explain->parsed()) return explain_command(explain_options);
    (void)run;
    return run_command(run_options, arguments);
}

}  // namespace cudacheck
