// A fake NVML (libnvidia-ml.so.1) for tests, the counterpart of fake_libcuda.cpp: the same
// FAKE_CUDA_DEVICE_COUNT / FAKE_CUDA_DEVICE_NAME / FAKE_CUDA_CC variables describe the devices, and
//   FAKE_NVML_INIT_RESULT   nvmlInit_v2's return code (default 0; 18 is a driver/library mismatch)
//   FAKE_NVML_MIG           MIG mode of every GPU (1 enabled, 0 disabled; unset: not supported)
//   FAKE_NVML_FREE_MIB      free memory of every GPU in MiB (default: all of it)
//   FAKE_NVML_PROCESSES     compute processes on every GPU, "pid:MiB,pid:MiB" (MiB "-" = not available;
//                           unset: none; "unsupported": NVML_ERROR_NOT_SUPPORTED)
//   FAKE_CUDA_COMPUTE_MODE  as for the fake libcuda (NVML uses the same values)
// Only the entry points cudacheck's NVML probe calls are implemented; types as in nvml.h.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/fake_env.hpp"

namespace {

using cudacheck::fake::env_int;
using cudacheck::fake::env_text;

struct FakeDevice {
    unsigned int index;
};
FakeDevice fake_devices[16] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}};

unsigned int index_of(void* device) { return static_cast<FakeDevice*>(device)->index; }

}  // namespace

extern "C" {

struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
};
struct nvmlMemory_t {
    unsigned long long total, free, used;
};
struct nvmlProcessInfo_t {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
};

int nvmlInit_v2() { return env_int("FAKE_NVML_INIT_RESULT", 0); }
const char* nvmlErrorString(int result) { return result == 18 ? "Driver/library version mismatch" : "fake NVML error"; }
int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    std::snprintf(version, length, "%s", "580.159.04");
    return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
    *version = env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
    return 0;
}
int nvmlDeviceGetCount_v2(unsigned int* count) {
    *count = static_cast<unsigned int>(env_int("FAKE_CUDA_DEVICE_COUNT", 1));
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
    if (index >= static_cast<unsigned int>(env_int("FAKE_CUDA_DEVICE_COUNT", 1)) || index >= 16) return 2;
    *device = &fake_devices[index];
    return 0;
}
int nvmlDeviceGetName(void*, char* name, unsigned int length) {
    std::snprintf(name, length, "%s", env_text("FAKE_CUDA_DEVICE_NAME", "NVIDIA H200"));
    return 0;
}
int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
    std::snprintf(uuid, length, "GPU-00000000-0000-0000-0000-%012u", index_of(device));
    return 0;
}
int nvmlDeviceGetPciInfo_v3(void* device, nvmlPciInfo_t* pci) {
    std::memset(pci, 0, sizeof *pci);
    pci->bus = index_of(device) + 1;
    std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
    return 0;
}
int nvmlDeviceGetCudaComputeCapability(void*, int* major, int* minor) {
    *major = 9;
    *minor = 0;
    std::sscanf(env_text("FAKE_CUDA_CC", "9.0"), "%d.%d", major, minor);
    return 0;
}
int nvmlDeviceGetMemoryInfo(void*, nvmlMemory_t* memory) {
    memory->total = 150754820096ULL;
    const int free_mib = env_int("FAKE_NVML_FREE_MIB", -1);
    memory->free = free_mib < 0 ? memory->total : static_cast<unsigned long long>(free_mib) << 20;
    memory->used = memory->total - memory->free;
    return 0;
}
int nvmlDeviceGetMaxClockInfo(void*, int type, unsigned int* clock) {
    *clock = type == 1 ? 1980 : 3201;  // SM, memory (MHz)
    return 0;
}
int nvmlDeviceGetMemoryBusWidth(void*, unsigned int* width) {
    *width = 6144;
    return 0;
}
int nvmlDeviceGetNumGpuCores(void*, unsigned int* cores) {
    *cores = 132 * 128;
    return 0;
}
int nvmlDeviceGetEccMode(void*, int* current, int* pending) {
    *current = *pending = 1;
    return 0;
}
int nvmlDeviceGetMigMode(void*, unsigned int* current, unsigned int* pending) {
    if (env_int("FAKE_NVML_MIG", -1) < 0) return 3;  // NVML_ERROR_NOT_SUPPORTED: no MIG on this GPU
    *current = *pending = static_cast<unsigned int>(env_int("FAKE_NVML_MIG", 0));
    return 0;
}
int nvmlDeviceGetComputeMode(void*, int* mode) {
    *mode = env_int("FAKE_CUDA_COMPUTE_MODE", 0);
    return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void*, unsigned int* count, nvmlProcessInfo_t* infos) {
    const char* text = env_text("FAKE_NVML_PROCESSES", "");
    if (std::strcmp(text, "unsupported") == 0) return 3;  // NVML_ERROR_NOT_SUPPORTED
    unsigned int found = 0;
    for (const char* entry = text; *entry != '\0';) {
        unsigned int pid = 0;
        char mib[32] = {};
        if (std::sscanf(entry, "%u:%31[^,]", &pid, mib) != 2) break;
        if (found < *count) {
            infos[found] = nvmlProcessInfo_t{pid, mib[0] == '-' ? ~0ULL : std::strtoull(mib, nullptr, 10) << 20, 0, 0};
        }
        ++found;
        const char* comma = std::strchr(entry, ',');
        entry = comma != nullptr ? comma + 1 : entry + std::strlen(entry);
    }
    const bool fits = found <= *count;
    *count = found;
    return fits ? 0 : 7;  // NVML_ERROR_INSUFFICIENT_SIZE
}

}  // extern "C"
