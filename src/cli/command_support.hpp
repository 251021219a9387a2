// What the subcommands share: how a usage error is told, whether to colour the output, the GPUs
// of this machine as a worker process finds them, and what `inspect` and `advise` judge Python
// packages by (this machine's C library and architecture, the environments named by --python).
#pragma once

#include "cuda/cuda_facts.hpp"
#include "probes/python/python_environments.hpp"
#include "render/renderer.hpp"
#include "report/report.hpp"
#include "util/environment.hpp"

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// `-o -`: the report goes to standard output, in place of the table.
inline constexpr std::string_view standard_output_name = "-";
// The format -o's extension implies, when --format is not given: the table for `.txt`, `-` and a
// name without an extension; nullopt for an extension that names no format (`report.html`
// would otherwise silently become a table). `run` and `render` read it alike.
[[nodiscard]] std::optional<Format> format_for_output(const std::string& output);

// "cudacheck: MESSAGE" on stderr; the caller returns exit_usage.
void usage_error(const std::string& message);

// Refuses "nan" and infinities, which CLI::Range lets through (every comparison with nan is false):
// `fleet --threshold nan` would flag every figure.
extern const CLI::Validator finite_number;

// Whether the table gets colours. `mode` is --color's value: "always", "never", or "auto" (also
// --no-color's "never"). Under auto: NO_COLOR set (no-color.org) means none; else FORCE_COLOR or
// CLICOLOR_FORCE set to anything but "0" (what CI logs set to keep colours) means colours; else
// none for TERM=dumb; else colours when `fd` (stdout for the table, stderr for the progress
// line) is a terminal.
[[nodiscard]] bool colour_wanted(std::string_view mode, const Environment& environment, int fd = 1);
// The width the table wraps its long lines at (RenderOptions::width): COLUMNS when it
// holds a positive number, whatever `fd` is (POSIX.1-2017 XBD 8.3: the user's preferred width,
// which overrides the system's idea of the terminal's; Python's shutil.get_terminal_size reads it
// first too), so `COLUMNS=100 cudacheck | less` wraps; else the width of the terminal on `fd`
// (TIOCGWINSZ) when it is one; else 0, no wrapping: a file or a pipe gets each line whole, as
// scripts and the golden files expect.
[[nodiscard]] std::size_t output_width(const Environment& environment, int fd = 1);
// The --color option (auto, always, never) and the --no-color flag that means never, on `app`.
void add_colour_options(CLI::App& app, std::string& mode);

struct FoundGpus {
    std::vector<DeviceInfo> devices;
    std::optional<CudaVersion> driver_cuda;
};

// The GPUs of this machine, asked the way `cudacheck --level quick --only cuda.devices` asks:
// through the supervisor, so libcuda and NVML are loaded by the worker process, never by this one
// (a broken driver then costs a verdict, not the listing). Quick: NVML and cuDriverGetVersion,
// no cuInit. `inspect` and `env` use it.
[[nodiscard]] FoundGpus find_gpus();

// gnu_get_libc_version() as major and minor ("2.36" -> {2, 36}): the C library this process runs
// on, which an interpreter here runs on too; nullopt when it does not parse.
[[nodiscard]] std::optional<std::pair<int, int>> this_glibc();
// uname(2)'s machine ("x86_64", "aarch64"); "" when uname fails.
[[nodiscard]] std::string this_machine();
// Whether the environment was named on the command line (--python), not found on its own.
[[nodiscard]] bool named_by_python_option(const PythonEnvironment& environment);

}  // namespace cudacheck
