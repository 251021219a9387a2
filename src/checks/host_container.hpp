// host.container: the container this process runs in and what its runtime did to the GPUs (the
// NVIDIA container toolkit, its CDI specs against the loaded driver, device access a container lost),
// and under WSL 2 whether the loader reaches the Windows driver's libraries. The judge is pure.
#pragma once

#include "probes/container_runtime.hpp"
#include "probes/host_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "report/result_builder.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// What NVML answered, asked inside a container only: after a `systemctl daemon-reload` on the host a
// container that lost its devices gets NVML_ERROR_UNKNOWN ("Unknown Error") from nvmlInit.
struct NvmlAnswer {
    std::optional<int> init_result;
    std::string init_error;                  // "NVML_ERROR_UNKNOWN (Unknown Error)"
    std::vector<std::string> device_errors;  // "nvmlDeviceGetName failed: NVML_ERROR_UNKNOWN"
};

struct ContainerInput {
    const HostInfo& host;
    const KernelModuleFacts& kernel;
    const ContainerRuntimeFacts& runtime;
    std::optional<NvmlAnswer> nvml;  // asked in a container only
};

void judge_container(const ContainerInput& input, ResultBuilder& result);

}  // namespace cudacheck
