// The GPUs as NVML (libnvidia-ml.so.1, shipped with the driver, opened at run time) describes
// them. NVML answers in ~10 ms where cuInit takes ~180 ms on an H200 (docs/performance.md), so
// `--level quick`, which never initialises CUDA, lists devices through NVML.
#pragma once

#include "bind/dynamic_library.hpp"
#include "bind/nvml.hpp"
#include "report/report.hpp"
#include "util/actions.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// A process with a CUDA context on a GPU (nvmlDeviceGetComputeRunningProcesses).
struct GpuProcess {
    unsigned int pid = 0;
    std::optional<std::uint64_t> used_bytes;  // absent when NVML cannot tell (NVML_VALUE_NOT_AVAILABLE)
    std::string name;                         // /proc/<pid>/comm; empty when the pid is not visible here
    bool operator==(const GpuProcess&) const = default;
};

// What is in use on one GPU when NVML was asked.
struct NvmlDeviceUsage {
    int nvml_index = 0;
    std::optional<std::uint64_t> free_bytes;
    std::optional<std::uint64_t> total_bytes;
    std::optional<std::vector<GpuProcess>> processes;  // other processes only; absent when NVML cannot list them
};

struct NvmlFacts {
    DynamicLibrary library;  // opened once per process; every NVML probe calls through `api`
    NvmlApi api;             // bound from `library` (nvml_symbols); all nullptr when it did not open
    std::vector<std::string> missing_symbols;
    std::optional<int> init_result;    // nvmlInit_v2; 0 is success
    std::string init_error;            // "NVML_ERROR_… (nvmlErrorString)"; the name alone for the stub
    bool stub = false;                 // the toolkit's stub (its stubs directory, or its banner as the error string)
    std::string stub_banner;           // the stub's error string, on one line
    // Opening NVML or nvmlInit killed or hung an earlier check process of the run: not tried again.
    std::optional<actions::Failure> step_failure;
    std::string failed_step;
    std::string driver_version;        // nvmlSystemGetDriverVersion, "580.159.04"
    std::optional<int> cuda_driver_version;  // nvmlSystemGetCudaDriverVersion_v2, encoded like the driver API
    std::vector<DeviceInfo> devices;   // ordinal = NVML index (PCI bus order)
    std::vector<std::string> device_errors;
    std::vector<int> mig_enabled;  // NVML indices of GPUs whose current MIG mode is enabled
    std::vector<NvmlDeviceUsage> usage;  // one per device, in NVML index order
    [[nodiscard]] const NvmlDeviceUsage* usage_of(std::optional<int> nvml_index) const;
    [[nodiscard]] const NvmlDeviceUsage* usage_of_pci_bus_id(std::string_view pci_bus_id) const;
    [[nodiscard]] bool initialised() const { return init_result == nvml::NVML_SUCCESS; }
};

// Appends what `list` gives for `device` to `processes`, each named from /proc/<pid>/comm; false
// when NVML cannot give it (the list absent, not supported).
bool append_nvml_processes(NvmlProcessList list, nvml::nvmlDevice_t device, std::vector<GpuProcess>& processes);

// "pid 4242 python3 (118.0 GiB), pid 77 (2.0 GiB) and 3 more": the largest holders first.
[[nodiscard]] std::string describe_processes(std::vector<GpuProcess> processes);

[[nodiscard]] NvmlFacts collect_nvml();

// Adds NVML's index and framebuffer size to devices described by the driver API, matching by PCI
// bus id (CUDA orders devices fastest first and renumbers them for CUDA_VISIBLE_DEVICES; NVML
// uses PCI order).
void attach_nvml_facts(std::vector<DeviceInfo>& devices, const NvmlFacts& nvml);

// The NVML handle of the GPU that `listed` (NVML's devices, NvmlFacts::devices) has at
// `pci_bus_id`, the one name of a GPU that CUDA and NVML share (CUDA orders devices fastest
// first, NVML in PCI order). nullptr when no GPU is listed there, the id is empty or NVML does
// not answer.
[[nodiscard]] nvml::nvmlDevice_t nvml_handle_of_pci_bus_id(const NvmlApi& api, const std::vector<DeviceInfo>& listed,
                                                           std::string_view pci_bus_id);

}  // namespace cudacheck
