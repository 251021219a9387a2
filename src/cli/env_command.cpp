// `cudacheck env`: the shell lines that set this machine's CUDA environment right. The
// facts are toolkit.build's (build_judge_input: the installed toolkits, the host compilers each
// one's host_config.h accepts, the PyTorch builds, ninja), the GPUs as a worker process finds them
// (command_support's find_gpus, as `inspect` asks) and what the file system says of the toolkits;
// the plan is build/environment_plan's, rendered by render/shell_script.
#include "cli/env_command.hpp"

#include "checks/toolkit_build.hpp"
#include "cli/command_support.hpp"
#include "isolation/stop_signals.hpp"
#include "probes/build/toolkit_runtime.hpp"
#include "probes/probes.hpp"
#include "util/atomic_file.hpp"
#include "util/system.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <optional>
#include <unistd.h>

namespace cudacheck {

EnvFileFacts gather_environment_files(const EnvInputs& inputs, const Environment& environment) {
    EnvFileFacts files;
    for (const std::string& path : environment_paths_compared(inputs, environment))
        files.real_paths.emplace(path, sys::real_path(path));
    if (const ToolkitCompilerLimits* toolkit = environment_toolkit(inputs)) {
        const std::optional<CudaVersion> version = cuda_release_of(toolkit->version);
        files.runtime = toolkit_runtime(environment_toolkit_root(inputs, *toolkit, files.real_paths),
                                        version ? std::optional<int>(version->major) : std::nullopt, inputs.loader);
    }
    return files;
}

EnvScript plan_environment(const EnvInputs& inputs, const Environment& environment, Profile profile) {
    return plan_environment(inputs, gather_environment_files(inputs, environment), environment, profile);
}

CLI::App* setup_env(CLI::App& app, EnvCommandOptions& options) {
    CLI::App* env = app.add_subcommand("env",
                                       "Print the shell lines that set this machine's CUDA environment right: "
                                       "eval \"$(cudacheck env)\" (fish: cudacheck env | source)");
    env->add_option("--profile", options.profile,
                    "Add a profile's settings: dev (synchronous launches, one GPU), prod (asynchronous launches, no "
                    "debugging "
                    "variables) or ci (deterministic cuBLAS, one GPU)")
        ->check(CLI::IsMember({"dev", "prod", "ci"}));
    env->add_option("--shell", options.shell,
                    "Write for bash (also sh and zsh) or fish; default: fish when $SHELL is fish, else bash")
        ->check(CLI::IsMember({"bash", "fish"}));
    env->footer(
        "Exit codes: 0 printed; 1 no CUDA toolkit is installed (the other lines are still printed); 2 usage error.");
    return env;
}

int run_env(const EnvCommandOptions& options) {
    const Environment environment = Environment::from_process();
    const Shell shell = options.shell.empty()     ? default_shell(environment)
                        : options.shell == "fish" ? Shell::fish
                                                  : Shell::bash;
    const Profile profile =
        options.profile.empty() ? Profile::none : profile_from_string(options.profile).value_or(Profile::none);
    // The GPUs and the driver's CUDA from a worker process; the probes take them as their driver
    // facts, so that toolkit.build's input (build_judge_input) is built here without loading
    // libcuda or NVML into this process.
    const FoundGpus gpus = find_gpus();
    // The probes run compilers and nvcc here, each in its own process group (sys::run_command): a
    // Ctrl-C or SIGTERM meanwhile kills those groups as it ends `env`, so that no child outlives
    // cudacheck (the default action would leave them running). Until the script is planned:
    // writing it keeps SIGPIPE's default.
    std::optional<StopSignals> signals(std::in_place, StopSignals::OnSignal::exit_now);
    ProbeSettings settings;
    settings.collect_driver = [&gpus](bool) {
        DriverFacts facts;
        facts.init_result = 0;
        facts.devices = gpus.devices;
        facts.device_count = static_cast<int>(gpus.devices.size());
        if (gpus.driver_cuda) facts.driver_version = gpus.driver_cuda->encoded();
        return facts;
    };
    Probes probes(environment, std::move(settings));
    const BuildJudgeInput input = build_judge_input(probes, environment);
    const EnvInputs inputs{input.setup, input.torch, input.devices, gpus.driver_cuda, probes.loader_search()};
    EnvScript script = plan_environment(inputs, environment, profile);
    signals.reset();
    const std::string invocation = fmt::format("cudacheck env{}{}", profile == Profile::none ? "" : " --profile ",
                                               profile == Profile::none ? "" : to_string(profile));
    ShellLine heading;
    heading.text = shell == Shell::fish
                       ? fmt::format("this machine's CUDA environment, for fish: {} --shell fish | source", invocation)
                       : fmt::format("this machine's CUDA environment: eval \"$({})\"", invocation);
    script.lines.insert(script.lines.begin(), std::move(heading));
    // Rendered first and written whole, the failure told: a shell that evaluates a script cut short
    // runs half a line.
    if (const Expected<void> written = write_whole(STDOUT_FILENO, render_script(script, shell)); !written) {
        usage_error("cannot write to standard output: " + written.error().message);
        return exit_usage;
    }
    return script.toolkit_installed ? 0 : 1;
}

}  // namespace cudacheck
