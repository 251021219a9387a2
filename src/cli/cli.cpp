#include "cli/cli.hpp"

#include "cli/inspect_command.hpp"
#include "isolation/supervisor.hpp"
#include "isolation/worker.hpp"

#include "util/atomic_file.hpp"
#include "util/build_info.hpp"
#include "report/policy.hpp"
#include "report/redact.hpp"
#include "engine/report_builder.hpp"
#include "report/report_diff.hpp"
#include "util/system.hpp"
#include "bind/dynamic_library.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "probes/probes.hpp"
#include "render/renderer.hpp"
#include "report/report_json.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
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
    "a warning under --strict, or every selected check was skipped; 2 usage or input error; 3 internal error; "
    "130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM (the partial report is still written).";

void usage_error(const std::string& message) { std::cerr << "cudacheck: " << message << '\n'; }

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

void add_run_options(CLI::App& app, RunCommandOptions& options) {
    app.add_option("--format", options.format,
                   "Output format: table, json, markdown (for an issue or ticket), junit (XML for CI) or prometheus (node_exporter "
                   "textfile); default: from -o's extension (.json, .md, .xml, .prom), else table")
        ->check(CLI::IsMember({"table", "json", "markdown", "junit", "prometheus"}));
    app.add_option("-o,--output", options.outputs,
                   "Write the report to FILE atomically (the table still goes to stdout); repeat for several formats, each from its "
                   "extension (e.g. -o node.json -o node.prom)")
        ->allow_extra_args(false);
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
    app.add_option("--timeout", options.timeout_seconds, "Time limit per check in seconds; a check past it becomes `timeout` (default 120)")
        ->check(CLI::Range(0.1, 86400.0));
    app.add_option("--run-timeout", options.run_timeout_seconds, "Time limit for the whole run in seconds (default 600)")
        ->check(CLI::Range(0.1, 86400.0));
    app.add_option("--duration", options.duration_seconds,
                   "At --level full: seconds gpu.stress loads each GPU, and the most gpu.memtest spends starting patterns "
                   "(default 20; below --timeout)")
        ->check(CLI::Range(1.0, 86400.0));
    app.add_option("--memory-limit", options.memory_limit_mib,
                   "Host memory the checks' process may use, in MiB, before it is stopped (default: half the host's memory, at least 8 GiB)")
        ->check(CLI::Range(std::uint64_t{64}, std::uint64_t{1} << 40));
    app.add_flag("--no-isolation", options.no_isolation,
                 "Run the checks inside this process (debugging): a crash or hang then takes the whole run down");
    app.add_flag("--redact", options.redact,
                 "Replace the host name, user name, home directory, GPU UUIDs and serials, and secret-looking variables' values "
                 "everywhere in the output (for support tickets)");
    app.add_option("--expect", options.expect,
                   "Check the report against a JSON policy FILE (versions, GPUs, libraries, performance, allowed warnings); "
                   "each unmet expectation fails a check expect.<name>");
}

bool selects_burn_in(const Selection& selection) {
    return std::any_of(selection.checks.begin(), selection.checks.end(),
                       [](const Check* check) { return check->info().id == "gpu.stress" || check->info().id == "gpu.memtest"; });
}

// The format -o's extension implies, when --format is not given.
Format format_for_output(const std::string& output) {
    if (ends_with(output, ".json")) return Format::json;
    if (ends_with(output, ".md") || ends_with(output, ".markdown")) return Format::markdown;
    if (ends_with(output, ".xml")) return Format::junit;
    if (ends_with(output, ".prom")) return Format::prometheus;
    return Format::table;
}

bool colour_wanted(bool no_color_option, const Environment& environment) {
    if (no_color_option) return false;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(STDOUT_FILENO) == 1;
}

// The limits and executable the supervisor needs, from the command line.
SupervisorSettings supervisor_settings(const RunCommandOptions& options, const RunOptions& run, const HostInfo& host) {
    SupervisorSettings settings;
    settings.executable = sys::real_path("/proc/self/exe");
    settings.run = run;
    const auto milliseconds = [](double seconds) { return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0)); };
    settings.check_time_limit = milliseconds(options.timeout_seconds);
    settings.run_time_limit = milliseconds(options.run_timeout_seconds);
    constexpr std::uint64_t mib = 1ULL << 20;
    settings.memory_limit_bytes = options.memory_limit_mib > 0 ? options.memory_limit_mib * mib : std::max<std::uint64_t>(8192 * mib, host.memory_bytes / 2);
    settings.forward_output = options.verbose;
    return settings;
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
    if (auto error_text = duration_error(options, selects_burn_in(selection))) {
        usage_error(*error_text);
        return exit_usage;
    }
    // --format names the format of the one -o file, or of stdout; with several files each extension does.
    if (!options.format.empty() && options.outputs.size() > 1) {
        usage_error("--format applies to one output; with several -o files each takes its format from its extension (.json, .md, .xml, .prom)");
        return exit_usage;
    }
    const auto format_of = [&](const std::string& output) {
        return options.format.empty() ? format_for_output(output) : *format_from_string(options.format);
    };
    // The policy is read before anything runs: a typo in it must not cost a whole run.
    std::optional<Policy> policy;
    if (!options.expect.empty()) {
        policy = read_policy_file(options.expect, error);
        if (!policy) {
            usage_error(error);
            return exit_usage;
        }
    }

    std::vector<AtomicFile> output_files;
    for (const std::string& output : options.outputs) {
        std::optional<AtomicFile> file = AtomicFile::create(output, error);
        if (!file) {
            usage_error(error);
            return exit_usage;
        }
        output_files.push_back(std::move(*file));
    }

    const Environment environment = Environment::from_process();
    RunOptions run_options;
    run_options.level = *level_from_string(options.level);
    run_options.devices = *devices;
    run_options.verbose = options.verbose;
    if (options.duration_seconds > 0) run_options.stress_seconds = options.duration_seconds;
    ProbeSettings probe_settings;
    probe_settings.initialise_cuda = run_options.level != Level::quick;
    // Under supervision this process only reads host facts; the worker probes the driver.
    Probes probes(environment, probe_settings);
    const HostInfo host = probes.host();

    std::vector<CheckResult> results;
    ReportFacts facts;
    std::optional<std::string> worker_usage_error;
    int interrupted_by = 0;
    if (options.no_isolation) {
        ChecksRun run = run_checks_here(EngineInput{selection, run_options, environment, probes});
        results = std::move(run.results);
        facts = std::move(run.facts);
        worker_usage_error = std::move(run.usage_error);
    } else {
        SupervisedRun run = supervise(selection, supervisor_settings(options, run_options, host));
        results = std::move(run.results);
        facts = std::move(run.facts);
        worker_usage_error = std::move(run.usage_error);
        interrupted_by = run.interrupted_by;
    }
    if (worker_usage_error) {
        usage_error(*worker_usage_error);
        return exit_usage;
    }
    RunMetadata metadata;
    metadata.argv = argv;
    metadata.level = options.level;
    metadata.strict = options.strict;
    metadata.timestamp_utc = timestamp;
    metadata.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    Report report = assemble_report(std::move(results), host, facts, metadata);
    if (policy) apply_policy(*policy, report);
    // Interrupted: the partial report is written, and the exit code says so (128 + the signal).
    if (interrupted_by != 0) report.exit_code = exit_interrupted_base + interrupted_by;
    // Last, so that what the policy's results say is redacted too.
    if (options.redact) redact(report, redaction_targets(report, environment));

    RenderOptions render_options;
    render_options.color = colour_wanted(options.no_color, environment);
    render_options.verbose = options.verbose;
    if (!output_files.empty()) {
        for (AtomicFile& file : output_files) {
            std::ostringstream text;
            make_renderer(format_of(file.path()), RenderOptions{false, options.verbose})->render(report, text);
            if (auto commit_error = file.commit(text.str())) {
                // The checks ran: keep their verdicts on stdout even though the file could not be written.
                usage_error(*commit_error);
                make_renderer(Format::table, render_options)->render(report, std::cout);
                return exit_usage;
            }
        }
        if (!options.quiet) make_renderer(Format::table, render_options)->render(report, std::cout);
    } else {
        make_renderer(format_of(""), render_options)->render(report, std::cout);
    }
    std::cout.flush();
    return report.exit_code;
}

int fleet_command(const FleetCommandOptions& options) {
    std::string error;
    std::optional<Policy> policy;
    if (!options.expect.empty() && !(policy = read_policy_file(options.expect, error))) {
        usage_error(error);
        return exit_usage;
    }
    const std::optional<std::vector<std::string>> files = fleet_files(options.paths, error);
    if (!files) {
        usage_error(error);
        return exit_usage;
    }
    std::vector<FleetNode> nodes;
    for (const std::string& file : *files) {
        std::string read_error;
        std::optional<Report> report = read_report_file(file, read_error);
        FleetNode node = fleet_node(file, std::move(report), std::move(read_error));
        // The policy's expect.* results join the node's report, and its exit code, as in a run.
        if (policy && node.report) apply_policy(*policy, *node.report);
        nodes.push_back(std::move(node));
    }
    const Fleet fleet = summarise_fleet(std::move(nodes), options.threshold_percent);
    render_fleet(fleet, *format_from_string(options.format), std::cout);
    std::cout.flush();
    return fleet.exit_code;
}

int diff_command(const DiffCommandOptions& options) {
    std::string error;
    const std::optional<Report> before = read_report_file(options.before, error);
    const std::optional<Report> after = before ? read_report_file(options.after, error) : std::nullopt;
    if (!before || !after) {
        usage_error(error);
        return exit_usage;
    }
    const ReportDiff diff = diff_reports(*before, *after, options.threshold_percent);
    render_diff(diff, options.before, options.after, *format_from_string(options.format), std::cout);
    std::cout.flush();
    return diff.differences.empty() ? exit_ok : exit_check_failed;
}

int list_command(bool markdown) {
    if (markdown) render_check_index_markdown(Registry(builtin_checks()), std::cout);
    else render_check_list(Registry(builtin_checks()), std::cout);
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

std::optional<std::string> duration_error(const RunCommandOptions& options, bool burn_in_selected) {
    const bool full = options.level == "full";
    if (options.duration_seconds > 0 && !full)
        return fmt::format("--duration sets how long gpu.stress and gpu.memtest run, and they run only at --level full (not {})", options.level);
    if (!full || !burn_in_selected) return std::nullopt;
    const double duration = options.duration_seconds > 0 ? options.duration_seconds : default_stress_seconds;
    if (duration >= options.timeout_seconds)
        return fmt::format("--duration {:g} must be shorter than the per-check --timeout {:g} (gpu.stress runs that long plus its set-up): "
                           "lower --duration or raise --timeout",
                           duration, options.timeout_seconds);
    if (2 * duration >= options.run_timeout_seconds)
        return fmt::format("--duration {:g}: gpu.stress and gpu.memtest may take {:g} s on each GPU, one after the other, which --run-timeout {:g} "
                           "does not allow: lower --duration or raise --run-timeout",
                           duration, 2 * duration, options.run_timeout_seconds);
    return std::nullopt;
}

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
    bool list_markdown = false;
    list->add_flag("--markdown", list_markdown, "Print the check index as Markdown (README.md and docs/checks.md)");
    // The supervisor's worker process (isolation/worker.hpp); not for people, hence no group in --help.
    CLI::App* worker = app.add_subcommand(worker_subcommand, "")->group("");
    ExplainCommandOptions explain_options;
    CLI::App* explain = app.add_subcommand("explain", "Explain a finding code: cause, remediation, docs");
    explain->add_option("code", explain_options.code, "A code such as CC210, or its name (libcuda-not-found)");
    explain->add_flag("--markdown", explain_options.markdown, "Print the whole catalogue as Markdown (docs/errors.md)");
    DiffCommandOptions diff_options;
    CLI::App* diff = app.add_subcommand("diff", "Compare two JSON reports: versions, libraries, devices, statuses, figures (exit 1 when they differ)");
    diff->add_option("a", diff_options.before, "The first report (JSON, e.g. from a machine that works)")->required();
    diff->add_option("b", diff_options.after, "The second report (JSON)")->required();
    diff->add_option("--format", diff_options.format, "table or json (default table)")->check(CLI::IsMember({"table", "json"}));
    diff->add_option("--threshold", diff_options.threshold_percent,
                     "Report a performance figure only when it moved by more than PERCENT (default 10)")
        ->check(CLI::Range(0.0, 1000000.0));

    FleetCommandOptions fleet_options;
    CLI::App* fleet = app.add_subcommand("fleet", "Summarise many nodes' JSON reports: versions, GPUs, failures, and the outliers among them "
                                                  "(exit 1 when a node failed or stands out)");
    fleet->add_option("paths", fleet_options.paths, "Report files, or directories of *.json reports (one per node)")->required();
    fleet->add_option("--format", fleet_options.format, "table or json (default table)")->check(CLI::IsMember({"table", "json"}));
    fleet->add_option("--threshold", fleet_options.threshold_percent,
                      "A GPU is slow when a rate is more than PERCENT below the fleet's median (default 10)")
        ->check(CLI::Range(0.0, 100.0));
    fleet->add_option("--expect", fleet_options.expect, "Check every node's report against this JSON policy too");

    InspectCommandOptions inspect_options;
    CLI::App* inspect = app.add_subcommand("inspect", "List the GPU code in executables, libraries, objects, cubins, fatbins and PTX "
                                                      "files, and say which GPUs it runs on");
    inspect->add_option("files", inspect_options.files, "Files to inspect (nothing in them is run or loaded)")->required();
    inspect->add_option("--arch", inspect_options.arch,
                        "Judge for these GPU architectures (sm_90, 90, 9.0; repeatable or a comma list) instead of the GPUs found here")
        ->delimiter(',')
        ->allow_extra_args(false);  // `--arch sm_90 FILE`: the file is not an architecture
    inspect->add_option("--format", inspect_options.format, "Output format: table or json")->check(CLI::IsMember({"table", "json"}));
    inspect->add_flag("--no-color", inspect_options.no_color, "No colours");
    // Each subcommand's own exit codes (the main help's are the run's), as docs/cli.md lists them.
    list->footer("Exit code: 0.");
    explain->footer("Exit codes: 0 printed; 2 unknown code or nothing asked.");
    diff->footer("Exit codes: 0 no differences beyond the threshold; 1 differences; 2 bad input.");
    fleet->footer("Exit codes: 0 every node passed and none stands out; 1 a node failed or stands out; 2 bad input.");
    inspect->footer("Exit codes: 0 every file runs on every selected GPU; 1 a file does not; 2 unreadable or not a GPU binary.");
    inspect->add_flag("-v,--verbose", inspect_options.verbose, "One table row per code object, with where it lies in the file");

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
    if (list->parsed()) return list_command(list_markdown);
    if (worker->parsed()) return run_worker();
    if (explain->parsed()) return explain_command(explain_options);
    if (inspect->parsed()) return inspect_command(inspect_options, arguments, colour_wanted(inspect_options.no_color, Environment::from_process()));
    if (diff->parsed()) return diff_command(diff_options);
    if (fleet->parsed()) return fleet_command(fleet_options);
    (void)run;
    return run_command(run_options, arguments);
}

}  // namespace cudacheck
