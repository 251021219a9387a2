// driver.nvml: can NVML (the library nvidia-smi and monitoring tools use) start, and does it agree
// with the kernel module. At --level quick it is also how devices are listed.
#include "checks/checks.hpp"
#include "cuda/cuda_facts.hpp"
#include "probes/probes.hpp"

#include <fmt/format.h>

namespace cudacheck {

void judge_nvml(const NvmlFacts& nvml, const KernelModuleFacts& kernel_module, const HostInfo& host, ResultBuilder& result) {
    result.evidence("requested", nvml.library.requested());
    if (!nvml.library.ok()) {
        result.evidence("loader_error", nvml.library.error());
        std::string remediation;  // the catalog's (install the utilities) fits when the driver is otherwise there
        if (!kernel_module.module && host.wsl.empty())
            remediation = host.container.empty()
                              ? "No NVIDIA driver is installed: install it (libnvidia-ml.so.1 comes with it), see driver.kernel_module."
                              : fmt::format("This {} container has no driver libraries: start it with `--gpus all` (NVIDIA Container Toolkit).",
                                            host.container);
        result.add(Code::nvml_not_found, fmt::format("libnvidia-ml.so.1 cannot be loaded: {}", nvml.library.error()), remediation);
        return;
    }
    result.evidence("loaded_path", nvml.library.loaded_path());
    if (!nvml.missing_symbols.empty()) {
        result.add(Code::nvml_init_failed, fmt::format("{} lacks {} (driver older than NVML r450?)", nvml.library.loaded_path(),
                                                       nvml.missing_symbols.front()));
        return;
    }
    if (!nvml.initialised()) {
        if (nvml.init_result == 18)
            result.add(Code::nvml_version_mismatch,
                       fmt::format("nvmlInit: {}: the loaded kernel module{} differs from the user-space driver {}", nvml.init_error,
                                   kernel_module.module ? " " + kernel_module.module->version : "",
                                   nvml.library.loaded_path().substr(nvml.library.loaded_path().find_last_of('/') + 1)));
        else
            result.add(Code::nvml_init_failed, fmt::format("nvmlInit failed: {}", nvml.init_error));
        return;
    }
    result.evidence("driver_version", nvml.driver_version);
    if (nvml.cuda_driver_version) result.evidence("cuda_driver_version", CudaVersion::from_encoded(*nvml.cuda_driver_version).to_string());
    for (const std::string& error : nvml.device_errors) result.evidence("device_error", error);
    result.summary(fmt::format("NVML up: driver {}, CUDA {}, {} GPU(s)", nvml.driver_version,
                               nvml.cuda_driver_version ? CudaVersion::from_encoded(*nvml.cuda_driver_version).to_string() : "?",
                               nvml.devices.size()));
}

std::unique_ptr<Check> make_driver_nvml_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{"driver.nvml", "NVML", "Loads and initialises NVML (libnvidia-ml.so.1): driver version, GPU count, version mismatch",
                  Scope::host, Level::quick, {}, {},
                  {Code::nvml_not_found, Code::nvml_version_mismatch, Code::nvml_init_failed},
                  "NVML loads and initialises; \"Driver/library version mismatch\""},
        [](CheckContext& context, ResultBuilder& result) { judge_nvml(context.probes.nvml(), context.probes.kernel_module(), context.probes.host(), result); });
}

const CheckRegistration driver_nvml_registration{500, make_driver_nvml_check};

}  // namespace cudacheck
