#include "cli/command_support.hpp"

#include "engine/registry.hpp"
#include "isolation/supervisor.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <gnu/libc-version.h>

#include <iostream>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace cudacheck {

// One line, whatever the message carries (a file name with a newline or an escape sequence).
void usage_error(const std::string& message) { std::cerr << "cudacheck: " << sys::printable(message) << '\n'; }

std::optional<Format> format_for_output(const std::string& output) {
    const std::size_t dot = output.rfind('.');
    const std::size_t slash = output.rfind('/');
    if (output == standard_output_name || dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
        dot + 1 == output.size() || dot == (slash == std::string::npos ? 0 : slash + 1))
        return Format::table;
    if (output.ends_with(".json")) return Format::json;
    if (output.ends_with(".md") || output.ends_with(".markdown")) return Format::markdown;
    if (output.ends_with(".xml")) return Format::junit;
    if (output.ends_with(".prom")) return Format::prometheus;
    if (output.ends_with(".html") || output.ends_with(".htm")) return Format::html;
    if (output.ends_with(".txt")) return Format::table;
    return std::nullopt;
}

bool colour_wanted(std::string_view mode, const Environment& environment, int fd) {
    if (mode == "never") return false;
    if (mode == "always") return true;
    if (auto no_color = environment.get("NO_COLOR"); no_color && !no_color->empty()) return false;  // no-color.org
    for (const char* force : {"FORCE_COLOR", "CLICOLOR_FORCE"})
        if (auto value = environment.get(force); value && !value->empty() && *value != "0") return true;
    if (environment.get("TERM").value_or("") == "dumb") return false;
    return ::isatty(fd) == 1;
}

std::size_t output_width(const Environment& environment, int fd) {
    if (const auto columns = environment.get("COLUMNS")) {
        std::size_t value = 0;
        const auto [end, failure] = std::from_chars(columns->data(), columns->data() + columns->size(), value);
        if (failure == std::errc{} && end == columns->data() + columns->size() && value > 0) return value;
    }
    winsize size{};
    if (::isatty(fd) == 1 && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 0;
}

void add_colour_options(CLI::App& app, std::string& mode) {
    app.add_option("--color", mode,
                   "Colours in the table: auto (a terminal, unless NO_COLOR or TERM=dumb; FORCE_COLOR or "
                   "CLICOLOR_FORCE force them), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    app.add_flag_callback("--no-color", [&mode] { mode = "never"; }, "No colours (--color=never)");
}

const CLI::Validator finite_number(
    [](std::string& text) -> std::string {
        try {
            std::size_t used = 0;
            const double value = std::stod(text, &used);
            if (used == text.size() && std::isfinite(value)) return {};
        } catch (const std::exception&) {}
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
    if (std::sscanf(run.facts.versions.driver_cuda.c_str(), "%d.%d", &major, &minor) == 2)
        found.driver_cuda = CudaVersion{major, minor};
    return found;
}

std::optional<std::pair<int, int>> this_glibc() {
    const std::vector<std::string> parts = sys::split(::gnu_get_libc_version(), '.');
    int major = 0, minor = 0;
    if (parts.size() < 2 ||
        std::from_chars(parts[0].data(), parts[0].data() + parts[0].size(), major).ec != std::errc{} ||
        std::from_chars(parts[1].data(), parts[1].data() + parts[1].size(), minor).ec != std::errc{})
        return std::nullopt;
    return std::pair{major, minor};
}

std::string this_machine() {
    struct utsname names{};
    return ::uname(&names) == 0 ? std::string(names.machine) : std::string();
}

bool named_by_python_option(const PythonEnvironment& environment) {
    return std::any_of(environment.found_by.begin(), environment.found_by.end(),
                       [](const std::string& how) { return how.starts_with("--python"); });
}

}  // namespace cudacheck
