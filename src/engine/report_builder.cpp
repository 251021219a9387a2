#include "engine/report_builder.hpp"

#include "probes/probes.hpp"
#include "util/build_info.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/visible_devices.hpp"

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
    const NvmlFacts* nvml = probes.nvml_if_collected();
    if (driver != nullptr && driver->initialised()) {
        facts.devices = driver->devices;
        if (nvml != nullptr) attach_nvml_facts(facts.devices, *nvml);
    } else if (nvml != nullptr && nvml->initialised()) {
        // --level quick: the GPUs CUDA would show, where NVML's list predicts them with certainty.
        PredictedCudaView view = predict_cuda_view(nvml->devices, parse_cuda_visible_devices(environment.get("CUDA_VISIBLE_DEVICES")),
                                                   environment.get("CUDA_DEVICE_ORDER"));
        facts.devices = view.certain ? std::move(view.devices) : nvml->devices;
    }
    return facts;
}

Report assemble_report(std::vector<CheckResult> results, const HostInfo& host, const ReportFacts& facts, const RunMetadata& metadata) {
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
