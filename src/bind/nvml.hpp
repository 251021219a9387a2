// NVML (libnvidia-ml.so.1, shipped with the driver) as the NVML probes bind it: the types and
// values used, declared here so that building needs no nvml.h (absent from some toolkits), spelled
// as nvml.h spells them (CUDA 13.0; what r580 and later added, from nvml.h of CUDA 13.3 as
// NVIDIA/go-nvml carries it, gen/nvml/nvml.h, and NVML's change log, docs.nvidia.com/deploy/nvml-api/change-log.html);
// the entry points, opened once per process at run time by the NVML probe (probes/nvml/nvml_probe) and bound in one
// step; its return codes named.
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
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;     // "fallen off the bus or ... inaccessible"
inline constexpr nvmlReturn_t NVML_ERROR_RESET_REQUIRED = 16;  // "requires a reset before it can be used again"
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;  // "Driver/library version mismatch"
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_RESOURCES = 23;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;  // a versioned struct the driver predates
inline constexpr nvmlReturn_t NVML_ERROR_NOT_READY = 27;
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
// 18 through r580; nvml.h of r590 and later says 36 (its change log: "to accommodate for more
// NvLinks in Rubin"). A link past a GPU's own answers NVML_ERROR_INVALID_ARGUMENT.
inline constexpr unsigned int NVML_NVLINK_MAX_LINKS = 36;

// The field-value queries (nvmlDeviceGetFieldValues): nvmlValue_t, nvmlValueType_t,
// nvmlFieldValue_t, and the field ids cudacheck asks for.
union nvmlValue_t {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
};
inline constexpr int NVML_VALUE_TYPE_DOUBLE = 0;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_INT = 1;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG = 2;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3;
inline constexpr int NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4;
inline constexpr int NVML_VALUE_TYPE_SIGNED_INT = 5;
inline constexpr int NVML_VALUE_TYPE_UNSIGNED_SHORT = 6;
struct nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;  // nvmlValueType_t
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
};
inline constexpr unsigned int NVML_FI_DEV_NVLINK_LINK_COUNT = 91;  // "Number of NVLinks present on the device"
// nvmlDeviceGpuRecoveryAction_t: the action the driver asks for (r565 and later; NVML change log,
// "Changes between v560 and v565"). Replaces NVML_FI_DEV_RESET_STATUS (226) and
// NVML_FI_DEV_DRAIN_AND_RESET_STATUS (227), which r570 deprecated.
inline constexpr unsigned int NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230;
inline constexpr int NVML_GPU_RECOVERY_ACTION_NONE = 0;
inline constexpr int NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1;
inline constexpr int NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2;
inline constexpr int NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3;
inline constexpr int NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4;      // r570
inline constexpr int NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN = 5;  // r595
// r615 (NVML change log, "Changes between NVML v610 and v615", names both; the values follow the
// enum's order, as NVIDIA/k8s-test-infra's mock NVML numbers them: nvml.h of CUDA 13.3 stops at 5).
inline constexpr int NVML_GPU_RECOVERY_ACTION_BUS_RESET = 6;
inline constexpr int NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT = 7;

// The GPU's NVLink fabric (Hopper and later; nvmlDeviceGetGpuFabricInfo r525+, ...InfoV r550+).
using nvmlGpuFabricState_t = unsigned char;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_NOT_STARTED = 1;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_COMPLETED = 3;
inline constexpr unsigned int NVML_GPU_FABRIC_UUID_LEN = 16;
struct nvmlGpuFabricInfo_t {  // nvmlDeviceGetGpuFabricInfo's, unversioned (deprecated in 13.0)
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
    nvmlReturn_t status;  // "Must be checked only if state returns complete"
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
};
struct nvmlGpuFabricInfo_v2_t {  // r550: adds version and healthMask
    unsigned int version;
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
    unsigned int healthMask;
};
struct nvmlGpuFabricInfo_v3_t {  // r580: adds healthSummary (nvmlGpuFabricInfoV_t)
    unsigned int version;
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
    unsigned int healthMask;
    unsigned char healthSummary;
};
// NVML_STRUCT_VERSION(data, ver): sizeof(nvml<data>_v<ver>_t) | ver << 24.
inline constexpr unsigned int nvmlGpuFabricInfo_v2 = sizeof(nvmlGpuFabricInfo_v2_t) | (2U << 24U);
inline constexpr unsigned int nvmlGpuFabricInfo_v3 = sizeof(nvmlGpuFabricInfo_v3_t) | (3U << 24U);
static_assert(sizeof(nvmlGpuFabricInfo_t) == 28 && sizeof(nvmlGpuFabricInfo_v2_t) == 36 &&
                  sizeof(nvmlGpuFabricInfo_v3_t) == 40 && sizeof(nvmlFieldValue_t) == 40,
              "the layouts nvml.h gives them on Linux x86_64 and aarch64");
// The health mask: one field of `width` bits at `shift` per fact (NVML_GPU_FABRIC_HEALTH_GET).
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW = 0;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_DEGRADED_BW = 0x3;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY = 2;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_RECOVERY = 0x3;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY = 4;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_UNHEALTHY = 0x3;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY = 6;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ACCESS_TIMEOUT_RECOVERY = 0x3;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION = 8;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION = 0xf;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED = 12;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_PARTITION_ASSIGNED = 0x3;
// Values of the two-bit fields: NOT_SUPPORTED 0, TRUE 1, FALSE 2 (DEGRADED_BW_TRUE: bandwidth
// degraded, ROUTE_RECOVERY_TRUE: in progress, ...). Incorrect configuration: NOT_SUPPORTED 0,
// NONE 1, then the reason: INCORRECT_SYSGUID 2, INCORRECT_CHASSIS_SN 3, NO_PARTITION 4,
// INSUFFICIENT_NVLINKS 5, INCOMPATIBLE_GPU_FW 6, INVALID_LOCATION 7, GPU_STATE_INVALID 8.
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_TRUE = 1;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_FALSE = 2;
inline constexpr unsigned int NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE = 1;
inline constexpr unsigned char NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED = 0;
inline constexpr unsigned char NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY = 1;
inline constexpr unsigned char NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY = 2;
inline constexpr unsigned char NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY = 3;

// nvmlNvLinkErrorCounter_t (nvmlDeviceGetNvLinkErrorCounter; not on Blackwell since r565).
inline constexpr int NVML_NVLINK_ERROR_DL_REPLAY = 0;    // data link transmit replays
inline constexpr int NVML_NVLINK_ERROR_DL_RECOVERY = 1;  // data link transmit recoveries
inline constexpr int NVML_NVLINK_ERROR_DL_CRC_FLIT = 2;  // receive flow-control digit CRC errors
inline constexpr int NVML_NVLINK_ERROR_DL_CRC_DATA = 3;  // receive data CRC errors

// nvmlUnrepairableMemoryStatus_v1_t (nvmlDeviceGetUnrepairableMemoryFlag_v1, r590+, Hopper and later).
struct nvmlUnrepairableMemoryStatus_v1_t {
    unsigned int bUnrepairableMemory;
};

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
    // device.health's account of faults: what `nvidia-smi -q` shows of each GPU's recovery action,
    // fabric, NVLink, PCIe replays and memory repair.
    Return (*device_get_field_values)(Device, int, nvml::nvmlFieldValue_t*) = nullptr;
    Return (*device_get_fabric_info_v)(Device, nvml::nvmlGpuFabricInfo_v3_t*) = nullptr;
    Return (*device_get_fabric_info)(Device, nvml::nvmlGpuFabricInfo_t*) = nullptr;
    Return (*device_get_nvlink_error_counter)(Device, unsigned int, int, unsigned long long*) = nullptr;
    Return (*device_get_pcie_replay_counter)(Device, unsigned int*) = nullptr;
    Return (*device_get_unrepairable_memory)(Device, nvml::nvmlUnrepairableMemoryStatus_v1_t*) = nullptr;
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
    optional_symbol<&NvmlApi::device_get_field_values>("nvmlDeviceGetFieldValues"),
    // The versioned query takes a _v2 or _v3 struct (r550+); the unversioned one (r525+, Hopper,
    // deprecated in 13.0) has no health mask and serves older drivers.
    optional_symbol<&NvmlApi::device_get_fabric_info_v>("nvmlDeviceGetGpuFabricInfoV"),
    optional_symbol<&NvmlApi::device_get_fabric_info>("nvmlDeviceGetGpuFabricInfo"),
    optional_symbol<&NvmlApi::device_get_nvlink_error_counter>("nvmlDeviceGetNvLinkErrorCounter"),
    optional_symbol<&NvmlApi::device_get_pcie_replay_counter>("nvmlDeviceGetPcieReplayCounter"),
    optional_symbol<&NvmlApi::device_get_unrepairable_memory>("nvmlDeviceGetUnrepairableMemoryFlag_v1"),
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
