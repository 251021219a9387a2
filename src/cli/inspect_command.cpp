#include "cli/inspect_command.hpp"

#include "cli/command_support.hpp"
#include "render/renderer.hpp"
#include "util/build_info.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <iostream>

namespace cudacheck {

Expected<std::vector<InspectTarget>> targets_from_arch(const std::vector<std::string>& values) {
    std::vector<InspectTarget> targets;
    for (const std::string& value : values) {
        const auto arch = parse_gpu_arch(value);
        if (!arch)
            return Error{
                fmt::format("--arch '{}': expected a GPU architecture such as sm_90, 90, 9.0 or sm_120a", value)};
        // A GPU is a compute capability: the a/f letter of a compilation target does not apply.
        InspectTarget target{arch->major(), arch->minor(), std::nullopt, {}};
        if (std::none_of(targets.begin(), targets.end(),
                         [&](const InspectTarget& known) { return known.arch() == target.arch(); }))
            targets.push_back(target);
    }
    return targets;
}

std::vector<InspectTarget> targets_from_devices(const std::vector<DeviceInfo>& devices) {
    std::vector<InspectTarget> targets;
    for (const DeviceInfo& device : devices)
        targets.push_back(InspectTarget{device.cc_major, device.cc_minor, device.ordinal, device.name});
    return targets;
}

CLI::App* setup_inspect(CLI::App& app, InspectCommandOptions& options) {
    CLI::App* inspect =
        app.add_subcommand("inspect",
                           "List the GPU code in executables, libraries, objects, cubins, fatbins and PTX "
                           "files, and say which GPUs it runs on");
    inspect->add_option("files", options.files, "Files to inspect (nothing in them is run or loaded)")->required();
    inspect
        ->add_option("--arch", options.arch,
                     "Judge for these GPU architectures (sm_90, 90, 9.0; repeatable or a comma list) instead of the "
                     "GPUs found here")
        ->delimiter(',')
        ->allow_extra_args(false);  // `--arch sm_90 FILE`: the file is not an architecture
    inspect->add_option("--format", options.format, "Output format: table or json")
        ->check(CLI::IsMember({"table", "json"}));
    add_colour_options(*inspect, options.color);
    inspect->add_flag("-v,--verbose", options.verbose, "One table row per code object, with where it lies in the file");
    inspect->footer(
        "Exit codes: 0 every file runs on every selected GPU; 1 a file does not; 2 unreadable or not a GPU binary.");
    return inspect;
}

int run_inspect(const InspectCommandOptions& options, const std::vector<std::string>& argv) {
    const bool color = colour_wanted(options.color, Environment::from_process());
    const auto start = std::chrono::steady_clock::now();
    InspectReport report;
    report.tool_version = std::string(build_info::version);
    report.argv = argv;
    const Expected<std::vector<InspectTarget>> arch_targets = targets_from_arch(options.arch);
    if (!arch_targets) {
        usage_error(arch_targets.error().message);
        return exit_usage;
    }
    if (!arch_targets->empty()) {
        report.targets = *arch_targets;
        report.targets_from = "--arch";
    } else {
        const FoundGpus gpus = find_gpus();
        report.targets = targets_from_devices(gpus.devices);
        report.driver_cuda = gpus.driver_cuda;
        if (!report.targets.empty()) report.targets_from = "the GPUs of this machine";
        else report.note = "no GPU found and no --arch given: code objects listed, no verdict";
    }
    for (const std::string& path : options.files) {
        report.files.push_back(inspect_and_judge(path, report.targets, report.driver_cuda));
        if (const auto& input_error = report.files.back().input_error)
            std::cerr << fmt::format("cudacheck: {}: {} [{}]\n", path, input_error->message, input_error->code);
    }
    report.exit_code = inspect_exit_code(report.files);
    report.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    render_inspect(report, options.format == "json" ? Format::json : Format::table,
                   RenderOptions{color && options.format != "json", options.verbose}, std::cout);
    std::cout.flush();
    return report.exit_code;
}

}  // namespace cudacheck
