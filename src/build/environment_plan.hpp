// The plan behind `cudacheck env [--profile dev|prod|ci]`: the shell lines that set this
// machine's CUDA environment right: the toolkit that matches the driver and the installed PyTorch
// (CUDA_HOME, PATH, LD_LIBRARY_PATH where the loader needs it), a host compiler that toolkit
// accepts, the GPUs' architectures for PyTorch, CMake and NCCL builds, ninja, and the profile's
// settings. `eval "$(cudacheck env --profile dev)"` leaves a shell in which toolkit.build passes.
// Pure: the facts are toolkit.build's (build/build_prediction), and what the file system says of
// the toolkits comes in EnvFileFacts, gathered by the client (cli/env_command); render/shell_script
// writes the lines for a shell.
#pragma once

#include "build/build_prediction.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/build/build_setup.hpp"
#include "probes/build/toolkit_runtime.hpp"
#include "probes/library_locator.hpp"
#include "util/environment.hpp"
#include "util/environment_profile.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

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

// A path -> its real path (symlinks resolved; "" when it does not resolve).
using RealPaths = std::map<std::string, std::string, std::less<>>;

// What the plan reads of the file system: the real paths of environment_paths_compared, and the
// runtime (probes/build/toolkit_runtime) of the toolkit under the name environment_toolkit_root
// gives it.
struct EnvFileFacts {
    RealPaths real_paths = {};
    ToolkitRuntime runtime = {};
};

// The toolkit the environment should point at: among the installed ones (complete first), the
// newest whose CUDA major is PyTorch's and that is not newer than the driver; nullptr when none is
// installed.
[[nodiscard]] const ToolkitCompilerLimits* environment_toolkit(const EnvInputs& inputs);
// The name the script gives `toolkit`: the one builds take it by (CUDA_HOME, or /usr/local/cuda
// rather than the directory it links to) when that is the same directory, else its own root.
[[nodiscard]] std::string environment_toolkit_root(const EnvInputs& inputs, const ToolkitCompilerLimits& toolkit,
                                                   const RealPaths& real_paths);
// The paths whose real paths the plan compares: each toolkit's root and its bin/, the roots builds
// take, CUDA_PATH and the first PATH entry.
[[nodiscard]] std::vector<std::string> environment_paths_compared(const EnvInputs& inputs,
                                                                  const Environment& environment);

[[nodiscard]] EnvScript plan_environment(const EnvInputs& inputs, const EnvFileFacts& files,
                                         const Environment& environment, Profile profile);

}  // namespace cudacheck
