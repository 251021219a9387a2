// NVML (libnvidia-ml.so.1, shipped with the driver) as the NVML probes bind it: the types and
// values used, declared here so that building needs no nvml.h (absent from some toolkits), spelled
// as nvml.h spells them (CUDA 13.0); the entry points, opened once per process at run time by the
// NVML probe (probes/nvml/nvml_probe) and bound in one step; its return codes named.
//
// No exception type: an NVML call that fails is a fact the probes record ("NVML device 0:
// nvmlDeviceGetName failed: NVML_ERROR_GPU_IS_LOST"), never thrown.
#pragma once

#include "bind/symbols.hpp"

#include <optional>
#include <string>

namespace cudacheck {

namespace nvml {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

// nvmlReturn_t values (nvml.h): those cudacheck tests for or names.
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;  // also what the toolkit's stub answers
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;  // "Driver/library version mismatch"
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

// nvmlPciInfo_st, as nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetNvLinkRemotePciInfo_v2 fill it.
struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
};

// nvmlMemory_t, as nvmlDeviceGetMemoryInfo fills it.
struct nvmlMemory_t {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

// nvmlProcessInfo_t as nvmlDeviceGet{Compute,Graphics}RunningProcesses_v2/_v3 fill it (nvmlProcessInfo_v2_t).
struct nvmlProcessInfo_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ULL;  // nvml.h: (unsigned long long)-1

// nvmlProcessUtilizationSample_t, as nvmlDeviceGetProcessUtilization fills it.
struct nvmlProcessUtilizationSample_t {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
};

// nvmlClockType_t
inline constexpr int NVML_CLOCK_SM = 1;
inline constexpr int NVML_CLOCK_MEM = 2;
// nvmlMemoryErrorType_t and nvmlEccCounterType_t
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;
inline constexpr int NVML_AGGREGATE_ECC = 1;
// nvmlPageRetirementCause_t
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;
inline constexpr int NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;
// nvmlTemperatureSensors_t
inline constexpr int NVML_TEMPERATURE_GPU = 0;
// nvmlGpuP2PCapsIndex_t and nvmlGpuP2PStatus_t
inline constexpr int NVML_P2P_CAPS_INDEX_READ = 0;
inline constexpr int NVML_P2P_CAPS_INDEX_NVLINK = 2;
inline constexpr int NVML_P2P_STATUS_OK = 0;
// nvmlEnableState_t, and the MIG mode nvmlDeviceGetMigMode reports (NVML_DEVICE_MIG_ENABLE)
inline constexpr int NVML_FEATURE_ENABLED = 1;
inline constexpr unsigned int NVML_DEVICE_MIG_ENABLE = 1;
inline constexpr unsigned int NVML_NVLINK_MAX_LINKS = 18;

}  // namespace nvml

// One of NVML's process lists (nvmlDeviceGet{Compute,Graphics}RunningProcesses_v3/_v2).
using NvmlProcessList = nvml::nvmlReturn_t (*)(nvml::nvmlDevice_t, unsigned int*, nvml::nvmlProcessInfo_t*);

// Every NVML entry point cudacheck calls: the NVML probe's (devices, versions, usage), device.health
// and gpu.stress's sampler, cuda.p2p's topology and the engine's sharing probe.
struct NvmlApi {
    using Return = nvml::nvmlReturn_t;
    using Device = nvml::nvmlDevice_t;
    // Required: the probe describes no GPU without them.
    Return (*init)() = nullptr;
    const char* (*error_string)(Return) = nullptr;
    Return (*system_get_driver_version)(char*, unsigned int) = nullptr;
    Return (*system_get_cuda_driver_version)(int*) = nullptr;
    Return (*device_get_count)(unsigned int*) = nullptr;
    Return (*device_get_handle_by_index)(unsigned int, Device*) = nullptr;
    Return (*device_get_name)(Device, char*, unsigned int) = nullptr;
    Return (*device_get_uuid)(Device, char*, unsigned int) = nullptr;
    Return (*device_get_pci_info)(Device, nvml::nvmlPciInfo_t*) = nullptr;
    Return (*device_get_cuda_compute_capability)(Device, int*, int*) = nullptr;
    Return (*device_get_memory_info)(Device, nvml::nvmlMemory_t*) = nullptr;
    Return (*device_get_max_clock_info)(Device, int, unsigned int*) = nullptr;
    Return (*device_get_ecc_mode)(Device, int*, int*) = nullptr;
    Return (*device_get_compute_mode)(Device, int*) = nullptr;
    // Optional: nullptr where the driver lacks them; the fact they give stays unknown.
    Return (*device_get_memory_bus_width)(Device, unsigned int*) = nullptr;
    Return (*device_get_num_gpu_cores)(Device, unsigned int*) = nullptr;
    Return (*device_get_mig_mode)(Device, unsigned int*, unsigned int*) = nullptr;
    NvmlProcessList device_get_compute_processes = nullptr;
    NvmlProcessList device_get_graphics_processes = nullptr;
    Return (*device_get_process_utilization)(Device, nvml::nvmlProcessUtilizationSample_t*, unsigned int*,
                                             unsigned long long) = nullptr;
    Return (*device_get_total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
    Return (*device_get_retired_pages)(Device, int, unsigned int*, unsigned long long*) = nullptr;
    Return (*device_get_retired_pages_pending)(Device, int*) = nullptr;
    Return (*device_get_remapped_rows)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
    Return (*device_get_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
    Return (*device_get_temperature)(Device, int, unsigned int*) = nullptr;
    Return (*device_get_power_usage)(Device, unsigned int*) = nullptr;
    Return (*device_get_power_limit)(Device, unsigned int*) = nullptr;
    Return (*device_get_pcie_generation)(Device, unsigned int*) = nullptr;
    Return (*device_get_pcie_max_generation)(Device, unsigned int*) = nullptr;
    Return (*device_get_pcie_width)(Device, unsigned int*) = nullptr;
    Return (*device_get_pcie_max_width)(Device, unsigned int*) = nullptr;
    Return (*device_get_persistence_mode)(Device, int*) = nullptr;
    Return (*device_get_max_mig_devices)(Device, unsigned int*) = nullptr;
    Return (*device_get_mig_device_by_index)(Device, unsigned int, Device*) = nullptr;
    Return (*device_get_clock_info)(Device, int, unsigned int*) = nullptr;
    Return (*device_get_topology_common_ancestor)(Device, Device, int*) = nullptr;
    Return (*device_get_p2p_status)(Device, Device, int, int*) = nullptr;
    Return (*device_get_nvlink_state)(Device, unsigned int, int*) = nullptr;
    Return (*device_get_nvlink_remote_pci)(Device, unsigned int, nvml::nvmlPciInfo_t*) = nullptr;
};

inline constexpr LibrarySymbol<NvmlApi> nvml_symbols[] = {
    required_symbol<&NvmlApi::init>("nvmlInit_v2"),
    required_symbol<&NvmlApi::error_string>("nvmlErrorString"),
    required_symbol<&NvmlApi::system_get_driver_version>("nvmlSystemGetDriverVersion"),
    required_symbol<&NvmlApi::system_get_cuda_driver_version>("nvmlSystemGetCudaDriverVersion_v2"),
    required_symbol<&NvmlApi::device_get_count>("nvmlDeviceGetCount_v2"),
    required_symbol<&NvmlApi::device_get_handle_by_index>("nvmlDeviceGetHandleByIndex_v2"),
    required_symbol<&NvmlApi::device_get_name>("nvmlDeviceGetName"),
    required_symbol<&NvmlApi::device_get_uuid>("nvmlDeviceGetUUID"),
    required_symbol<&NvmlApi::device_get_pci_info>("nvmlDeviceGetPciInfo_v3"),
    required_symbol<&NvmlApi::device_get_cuda_compute_capability>("nvmlDeviceGetCudaComputeCapability"),
    required_symbol<&NvmlApi::device_get_memory_info>("nvmlDeviceGetMemoryInfo"),
    required_symbol<&NvmlApi::device_get_max_clock_info>("nvmlDeviceGetMaxClockInfo"),
    required_symbol<&NvmlApi::device_get_ecc_mode>("nvmlDeviceGetEccMode"),
    required_symbol<&NvmlApi::device_get_compute_mode>("nvmlDeviceGetComputeMode"),
    optional_symbol<&NvmlApi::device_get_memory_bus_width>("nvmlDeviceGetMemoryBusWidth"),
    optional_symbol<&NvmlApi::device_get_num_gpu_cores>("nvmlDeviceGetNumGpuCores"),
    optional_symbol<&NvmlApi::device_get_mig_mode>("nvmlDeviceGetMigMode"),  // r450+, MIG-capable GPUs only
    // _v3 (newer drivers) or _v2 (older ones): both fill nvmlProcessInfo_v2_t (nvml.h).
    optional_symbol<&NvmlApi::device_get_compute_processes>("nvmlDeviceGetComputeRunningProcesses_v3",
                                                            "nvmlDeviceGetComputeRunningProcesses_v2"),
    optional_symbol<&NvmlApi::device_get_graphics_processes>("nvmlDeviceGetGraphicsRunningProcesses_v3",
                                                             "nvmlDeviceGetGraphicsRunningProcesses_v2"),
    optional_symbol<&NvmlApi::device_get_process_utilization>("nvmlDeviceGetProcessUtilization"),
    optional_symbol<&NvmlApi::device_get_total_ecc_errors>("nvmlDeviceGetTotalEccErrors"),
    optional_symbol<&NvmlApi::device_get_retired_pages>("nvmlDeviceGetRetiredPages"),
    optional_symbol<&NvmlApi::device_get_retired_pages_pending>("nvmlDeviceGetRetiredPagesPendingStatus"),
    optional_symbol<&NvmlApi::device_get_remapped_rows>("nvmlDeviceGetRemappedRows"),
    // Renamed in r535; the old name stays for older drivers.
    optional_symbol<&NvmlApi::device_get_clocks_event_reasons>("nvmlDeviceGetCurrentClocksEventReasons",
                                                               "nvmlDeviceGetCurrentClocksThrottleReasons"),
    optional_symbol<&NvmlApi::device_get_temperature>("nvmlDeviceGetTemperature"),
    optional_symbol<&NvmlApi::device_get_power_usage>("nvmlDeviceGetPowerUsage"),
    optional_symbol<&NvmlApi::device_get_power_limit>("nvmlDeviceGetEnforcedPowerLimit"),
    optional_symbol<&NvmlApi::device_get_pcie_generation>("nvmlDeviceGetCurrPcieLinkGeneration"),
    optional_symbol<&NvmlApi::device_get_pcie_max_generation>("nvmlDeviceGetMaxPcieLinkGeneration"),
    optional_symbol<&NvmlApi::device_get_pcie_width>("nvmlDeviceGetCurrPcieLinkWidth"),
    optional_symbol<&NvmlApi::device_get_pcie_max_width>("nvmlDeviceGetMaxPcieLinkWidth"),
    optional_symbol<&NvmlApi::device_get_persistence_mode>("nvmlDeviceGetPersistenceMode"),
    optional_symbol<&NvmlApi::device_get_max_mig_devices>("nvmlDeviceGetMaxMigDeviceCount"),
    optional_symbol<&NvmlApi::device_get_mig_device_by_index>("nvmlDeviceGetMigDeviceHandleByIndex"),
    optional_symbol<&NvmlApi::device_get_clock_info>("nvmlDeviceGetClockInfo"),
    optional_symbol<&NvmlApi::device_get_topology_common_ancestor>("nvmlDeviceGetTopologyCommonAncestor"),
    optional_symbol<&NvmlApi::device_get_p2p_status>("nvmlDeviceGetP2PStatus"),
    optional_symbol<&NvmlApi::device_get_nvlink_state>("nvmlDeviceGetNvLinkState"),
    optional_symbol<&NvmlApi::device_get_nvlink_remote_pci>("nvmlDeviceGetNvLinkRemotePciInfo_v2"),
};

// What an NVML query of `device` answers through its last (output) argument; nullopt when the entry
// point is absent (an optional one the driver lacks) or the call fails (NVML_ERROR_NOT_SUPPORTED...):
//   nvml_query<unsigned int>(api.device_get_temperature, device, nvml::NVML_TEMPERATURE_GPU)
template <typename T, typename Function, typename... Arguments>
[[nodiscard]] std::optional<T> nvml_query(Function function, nvml::nvmlDevice_t device, Arguments... arguments) {
    if (function == nullptr) return std::nullopt;
    T value{};
    if (function(device, arguments..., &value) != nvml::NVML_SUCCESS) return std::nullopt;
    return value;
}

// NVML's name for a return code ("NVML_ERROR_LIB_RM_VERSION_MISMATCH" for 18), from nvml.h;
// "NVML_ERROR_<n>" for one cudacheck does not name.
[[nodiscard]] std::string nvml_return_name(int result);

}  // namespace cudacheck
