// `cudacheck env [--profile dev|prod|ci] [--shell bash|fish]`: the shell lines that set this
// machine's CUDA environment right (issue 19): the toolkit that matches the driver and the
// installed PyTorch (CUDA_HOME, PATH, LD_LIBRARY_PATH where the loader needs it), a host compiler
// that toolkit accepts, the GPUs' architectures for PyTorch, CMake and NCCL builds, ninja, and the
// profile's settings. `eval "$(cudacheck env --profile dev)"` leaves a shell in which toolkit.build
// passes. The plan is a pure function of the gathered facts; only run_env gathers and prints.
#pragma once

#include "checks/toolkit_build.hpp"
#include "cudacheck/report.hpp"
#include "engine/check.hpp"
#include "probes/build_setup.hpp"
#include "probes/library_locator.hpp"
#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace cudacheck {

struct EnvCommandOptions {
    std::string profile;  // dev, prod, ci; empty: none
    std::string shell;    // bash, fish; empty: from $SHELL
};

enum class Shell { bash, fish };

// fish when $SHELL ends in /fish, else bash (whose lines sh and zsh read too).
[[nodiscard]] Shell default_shell(const Environment& environment);

// One line of the script.
struct ShellLine {
    enum class Kind { comment, set, prepend, unset };
    Kind kind = Kind::comment;
    std::string name = {};                 // set, prepend
    std::vector<std::string> values = {};  // set: the value; prepend: the directories, first first; unset: the names
    std::string text = {};                 // comment
};

struct EnvScript {
    std::vector<ShellLine> lines = {};
    bool toolkit_installed = false;  // false: exit 1
};

// What the plan is made from: the build setup, the PyTorch builds and the GPUs (as toolkit.build
// sees them), the driver's CUDA version, and this process's loader search.
struct EnvInputs {
    const BuildSetup& setup;
    const std::vector<TorchBuildTarget>& torch;
    const std::vector<DeviceInfo>& devices;
    std::optional<CudaVersion> driver_cuda = {};
    const LoaderSearch& loader;
};

// The toolkit the environment should point at: among the installed ones (complete first), the
// newest whose CUDA major is PyTorch's and that is not newer than the driver; nullptr when none is
// installed.
[[nodiscard]] const ToolkitCompilerLimits* environment_toolkit(const EnvInputs& inputs);

[[nodiscard]] EnvScript plan_environment(const EnvInputs& inputs, const Environment& environment, Profile profile);

// `value` as one word of the shell: in single quotes, each ' (and, for fish, each \) escaped.
[[nodiscard]] std::string shell_quote(std::string_view value, Shell shell);
// The script's text, one complete line each.
[[nodiscard]] std::string render_script(const EnvScript& script, Shell shell);

CLI::App* setup_env(CLI::App& app, EnvCommandOptions& options);
[[nodiscard]] int run_env(const EnvCommandOptions& options);

}  // namespace cudacheck
