// The built-in checks. Each check file registers its factory (engine/registry.hpp) and has a
// judge function: a pure function from gathered facts to findings, which unit tests drive with
// fixture facts, so every verdict is tested without the machine state it describes.
#pragma once

#include "engine/registry.hpp"
#include "cuda/cuda_facts.hpp"
#include "gpu/library_support.hpp"
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
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// host.os
void judge_host_os(const HostInfo& host, ResultBuilder& result);

// env.variables
void judge_environment(const Environment& environment, const ToolkitFacts& toolkits, ResultBuilder& result);

// driver.kernel_module
void judge_kernel_module(const KernelModuleFacts& facts, const HostInfo& host, ResultBuilder& result);

// driver.libcuda
struct LibcudaContext {
    const KernelModuleFacts& kernel_module;
    const HostInfo& host;
    const VisibleDevicesSpec& visible_devices;
    const NvmlFacts* nvml = nullptr;  // consulted only to explain a cuInit failure (MIG)
};
void judge_libcuda(const DriverFacts& driver, const LibcudaContext& context, ResultBuilder& result);

// driver.nvml
void judge_nvml(const NvmlFacts& nvml, const KernelModuleFacts& kernel_module, const HostInfo& host, ResultBuilder& result);

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
void add_ptx_too_new(ResultBuilder& result, std::string_view what, CudaVersion ptx, CudaVersion driver, std::string_view alternative);

// device.health
void judge_health(const std::vector<NvmlDeviceHealth>& gpus, const std::vector<DeviceInfo>& cuda_devices, ResultBuilder& result);

// gpu.stress and gpu.memtest: burn-in of each GPU, --level full only (RunOptions::stress_seconds).

// What gpu.stress measured on one GPU.
struct StressOutcome {
    std::string work;                  // "BF16 8192^3 GEMM (FP32 output)"
    double seconds = 0;                // time spent in the stress loop
    std::uint64_t results = 0;         // products computed in the loop, each compared with the first
    std::uint64_t words_per_result = 0;
    std::uint64_t differing_results = 0;  // products not bit-identical to the first
    std::uint64_t differing_words = 0;    // over all of them
    std::optional<double> first_difference_seconds;  // when the first differing product ended
    gpu::Accuracy reference;           // the first product's sampled entries against float64
    double tolerance = 0;
    std::vector<double> tflops_per_second;  // one bucket per second of the loop
    std::optional<std::vector<NvmlClockSample>> samples;  // nullopt: NVML could not sample this GPU
};
// The clocks-event reasons gpu.stress warns about (hardware slowdown, thermal, power brake: not
// the SW power cap a GPU at full load normally sits at), and how often each was seen.
struct ReasonShare {
    std::uint64_t reason = 0;  // one clocks_event bit
    std::size_t samples_with = 0;
    std::size_t samples = 0;  // samples that answered the query
};
[[nodiscard]] std::vector<ReasonShare> slowdown_shares(const std::vector<NvmlClockSample>& samples);
// The fall of the rate over the run: 1 - median(last third of the buckets) / median(first third);
// nullopt with fewer than 3 buckets. Positive when the rate fell.
[[nodiscard]] std::optional<double> rate_drop(const std::vector<double>& tflops_per_second);
inline constexpr double stress_rate_drop_limit = 0.15;  // warn above a 15% fall (CC518)
void judge_stress(const StressOutcome& outcome, ResultBuilder& result);

// gpu.memtest: one mismatched word, where (byte offset in the tested buffer) and in which pattern.
struct MemtestMismatch {
    std::uint64_t offset = 0;
    std::uint32_t expected = 0;
    std::uint32_t actual = 0;
    std::string pattern;  // "walking ones 3", "random", ...
};
// Mismatches grouped into ranges of neighbouring words (4 bytes apart or the same word seen again
// in another pattern), in address order.
struct MismatchRange {
    std::uint64_t first_offset = 0;
    std::uint64_t last_offset = 0;
    std::size_t words = 0;            // distinct words recorded in the range
    std::uint32_t flipped_bits = 0;   // OR of expected ^ actual
    std::vector<std::string> patterns;  // distinct, in the order first seen
};
[[nodiscard]] std::vector<MismatchRange> group_mismatches(std::vector<MemtestMismatch> mismatches);
// The bytes gpu.memtest takes: half the free memory, at most memtest_max_bytes, whole MiB.
inline constexpr std::uint64_t memtest_max_bytes = std::uint64_t{64} << 30;
[[nodiscard]] std::uint64_t memtest_bytes(std::uint64_t free_bytes);
struct MemtestOutcome {
    std::uint64_t bytes = 0;            // tested
    std::uint64_t free_bytes = 0;       // free when the test began
    std::uint64_t device_address = 0;   // where the tested buffer starts
    std::vector<std::string> patterns_run;
    std::size_t patterns_planned = 0;
    double gpu_seconds = 0;             // fill and verify kernels, CUDA events
    std::uint64_t mismatched_words = 0;  // over every pattern
    std::vector<MemtestMismatch> recorded;  // the first few of each pattern
};
void judge_memtest(const MemtestOutcome& outcome, ResultBuilder& result);

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
void judge_p2p(const std::vector<PeerCopy>& copies, ResultBuilder& result);

}  // namespace cudacheck
