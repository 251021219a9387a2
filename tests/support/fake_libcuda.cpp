// A fake CUDA driver library for tests: built as libcuda.so.1 and found through LD_LIBRARY_PATH,
// so cudacheck loads it through exactly the code path it uses for the real driver. It implements
// only the driver API entry points cudacheck's probes call. Each answer comes from a FAKE_CUDA_*
// variable read at call time (defaults describe one H200), so a test sets up any driver state:
//   FAKE_CUDA_DRIVER_VERSION  cuDriverGetVersion, encoded (default 13000)
//   FAKE_CUDA_INIT_RESULT     cuInit's CUresult (default 0)
//   FAKE_CUDA_DEVICE_COUNT    cuDeviceGetCount (default 1)
//   FAKE_CUDA_DEVICE_NAME     cuDeviceGetName (default "NVIDIA H200")
//   FAKE_CUDA_CC              compute capability "major.minor" (default "9.0")
//   FAKE_CUDA_COMPUTE_MODE    CU_COMPUTEMODE_* value (default 0)
//   FAKE_CUDA_SEEN_FILE       a file cuInit writes the CUDA_DEVICE_MAX_CONNECTIONS it saw into
//                             ("unset" if none), for tests of what cudacheck sets up before cuInit
//   FAKE_CUDA_INIT_HANG       when set, cuInit never returns (a hung driver)
//   FAKE_CUDA_INIT_SIGNAL     a signal number cuInit raises (a driver that crashes its caller)
//   FAKE_CUDA_LOAD_SIGNAL     a signal number the library raises as it is loaded (a damaged libcuda)
// The name, compute capability and compute mode can be set per GPU through FAKE_GPU_STATE
// (support/fake_env.hpp).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "support/fake_env.hpp"
#include <cuda.h>

namespace {

using cudacheck::fake::device_int;
using cudacheck::fake::device_text;
using cudacheck::fake::env_int;

bool valid_device(CUdevice device) { return device >= 0 && device < env_int("FAKE_CUDA_DEVICE_COUNT", 1); }

[[gnu::constructor]] void on_load() {
    if (const int signal = env_int("FAKE_CUDA_LOAD_SIGNAL", 0); signal != 0) ::raise(signal);
}

}  // namespace

extern "C" {

CUresult cuDriverGetVersion(int* version) {
    *version = env_int("FAKE_CUDA_DRIVER_VERSION", 13000);
    return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int) {
    if (std::getenv("FAKE_CUDA_INIT_HANG") != nullptr)
        while (true) ::pause();
    if (const int signal = env_int("FAKE_CUDA_INIT_SIGNAL", 0); signal != 0) ::raise(signal);
    if (const char* seen_file = std::getenv("FAKE_CUDA_SEEN_FILE"); seen_file != nullptr) {
        if (std::FILE* file = std::fopen(seen_file, "w"); file != nullptr) {
            const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
            std::fputs(connections != nullptr ? connections : "unset", file);
            std::fclose(file);
        }
    }
    return static_cast<CUresult>(env_int("FAKE_CUDA_INIT_RESULT", 0));
}

CUresult cuGetErrorName(CUresult error, const char** name) {
    switch (error) {
        case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; return CUDA_SUCCESS;
        case CUDA_ERROR_STUB_LIBRARY: *name = "CUDA_ERROR_STUB_LIBRARY"; return CUDA_SUCCESS;
        case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
        case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: *name = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"; return CUDA_SUCCESS;
        case CUDA_ERROR_UNKNOWN: *name = "CUDA_ERROR_UNKNOWN"; return CUDA_SUCCESS;
        default: *name = nullptr; return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    *text = error == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "fake driver error";
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
    *count = env_int("FAKE_CUDA_DEVICE_COUNT", 1);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
    if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    std::snprintf(name, static_cast<size_t>(length), "%s", device_text(device, "FAKE_CUDA_DEVICE_NAME", "NVIDIA H200"));
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
    if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = 150754820096ULL;  // 143771 MiB, as nvidia-smi reports an H200
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
    if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    int major = 9;
    int minor = 0;
    std::sscanf(device_text(device, "FAKE_CUDA_CC", "9.0"), "%d.%d", &major, &minor);
    switch (attribute) {
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = major; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = minor; break;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
        case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
        case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 3201000; break;
        case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 6144; break;
        case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 52428800; break;
        case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = 1; break;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *value = device_int(device, "FAKE_CUDA_COMPUTE_MODE", 0); break;
        case CU_DEVICE_ATTRIBUTE_INTEGRATED: *value = 0; break;
        case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: *value = 0; break;
        default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
    if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    std::snprintf(bus_id, static_cast<size_t>(length), "00000000:%02X:00.0", device + 1);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
    if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
    for (int i = 0; i < 16; ++i) uuid->bytes[i] = static_cast<char>(0x10 * (device + 1) + i);
    return CUDA_SUCCESS;
}

}  // extern "C"
