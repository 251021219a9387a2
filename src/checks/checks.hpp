// The built-in checks. Each check file has a factory (registered in builtin_checks.cpp) and a
// judge function: a pure function from gathered facts to findings, which unit tests drive with
// fixture facts, so every verdict is tested without the machine state it describes.
#pragma once

#include "cudacheck/check.hpp"
#include "core/cuda_facts.hpp"
#include "cudacheck/report.hpp"
#include "probes/driver_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/library_locator.hpp"
#include "probes/nvml_health.hpp"
#include "probes/nvml_probe.hpp"
#include "probes/toolkit_probe.hpp"
#include "probes/visible_devices.hpp"

#include <memory>
#include <optional>

namespace cudacheck {

// host.os
[[nodiscard]] std::unique_ptr<Check> make_host_os_check();
void judge_host_os(const HostInfo& host, ResultBuilder& result);

// env.variables
[[nodiscard]] std::unique_ptr<Check> make_env_variables_check();
void judge_environment(const Environment& environment, const ToolkitFacts& toolkits, ResultBuilder& result);

// driver.kernel_module
[[nodiscard]] std::unique_ptr<Check> make_kernel_module_check();
void judge_kernel_module(const KernelModuleFacts& facts, const HostInfo& host, ResultBuilder& result);

// driver.libcuda
[[nodiscard]] std::unique_ptr<Check> make_libcuda_check();
struct LibcudaContext {
    const KernelModuleFacts& kernel_module;
    const HostInfo& host;
    const VisibleDevicesSpec& visible_devices;
    const NvmlFacts* nvml = nullptr;  // consulted only to explain a cuInit failure (MIG)
};
void judge_libcuda(const DriverFacts& driver, const LibcudaContext& context, ResultBuilder& result);

// driver.nvml
[[nodiscard]] std::unique_ptr<Check> make_driver_nvml_check();
void judge_nvml(const NvmlFacts& nvml, const KernelModuleFacts& kernel_module, const HostInfo& host, ResultBuilder& result);

// toolkit.nvcc
[[nodiscard]] std::unique_ptr<Check> make_toolkit_nvcc_check();
void judge_toolkits(const ToolkitFacts& toolkits, ResultBuilder& result);

// libraries.resolution
[[nodiscard]] std::unique_ptr<Check> make_libraries_resolution_check();
void judge_library_resolution(const LibraryFacts& facts, ResultBuilder& result);

// cuda.pairing
[[nodiscard]] std::unique_ptr<Check> make_cuda_pairing_check();
struct PairingFacts {
    int driver_cuda = 0;               // cuDriverGetVersion, encoded
    std::string driver_version;        // package version, "580.159.04", may be empty
    bool forward_compat = false;       // libcuda from a cuda-compat package
    int runtime_cuda = 0;              // the runtime cudacheck was built with, encoded
    std::optional<NvccVersion> nvcc;   // the nvcc on PATH
};
void judge_pairing(const PairingFacts& facts, ResultBuilder& result);

// cuda.devices
[[nodiscard]] std::unique_ptr<Check> make_cuda_devices_check();
struct DevicesContext {
    const KernelModuleFacts& kernel_module;
    const VisibleDevicesSpec& visible_devices;
    int runtime_cuda = 0;  // encoded; decides which compute capabilities are still supported
    const NvmlFacts* nvml = nullptr;  // free memory and other processes per GPU, when NVML answers
};
// The devices one source reports: the driver API (CUDA's view, after CUDA_VISIBLE_DEVICES) or
// NVML (used at --level quick, which does not initialise CUDA): CUDA's view predicted from NVML's
// list where that is certain (predict_cuda_view), else every GPU in PCI order.
struct DeviceListing {
    std::string source;  // "driver API" or "NVML"
    bool honours_visible_devices = true;
    std::string not_honoured_reason;  // why CUDA_VISIBLE_DEVICES could not be applied
    int count = 0;
    std::vector<DeviceInfo> devices;
    std::vector<std::string> errors;
};
[[nodiscard]] DeviceListing listing_from_driver(const DriverFacts& driver);
[[nodiscard]] DeviceListing listing_from_nvml(const NvmlFacts& nvml, const PredictedCudaView& view);
void judge_devices(const DeviceListing& listing, const DevicesContext& context, ResultBuilder& result);

// PTX from CUDA `ptx` needs a driver of at least that CUDA version to be JIT-compiled: minor
// version compatibility lets a 13.1 program run on a 13.0 driver, but not its PTX (CUDA
// Compatibility guide, "Minor Version Compatibility" limitations; CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
[[nodiscard]] bool driver_can_jit(CudaVersion ptx, CudaVersion driver);
// Adds CC511: `what` ("cudacheck's vector add", "the PTX NVRTC 13.1 emitted") cannot be JIT-compiled
// by this driver; `alternative` completes "Update the driver ..., or <alternative>".
void add_ptx_too_new(ResultBuilder& result, std::string_view what, CudaVersion ptx, CudaVersion driver, std::string_view alternative);

// device.health
[[nodiscard]] std::unique_ptr<Check> make_device_health_check();
void judge_health(const std::vector<NvmlDeviceHealth>& gpus, const std::vector<DeviceInfo>& cuda_devices, ResultBuilder& result);

// GPU work, one result per device (--level standard and above)
[[nodiscard]] std::unique_ptr<Check> make_cuda_kernel_check();
[[nodiscard]] std::unique_ptr<Check> make_cuda_memory_check();
[[nodiscard]] std::unique_ptr<Check> make_cublas_gemm_check();
[[nodiscard]] std::unique_ptr<Check> make_cufft_fft_check();
[[nodiscard]] std::unique_ptr<Check> make_cudnn_conv_check();
[[nodiscard]] std::unique_ptr<Check> make_curand_generate_check();
[[nodiscard]] std::unique_ptr<Check> make_nvrtc_compile_check();

// Test-only checks that crash, hang, eat memory or print garbage (fault_injection.cpp), added to
// the built-in list when CUDACHECK_FAULT_CHECKS=1.
[[nodiscard]] bool fault_checks_enabled();
void add_fault_checks(CheckList& checks);

// Driver package version: the kernel module's, else the one in libcuda's file name.
[[nodiscard]] std::string driver_package_version(const KernelModuleFacts* kernel_module, const DriverFacts* driver);

}  // namespace cudacheck
