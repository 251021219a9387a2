#include "cli/advise_command.hpp"

#include "cli/command_support.hpp"
#include "cli/inspect_command.hpp"
#include "probes/python/build_info.hpp"
#include "probes/python/python_packages.hpp"
#include "render/advice.hpp"
#include "report/report.hpp"
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

namespace {

std::optional<Framework> framework_from_name(std::string_view name) {
    const std::string lower = sys::to_lower(name);
    if (lower == "torch" || lower == "pytorch") return Framework::pytorch;
    if (lower == "jax") return Framework::jax;
    if (lower == "cupy") return Framework::cupy;
    if (lower == "tensorflow" || lower == "tf") return Framework::tensorflow;
    return std::nullopt;
}

}  // namespace

CLI::App* setup_advise(CLI::App& app, AdviseCommandOptions& options) {
    CLI::App* advise = app.add_subcommand(
        "advise", "Say which build of PyTorch, JAX, CuPy and TensorFlow fits this machine, before installing it");
    advise
        ->add_option("--arch", options.arch,
                     "Advise for these GPU architectures (sm_90, 9.0; repeatable or a comma list) instead of the "
                     "GPUs found here")
        ->delimiter(',')
        ->allow_extra_args(false);
    advise->add_option("--driver-cuda", options.driver_cuda,
                       "Advise as if the driver supported this CUDA version (12.8), e.g. before installing a driver");
    advise
        ->add_option("--python", options.python,
                     "A Python interpreter or environment root to advise for (repeatable; those on PATH, "
                     "VIRTUAL_ENV, CONDA_PREFIX, conda's and pipx's environments are found without it)")
        ->allow_extra_args(false);
    advise
        ->add_option("--python-version", options.python_version,
                     "Advise for a Python version not installed yet (3.12; repeatable)")
        ->allow_extra_args(false);
    advise->add_option("--framework", options.framework, "Only these frameworks: torch, jax, cupy, tensorflow")
        ->delimiter(',')
        ->allow_extra_args(false);
    advise->add_option("--format", options.format, "Output format: table or json")
        ->check(CLI::IsMember({"table", "json"}));
    add_colour_options(*advise, options.color);
    advise->footer(
        "Exit codes: 0 advice given; 1 an installed framework does not run here; 2 usage error. The advice reads "
        "cudacheck's own table of published builds: its age is printed, and a newer cudacheck knows newer releases.");
    return advise;
}

int run_advise(const AdviseCommandOptions& options, const std::vector<std::string>& argv) {
    const auto start = std::chrono::steady_clock::now();
    const bool color = colour_wanted(options.color, Environment::from_process()) && options.format != "json";
    AdviceDocument document;
    document.tool_version = std::string(build_info::version);
    document.argv = argv;

    std::vector<Framework> frameworks;
    for (const std::string& name : options.framework) {
        const std::optional<Framework> framework = framework_from_name(name);
        if (!framework) {
            usage_error(fmt::format("--framework '{}': expected torch, jax, cupy or tensorflow", name));
            return exit_usage;
        }
        if (std::find(frameworks.begin(), frameworks.end(), *framework) == frameworks.end())
            frameworks.push_back(*framework);
    }
    if (frameworks.empty()) frameworks = {Framework::pytorch, Framework::jax, Framework::cupy, Framework::tensorflow};

    const Expected<std::vector<InspectTarget>> arch_targets = targets_from_arch(options.arch);
    if (!arch_targets) {
        usage_error(arch_targets.error().message);
        return exit_usage;
    }
    std::optional<CudaVersion> driver_cuda;
    if (!options.driver_cuda.empty()) {
        const std::optional<MajorMinor> version = MajorMinor::parse(options.driver_cuda);
        if (!version || version->major < 1) {
            usage_error(fmt::format("--driver-cuda '{}': expected a CUDA version such as 12.8", options.driver_cuda));
            return exit_usage;
        }
        driver_cuda = CudaVersion{version->major, version->minor};
        document.driver_from = "--driver-cuda";
    }
    std::vector<MajorMinor> extra_versions;
    for (const std::string& text : options.python_version) {
        const std::optional<MajorMinor> version = MajorMinor::parse(text);
        if (!version || version->major != 3) {
            usage_error(fmt::format("--python-version '{}': expected a Python version such as 3.12", text));
            return exit_usage;
        }
        extra_versions.push_back(*version);
    }

    if (!arch_targets->empty()) {
        for (const InspectTarget& target : *arch_targets) document.machine.gpus.push_back(target.arch());
        document.gpus_from = "--arch";
    }
    // The GPUs and the driver from a worker process (as `inspect` finds them), unless both were given.
    if (arch_targets->empty() || !driver_cuda) {
        const FoundGpus found = find_gpus();
        if (arch_targets->empty()) {
            for (const DeviceInfo& device : found.devices)
                document.machine.gpus.push_back(GpuArch{device.cc_major * 10 + device.cc_minor, ArchVariant::generic});
            if (!document.machine.gpus.empty()) document.gpus_from = "the GPUs of this machine";
        }
        if (!driver_cuda && found.driver_cuda) {
            driver_cuda = found.driver_cuda;
            document.driver_from = "this machine's driver";
        }
    }
    document.machine.driver_cuda = driver_cuda;
    if (const std::optional<std::pair<int, int>> glibc = this_glibc())
        document.machine.glibc = MajorMinor{glibc->first, glibc->second};
    if (const std::optional<Machine> machine = parse_machine(this_machine())) document.machine.machine = *machine;
    if (!driver_cuda)
        document.notes.push_back(
            "no NVIDIA driver answered: the advice assumes none (--driver-cuda X.Y advises for "
            "the driver you will install)");
    if (document.machine.gpus.empty())
        document.notes.push_back("no GPU found and no --arch given: every build counts as running on the GPUs");

    const std::string current = sys::current_directory();
    std::vector<std::string> python;
    for (const std::string& path : options.python)
        python.push_back(current.empty() ? path : sys::absolute_path(path, current));
    const PythonEnvironments found = find_python_environments(Environment::from_process(), python);
    // With --python or --python-version, only those; else every environment found.
    const bool chosen = !options.python.empty() || !options.python_version.empty();
    int exit_code = exit_ok;
    for (const PythonEnvironment& environment : found.environments) {
        if (chosen && !named_by_python_option(environment)) continue;
        const std::optional<MajorMinor> version = MajorMinor::parse(environment.python_version);
        if (!version) {
            document.notes.push_back(
                fmt::format("{}: its Python version is not known from its files; not advised", environment.prefix));
            continue;
        }
        AdvisedEnvironment advised;
        advised.label = fmt::format("{} (Python {})", environment.prefix, environment.python_version);
        advised.prefix = environment.prefix;
        advised.python = *version;
        MachineFacts facts = document.machine;
        facts.pythons = {*version};
        for (const Framework framework : frameworks) advised.advice.push_back(advise_build(facts, framework, *version));
        for (const std::string& site : environment.site_packages)
            for (const FrameworkBuild& build : read_framework_builds(site, installed_distributions(site))) {
                const std::optional<Framework> framework = framework_named(build.framework);
                if (!framework || std::find(frameworks.begin(), frameworks.end(), *framework) == frameworks.end())
                    continue;
                InstalledJudgement judgement =
                    judge_installed(facts, InstalledBuild{*framework, build.version, build.distribution, *version});
                if (judgement.verdict == InstalledVerdict::does_not_run) exit_code = exit_check_failed;
                advised.installed.push_back(std::move(judgement));
            }
        document.environments.push_back(std::move(advised));
    }
    for (const MajorMinor& version : extra_versions) {
        AdvisedEnvironment advised;
        advised.label = fmt::format("Python {} (--python-version)", version.to_string());
        advised.python = version;
        MachineFacts facts = document.machine;
        facts.pythons = {version};
        for (const Framework framework : frameworks) advised.advice.push_back(advise_build(facts, framework, version));
        document.environments.push_back(std::move(advised));
    }
    if (document.environments.empty())
        document.notes.push_back("no Python interpreter found: give --python ENV or --python-version 3.12");
    const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    document.table_age = describe_table_age(today);
    document.exit_code = exit_code;
    document.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    render_advice(document, options.format == "json" ? Format::json : Format::table, RenderOptions{color, false},
                  std::cout);
    std::cout.flush();
    return exit_code;
}

}  // namespace cudacheck
