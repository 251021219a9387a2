// The CUDA driver API (libcuda.so.1, shipped with the driver) as cudacheck binds it: the entry
// points, opened once per process at run time by the driver probe (probes/driver_probe) and bound
// in one step before any CUDA library opens (a dlsym waits behind another thread's dlopen); its
// CUresult values named; the failure of a call that a check cannot go on without.
//
// CUresult values are cuda.h's own enumerators (CUDA_ERROR_STUB_LIBRARY = 34,
// CUDA_ERROR_NO_DEVICE = 100, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803, ...): compare with those,
// never with bare numbers.
#pragma once

#include "bind/library_failure.hpp"
#include "bind/symbols.hpp"

#include <cuda.h>  // types and enum values only: libcuda is never linked, only opened
#include <string>

namespace cudacheck {

// Every driver API entry point cudacheck calls, by its exported (versioned) name.
struct CudaDriverApi {
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
    decltype(&::cuGetErrorName) get_error_name = nullptr;
    decltype(&::cuGetErrorString) get_error_string = nullptr;
    decltype(&::cuDeviceGetCount) device_get_count = nullptr;
    decltype(&::cuDeviceGet) device_get = nullptr;
    decltype(&::cuDeviceGetName) device_get_name = nullptr;
    decltype(&::cuDeviceTotalMem_v2) device_total_mem = nullptr;
    decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
    decltype(&::cuDeviceGetPCIBusId) device_get_pci_bus_id = nullptr;
    decltype(&::cuDeviceGetUuid_v2) device_get_uuid = nullptr;
    decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
    decltype(&::cuModuleLoadData) module_load_data = nullptr;
    decltype(&::cuModuleGetFunction) module_get_function = nullptr;
    decltype(&::cuModuleUnload) module_unload = nullptr;
    decltype(&::cuLaunchKernel) launch_kernel = nullptr;
};

// What the driver probe needs to describe the driver and its devices (required), and what it or a
// check uses when present (optional: a driver without them is still described).
inline constexpr LibrarySymbol<CudaDriverApi> cuda_driver_symbols[] = {
    required_symbol<&CudaDriverApi::init>("cuInit"),
    required_symbol<&CudaDriverApi::driver_get_version>("cuDriverGetVersion"),
    required_symbol<&CudaDriverApi::device_get_count>("cuDeviceGetCount"),
    required_symbol<&CudaDriverApi::device_get>("cuDeviceGet"),
    required_symbol<&CudaDriverApi::device_get_name>("cuDeviceGetName"),
    required_symbol<&CudaDriverApi::device_total_mem>("cuDeviceTotalMem_v2"),
    required_symbol<&CudaDriverApi::device_get_attribute>("cuDeviceGetAttribute"),
    // Present in every driver since CUDA 4-11, but not required to describe a device.
    optional_symbol<&CudaDriverApi::get_error_name>("cuGetErrorName"),
    optional_symbol<&CudaDriverApi::get_error_string>("cuGetErrorString"),
    optional_symbol<&CudaDriverApi::device_get_pci_bus_id>("cuDeviceGetPCIBusId"),
    optional_symbol<&CudaDriverApi::device_get_uuid>("cuDeviceGetUuid_v2"),
    // Without it no primary context is created ahead of the checks (create_primary_contexts).
    optional_symbol<&CudaDriverApi::primary_ctx_retain>("cuDevicePrimaryCtxRetain"),
    optional_symbol<&CudaDriverApi::module_load_data>("cuModuleLoadData"),
    optional_symbol<&CudaDriverApi::module_get_function>("cuModuleGetFunction"),
    optional_symbol<&CudaDriverApi::module_unload>("cuModuleUnload"),
    optional_symbol<&CudaDriverApi::launch_kernel>("cuLaunchKernel"),
};

// What loading and launching code compiled at run time needs (nvrtc.compile), in the order a
// missing one is named: required there, though the probe describes a driver without them.
inline constexpr LibrarySymbol<CudaDriverApi> cuda_module_symbols[] = {
    required_symbol<&CudaDriverApi::module_load_data>("cuModuleLoadData"),
    required_symbol<&CudaDriverApi::module_get_function>("cuModuleGetFunction"),
    required_symbol<&CudaDriverApi::module_unload>("cuModuleUnload"),
    required_symbol<&CudaDriverApi::launch_kernel>("cuLaunchKernel"),
    required_symbol<&CudaDriverApi::get_error_name>("cuGetErrorName"),
};

// CUresult names for the codes cudacheck explains (cuda.h); "CUDA_ERROR_<n>" otherwise. For a
// driver that cannot name its own (cuGetErrorName absent, or failing for the code).
[[nodiscard]] std::string cu_result_name(int result);

// A driver API call failed where a check cannot go on: the CUresult named and, where there is one,
// the fix (CC501 in nvrtc.compile).
struct CudaDriver {
    using Status = CUresult;
    [[nodiscard]] static std::string remediation(Status status);
};
using CudaDriverFailure = LibraryFailure<CudaDriver>;

}  // namespace cudacheck
