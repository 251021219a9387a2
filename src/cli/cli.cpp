#include "cli/cli.hpp"

#include "cli/advise_command.hpp"
#include "cli/command_support.hpp"
#include "cli/completion_command.hpp"
#include "cli/diff_command.hpp"
#include "cli/env_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/fleet_command.hpp"
#include "cli/help_format.hpp"
#include "cli/inspect_command.hpp"
#include "cli/list_command.hpp"
#include "cli/render_command.hpp"
#include "cli/run_command.hpp"
#include "cli/worker_command.hpp"
#include "isolation/worker.hpp"
#include "report/report.hpp"
#include "util/build_info.hpp"

#include "util/atomic_file.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace cudacheck {

namespace {

constexpr const char* exit_codes_help =
    "Exit codes: 0 nothing failed (warnings allowed unless --strict); 1 a check failed, errored or timed out, "
    "a warning under --strict, or every selected check was skipped; 2 usage or input error; 3 internal error; "
    "130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP (the partial report is still written).";

void ignore_file_size_signal(int) {}

// cudacheck's own --help starts with these; each subcommand's with those its entry in run_cli's
// table gives (tests/unit/cli/help_test.cpp holds each command to having some).
std::shared_ptr<HelpFormatter> help_formatter() {
    auto formatter = std::make_shared<HelpFormatter>();
    formatter->examples("",
                        {{"cudacheck", "check this machine; exit 1 when a check fails"},
                         {"cudacheck --level quick", "in about a second: no CUDA initialisation, no GPU work"},
                         {"cudacheck --level full --strict", "and load every GPU; a warning fails too"},
                         {"cudacheck --only driver,cuda", "only these checks: ids or prefixes (see `cudacheck list`)"},
                         {"cudacheck -o report.json", "the table, and the JSON report to attach to a ticket"},
                         {"cudacheck explain CC210", "what a finding code means and what fixes it"},
                         {"cudacheck inspect --help", "each subcommand's own options and examples"}});
    return formatter;
}

// The (sub)command the command line gave, as far as CLI11 parsed it.
const CLI::App& given_command(const CLI::App& app) {
    const CLI::App* given = &app;
    while (!given->get_subcommands().empty()) given = given->get_subcommands().front();
    return *given;
}

// "`cudacheck list --help`": where a usage error sends the reader (`run`'s help is cudacheck's).
std::string help_hint(const CLI::App& app) {
    const CLI::App& given = given_command(app);
    return &given == &app || given.get_fallthrough() ? "`cudacheck --help`"
                                                     : fmt::format("`cudacheck {} --help`", given.get_name());
}

// What CLI11 names as not expected ("The following arguments were not expected: json --formt"),
// each with the closest option or subcommand when one is near: a typo gets its correction instead
// of CLI11's bare words. The options are those of the command that was given (`list`'s
// for `cudacheck list --formt`; `run` also takes cudacheck's own), not of every command: an exact
// name of another command's option would be "corrected" to itself ("unknown option
// --format; did you mean --format?"); instead it names the commands that have it.
std::string explain_unexpected(const CLI::App& app, const std::string& what,
                               const std::vector<std::string>& arguments) {
    const std::string_view marker = "not expected: ";
    const std::size_t at = what.find(marker);
    if (at == std::string::npos) return what;
    const CLI::App* given = &given_command(app);
    const auto names_of = [](const CLI::App& from) {
        std::vector<std::string> names;
        for (const CLI::Option* option : from.get_options()) {
            for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
            for (const std::string& name : option->get_snames()) names.push_back("-" + name);
        }
        return names;
    };
    std::vector<std::string> options = names_of(*given);
    if (given != &app && given->get_fallthrough())
        for (std::string& name : names_of(app)) options.push_back(std::move(name));
    std::vector<std::string> subcommands;
    std::vector<const CLI::App*> commands{&app};
    for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (subcommand->get_name().starts_with("__")) continue;  // the worker is not for people
        subcommands.push_back(subcommand->get_name());
        commands.push_back(subcommand);
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
    // "`cudacheck list`, `cudacheck explain`": the other commands that have this option.
    const auto owners = [&](const std::string& word) {
        std::vector<std::string> found;
        for (const CLI::App* command : commands) {
            if (command == given || (command == &app && given->get_fallthrough())) continue;
            const std::vector<std::string> names = names_of(*command);
            if (std::find(names.begin(), names.end(), word) != names.end())
                found.push_back(command == &app ? "`cudacheck`" : fmt::format("`cudacheck {}`", command->get_name()));
        }
        return found;
    };
    const std::string where = given == &app ? std::string() : fmt::format(" for `cudacheck {}`", given->get_name());
    std::vector<std::string> parts;
    for (std::string word : sys::split(what.substr(at + marker.size()), ' ')) {
        if (word.empty()) continue;
        const bool first_argument = given == &app && arguments.size() > 1 && arguments[1] == word;
        if (!word.starts_with("-") && !first_argument) continue;  // a value of an unknown option
        if (const std::size_t equals = word.find('='); equals != std::string::npos) word.resize(equals);
        if (!word.starts_with("-")) {
            const std::string suggestion = closest(word, subcommands);
            parts.push_back(fmt::format("unknown subcommand {}{}", word,
                                        suggestion.empty() ? "" : "; did you mean " + suggestion + "?"));
            continue;
        }
        const std::string suggestion = closest(word, options);
        const std::vector<std::string> elsewhere = owners(word);
        if (!suggestion.empty() && suggestion != word)
            parts.push_back(fmt::format("unknown option {}{}; did you mean {}?", word, where, suggestion));
        else if (!elsewhere.empty())
            parts.push_back(
                fmt::format("unknown option {}{} (an option of {})", word, where, fmt::join(elsewhere, ", ")));
        else parts.push_back(fmt::format("unknown option {}{}", word, where));
    }
    return parts.empty() ? what : fmt::format("{}", fmt::join(parts, "; "));
}

// One subcommand: added to the app (its options and help) and what it runs once the command line
// names it.
struct Subcommand {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

// The subcommand `setup` adds to `app`, with its options kept for `run` and its examples for the
// top of its --help.
template <typename Options, typename Run>
Subcommand subcommand(CLI::App& app, CLI::App* (*setup)(CLI::App&, Options&), Run run,
                      std::vector<HelpFormatter::Example> examples = {}) {
    auto options = std::make_shared<Options>();
    CLI::App* added = setup(app, *options);
    if (!examples.empty())
        std::static_pointer_cast<HelpFormatter>(app.get_formatter())->examples(added->get_name(), std::move(examples));
    return {added, [options, run] { return run(*options); }};
}

}  // namespace

int run_cli(int argc, char** argv) {
    // A write past the file-size limit (`ulimit -f`) fails with EFBIG, which the writers report with
    // the limit named, instead of SIGXFSZ killing every subcommand mid-write. Caught, not
    // ignored: the programs cudacheck starts get the default back at exec. `run` installs its own
    // (isolation/stop_signals.hpp).
    struct sigaction catch_it{};
    catch_it.sa_handler = ignore_file_size_signal;
    ::sigemptyset(&catch_it.sa_mask);
    ::sigaction(SIGXFSZ, &catch_it, nullptr);
    const std::vector<std::string> arguments(argv, argv + argc);
    CLI::App app{"cudacheck: can this machine run CUDA work? If not, what exactly is wrong and how to fix it.",
                 "cudacheck"};
    // Before the subcommands are added: each takes its parent's formatter (CLI::App's constructor).
    app.formatter(help_formatter());
    app.set_version_flag("--version",
                         fmt::format("cudacheck {} (CUDA runtime {}, CUDA architectures {}, built with {})",
                                     build_info::version, build_info::cuda_toolkit, build_info::cuda_architectures,
                                     build_info::compiler));
    app.require_subcommand(0, 1);

    // The subcommands, in the order --help lists them; the first, `run`, is what `cudacheck` alone
    // does. A new subcommand is one entry: its setup/run pair (its own file) and its examples.
    const std::vector<Subcommand> subcommands{
        subcommand(app, setup_run,
                   [&arguments](const RunCommandOptions& options) { return run_run(options, arguments); }),
        subcommand(app, setup_list, run_list,
                   {{"cudacheck list", "every check: id, scope, level, what it checks"},
                    {"cudacheck list --format json", "the same for scripts, as docs/list.schema.json describes"},
                    {"cudacheck list --markdown", "the check index of README.md and docs/checks.md"}}),
        Subcommand{setup_worker(app), run_worker},
        subcommand(app, setup_explain, run_explain,
                   {{"cudacheck explain CC210", "one code: cause, remediation and where it is documented"},
                    {"cudacheck explain libcuda-not-found", "the same code by its name"},
                    {"cudacheck explain --markdown", "the whole catalogue, as docs/errors.md holds it"}}),
        subcommand(app, setup_diff, run_diff,
                   {{"cudacheck diff good.json bad.json", "what differs: versions, libraries, GPUs, results"},
                    {"cudacheck diff --threshold 5 good.json bad.json", "figures that moved by more than 5%"},
                    {"cudacheck diff --format json a.json b.json", "the differences as JSON"}}),
        subcommand(app, setup_fleet, run_fleet,
                   {{"cudacheck fleet reports/", "the nodes' reports: versions, GPUs, failures, outliers"},
                    {"cudacheck fleet --expect policy.json reports/", "and hold every node to a policy"},
                    {"cudacheck fleet --format json reports/", "the summary as JSON"}}),
        subcommand(app, setup_inspect,
                   [&arguments](const InspectCommandOptions& options) { return run_inspect(options, arguments); },
                   {{"cudacheck inspect ./my_app", "which of this machine's GPUs its CUDA code runs on"},
                    {"cudacheck inspect --arch sm_90 ./my_app", "whether it runs on sm_90 GPUs (H100, H200)"},
                    {"cudacheck inspect -v ./my_app", "one row per code object, with where it lies in the file"}}),
        subcommand(app, setup_advise,
                   [&arguments](const AdviseCommandOptions& options) { return run_advise(options, arguments); },
                   {{"cudacheck advise", "which build of each framework to install here, and why"},
                    {"cudacheck advise --arch sm_120", "the same for another GPU"},
                    {"cudacheck advise --driver-cuda 12.8", "as if the driver were of CUDA 12.8"}}),
        subcommand(app, setup_env, run_env,
                   {{"eval \"$(cudacheck env)\"", "set CUDA_HOME, PATH, LD_LIBRARY_PATH in this shell"},
                    {"cudacheck env --shell fish | source", "the same in fish"},
                    {"cudacheck env --profile ci", "with the settings for reproducible CI runs"}}),
        subcommand(app, setup_render, run_render,
                   {{"cudacheck render report.json", "the table, as the run printed it"},
                    {"cudacheck render --format markdown report.json", "for an issue or a ticket"},
                    {"cudacheck render report.json -o report.html", "one page with charts"}}),
        subcommand(app, setup_completion,
                   [&app](const CompletionCommandOptions& options) {
                       std::cout << completion_script(app, options.shell);
                       return exit_ok;
                   },
                   {{"source <(cudacheck completion bash)", "in this bash; or put the line in ~/.bashrc"},
                    {"cudacheck completion fish | source", "the same in fish"},
                    {"cudacheck completion zsh > ~/.zfunc/_cudacheck", "for zsh, with ~/.zfunc on $fpath"}}),
    };
    const CLI::App* run = subcommands.front().app;
    // After the subcommands: they took their parent's footer when added, and the run's exit codes
    // are not theirs (`completion --help` showed them).
    app.footer(exit_codes_help);

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
            usage_error(fmt::format("{} (see {})", explain_unexpected(app, extras.what(), arguments), help_hint(app)));
            return exit_usage;
        } catch (const CLI::ParseError& parse_error) {
            usage_error(fmt::format("{} (see {})", parse_error.what(), help_hint(app)));
            return exit_usage;
        }
        for (const Subcommand& command : subcommands)
            if (command.app != run && command.app->parsed()) return command.run();
        // `cudacheck` alone, or `cudacheck run`.
        return subcommands.front().run();
    };
    const int code = dispatch();
    // What was printed must have arrived: `> /dev/full` or a full filesystem is an error, not a
    // normal exit with a report cut short.
    std::cout.flush();
    const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good();
    if (!flushed) {
        // The failed write's errno is long gone; one more byte asks the descriptor why.
        const int why = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : 0;
        usage_error(
            fmt::format("cannot write to standard output: {}", why != 0 ? write_error_words(why) : "write error"));
        return exit_usage;
    }
    return code;
}

}  // namespace cudacheck
