#include "cli/inspect_command.hpp"

#include "cli/command_support.hpp"
#include "cuda/framework_builds.hpp"
#include "inspect/package_inspection.hpp"
#include "render/renderer.hpp"
#include "util/build_info.hpp"
#include "util/environment.hpp"
#include "util/path.hpp"
#include "util/system.hpp"

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

std::optional<PackageInterpreter> package_interpreter(const PythonEnvironments& environments, bool from_option) {
    const PythonEnvironment* chosen = nullptr;
    if (from_option) {
        const auto named =
            std::find_if(environments.environments.begin(), environments.environments.end(), named_by_python_option);
        if (named != environments.environments.end()) chosen = &*named;
    } else if (environments.bare_python3) {
        chosen = &environments.environments.at(*environments.bare_python3);
    }
    if (!chosen) return std::nullopt;
    const std::optional<MajorMinor> version = MajorMinor::parse(chosen->python_version);
    if (!version) return std::nullopt;
    PackageInterpreter interpreter;
    interpreter.tags.major = version->major;
    interpreter.tags.minor = version->minor;
    if (const std::string machine = this_machine(); !machine.empty()) interpreter.tags.machine = machine;
    interpreter.tags.glibc = this_glibc();
    interpreter.python_full_version = chosen->python_version;
    interpreter.label = fmt::format("{} (Python {})", chosen->prefix, chosen->python_version);
    return interpreter;
}

CLI::App* setup_inspect(CLI::App& app, InspectCommandOptions& options) {
    CLI::App* inspect =
        app.add_subcommand("inspect",
                           "List the GPU code in executables, libraries, objects, cubins, fatbins, PTX files, "
                           "Python wheels and installed environments, and say which GPUs it runs on");
    inspect->add_option("files", options.files,
                        "Files to inspect: binaries, wheels (.whl, read in place), site-packages directories "
                        "(nothing in them is run, loaded or unpacked)");
    inspect
        ->add_option("--python", options.python,
                     "A Python interpreter or environment root: its installed distributions are inspected, and "
                     "wheels are judged installable on it (default: the python3 on PATH; repeatable)")
        ->allow_extra_args(false);  // `--python ENV FILE`: the file is not an environment
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
        "Exit codes: 0 every file runs on every selected GPU; 1 a file does not (or a wheel would not install); 2 "
        "unreadable or not a GPU binary.");
    return inspect;
}

int run_inspect(const InspectCommandOptions& options, const std::vector<std::string>& argv) {
    const bool color = colour_wanted(options.color, Environment::from_process());
    const auto start = std::chrono::steady_clock::now();
    InspectReport report;
    report.tool_version = std::string(build_info::version);
    report.argv = argv;
    if (options.files.empty() && options.python.empty()) {
        usage_error("inspect: name a file, a wheel or a site-packages directory, or give --python");
        return exit_usage;
    }
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
    PackageContext packages{report.targets, report.driver_cuda, std::nullopt};
    const bool wants_python =
        !options.python.empty() || std::any_of(options.files.begin(), options.files.end(), is_wheel_path);
    std::vector<const PythonEnvironment*> environments;
    PythonEnvironments found;
    if (wants_python) {
        // Absolute, with links kept, as `cudacheck --python` takes them (run_command.cpp says why).
        const std::string current = sys::current_directory();
        std::vector<std::string> python;
        for (const std::string& path : options.python)
            python.push_back(current.empty() ? path : sys::absolute_path(path, current));
        found = find_python_environments(Environment::from_process(), python);
        packages.interpreter = package_interpreter(found, !options.python.empty());
        if (packages.interpreter) report.interpreter = packages.interpreter->label;
        for (const PythonEnvironment& environment : found.environments)
            if (named_by_python_option(environment)) environments.push_back(&environment);
    }
    const auto error_line = [](const std::string& path, const std::optional<Finding>& error) {
        if (error) std::cerr << fmt::format("cudacheck: {}: {} [{}]\n", path, error->message, error->code);
    };
    for (const std::string& path : options.files) {
        if (is_wheel_path(path) && !sys::is_directory(path)) {
            report.packages.push_back(inspect_wheel(path, packages));
            error_line(path, report.packages.back().input_error);
        } else if (sys::is_directory(path)) {
            std::vector<InspectedPackage> installed = inspect_site_packages(path, packages);
            if (installed.empty() && !has_dist_info(path)) {
                report.files.push_back(inspect_and_judge(path, report.targets, report.driver_cuda));
                error_line(path, report.files.back().input_error);
            }
            for (InspectedPackage& package : installed) report.packages.push_back(std::move(package));
        } else {
            report.files.push_back(inspect_and_judge(path, report.targets, report.driver_cuda));
            error_line(path, report.files.back().input_error);
        }
    }
    for (const PythonEnvironment* environment : environments)
        for (const std::string& site : environment->site_packages)
            for (InspectedPackage& package : inspect_site_packages(site, packages))
                report.packages.push_back(std::move(package));
    report.exit_code = std::max(inspect_exit_code(report.files), package_exit_code(report.packages));
    report.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    render_inspect(report, options.format == "json" ? Format::json : Format::table,
                   RenderOptions{color && options.format != "json", options.verbose}, std::cout);
    std::cout.flush();
    return report.exit_code;
}

}  // namespace cudacheck
