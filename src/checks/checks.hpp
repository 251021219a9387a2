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
#include "probes/nvml_topology.hpp"
#include "probes/toolkit_probe.hpp"
#include "probes/visible_devices.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

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

// Checks over several GPUs at once (Scope::multi_device, --level standard and above). True when
// the context holds two devices or more; otherwise skips with the reason.
[[nodiscard]] bool require_two_devices(const CheckContext& context, ResultBuilder& result);

// cuda.p2p: what happened between one ordered pair of GPUs.
struct PeerCopy {
    int source = 0;       // CUDA ordinals
    int destination = 0;
    bool can_access = false;  // cudaDeviceCanAccessPeer(source, destination)
    std::optional<double> bandwidth_gbps;    // median copy rate, bytes counted once
    std::uint64_t words = 0;                 // 32-bit words copied
    std::optional<std::uint64_t> wrong_words;  // words that arrived different; nullopt when not compared
    std::optional<NvmlPeerLink> link;       // NVML's view of the link from source to destination
};
[[nodiscard]] std::unique_ptr<Check> make_cuda_p2p_check();
void judge_p2p(const std::vector<PeerCopy>& copies, ResultBuilder& result);

// nccl.allreduce
[[nodiscard]] std::unique_ptr<Check> make_nccl_allreduce_check();
// Runs the check with NCCL opened from `soname` (tests pass a name that does not exist).
void run_nccl_allreduce(CheckContext& context, ResultBuilder& result, std::string_view soname);
// nccl-tests' bus bandwidth of an all-reduce over `ranks` GPUs: algbw * 2 (n - 1) / n, the rate
// each link carries, comparable across GPU counts (nccl-tests doc/PERFORMANCE.md).
[[nodiscard]] double nccl_allreduce_bus_bandwidth(double algorithm_bandwidth, int ranks);
// ncclGetVersion's code as text: "2.28.9" for 22809 (X*10000+Y*100+Z since 2.9), "2.8.4" for 2804.
[[nodiscard]] std::string nccl_version_text(int code);
// "ncclUnhandledCudaError" for 1 (nccl.h ncclResult_t).
[[nodiscard]] std::string nccl_result_name(int result);

// Test-only checks that crash, hang, eat memory or print garbage (fault_injection.cpp), added to
// the built-in list when CUDACHECK_FAULT_CHECKS=1.
[[nodiscard]] bool fault_checks_enabled();
void add_fault_checks(CheckList& checks);

// Driver package version: the kernel module's, else the one in libcuda's file name.
[[nodiscard]] std::string driver_package_version(const KernelModuleFacts* kernel_module, const DriverFacts* driver);

}  // namespace cudacheck
