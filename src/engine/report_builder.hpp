// Assembles the Report from the results and the facts the probes gathered.
#pragma once

#include "cuda/cuda_facts.hpp"
#include "probes/probes.hpp"
#include "report/report.hpp"

#include <string>
#include <vector>

namespace cudacheck {

struct RunMetadata {
    std::vector<std::string> argv;
    std::string level;
    bool strict = false;
    std::string timestamp_utc;
    double duration_ms = 0.0;
};

// What a report says about the machine besides the check results, from the process that ran the
// checks: driver, device and toolkit facts only when a check already gathered them, so
// `--only env` never initialises the driver.
struct ReportFacts {
    VersionInfo versions;
    std::vector<DeviceInfo> devices;
    // The `frameworks` section, once a check gathered the Python facts; its status and codes are
    // filled in by assemble_report from the findings.
    std::optional<std::vector<PythonEnvironmentInfo>> frameworks;
    std::optional<BuildInfo> build;  // once a check gathered the build setup
    // Once a check located the CUDA libraries; the report keeps it when libraries.resolution ran.
    std::optional<LibrariesInfo> libraries;
    // The CUDA library files this process had mapped (probes/mapped_libraries.hpp); the supervisor
    // keeps every worker's.
    std::vector<std::string> mapped_libraries;
};
// The section from the gathered facts: per framework its build, libraries and, per device, where
// its GPU code runs.
[[nodiscard]] std::vector<PythonEnvironmentInfo> frameworks_section(const PythonFacts& python,
                                                                    const std::vector<DeviceInfo>& devices,
                                                                    std::optional<CudaVersion> driver_cuda);
// The `build` section from the gathered build setup.
[[nodiscard]] BuildInfo build_section(const BuildSetup& setup);
// The `libraries` section from the located libraries: what libraries.resolution judges, as data.
[[nodiscard]] LibrariesInfo libraries_section(const LibraryFacts& facts);
[[nodiscard]] ReportFacts collect_report_facts(Probes& probes, const Environment& environment);
// The GPUs the report lists, from what was gathered: the driver's when it was initialised, else
// (--level quick) those NVML's list predicts CUDA shows.
[[nodiscard]] std::vector<DeviceInfo> report_devices(Probes& probes, const Environment& environment);

// Host facts come from the caller (they are cheap, and known even when no check ran).
[[nodiscard]] Report assemble_report(std::vector<CheckResult> results, const HostInfo& host, const ReportFacts& facts,
                                     const RunMetadata& metadata);

// "2026-11-30T01:40:00Z"
[[nodiscard]] std::string utc_timestamp_now();

}  // namespace cudacheck
