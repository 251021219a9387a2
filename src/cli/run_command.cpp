#include "cli/run_command.hpp"

#include "cli/command_support.hpp"
#include "isolation/stop_signals.hpp"
#include "isolation/supervisor.hpp"
#include "isolation/worker.hpp"

#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "engine/report_builder.hpp"
#include "engine/root_cause.hpp"
#include "probes/probes.hpp"
#include "render/renderer.hpp"
#include "report/policy.hpp"
#include "report/redact.hpp"
#include "util/atomic_file.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace cudacheck {

namespace {

bool selects_burn_in(const Selection& selection) {
    return std::any_of(selection.checks.begin(), selection.checks.end(), [](const Check* check) {
        return check->info().id == "gpu.stress" || check->info().id == "gpu.memtest";
    });
}

// The limits and executable the supervisor needs, from the command line.
SupervisorSettings supervisor_settings(const RunCommandOptions& options, const RunOptions& run, const HostInfo& host) {
    SupervisorSettings settings;
    settings.executable = sys::real_path("/proc/self/exe");
    settings.run = run;
    const auto milliseconds = [](double seconds) {
        return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
    };
    settings.check_time_limit = milliseconds(options.timeout_seconds);
    settings.run_time_limit = milliseconds(options.run_timeout_seconds);
    constexpr std::uint64_t mib = 1ULL << 20;
    settings.memory_limit_bytes = options.memory_limit_mib > 0
                                      ? options.memory_limit_mib * mib
                                      : std::max<std::uint64_t>(8192 * mib, host.memory_bytes / 2);
    settings.forward_output = options.verbose;
    return settings;
}

// --progress: under auto, only on a terminal whose TERM can move the cursor; TERM=dumb gets plain
// lines when forced. Colours as --color decides them for stderr (NO_COLOR, TERM=dumb: none).
ProgressSettings progress_settings(const RunCommandOptions& options, const Environment& environment) {
    ProgressSettings settings;
    const bool dumb = environment.get("TERM").value_or("") == "dumb";
    if (options.progress == "never" || (options.progress == "auto" && (dumb || ::isatty(STDERR_FILENO) != 1)))
        return settings;
    settings.output = dumb ? ProgressOutput::lines : ProgressOutput::redraw;
    settings.colour = !dumb && colour_wanted(options.color, environment, STDERR_FILENO);
    settings.fd = STDERR_FILENO;
    return settings;
}

// The report on stdout, written whole or failing with the reason: a full disk or `ulimit -f` is
// exit 2 with a message, never a report cut short under a normal exit code.
Expected<void> print(const std::string& text) {
    std::cout.flush();
    if (const Expected<void> written = write_whole(STDOUT_FILENO, text); !written)
        return Error{"cannot write to standard output: " + written.error().message, written.error().code};
    return {};
}

std::string render_text(const Report& report, Format format, RenderOptions options) {
    std::ostringstream text;
    make_renderer(format, options)->render(report, text);
    return text.str();
}

}  // namespace

CLI::App* setup_run(CLI::App& app, RunCommandOptions& options) {
    app.add_option("--format", options.format,
                   "Output format: table, json, markdown (for an issue or ticket), junit (XML for CI), prometheus "
                   "(node_exporter "
                   "textfile) or html (one self-contained page with charts); default: from -o's extension (.json, .md, "
                   ".xml, .prom, .html), else table")
        ->check(CLI::IsMember({"table", "json", "markdown", "junit", "prometheus", "html"}));
    app.add_option("-o,--output", options.outputs,
                   "Write the report to FILE atomically (the table still goes to stdout); repeat for several formats, "
                   "each from its "
                   "extension (e.g. -o node.json -o node.prom; .txt or none: the table; an unknown one is an error); "
                   "`-o -` writes it to stdout")
        ->allow_extra_args(false);
    app.add_option("--only", options.only,
                   "Run only these checks: comma list of ids or prefixes (e.g. driver,cuda.devices)")
        ->delimiter(',');
    app.add_option("--skip", options.skip, "Skip these checks: comma list of ids or prefixes")->delimiter(',');
    app.add_option("--level", options.level,
                   "quick (no CUDA initialisation, no GPU work), standard, or full (default standard; `--only` naming "
                   "a check of a "
                   "higher level by its id runs at that level)")
        ->check(CLI::IsMember({"quick", "standard", "full"}))
        ->each([&options](const std::string&) { options.level_given = true; });
    app.add_option("--devices", options.devices, "CUDA device ordinals to check, e.g. 0,1 (default: all)");
    app.add_flag("--strict", options.strict, "Treat warnings as failures (exit 1)");
    add_colour_options(app, options.color);
    app.add_option("--progress", options.progress,
                   "A live progress line on stderr while the checks run: auto (when stderr is a terminal and TERM is "
                   "not dumb), "
                   "always (also into a pipe; with TERM=dumb plain lines, at most one a second), never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    app.add_flag("-v,--verbose", options.verbose, "Show the evidence behind every verdict");
    app.add_flag("-q,--quiet", options.quiet, "With -o: print nothing on stdout");
    app.add_option("--timeout", options.timeout_seconds,
                   "Time limit per check in seconds; a check past it becomes `timeout` (default 120)")
        ->check(CLI::Range(0.1, 86400.0));
    app.add_option("--run-timeout", options.run_timeout_seconds,
                   "Time limit for the whole run in seconds (default 600)")
        ->check(CLI::Range(0.1, 86400.0));
    app.add_option("--duration", options.duration_seconds,
                   "At --level full: seconds gpu.stress loads each GPU, and the most gpu.memtest spends starting "
                   "patterns "
                   "(default 20; below --timeout)")
        ->check(CLI::Range(1.0, 86400.0));
    app.add_option("--memory-limit", options.memory_limit_mib,
                   "Host memory the checks' process may use, in MiB, before it is stopped (default: half the host's "
                   "memory, at least 8 GiB)")
        ->check(CLI::Range(std::uint64_t{64}, std::uint64_t{1} << 40));
    app.add_option("--python", options.python,
                   "A Python interpreter or environment root whose frameworks to check too (repeatable; those on PATH, "
                   "VIRTUAL_ENV, CONDA_PREFIX, conda's and pipx's environments are found without it)")
        // A link that leads nowhere is accepted: a venv whose base interpreter was removed is a
        // finding about that path (frameworks.builds), not a usage error.
        ->check(CLI::Validator(
            [](const std::string& path) {
                struct stat status{};
                return ::lstat(path.c_str(), &status) == 0 ? std::string() : "Path does not exist: " + path;
            },
            "PATH"));
    app.add_option("--profile", options.profile,
                   "What this shell is for, which env.variables judges by: dev (CUDA_LAUNCH_BLOCKING=1 is right), prod "
                   "(asynchronous launches, no debugging variables) or ci (CUBLAS_WORKSPACE_CONFIG for reproducible "
                   "cuBLAS); "
                   "`cudacheck env --profile P` prints the settings")
        ->check(CLI::IsMember({"dev", "prod", "ci"}));
    app.add_flag("--no-isolation", options.no_isolation,
                 "Run the checks inside this process (debugging): a crash or hang then takes the whole run down");
    app.add_flag("--redact", options.redact,
                 "Replace the host name, user name, home directory, GPU UUIDs and serials, and secret-looking "
                 "variables' values "
                 "everywhere in the output (for support tickets)");
    app.add_option("--expect", options.expect,
                   "Check the report against a JSON policy FILE (versions, GPUs, libraries, performance, allowed "
                   "warnings); "
                   "each unmet expectation fails a check expect.<name>");
    // `cudacheck [options]` is `cudacheck run [options]`: the run options live on the top level and
    // the run subcommand passes them through (fallthrough).
    return app.add_subcommand("run", "Run the checks (the default)")->fallthrough();
}

namespace {

// Without --level, `--only toolkit.compile` means to run it: a check named by its whole id (not by
// a prefix, which selects a family) raises the default level to its own minimum.
std::string level_for(const RunCommandOptions& options, const Registry& registry) {
    if (options.level_given) return options.level;
    Level level = *level_from_string(options.level);
    for (const std::string& item : options.only)
        for (const auto& check : registry.checks())
            if (check->info().id == item) level = std::max(level, check->info().min_level);
    return std::string(to_string(level));
}

// A run as its options give it, everything checked before a check runs: the selection, the policy,
// every -o file created (a path that cannot be written, a link the kernel would not follow or a
// file that could not be replaced is exit 2 at once, not after the whole run), the engine's options.
struct RunPlan {
    RunCommandOptions options;  // with the level `--only` raises the default to
    Selection selection;
    std::optional<Policy> policy;
    std::vector<AtomicFile> output_files;
    bool to_standard_output = false;  // -o -
    Environment environment;
    RunOptions run;

    // --format names the format of the one -o file, or of stdout; with several files each extension does.
    [[nodiscard]] Format format_of(const std::string& output) const {
        return options.format.empty() ? format_for_output(output).value_or(Format::table)
                                      : *format_from_string(options.format);
    }
};

// The plan, or the usage error.
Expected<RunPlan> plan_run(const RunCommandOptions& given, const Registry& registry) {
    RunCommandOptions options = given;
    options.level = level_for(given, registry);
    const Expected<std::vector<int>> devices = parse_device_list(options.devices);
    if (!devices) return devices.error();
    Selection selection;
    try {
        selection = select_checks(registry, options.only, options.skip);
    } catch (const SelectionError& selection_error) {
        return Error{selection_error.what()};
    }
    if (const Expected<void> durations = check_durations(options, selects_burn_in(selection)); !durations)
        return durations.error();
    if (!options.format.empty() && options.outputs.size() > 1) {
        return Error{
            "--format applies to one output; with several -o files each takes its format from its extension (.json, "
            ".md, .xml, .prom)"};
    }
    bool to_standard_output = false;
    for (const std::string& output : options.outputs) {
        if (output == standard_output_name) {
            if (to_standard_output) return Error{"-o - is given twice: standard output takes one report"};
            to_standard_output = true;
        } else if (options.format.empty() && !format_for_output(output)) {
            return Error{
                fmt::format("-o {}: the extension {} names no report format (.json, .md, .xml, .prom, .html; .txt or "
                            "none for the table; "
                            "or give --format)",
                            output, output.substr(output.rfind('.')))};
        }
    }
    // The policy is read before anything runs: a typo in it must not cost a whole run.
    std::optional<Policy> policy;
    if (!options.expect.empty()) {
        Expected<Policy> read = read_policy_file(options.expect);
        if (!read) return read.error();
        policy = std::move(*read);
    }
    // Every -o file is created now, before any check runs.
    std::vector<AtomicFile> output_files;
    for (const std::string& output : options.outputs) {
        if (output == standard_output_name) continue;
        Expected<AtomicFile> file = AtomicFile::create(output);
        if (!file) return file.error();
        output_files.push_back(std::move(*file));
    }

    RunOptions run;
    run.level = *level_from_string(options.level);
    run.devices = *devices;
    run.verbose = options.verbose;
    if (options.duration_seconds > 0) run.stress_seconds = options.duration_seconds;
    if (!options.profile.empty()) run.profile = *profile_from_string(options.profile);
    // Absolute, as the report names environments (and the worker may run elsewhere), but with its
    // links kept: env/bin/python is a symlink to the base interpreter, and only the path as given
    // says that it belongs to the virtual environment env (Python's site.venv() looks beside it).
    const std::string current = sys::current_directory();
    for (const std::string& python : options.python)
        run.python.push_back(current.empty() ? python : sys::absolute_path(python, current));
    return RunPlan{std::move(options), std::move(selection),        std::move(policy), std::move(output_files),
                   to_standard_output, Environment::from_process(), std::move(run)};
}

// What the checks gave: supervised (each in a worker process), or here with --no-isolation.
struct RunOutcome {
    HostInfo host;
    std::vector<CheckResult> results;
    ReportFacts facts;
    std::optional<std::string> usage_error;
    int interrupted_by = 0;
};

RunOutcome execute_run(const RunPlan& plan, const StopSignals& signals) {
    ProbeSettings probe_settings;
    probe_settings.initialise_cuda = plan.run.level != Level::quick;
    probe_settings.start_programs = plan.run.level != Level::quick;
    probe_settings.python = plan.run.python;
    // Under supervision this process only reads host facts; the worker probes the driver.
    Probes probes(plan.environment, probe_settings);
    RunOutcome outcome;
    outcome.host = probes.host();
    if (plan.options.no_isolation) {
        ChecksRun run = run_checks_here(EngineInput{plan.selection, plan.run, plan.environment, probes});
        outcome.results = std::move(run.results);
        outcome.facts = std::move(run.facts);
        outcome.usage_error = std::move(run.usage_error);
    } else {
        SupervisorSettings settings = supervisor_settings(plan.options, plan.run, outcome.host);
        settings.progress = progress_settings(plan.options, plan.environment);
        SupervisedRun run = supervise(plan.selection, settings, signals);
        outcome.results = std::move(run.results);
        outcome.facts = std::move(run.facts);
        outcome.usage_error = std::move(run.usage_error);
        outcome.interrupted_by = run.interrupted_by;
    }
    return outcome;
}

// The report (the root cause, the policy, the interruption, redaction), each -o file and stdout;
// the exit code.
int emit_run(RunPlan& plan, RunOutcome outcome, RunMetadata metadata) {
    const RunCommandOptions& options = plan.options;
    // A machine where CUDA cannot work at all (no kernel module, no device files) gets one finding
    // for it, not one per check that needs the driver.
    attribute_to_root_cause(outcome.results, plan.selection.checks, plan.run.level);
    Report report = assemble_report(std::move(outcome.results), outcome.host, outcome.facts, metadata);
    if (plan.policy) apply_policy(*plan.policy, report);
    // Interrupted: the partial report is written, and the exit code says so (128 + the signal).
    if (outcome.interrupted_by != 0) report.exit_code = exit_interrupted_base + outcome.interrupted_by;
    // Last, so that what the policy's results say is redacted too.
    if (options.redact) redact(report, redaction_targets(report, plan.environment));

    RenderOptions render_options;
    render_options.color = colour_wanted(options.color, plan.environment);
    render_options.verbose = options.verbose;
    render_options.width = output_width(plan.environment);  // the table on stdout; files never wrap
    for (AtomicFile& file : plan.output_files) {
        // The format from the name as given: a link's target may have another extension.
        if (const Expected<void> committed = file.commit(
                render_text(report, plan.format_of(file.requested()), RenderOptions{false, options.verbose}));
            !committed) {
            // The checks ran: keep their verdicts on stdout even though the file could not be written.
            usage_error(committed.error().message);
            if (const Expected<void> printed = print(render_text(report, Format::table, render_options)); !printed)
                usage_error(printed.error().message);
            return exit_usage;
        }
    }
    if (plan.to_standard_output || plan.output_files.empty() || !options.quiet) {
        // `-o -` or no -o: the report in its format (colours for the table only); with -o files: the table.
        const Format format = plan.to_standard_output || plan.output_files.empty()
                                  ? plan.format_of(std::string(standard_output_name))
                                  : Format::table;
        if (format != Format::table) render_options.color = false;
        if (const Expected<void> printed = print(render_text(report, format, render_options)); !printed) {
            usage_error(printed.error().message);
            return exit_usage;
        }
    }
    return report.exit_code;
}

}  // namespace

int run_run(const RunCommandOptions& given, const std::vector<std::string>& argv) {
    const Registry registry(builtin_checks());
    // First, before any -o temporary file exists, and for the whole run (a signal in
    // the first milliseconds would leave `.report.json.tmp.XXXXXX` behind). Supervised, a signal stops the
    // worker and the partial report is still written; with --no-isolation nothing would notice it,
    // so the temporary files are removed and cudacheck exits at once, 128 + the signal.
    const StopSignals signals(given.no_isolation ? StopSignals::OnSignal::exit_now
                                                 : StopSignals::OnSignal::stop_the_run);
    const auto start = std::chrono::steady_clock::now();
    const std::string timestamp = utc_timestamp_now();
    Expected<RunPlan> plan = plan_run(given, registry);
    if (!plan) {
        usage_error(plan.error().message);
        return exit_usage;
    }
    RunOutcome outcome = execute_run(*plan, signals);
    if (outcome.usage_error) {
        usage_error(*outcome.usage_error);
        return exit_usage;
    }
    RunMetadata metadata;
    metadata.argv = argv;
    metadata.level = plan->options.level;
    metadata.strict = plan->options.strict;
    metadata.timestamp_utc = timestamp;
    metadata.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return emit_run(*plan, std::move(outcome), std::move(metadata));
}

Expected<void> check_durations(const RunCommandOptions& options, bool burn_in_selected) {
    const bool full = options.level == "full";
    if (options.duration_seconds > 0 && !full)
        return Error{
            fmt::format("--duration sets how long gpu.stress and gpu.memtest run, and they run only at --level full "
                        "(not {})",
                        options.level)};
    if (!full || !burn_in_selected) return {};
    const double duration = options.duration_seconds > 0 ? options.duration_seconds : default_stress_seconds;
    if (duration >= options.timeout_seconds)
        return Error{
            fmt::format("--duration {:g} must be shorter than the per-check --timeout {:g} (gpu.stress runs that long "
                        "plus its set-up): "
                        "lower --duration or raise --timeout",
                        duration, options.timeout_seconds)};
    if (2 * duration >= options.run_timeout_seconds)
        return Error{
            fmt::format("--duration {:g}: gpu.stress and gpu.memtest may take {:g} s on each GPU, one after the other, "
                        "which --run-timeout "
                        "{:g} does not allow: lower --duration or raise --run-timeout",
                        duration, 2 * duration, options.run_timeout_seconds)};
    return {};
}

Expected<std::vector<int>> parse_device_list(const std::string& text) {
    std::vector<int> ordinals;
    if (text == "all") return ordinals;
    for (const std::string& item : sys::split(text, ',')) {
        int ordinal = -1;
        const auto [end, failure] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
        if (item.empty() || failure != std::errc{} || end != item.data() + item.size() || ordinal < 0) {
            return Error{
                fmt::format("--devices '{}': expected 'all' or a comma list of device ordinals like 0,1", text)};
        }
        if (std::find(ordinals.begin(), ordinals.end(), ordinal) == ordinals.end()) ordinals.push_back(ordinal);
    }
    return ordinals;
}

}  // namespace cudacheck
