// A fake NVML (libnvidia-ml.so.1) for tests, the counterpart of fake_libcuda.cpp: the same
// FAKE_CUDA_DEVICE_COUNT / FAKE_CUDA_DEVICE_NAME / FAKE_CUDA_CC variables describe the devices, and
//   FAKE_NVML_INIT_RESULT   nvmlInit_v2's return code (default 0; 18 is a driver/library mismatch)
//   FAKE_NVML_STUB          when set, nvmlErrorString answers as the CUDA toolkit's stub libnvidia-ml.so
//                           does (its banner, as the CUDA 13.0 stub returns it; 9 is its init result)
//   FAKE_NVML_MIG           MIG mode of every GPU (1 enabled, 0 disabled; unset: not supported)
//   FAKE_NVML_FREE_MIB      free memory of every GPU in MiB (default: all of it)
//   FAKE_NVML_PROCESSES     compute processes on every GPU, "pid:MiB,pid:MiB" (MiB "-" = not available;
//                           unset: none; "unsupported": NVML_ERROR_NOT_SUPPORTED); the pid "self" is
//                           the calling process (cudacheck's own context)
//   FAKE_NVML_GRAPHICS_PROCESSES  graphics processes, the same way
//   FAKE_NVML_PROCESS_UTILIZATION per-process SM utilization samples, "pid:percent,..." ("self" too),
//                           each stamped with the time of the call (unset: none, NVML_ERROR_NOT_FOUND;
//                           "unsupported": NVML_ERROR_NOT_SUPPORTED)
//   FAKE_CUDA_COMPUTE_MODE  as for the fake libcuda (NVML uses the same values)
// and the health fields of every GPU (device.health):
//   FAKE_NVML_ECC_ERRORS    "corrected volatile,uncorrected volatile,corrected aggregate,uncorrected aggregate"
//   (default 0s) FAKE_NVML_RETIRED       "single-bit pages,double-bit pages,pending" (unset: not supported, as on
//   Ampere and later) FAKE_NVML_REMAPPED      "corrected,uncorrected,pending,failure" (default 0s)
//   FAKE_NVML_CLOCK_EVENTS  clocks-event reasons bit mask, e.g. 0x48 (default 0x1, idle)
//   FAKE_NVML_PCIE          "generation,max generation,width,max width" (default 5,5,16,16)
//   FAKE_NVML_PERSISTENCE   persistence mode, 1 or 0 (default 1)
// Each of these except the driver-wide ones (init result, device count) can be set per GPU through
// FAKE_GPU_STATE (support/fake_env.hpp).
// Only the entry points cudacheck's NVML probe calls are implemented; types as in nvml.h.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

#include "support/fake_env.hpp"

namespace {

using cudacheck::fake::device_int;
using cudacheck::fake::device_text;
using cudacheck::fake::env_int;

struct FakeDevice {
    unsigned int index;
};
FakeDevice fake_devices[16] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}};

unsigned int index_of(void* device) { return static_cast<FakeDevice*>(device)->index; }

// Up to `count` unsigned numbers from a comma list in `name` for GPU `device`, into `values` (left
// as they are when unset).
void read_numbers(unsigned int device, const char* name, unsigned long long* values, int count) {
    const char* text = device_text(static_cast<int>(device), name, nullptr);
    for (int i = 0; text != nullptr && *text != '\0' && i < count; ++i) {
        char* end = nullptr;
        values[i] = std::strtoull(text, &end, 0);
        text = *end == ',' ? end + 1 : end;
    }
}

// One reading of FAKE_NVML_PCIE: generation, max generation, width, max width.
unsigned int pcie_field(void* device, int index) {
    unsigned long long values[4] = {5, 5, 16, 16};
    read_numbers(index_of(device), "FAKE_NVML_PCIE", values, 4);
    return static_cast<unsigned int>(values[index]);
}

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
const char* nvmlErrorString(int result) {
    if (std::getenv("FAKE_NVML_STUB") != nullptr)
        return "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\nWARNING:\n\n"
               "You should always run with libnvidia-ml.so that is installed with your\n"
               "NVIDIA Display Driver. By default it's installed in /usr/lib and /usr/lib64.\n"
               "libnvidia-ml.so in GDK package is a stub library that is attached only for\n"
               "build purposes (e.g. machine that you build your application doesn't have\n"
               "to have Display Driver installed).\n"
               "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n";
    return result == 18 ? "Driver/library version mismatch" : "fake NVML error";
}
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
int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
    std::snprintf(name, length, "%s", device_text(index_of(device), "FAKE_CUDA_DEVICE_NAME", "NVIDIA H200"));
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
int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor) {
    *major = 9;
    *minor = 0;
    std::sscanf(device_text(index_of(device), "FAKE_CUDA_CC", "9.0"), "%d.%d", major, minor);
    return 0;
}
int nvmlDeviceGetMemoryInfo(void* device, nvmlMemory_t* memory) {
    memory->total = 150754820096ULL;
    const int free_mib = device_int(index_of(device), "FAKE_NVML_FREE_MIB", -1);
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
int nvmlDeviceGetMigMode(void* device, unsigned int* current, unsigned int* pending) {
    const int mig = device_int(index_of(device), "FAKE_NVML_MIG", -1);
    if (mig < 0) return 3;  // NVML_ERROR_NOT_SUPPORTED: no MIG on this GPU
    *current = *pending = static_cast<unsigned int>(mig);
    return 0;
}
int nvmlDeviceGetComputeMode(void* device, int* mode) {
    *mode = device_int(index_of(device), "FAKE_CUDA_COMPUTE_MODE", 0);
    return 0;
}
}  // extern "C"

namespace {

// "pid:value,pid:value" from `name` for GPU `device`, "self" as the calling process, through
// `found(index, pid, value text)`; -1 for "unsupported", else the number of entries.
template <typename Found>
int for_each_entry(unsigned int device, const char* name, Found found) {
    const char* text = device_text(static_cast<int>(device), name, "");
    if (std::strcmp(text, "unsupported") == 0) return -1;
    unsigned int count = 0;
    for (const char* entry = text; *entry != '\0';) {
        char pid_text[16] = {};
        char value[32] = {};
        if (std::sscanf(entry, "%15[^:]:%31[^,]", pid_text, value) != 2) break;
        const unsigned int pid = std::strcmp(pid_text, "self") == 0
                                     ? static_cast<unsigned int>(getpid())
                                     : static_cast<unsigned int>(std::strtoul(pid_text, nullptr, 10));
        found(count++, pid, value);
        const char* comma = std::strchr(entry, ',');
        entry = comma != nullptr ? comma + 1 : entry + std::strlen(entry);
    }
    return static_cast<int>(count);
}

int running_processes(void* device, const char* name, unsigned int* count, nvmlProcessInfo_t* infos) {
    const int found =
        for_each_entry(index_of(device), name, [&](unsigned int index, unsigned int pid, const char* mib) {
            if (index < *count)
                infos[index] =
                    nvmlProcessInfo_t{pid, mib[0] == '-' ? ~0ULL : std::strtoull(mib, nullptr, 10) << 20, 0, 0};
        });
    if (found < 0) return 3;  // NVML_ERROR_NOT_SUPPORTED
    const bool fits = static_cast<unsigned int>(found) <= *count;
    *count = static_cast<unsigned int>(found);
    return fits ? 0 : 7;  // NVML_ERROR_INSUFFICIENT_SIZE
}

}  // namespace

extern "C" {

int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned int* count, nvmlProcessInfo_t* infos) {
    return running_processes(device, "FAKE_NVML_PROCESSES", count, infos);
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void* device, unsigned int* count, nvmlProcessInfo_t* infos) {
    return running_processes(device, "FAKE_NVML_GRAPHICS_PROCESSES", count, infos);
}

struct nvmlProcessUtilizationSample_t {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
};
int nvmlDeviceGetProcessUtilization(void* device, nvmlProcessUtilizationSample_t* samples, unsigned int* count,
                                    unsigned long long) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    const unsigned long long stamp =
        static_cast<unsigned long long>(now.tv_sec) * 1000000ULL + static_cast<unsigned long long>(now.tv_nsec) / 1000;
    const int found =
        for_each_entry(index_of(device), "FAKE_NVML_PROCESS_UTILIZATION",
                       [&](unsigned int index, unsigned int pid, const char* percent) {
                           if (samples != nullptr && index < *count)
                               samples[index] = nvmlProcessUtilizationSample_t{
                                   pid, stamp, static_cast<unsigned int>(std::strtoul(percent, nullptr, 10)), 0, 0, 0};
                       });
    if (found < 0) return 3;   // NVML_ERROR_NOT_SUPPORTED
    if (found == 0) return 6;  // NVML_ERROR_NOT_FOUND: no samples since
    const bool fits = samples != nullptr && static_cast<unsigned int>(found) <= *count;
    *count = static_cast<unsigned int>(found);
    return fits ? 0 : 7;
}

int nvmlDeviceGetTotalEccErrors(void* device, int error_type, int counter_type, unsigned long long* count) {
    unsigned long long values[4] = {0, 0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_ECC_ERRORS", values, 4);
    *count = values[(counter_type == 1 ? 2 : 0) + (error_type == 1 ? 1 : 0)];
    return 0;
}
int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned int* page_count, unsigned long long*) {
    if (device_text(index_of(device), "FAKE_NVML_RETIRED", nullptr) == nullptr) return 3;  // NVML_ERROR_NOT_SUPPORTED
    unsigned long long values[3] = {0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_RETIRED", values, 3);
    const unsigned int pages = static_cast<unsigned int>(values[cause == 1 ? 1 : 0]);
    const bool fits = *page_count >= pages;
    *page_count = pages;
    return fits ? 0 : 7;  // NVML_ERROR_INSUFFICIENT_SIZE when asked with room for fewer
}
int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending) {
    if (device_text(index_of(device), "FAKE_NVML_RETIRED", nullptr) == nullptr) return 3;
    unsigned long long values[3] = {0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_RETIRED", values, 3);
    *pending = values[2] != 0 ? 1 : 0;
    return 0;
}
int nvmlDeviceGetRemappedRows(void* device, unsigned int* corrected, unsigned int* uncorrected, unsigned int* pending,
                              unsigned int* failure) {
    unsigned long long values[4] = {0, 0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_REMAPPED", values, 4);
    *corrected = static_cast<unsigned int>(values[0]);
    *uncorrected = static_cast<unsigned int>(values[1]);
    *pending = static_cast<unsigned int>(values[2]);
    *failure = static_cast<unsigned int>(values[3]);
    return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
    unsigned long long value[1] = {0x1};
    read_numbers(index_of(device), "FAKE_NVML_CLOCK_EVENTS", value, 1);
    *reasons = value[0];
    return 0;
}
int nvmlDeviceGetTemperature(void*, int, unsigned int* celsius) {
    *celsius = 34;
    return 0;
}
int nvmlDeviceGetPowerUsage(void*, unsigned int* milliwatts) {
    *milliwatts = 72000;
    return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void*, unsigned int* milliwatts) {
    *milliwatts = 700000;
    return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(void* device, unsigned int* value) { return *value = pcie_field(device, 0), 0; }
int nvmlDeviceGetMaxPcieLinkGeneration(void* device, unsigned int* value) { return *value = pcie_field(device, 1), 0; }
int nvmlDeviceGetCurrPcieLinkWidth(void* device, unsigned int* value) { return *value = pcie_field(device, 2), 0; }
int nvmlDeviceGetMaxPcieLinkWidth(void* device, unsigned int* value) { return *value = pcie_field(device, 3), 0; }
int nvmlDeviceGetPersistenceMode(void* device, int* mode) {
    *mode = device_int(index_of(device), "FAKE_NVML_PERSISTENCE", 1);
    return 0;
}

}  // extern "C"
