#include "cli/cli.hpp"

#include "cli/command_support.hpp"
#include "cli/completion_command.hpp"
#include "cli/diff_command.hpp"
#include "cli/env_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/fleet_command.hpp"
#include "cli/inspect_command.hpp"
#include "cli/list_command.hpp"
#include "cli/render_command.hpp"
#include "cli/run_command.hpp"
#include "cli/worker_command.hpp"
#include "cudacheck/report.hpp"
#include "isolation/worker.hpp"
#include "util/build_info.hpp"

#include "util/atomic_file.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <unistd.h>
#include <string>
#include <vector>

namespace cudacheck {

namespace {

constexpr const char* exit_codes_help =
    "Exit codes: 0 nothing failed (warnings allowed unless --strict); 1 a check failed, errored or timed out, "
    "a warning under --strict, or every selected check was skipped; 2 usage or input error; 3 internal error; "
    "130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP (the partial report is still written).";

void ignore_file_size_signal(int) {}

// What CLI11 names as not expected ("The following arguments were not expected: json --formt"),
// each with the closest option or subcommand when one is near: a typo gets its correction instead
// of CLI11's bare words (issue 20).
std::string explain_unexpected(const CLI::App& app, const std::string& what, const std::vector<std::string>& arguments) {
    const std::string_view marker = "not expected: ";
    const std::size_t at = what.find(marker);
    if (at == std::string::npos) return what;
    std::vector<std::string> options;
    std::vector<std::string> subcommands;
    const auto collect = [&options](const CLI::App& from) {
        for (const CLI::Option* option : from.get_options()) {
            for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
            for (const std::string& name : option->get_snames()) options.push_back("-" + name);
        }
    };
    collect(app);
    for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (subcommand->get_name().starts_with("__")) continue;  // the worker is not for people
        subcommands.push_back(subcommand->get_name());
        collect(*subcommand);
    }
    const auto closest = [](std::string_view word, const std::vector<std::string>& names) -> std::string {
        std::string best;
        std::size_t best_distance = 3;  // at most two edits away, or a prefix of exactly one name
        std::size_t prefixed = 0;
        std::string prefix_of;
        for (const std::string& name : names) {
            if (name.starts_with(word) && word.size() >= 3) ++prefixed, prefix_of = name;
            const std::size_t distance = sys::edit_distance(word, name);
            if (distance < best_distance) best_distance = distance, best = name;
        }
        return !best.empty() ? best : prefixed == 1 ? prefix_of : std::string();
    };
    std::vector<std::string> parts;
    for (std::string word : sys::split(what.substr(at + marker.size()), ' ')) {
        if (word.empty()) continue;
        const bool first_argument = arguments.size() > 1 && arguments[1] == word;
        if (!word.starts_with("-") && !first_argument) continue;  // a value of an unknown option
        if (const std::size_t equals = word.find('='); equals != std::string::npos) word.resize(equals);
        const std::string suggestion = closest(word, word.starts_with("-") ? options : subcommands);
        parts.push_back(word.starts_with("-") ? fmt::format("unknown option {}{}", word, suggestion.empty() ? "" : "; did you mean " + suggestion + "?")
                                              : fmt::format("unknown subcommand {}{}", word, suggestion.empty() ? "" : "; did you mean " + suggestion + "?"));
    }
    return parts.empty() ? what : fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

int run_cli(int argc, char** argv) {
    // A write past the file-size limit (`ulimit -f`) fails with EFBIG, which the writers report with
    // the limit named, instead of SIGXFSZ killing every subcommand mid-write (issue 18). Caught, not
    // ignored: the programs cudacheck starts get the default back at exec. `run` installs its own
    // (isolation/stop_signals.hpp).
    struct sigaction catch_it {};
    catch_it.sa_handler = ignore_file_size_signal;
    ::sigemptyset(&catch_it.sa_mask);
    ::sigaction(SIGXFSZ, &catch_it, nullptr);
    const std::vector<std::string> arguments(argv, argv + argc);
    CLI::App app{"cudacheck: can this machine run CUDA work? If not, what exactly is wrong and how to fix it.", "cudacheck"};
    app.footer(exit_codes_help);
    app.set_version_flag("--version", fmt::format("cudacheck {} (CUDA runtime {}, CUDA architectures {}, built with {})", build_info::version,
                                                  build_info::cuda_toolkit, build_info::cuda_architectures, build_info::compiler));
    app.require_subcommand(0, 1);

    // In the order --help lists them.
    RunCommandOptions run_options;
    CLI::App* run = setup_run(app, run_options);
    ListCommandOptions list_options;
    CLI::App* list = setup_list(app, list_options);
    CLI::App* worker = setup_worker(app);
    ExplainCommandOptions explain_options;
    CLI::App* explain = setup_explain(app, explain_options);
    DiffCommandOptions diff_options;
    CLI::App* diff = setup_diff(app, diff_options);
    FleetCommandOptions fleet_options;
    CLI::App* fleet = setup_fleet(app, fleet_options);
    InspectCommandOptions inspect_options;
    CLI::App* inspect = setup_inspect(app, inspect_options);
    EnvCommandOptions env_options;
    CLI::App* env = setup_env(app, env_options);
    RenderCommandOptions render_options;
    CLI::App* render = setup_render(app, render_options);
    CompletionCommandOptions completion_options;
    CLI::App* completion = setup_completion(app, completion_options);

    const auto dispatch = [&]() -> int {
        try {
            app.parse(argc, argv);
        } catch (const CLI::CallForHelp& help) {
            // `cudacheck run --help`: the run options live on the top level (the subcommand passes
            // them through), so its help is the top level's, which lists them.
            if (run->parsed()) {
                std::cout << app.get_formatter()->make_help(&app, "cudacheck", CLI::AppFormatMode::Normal);
                return exit_ok;
            }
            return app.exit(help);
        } catch (const CLI::CallForVersion& version) {
            return app.exit(version);
        } catch (const CLI::ExtrasError& extras) {
            usage_error(fmt::format("{} (see `cudacheck --help`)", explain_unexpected(app, extras.what(), arguments)));
            return exit_usage;
        } catch (const CLI::ParseError& parse_error) {
            usage_error(fmt::format("{} (see `cudacheck --help`)", parse_error.what()));
            return exit_usage;
        }
        if (list->parsed()) return run_list(list_options);
        if (worker->parsed()) return run_worker();
        if (explain->parsed()) return run_explain(explain_options);
        if (inspect->parsed()) return run_inspect(inspect_options, arguments);
        if (diff->parsed()) return run_diff(diff_options);
        if (fleet->parsed()) return run_fleet(fleet_options);
        if (env->parsed()) return run_env(env_options);
        if (render->parsed()) return run_render(render_options);
        if (completion->parsed()) {
            std::cout << completion_script(app, completion_options.shell);
            return exit_ok;
        }
        // `cudacheck` alone, or `cudacheck run`.
        return run_run(run_options, arguments);
    };
    const int code = dispatch();
    // What was printed must have arrived: `> /dev/full` or a full filesystem is an error, not a
    // normal exit with a report cut short (issue 18).
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good();
    if (!flushed) {
        // The failed write's errno is long gone; one more byte asks the descriptor why.
        const int why = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : 0;
        usage_error(fmt::format("cannot write to standard output: {}", why != 0 ? write_error_words(why) : "write error"));
        return exit_usage;
    }
    return code;
}

}  // namespace cudacheck
