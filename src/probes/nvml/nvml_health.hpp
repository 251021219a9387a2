// The health of each GPU as NVML reports it: the fields DCGM's diagnostics judge a node by (ECC
// errors, retired pages, remapped rows, clocks-event reasons, PCIe link, persistence), without a
// DCGM host engine. Every field is optional: a GPU or driver that does not support a query
// (NVML_ERROR_NOT_SUPPORTED) leaves it unknown rather than zero.
#pragma once

#include "probes/nvml/nvml_probe.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct NvmlDeviceHealth {
    int nvml_index = 0;
    std::string name;
    std::string uuid;
    std::string pci_bus_id;
    // ECC (nvmlDeviceGetEccMode, nvmlDeviceGetTotalEccErrors)
    std::optional<bool> ecc_current;
    std::optional<bool> ecc_pending;
    std::optional<std::uint64_t> ecc_corrected_volatile;
    std::optional<std::uint64_t> ecc_uncorrected_volatile;
    std::optional<std::uint64_t> ecc_corrected_aggregate;
    std::optional<std::uint64_t> ecc_uncorrected_aggregate;
    // Page retirement (before Ampere): pages retired for single-bit and double-bit errors.
    std::optional<unsigned int> retired_pages_single_bit;
    std::optional<unsigned int> retired_pages_double_bit;
    std::optional<bool> retirement_pending;
    // Row remapping (Ampere and later), nvmlDeviceGetRemappedRows.
    std::optional<unsigned int> remapped_rows_corrected;
    std::optional<unsigned int> remapped_rows_uncorrected;
    std::optional<bool> remap_pending;
    std::optional<bool> remap_failed;
    // Clocks-event (throttle) reasons bit mask, temperature, power.
    std::optional<std::uint64_t> clocks_event_reasons;
    std::optional<unsigned int> temperature_c;
    std::optional<unsigned int> power_mw;
    std::optional<unsigned int> power_limit_mw;
    // PCIe link: current and maximum generation and width.
    std::optional<unsigned int> pcie_generation;
    std::optional<unsigned int> pcie_max_generation;
    std::optional<unsigned int> pcie_width;
    std::optional<unsigned int> pcie_max_width;
    std::optional<bool> persistence_mode;
    std::string compute_mode;  // as NvmlFacts devices: "default", "exclusive_process", ...
    std::optional<bool> mig_current;
    std::optional<bool> mig_pending;
    std::optional<unsigned int> mig_devices;  // MIG devices (GPU instances' compute instances) when MIG is on
};

// Queries every GPU NVML lists. Empty when NVML did not initialise.
[[nodiscard]] std::vector<NvmlDeviceHealth> collect_nvml_health(const NvmlFacts& nvml);

// Clocks-event reason bits (nvml.h nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*).
namespace clocks_event {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
}  // namespace clocks_event

// "GPU idle, SW power cap", from the bit mask; "none" for 0.
[[nodiscard]] std::string describe_clocks_event_reasons(std::uint64_t reasons);

// One reading of a GPU's clocks, limits, temperature and power while it works (gpu.stress reads
// one every half second). Fields NVML does not answer stay empty.
struct NvmlClockSample {
    double seconds = 0;  // since the sampling began
    std::optional<unsigned int> sm_clock_mhz;              // nvmlDeviceGetClockInfo(NVML_CLOCK_SM)
    std::optional<std::uint64_t> clocks_event_reasons;     // clocks_event bits
    std::optional<unsigned int> temperature_c;
    std::optional<unsigned int> power_mw;
};

// Reads NvmlClockSamples of one GPU, found by PCI bus id (CUDA and NVML number GPUs differently).
class NvmlClockSampler {
public:
    NvmlClockSampler(const NvmlFacts& nvml, std::string_view pci_bus_id);
    NvmlClockSampler(const NvmlClockSampler&) = delete;
    NvmlClockSampler& operator=(const NvmlClockSampler&) = delete;
    ~NvmlClockSampler();
    // False when NVML is not up, or does not list the GPU: nothing can be sampled.
    [[nodiscard]] bool ok() const;
    [[nodiscard]] NvmlClockSample sample(double seconds) const;

private:
    struct Api;
    std::unique_ptr<Api> api_;
};

}  // namespace cudacheck
