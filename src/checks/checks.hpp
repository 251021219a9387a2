// The built-in checks. Each check file has a factory (registered in builtin_checks.cpp) and a
// judge function: a pure function from gathered facts to findings, which unit tests drive with
// fixture facts, so every verdict is tested without the machine state it describes.
#pragma once

#include "cudacheck/check.hpp"
#include "cudacheck/report.hpp"
#include "probes/driver_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/library_locator.hpp"
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
};
// The devices one source reports: the driver API (CUDA's view, after CUDA_VISIBLE_DEVICES) or
// NVML (every GPU, in PCI order; used at --level quick, which does not initialise CUDA).
struct DeviceListing {
    std::string source;  // "driver API" or "NVML"
    bool honours_visible_devices = true;
    int count = 0;
    std::vector<DeviceInfo> devices;
    std::vector<std::string> errors;
};
[[nodiscard]] DeviceListing listing_from_driver(const DriverFacts& driver);
[[nodiscard]] DeviceListing listing_from_nvml(const NvmlFacts& nvml);
void judge_devices(const DeviceListing& listing, const DevicesContext& context, ResultBuilder& result);

// GPU work, one result per device (--level standard and above)
[[nodiscard]] std::unique_ptr<Check> make_cuda_kernel_check();
[[nodiscard]] std::unique_ptr<Check> make_cuda_memory_check();
[[nodiscard]] std::unique_ptr<Check> make_cublas_gemm_check();
[[nodiscard]] std::unique_ptr<Check> make_cufft_fft_check();
[[nodiscard]] std::unique_ptr<Check> make_cudnn_conv_check();
[[nodiscard]] std::unique_ptr<Check> make_curand_generate_check();
[[nodiscard]] std::unique_ptr<Check> make_nvrtc_compile_check();

// Driver package version: the kernel module's, else the one in libcuda's file name.
[[nodiscard]] std::string driver_package_version(const KernelModuleFacts* kernel_module, const DriverFacts* driver);

}  // namespace cudacheck
