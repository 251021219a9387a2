// `cudacheck env [--profile dev|prod|ci] [--shell bash|fish]`: the shell lines that set this
// machine's CUDA environment right. The plan is build/environment_plan's, a pure
// function of the gathered facts, and render/shell_script writes it; this command gathers the
// facts (toolkit.build's, the GPUs from a worker process, the file system's) and prints.
#pragma once

#include "build/environment_plan.hpp"
#include "engine/check.hpp"
#include "render/shell_script.hpp"
#include "util/environment.hpp"

#include <string>

namespace CLI {
class App;
}

namespace cudacheck {

struct EnvCommandOptions {
    std::string profile;  // dev, prod, ci; empty: none
    std::string shell;    // bash, fish; empty: from $SHELL
};

// What the plan reads of the file system (build/environment_plan's EnvFileFacts), read here: the
// real paths it compares, and the chosen toolkit's runtime as the loader sees it.
[[nodiscard]] EnvFileFacts gather_environment_files(const EnvInputs& inputs, const Environment& environment);
// The plan from these facts and this file system.
[[nodiscard]] EnvScript plan_environment(const EnvInputs& inputs, const Environment& environment, Profile profile);

CLI::App* setup_env(CLI::App& app, EnvCommandOptions& options);
[[nodiscard]] int run_env(const EnvCommandOptions& options);

}  // namespace cudacheck
