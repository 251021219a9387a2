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
//   FAKE_NVML_ECC_ERRORS    "corrected volatile,uncorrected volatile,corrected aggregate,uncorrected
//                           aggregate" (default 0s)
//   FAKE_NVML_RETIRED       "single-bit pages,double-bit pages,pending" (unset: not supported, as on
//                           Ampere and later)
//   FAKE_NVML_REMAPPED      "corrected,uncorrected,pending,failure" (default 0s)
//   FAKE_NVML_CLOCK_EVENTS  clocks-event reasons bit mask, e.g. 0x48 (default 0x1, idle)
//   FAKE_NVML_PCIE          "generation,max generation,width,max width" (default 5,5,16,16)
//   FAKE_NVML_SM_CLOCK      the SM clock in MHz nvmlDeviceGetClockInfo answers, or a comma list of
//                           them, one per call, the last repeated ("1470,1980": a GPU that warms
//                           up); unset: NVML_ERROR_NOT_SUPPORTED
//   FAKE_NVML_TEMPERATURE   the temperature in C, or a comma list of them the same way (default 34)
//   FAKE_NVML_PERSISTENCE   persistence mode, 1 or 0 (default 1)
//   FAKE_NVML_RECOVERY_ACTION  the GPU recovery action the field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
//                           answers through nvmlDeviceGetFieldValues (nvmlDeviceGpuRecoveryAction_t:
//                           0 none (default), 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and
//                           reset, 5 recover IMEX domain, 6 bus reset, 7 system reboot; "unsupported":
//                           the field's NVML_ERROR_NOT_SUPPORTED, as before r565)
//   FAKE_NVML_ANSWER        a return code the GPU's health queries (those device.health asks) answer
//                           instead of a value: 15 (NVML_ERROR_GPU_IS_LOST, which
//                           nvmlDeviceGetHandleByIndex_v2 answers too) or 16 (NVML_ERROR_RESET_REQUIRED;
//                           its name, UUID and PCI id still answer); unset or 0: the queries answer
//   FAKE_NVML_FABRIC        nvmlDeviceGetGpuFabricInfoV's "state,status,cliqueId,healthMask,healthSummary"
//                           (state: 0 not supported, 1 not started, 2 in progress, 3 completed; status
//                           an nvmlReturn_t; healthMask as nvml.h packs it, e.g. 0x1 bandwidth degraded,
//                           0x10 route unhealthy, 0x500 incorrect configuration "insufficient NVLinks";
//                           unset: NVML_ERROR_NOT_SUPPORTED, a GPU without a fabric)
//   FAKE_NVML_FABRIC_VERSION  the newest nvmlGpuFabricInfo version the driver takes (default 3; 2
//                           answers NVML_ERROR_ARGUMENT_VERSION_MISMATCH to _v3, as r550-r575 do)
//   FAKE_NVML_NVLINK        each NVLink link's state, "1,1,0,..." (1 active, 0 inactive); the count is
//                           NVML_FI_DEV_NVLINK_LINK_COUNT, and a link past it answers
//                           NVML_ERROR_INVALID_ARGUMENT (unset: NVML_ERROR_NOT_SUPPORTED, no NVLink)
//   FAKE_NVML_NVLINK_ERRORS one link's error counters, "link:replay,recovery,crcFlit,crcData" (the
//                           other links' are 0); "unsupported": NVML_ERROR_NOT_SUPPORTED, as on Blackwell
//   FAKE_NVML_PCIE_REPLAY   nvmlDeviceGetPcieReplayCounter (default 0)
//   FAKE_NVML_UNREPAIRABLE  nvmlDeviceGetUnrepairableMemoryFlag_v1, 1 or 0 (unset: NVML_ERROR_NOT_SUPPORTED)
//   FAKE_NVML_MIG_PENDING   the pending MIG mode (default: FAKE_NVML_MIG's)
//   FAKE_NVML_MIG_DEVICES   MIG devices present when MIG is on (default 0, at most 7), each with the UUID
//                           "MIG-00000000-0000-0000-0001-0000000000GS" (G the GPU, S the slot)
// Each of these except the driver-wide ones (init result, device count) can be set per GPU through
// FAKE_GPU_STATE (support/fake_env.hpp).
// Only the entry points cudacheck's NVML probe calls are implemented; types as in nvml.h.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unistd.h>

#include "support/fake_env.hpp"

namespace {

using cudacheck::fake::device_int;
using cudacheck::fake::device_text;
using cudacheck::fake::env_int;

struct FakeDevice {
    unsigned int index;
    int mig_slot;  // -1 for a GPU; a MIG device's slot on GPU `index`
};
FakeDevice fake_devices[16] = {{0, -1}, {1, -1}, {2, -1},  {3, -1},  {4, -1},  {5, -1},  {6, -1},  {7, -1},
                               {8, -1}, {9, -1}, {10, -1}, {11, -1}, {12, -1}, {13, -1}, {14, -1}, {15, -1}};
constexpr int max_mig_devices = 7;
FakeDevice fake_mig_devices[16][max_mig_devices];

unsigned int index_of(void* device) { return static_cast<FakeDevice*>(device)->index; }

// FAKE_NVML_ANSWER for the GPU: the code its queries answer instead of a value, 0 for none.
int forced_answer(void* device) { return device_int(static_cast<int>(index_of(device)), "FAKE_NVML_ANSWER", 0); }

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

// The next of the readings `name` lists for GPU `device` (one per call, the last repeated;
// `fallback` when unset); -1 for none.
long long next_reading(unsigned int device, const char* name, long long fallback, std::atomic<unsigned int>* calls) {
    const char* text = device_text(static_cast<int>(device), name, nullptr);
    if (text == nullptr || *text == '\0') return fallback;
    const unsigned int wanted = calls[device % 16].fetch_add(1);
    long long value = fallback;
    for (unsigned int i = 0; *text != '\0' && i <= wanted; ++i) {
        char* end = nullptr;
        value = std::strtoll(text, &end, 0);
        if (end == text) break;
        text = *end == ',' ? end + 1 : end;
    }
    return value;
}
std::atomic<unsigned int> sm_clock_calls[16];
std::atomic<unsigned int> temperature_calls[16];

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
    if (device_int(static_cast<int>(index), "FAKE_NVML_ANSWER", 0) == 15) return 15;  // NVML_ERROR_GPU_IS_LOST
    *device = &fake_devices[index];
    return 0;
}
int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
    std::snprintf(name, length, "%s", device_text(index_of(device), "FAKE_CUDA_DEVICE_NAME", "NVIDIA H200"));
    return 0;
}
int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
    const FakeDevice& fake = *static_cast<FakeDevice*>(device);
    if (fake.mig_slot >= 0) {
        std::snprintf(uuid, length, "MIG-00000000-0000-0000-0001-0000000000%u%u", fake.index % 10, fake.mig_slot);
        return 0;
    }
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
    if (int answer = forced_answer(device)) return answer;
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
int nvmlDeviceGetEccMode(void* device, int* current, int* pending) {
    if (int answer = forced_answer(device)) return answer;
    *current = *pending = 1;
    return 0;
}
int nvmlDeviceGetMigMode(void* device, unsigned int* current, unsigned int* pending) {
    if (int answer = forced_answer(device)) return answer;
    const int mig = device_int(index_of(device), "FAKE_NVML_MIG", -1);
    if (mig < 0) return 3;  // NVML_ERROR_NOT_SUPPORTED: no MIG on this GPU
    *current = static_cast<unsigned int>(mig);
    *pending = static_cast<unsigned int>(device_int(index_of(device), "FAKE_NVML_MIG_PENDING", mig));
    return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(void* device, unsigned int* count) {
    if (int answer = forced_answer(device)) return answer;
    if (device_int(index_of(device), "FAKE_NVML_MIG", -1) < 0) return 3;
    *count = max_mig_devices;
    return 0;
}
int nvmlDeviceGetMigDeviceHandleByIndex(void* device, unsigned int slot, void** mig) {
    if (int answer = forced_answer(device)) return answer;
    const unsigned int gpu = index_of(device);
    if (device_int(gpu, "FAKE_NVML_MIG", -1) != 1) return 3;
    if (slot >= max_mig_devices) return 2;  // NVML_ERROR_INVALID_ARGUMENT
    if (static_cast<int>(slot) >= device_int(gpu, "FAKE_NVML_MIG_DEVICES", 0)) return 6;  // NVML_ERROR_NOT_FOUND
    fake_mig_devices[gpu][slot] = FakeDevice{gpu, static_cast<int>(slot)};
    *mig = &fake_mig_devices[gpu][slot];
    return 0;
}
int nvmlDeviceGetComputeMode(void* device, int* mode) {
    if (int answer = forced_answer(device)) return answer;
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
    if (int answer = forced_answer(device)) return answer;
    unsigned long long values[4] = {0, 0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_ECC_ERRORS", values, 4);
    *count = values[(counter_type == 1 ? 2 : 0) + (error_type == 1 ? 1 : 0)];
    return 0;
}
int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned int* page_count, unsigned long long*) {
    if (int answer = forced_answer(device)) return answer;
    if (device_text(index_of(device), "FAKE_NVML_RETIRED", nullptr) == nullptr) return 3;  // NVML_ERROR_NOT_SUPPORTED
    unsigned long long values[3] = {0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_RETIRED", values, 3);
    const unsigned int pages = static_cast<unsigned int>(values[cause == 1 ? 1 : 0]);
    const bool fits = *page_count >= pages;
    *page_count = pages;
    return fits ? 0 : 7;  // NVML_ERROR_INSUFFICIENT_SIZE when asked with room for fewer
}
int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending) {
    if (int answer = forced_answer(device)) return answer;
    if (device_text(index_of(device), "FAKE_NVML_RETIRED", nullptr) == nullptr) return 3;
    unsigned long long values[3] = {0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_RETIRED", values, 3);
    *pending = values[2] != 0 ? 1 : 0;
    return 0;
}
int nvmlDeviceGetRemappedRows(void* device, unsigned int* corrected, unsigned int* uncorrected, unsigned int* pending,
                              unsigned int* failure) {
    if (int answer = forced_answer(device)) return answer;
    unsigned long long values[4] = {0, 0, 0, 0};
    read_numbers(index_of(device), "FAKE_NVML_REMAPPED", values, 4);
    *corrected = static_cast<unsigned int>(values[0]);
    *uncorrected = static_cast<unsigned int>(values[1]);
    *pending = static_cast<unsigned int>(values[2]);
    *failure = static_cast<unsigned int>(values[3]);
    return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
    if (int answer = forced_answer(device)) return answer;
    unsigned long long value[1] = {0x1};
    read_numbers(index_of(device), "FAKE_NVML_CLOCK_EVENTS", value, 1);
    *reasons = value[0];
    return 0;
}
int nvmlDeviceGetTemperature(void* device, int, unsigned int* celsius) {
    if (int answer = forced_answer(device)) return answer;
    *celsius =
        static_cast<unsigned int>(next_reading(index_of(device), "FAKE_NVML_TEMPERATURE", 34, temperature_calls));
    return 0;
}
int nvmlDeviceGetClockInfo(void* device, int type, unsigned int* clock) {
    if (int answer = forced_answer(device)) return answer;
    const long long mhz = next_reading(index_of(device), "FAKE_NVML_SM_CLOCK", -1, sm_clock_calls);
    if (type != 1 || mhz < 0) return 3;  // NVML_CLOCK_SM only; NVML_ERROR_NOT_SUPPORTED
    *clock = static_cast<unsigned int>(mhz);
    return 0;
}
int nvmlDeviceGetPowerUsage(void* device, unsigned int* milliwatts) {
    if (int answer = forced_answer(device)) return answer;
    *milliwatts = 72000;
    return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(void*, unsigned int* milliwatts) {
    *milliwatts = 700000;
    return 0;
}
int nvmlDeviceGetCurrPcieLinkGeneration(void* device, unsigned int* value) {
    if (int answer = forced_answer(device)) return answer;
    return *value = pcie_field(device, 0), 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(void* device, unsigned int* value) { return *value = pcie_field(device, 1), 0; }
int nvmlDeviceGetCurrPcieLinkWidth(void* device, unsigned int* value) { return *value = pcie_field(device, 2), 0; }
int nvmlDeviceGetMaxPcieLinkWidth(void* device, unsigned int* value) { return *value = pcie_field(device, 3), 0; }
int nvmlDeviceGetPersistenceMode(void* device, int* mode) {
    if (int answer = forced_answer(device)) return answer;
    *mode = device_int(index_of(device), "FAKE_NVML_PERSISTENCE", 1);
    return 0;
}

// nvml.h's nvmlFieldValue_t (the fields the probe asks: 91 NVLink link count, 230 recovery action).
union nvmlValue_t {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
};
struct nvmlFieldValue_t {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType, nvmlReturn;
    nvmlValue_t value;
};
int nvmlDeviceGetFieldValues(void* device, int count, nvmlFieldValue_t* values) {
    if (values == nullptr || count < 0) return 2;
    const unsigned int gpu = index_of(device);
    for (int i = 0; i < count; ++i) {
        nvmlFieldValue_t& field = values[i];
        field.valueType = 1;  // NVML_VALUE_TYPE_UNSIGNED_INT
        field.nvmlReturn = forced_answer(device);
        if (field.nvmlReturn != 0) continue;
        // Copies: device_text's answer lasts until its next call.
        const char* links_text = device_text(static_cast<int>(gpu), "FAKE_NVML_NVLINK", nullptr);
        const bool has_links = links_text != nullptr;
        const std::string links = has_links ? links_text : "";
        const std::string action = device_text(static_cast<int>(gpu), "FAKE_NVML_RECOVERY_ACTION", "0");
        if (field.fieldId == 230 && action != "unsupported")
            field.value.uiVal = static_cast<unsigned int>(std::strtoul(action.c_str(), nullptr, 0));
        else if (field.fieldId == 91 && has_links)
            field.value.uiVal = static_cast<unsigned int>(links.size() + 1) / 2;  // "1,0,1": 3 links
        else field.nvmlReturn = 3;  // NVML_ERROR_NOT_SUPPORTED
    }
    return 0;
}

struct nvmlGpuFabricInfo_v3_t {
    unsigned int version;
    unsigned char clusterUuid[16];
    int status;
    unsigned int cliqueId;
    unsigned char state;
    unsigned int healthMask;
    unsigned char healthSummary;
};
// The unversioned query: clusterUuid, status, cliqueId, state (nvmlGpuFabricInfo_t).
struct nvmlGpuFabricInfo_t {
    unsigned char clusterUuid[16];
    int status;
    unsigned int cliqueId;
    unsigned char state;
};
}  // extern "C"

namespace {

// Both fabric queries answer from this, so that either can be left out of a copy of the library
// (driver_bindings_test's copy_without_export) without breaking the other.
int fabric_info(void* device, nvmlGpuFabricInfo_v3_t* info) {
    if (int answer = forced_answer(device)) return answer;
    const unsigned int gpu = index_of(device);
    if (device_text(static_cast<int>(gpu), "FAKE_NVML_FABRIC", nullptr) == nullptr) return 3;
    const unsigned int version = info->version >> 24U;
    const unsigned int newest =
        static_cast<unsigned int>(device_int(static_cast<int>(gpu), "FAKE_NVML_FABRIC_VERSION", 3));
    if (version < 2 || version > newest) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    unsigned long long values[5] = {0, 0, 0, 0, 0};
    read_numbers(gpu, "FAKE_NVML_FABRIC", values, 5);
    for (unsigned int i = 0; i < 16; ++i) info->clusterUuid[i] = static_cast<unsigned char>(0xa0 + i);
    info->state = static_cast<unsigned char>(values[0]);
    info->status = static_cast<int>(values[1]);
    info->cliqueId = static_cast<unsigned int>(values[2]);
    info->healthMask = static_cast<unsigned int>(values[3]);
    if (version >= 3) info->healthSummary = static_cast<unsigned char>(values[4]);
    return 0;
}

}  // namespace

extern "C" {

int nvmlDeviceGetGpuFabricInfoV(void* device, nvmlGpuFabricInfo_v3_t* info) { return fabric_info(device, info); }
int nvmlDeviceGetGpuFabricInfo(void* device, nvmlGpuFabricInfo_t* info) {
    nvmlGpuFabricInfo_v3_t versioned{};
    versioned.version = 3U << 24U;
    if (int result = fabric_info(device, &versioned); result != 0) return result;
    std::memcpy(info->clusterUuid, versioned.clusterUuid, sizeof info->clusterUuid);
    info->status = versioned.status;
    info->cliqueId = versioned.cliqueId;
    info->state = versioned.state;
    return 0;
}

int nvmlDeviceGetNvLinkState(void* device, unsigned int link, int* active) {
    if (int answer = forced_answer(device)) return answer;
    const char* links = device_text(static_cast<int>(index_of(device)), "FAKE_NVML_NVLINK", nullptr);
    if (links == nullptr) return 3;
    if (link >= (std::strlen(links) + 1) / 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT: no such link
    *active = links[2 * link] == '1' ? 1 : 0;
    return 0;
}
int nvmlDeviceGetNvLinkErrorCounter(void* device, unsigned int link, int counter, unsigned long long* value) {
    if (int answer = forced_answer(device)) return answer;
    const unsigned int gpu = index_of(device);
    const char* errors = device_text(static_cast<int>(gpu), "FAKE_NVML_NVLINK_ERRORS", "");
    if (std::strcmp(errors, "unsupported") == 0) return 3;
    if (counter < 0 || counter > 4) return 2;
    *value = 0;
    char* end = nullptr;
    const unsigned long erring = std::strtoul(errors, &end, 10);
    if (end == errors || *end != ':' || erring != link) return 0;
    unsigned long long counts[4] = {0, 0, 0, 0};
    const char* text = end + 1;
    for (int i = 0; i < 4 && *text != '\0'; ++i) {
        counts[i] = std::strtoull(text, &end, 0);
        text = *end == ',' ? end + 1 : end;
    }
    *value = counter < 4 ? counts[counter] : 0;
    return 0;
}
int nvmlDeviceGetPcieReplayCounter(void* device, unsigned int* value) {
    if (int answer = forced_answer(device)) return answer;
    *value = static_cast<unsigned int>(device_int(static_cast<int>(index_of(device)), "FAKE_NVML_PCIE_REPLAY", 0));
    return 0;
}
struct nvmlUnrepairableMemoryStatus_v1_t {
    unsigned int bUnrepairableMemory;
};
int nvmlDeviceGetUnrepairableMemoryFlag_v1(void* device, nvmlUnrepairableMemoryStatus_v1_t* status) {
    if (int answer = forced_answer(device)) return answer;
    const int flag = device_int(static_cast<int>(index_of(device)), "FAKE_NVML_UNREPAIRABLE", -1);
    if (flag < 0) return 3;
    status->bUnrepairableMemory = static_cast<unsigned int>(flag);
    return 0;
}

}  // extern "C"
