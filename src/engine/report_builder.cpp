#include "engine/report_builder.hpp"

#include "cuda/cuda_facts.hpp"
#include "probes/mapped_libraries.hpp"
#include "probes/probes.hpp"
#include "probes/visible_devices.hpp"
#include "util/build_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cuda_runtime_api.h>  // CUDART_VERSION only

namespace cudacheck {

ReportFacts collect_report_facts(Probes& probes, const Environment& environment) {
    ReportFacts facts;
    const DriverFacts* driver = probes.driver_if_collected();
    facts.versions.driver = driver_package_version(probes.kernel_module_if_collected(), driver);
    if (driver != nullptr && driver->driver_version)
        facts.versions.driver_cuda = CudaVersion::from_encoded(*driver->driver_version).to_string();
    facts.versions.runtime = CudaVersion::from_encoded(CUDART_VERSION).to_string();
    if (const ToolkitFacts* toolkits = probes.toolkits_if_collected(); toolkits != nullptr && toolkits->nvcc_version)
        facts.versions.nvcc = toolkits->nvcc_version->full;
    facts.devices = report_devices(probes, environment);
    if (const PythonFacts* python = probes.python_if_collected()) {
        std::optional<CudaVersion> driver_cuda;
        if (driver != nullptr && driver->driver_version && *driver->driver_version > 0)
            driver_cuda = CudaVersion::from_encoded(*driver->driver_version);
        facts.frameworks = frameworks_section(*python, facts.devices, driver_cuda);
    }
    if (const BuildSetup* setup = probes.build_setup_if_collected()) facts.build = build_section(*setup);
    if (const LibraryFacts* libraries = probes.library_locations_if_collected())
        facts.libraries = libraries_section(*libraries);
    facts.mapped_libraries = mapped_cuda_libraries();
    return facts;
}

namespace {

std::string version_text(const std::optional<HostCompilerVersion>& version) {
    return version ? to_string(*version) : std::string();
}

}  // namespace

BuildInfo build_section(const BuildSetup& setup) {
    BuildInfo build;
    if (setup.choice_exists || !setup.choice.root.empty())
        build.toolkit = setup.choice.root, build.toolkit_rule = setup.choice.rule;
    if (setup.nvcc_version) build.nvcc_version = setup.nvcc_version->full;
    build.nvcc_architectures = setup.nvcc_architectures;
    build.missing_files = setup.files.missing;
    const HostCompilerPick& pick = setup.nvcc_host_compiler;
    build.host_compiler = pick.path.empty() ? pick.program : pick.path;
    build.host_compiler_rule = pick.rule;
    build.host_compiler_version = version_text(pick.version);
    const ToolkitCompilerLimits* chosen =
        setup.choice_exists && !setup.toolkits.empty() ? &setup.toolkits.front() : nullptr;
    if (chosen != nullptr && pick.version && chosen->nvcc_pick.unreadable.empty())
        build.host_compiler_accepted = chosen->nvcc_pick.accepted;
    build.ninja = setup.ninja;
    for (const ToolkitCompilerLimits& toolkit : setup.toolkits)
        build.toolkits.push_back(BuildToolkitInfo{toolkit.root, toolkit.version, &toolkit == chosen, toolkit.gcc_newest,
                                                  toolkit.clang_newest});
    for (std::size_t i = 0; i < setup.compilers.size(); ++i) {
        const HostCompiler& compiler = setup.compilers[i];
        BuildCompilerInfo info{compiler.name, compiler.source,
                               compiler.path, version_text(compiler.version),
                               std::nullopt,  {}};
        if (chosen != nullptr && i < chosen->compilers.size() && chosen->compilers[i].unreadable.empty()) {
            info.accepted = chosen->compilers[i].accepted;
            info.error = chosen->compilers[i].error;
        }
        build.compilers.push_back(std::move(info));
    }
    return build;
}

LibrariesInfo libraries_section(const LibraryFacts& facts) {
    LibrariesInfo section{.found = {},
                          .ld_so_cache = facts.cache_status,
                          .directories_searched = static_cast<int>(facts.directories_searched),
                          .loaded_by_cudacheck = {}};
    for (const LibraryLocation& location : facts.libraries) {
        LibraryInfo library{.name = std::string(location.family->name), .sonames = {}, .resolved = {}, .copies = {}};
        for (std::string_view soname : location.family->distinct_sonames()) library.sonames.emplace_back(soname);
        for (const Resolution& resolution : location.resolutions) {
            const LibraryCopy* copy = location.copy_at(resolution.real_path);
            library.resolved.push_back({.soname = resolution.soname,
                                        .path = resolution.path,
                                        .real_path = resolution.real_path,
                                        .rule = resolution.rule,
                                        .version = copy != nullptr ? copy->version : std::string(),
                                        .origin = std::string(copy != nullptr ? to_string(copy->origin) : "other"),
                                        .package = copy != nullptr ? copy->package : std::string()});
        }
        for (const LibraryCopy& copy : location.copies)
            library.copies.push_back({.soname = copy.soname,
                                      .path = copy.path,
                                      .real_path = copy.real_path,
                                      .version = copy.version,
                                      .origin = std::string(to_string(copy.origin)),
                                      .package = copy.package});
        section.found.push_back(std::move(library));
    }
    return section;
}

std::vector<DeviceInfo> report_devices(Probes& probes, const Environment& environment) {
    const DriverFacts* driver = probes.driver_if_collected();
    const NvmlFacts* nvml = probes.nvml_if_collected();
    if (driver != nullptr && driver->initialised()) {
        std::vector<DeviceInfo> devices = driver->devices;
        if (nvml != nullptr) attach_nvml_facts(devices, *nvml);
        return devices;
    }
    if (nvml != nullptr && nvml->initialised()) {
        // --level quick: the GPUs CUDA would show, where NVML's list predicts them with certainty.
        PredictedCudaView view =
            predict_cuda_view(nvml->devices, parse_cuda_visible_devices(environment.get("CUDA_VISIBLE_DEVICES")),
                              environment.get("CUDA_DEVICE_ORDER"));
        if (view.certain) return std::move(view.devices);
        return nvml->devices;
    }
    return {};
}

std::vector<PythonEnvironmentInfo> frameworks_section(const PythonFacts& python, const std::vector<DeviceInfo>& devices,
                                                      std::optional<CudaVersion> driver_cuda) {
    std::vector<PythonEnvironmentInfo> section;
    for (const EnvironmentFacts& environment : python.environments) {
        PythonEnvironmentInfo info{.prefix = environment.environment.prefix,
                                   .kind = std::string(to_string(environment.environment.kind)),
                                   .interpreter = environment.environment.interpreter,
                                   .python_version = environment.environment.python_version,
                                   .bare_python3 = environment.bare_python3,
                                   .found_by = environment.environment.found_by,
                                   .frameworks = {}};
        for (const FrameworkFacts& framework : environment.frameworks) {
            const FrameworkBuild& build = framework.build;
            FrameworkInfo entry{.subject = framework_subject(environment, framework),
                                .framework = build.framework,
                                .distribution = build.distribution,
                                .version = build.version,
                                .accelerator = std::string(to_string(build.accelerator)),
                                .cuda = build.cuda.value_or(""),
                                .gpu_code = framework_gpu_targets(framework),
                                .libraries = {},
                                .unresolved = framework.unresolved,
                                .gpus = {},
                                .files = build.files};
            for (const FrameworkLibrary& library : framework.libraries)
                entry.libraries.push_back({library.family, library.object.soname, library.object.resolution.path,
                                           library.version, std::string(to_string(library.origin)), library.package,
                                           library.object.resolution.rule});
            if (build.accelerator == Accelerator::cuda)
                for (const DeviceInfo& device : devices) {
                    const GpuCoverage coverage =
                        framework_gpu_coverage(framework, device.cc_major, device.cc_minor, driver_cuda);
                    if (coverage.coverage == Coverage::unknown) continue;  // an extension whose GPU code is not read
                    entry.gpus.push_back({device.ordinal, std::string(to_string(coverage.coverage)), coverage.how});
                }
            if (framework.import) entry.imported_from = framework.import->file;
            info.frameworks.push_back(std::move(entry));
        }
        for (const SysPathEntry& entry : environment.path.sys_path)
            info.sys_path.push_back({entry.path, std::string(to_string(entry.origin))});
        for (const ImportFacts& imported : environment.imports)
            info.imports.push_back({imported.module, std::string(to_string(imported.kind)), imported.file,
                                    imported.entry                ? std::string(to_string(imported.entry->origin))
                                    : imported.finder_pth.empty() ? ""
                                                                  : "editable finder"});
        section.push_back(std::move(info));
    }
    return section;
}

Report assemble_report(std::vector<CheckResult> results, const HostInfo& host, const ReportFacts& facts,
                       const RunMetadata& metadata) {
    Report report;
    report.tool_version = std::string(build_info::version);
    report.timestamp_utc = metadata.timestamp_utc;
    report.argv = metadata.argv;
    report.level = metadata.level;
    report.strict = metadata.strict;
    report.duration_ms = metadata.duration_ms;
    report.host = host;
    report.versions = facts.versions;
    report.devices = facts.devices;
    report.checks = std::move(results);
    report.frameworks = facts.frameworks;
    report.build = facts.build;
    // Only beside the check that judges it: a GPU check that looked for copies of a library it could
    // not open located them too, but a run without libraries.resolution reports no library section.
    if (facts.libraries && std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& result) {
            return result.check_id == "libraries.resolution";
        })) {
        report.libraries = facts.libraries;
        report.libraries->loaded_by_cudacheck = facts.mapped_libraries;
    }
    // Each framework's verdict: the worst of the findings about it.
    if (report.frameworks)
        for (PythonEnvironmentInfo& environment : *report.frameworks)
            for (FrameworkInfo& framework : environment.frameworks)
                for (const CheckResult& result : report.checks)
                    for (const Finding& finding : result.findings) {
                        if (finding.subject != framework.subject) continue;
                        if (std::find(framework.codes.begin(), framework.codes.end(), finding.code) ==
                            framework.codes.end())
                            framework.codes.push_back(finding.code);
                        const std::optional<Status> current = status_from_string(framework.status);
                        if (!current || severity_rank(finding.status) > severity_rank(*current))
                            framework.status = std::string(to_string(finding.status));
                    }
    report.summary = summarize(report.checks);
    report.exit_code = exit_code_for(report.summary, report.strict);
    return report;
}

std::string utc_timestamp_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace cudacheck
