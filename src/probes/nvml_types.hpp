// The NVML types and values cudacheck's NVML probes share (nvml_probe, nvml_health,
// nvml_topology), declared here so that building needs no nvml.h (absent from some toolkits).
// Layouts and values from nvml.h (CUDA 13.0). Each probe declares the entry points it calls itself
// and opens libnvidia-ml.so.1 at run time.
#pragma once

namespace cudacheck::nvml {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

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

// nvmlProcessInfo_t as nvmlDeviceGet{Compute,Graphics}RunningProcesses_v2/_v3 fill it (nvmlProcessInfo_v2_t).
struct nvmlProcessInfo_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
constexpr unsigned long long nvml_value_not_available = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE

constexpr nvmlReturn_t nvml_error_not_supported = 3;      // NVML_ERROR_NOT_SUPPORTED
constexpr nvmlReturn_t nvml_error_not_found = 6;          // NVML_ERROR_NOT_FOUND
constexpr nvmlReturn_t nvml_error_insufficient_size = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

}  // namespace cudacheck::nvml
