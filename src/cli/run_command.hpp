// `cudacheck [run] [options]`: run the checks and report. Its options live on the top level too:
// `cudacheck --level full` is `cudacheck run --level full`.
#pragma once

#include "util/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cudacheck {

struct RunCommandOptions {
    std::string format;  // empty: from each output file's extension, else table
    std::vector<std::string> outputs;  // -o FILE, repeatable: one run, several formats
    std::vector<std::string> only;
    std::vector<std::string> skip;
    std::string level = "standard";
    bool level_given = false;  // --level was on the command line (`--only` of a higher-level check raises the default)
    std::string devices = "all";
    bool strict = false;
    std::string color = "auto";  // --color auto|always|never (--no-color: never)
    std::string progress =
        "auto";  // --progress auto|always|never: the live line on stderr (isolation/progress_line.hpp)
    bool verbose = false;
    bool quiet = false;
    // Supervision (isolation/supervisor.hpp): limits on each check and on the run, in seconds, and on
    // the worker process's resident memory in MiB (0: half the host's memory, at least 8 GiB).
    double timeout_seconds = 120;
    double run_timeout_seconds = 600;
    // --duration: how long gpu.stress runs (and gpu.memtest at most) on each GPU; 0 when not given
    // (default_stress_seconds applies).
    double duration_seconds = 0;
    std::uint64_t memory_limit_mib = 0;
    bool no_isolation = false;  // run the checks in this process: no crash or hang protection
    bool redact = false;  // --redact: no host, user, home, device ids or secrets in the output
    std::string expect;  // --expect FILE: a policy the report must meet (report/policy.hpp)
    std::vector<std::string> python;  // --python PATH, repeatable
    std::string profile;  // --profile dev|prod|ci; empty: none (engine/check.hpp's Profile)
};

// Adds the run options to `app` (the top level) and the `run` subcommand, which passes them through.
CLI::App* setup_run(CLI::App& app, RunCommandOptions& options);
// `argv`: the whole command line, for the report.
[[nodiscard]] int run_run(const RunCommandOptions& options, const std::vector<std::string>& argv);

// "all" -> empty (every device); "0,2" -> {0,2}; the usage error when invalid.
[[nodiscard]] Expected<std::vector<int>> parse_device_list(const std::string& text);

// The usage error --duration makes, if any: given below --level full (nothing would use it); or,
// when gpu.stress or gpu.memtest runs (`burn_in_selected` at --level full), a duration (given or
// the default) not below the per-check --timeout, or whose double (the two run one after the other
// on each GPU) is not below --run-timeout.
[[nodiscard]] Expected<void> check_durations(const RunCommandOptions& options, bool burn_in_selected);

}  // namespace cudacheck
