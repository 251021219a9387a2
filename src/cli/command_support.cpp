#include "cli/command_support.hpp"

#include "engine/registry.hpp"
#include "isolation/supervisor.hpp"
#include "util/system.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include <iostream>
#include <unistd.h>

namespace cudacheck {

// One line, whatever the message carries (a file name with a newline or an escape sequence).
void usage_error(const std::string& message) { std::cerr << "cudacheck: " << sys::printable(message) << '\n'; }

bool colour_wanted(bool no_color_option, const Environment& environment) {
    if (no_color_option) return false;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(STDOUT_FILENO) == 1;
}

const CLI::Validator finite_number(
    [](std::string& text) -> std::string {
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (used == text.size() && std::isfinite(value)) return {};
        } catch (const std::exception&) {
        }
        return "'" + text + "' is not a finite number";
    },
    "FINITE");

FoundGpus find_gpus() {
    const Registry registry(builtin_checks());
    SupervisorSettings settings;
    settings.executable = sys::real_path("/proc/self/exe");
    settings.run.level = Level::quick;
    settings.check_time_limit = std::chrono::seconds(30);
    settings.run_time_limit = std::chrono::seconds(60);
    settings.memory_limit_bytes = std::uint64_t{4} << 30;
    const SupervisedRun run = supervise(select_checks(registry, {"cuda.devices"}, {}), settings);
    FoundGpus found;
    found.devices = run.facts.devices;
    int major = 0, minor = 0;
    if (std::sscanf(run.facts.versions.driver_cuda.c_str(), "%d.%d", &major, &minor) == 2) found.driver_cuda = CudaVersion{major, minor};
    return found;
}

}  // namespace cudacheck
