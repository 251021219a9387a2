// The host checks' judges, and what several checks share. Each check file registers its factory
// (engine/registry.hpp) and has a judge function: a pure function from gathered facts to findings,
// which unit tests drive with fixture facts, so every verdict is tested without the machine state
// it describes. A GPU check declares its outcome and judge in its own header (checks/<id>.hpp).
#pragma once

#include "cuda/cuda_facts.hpp"
#include "engine/registry.hpp"
#include "gpu/library_support.hpp"
#include "probes/driver_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/library_locator.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "probes/nvml/nvml_probe.hpp"
#include "probes/nvml/nvml_topology.hpp"
#include "probes/process_limits.hpp"
#include "probes/toolkit_probe.hpp"
#include "probes/visible_devices.hpp"
#include "report/report.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// host.os
void judge_host_os(const HostInfo& host, ResultBuilder& result);

// env.variables; `profile` (--profile) decides whether CUDA_LAUNCH_BLOCKING=1 is a finding (not under
// dev) and whether a missing CUBLAS_WORKSPACE_CONFIG is one (under ci).
void judge_environment(const Environment& environment, const ToolkitFacts& toolkits, Profile profile,
                       ResultBuilder& result);

// driver.kernel_module
void judge_kernel_module(const KernelModuleFacts& facts, const HostInfo& host, ResultBuilder& result);

// driver.libcuda
struct LibcudaContext {
    const KernelModuleFacts& kernel_module;
    const HostInfo& host;
    const VisibleDevicesSpec& visible_devices;
    const NvmlFacts* nvml = nullptr;  // consulted only to explain a cuInit failure (MIG)
    const ProcessLimits* limits = nullptr;  // consulted only to explain a cuInit failure (an address-space limit)
};
void judge_libcuda(const DriverFacts& driver, const LibcudaContext& context, ResultBuilder& result);

// driver.nvml
// What names the way out when the toolkit's stub NVML loads: the libnvidia-ml.so.1 files outside a
// stubs directory the loader knows of, and the directory the loader took the stub from (as on
// LD_LIBRARY_PATH: the stub's own directory, or one holding a link to it).
struct NvmlStubContext {
    std::vector<std::string> driver_copies;
    std::string picked_from;  // directory; "" when unknown
};
void judge_nvml(const NvmlFacts& nvml, const KernelModuleFacts& kernel_module, const HostInfo& host,
                ResultBuilder& result, const NvmlStubContext& stub = {});

// host.limits
void judge_limits(const ProcessLimits& limits, const HostInfo& host, ResultBuilder& result);
// The address-space finding (RLIMIT_AS, then RLIMIT_DATA) for a cuInit that failed with
// CUDA_ERROR_OUT_OF_MEMORY, if a limit explains it; false when none is set.
bool explain_out_of_memory_init(const ProcessLimits& limits, ResultBuilder& result);

// toolkit.nvcc
void judge_toolkits(const ToolkitFacts& toolkits, ResultBuilder& result);

// libraries.resolution
void judge_library_resolution(const LibraryFacts& facts, ResultBuilder& result);

// cuda.pairing
struct PairingFacts {
    int driver_cuda = 0;               // cuDriverGetVersion, encoded
    std::string driver_version;        // package version, "580.159.04", may be empty
    bool forward_compat = false;       // libcuda from a cuda-compat package
    int runtime_cuda = 0;              // the runtime cudacheck was built with, encoded
    std::optional<NvccVersion> nvcc;   // the nvcc on PATH
};
void judge_pairing(const PairingFacts& facts, ResultBuilder& result);

// cuda.devices
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

// Adds CC511: `what` ("cudacheck's vector add", "the PTX NVRTC 13.1 emitted") cannot be JIT-compiled
// by this driver; `alternative` completes "Update the driver ..., or <alternative>".
void add_ptx_too_new(ResultBuilder& result, std::string_view what, CudaVersion ptx, CudaVersion driver,
                     std::string_view alternative);

// device.health; `cuda_visible_devices` is the variable's value, its MIG entries judged against the
// MIG devices NVML lists.
void judge_health(const std::vector<NvmlDeviceHealth>& gpus, const std::vector<DeviceInfo>& cuda_devices,
                  ResultBuilder& result, const std::optional<std::string>& cuda_visible_devices = std::nullopt);

// Checks over several GPUs at once (Scope::multi_device, --level standard and above). True when
// the context holds two devices or more; otherwise skips with the reason.
[[nodiscard]] bool require_two_devices(const CheckContext& context, ResultBuilder& result);

}  // namespace cudacheck
