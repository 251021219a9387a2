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

// The GPU's NVLink fabric as nvmlDeviceGetGpuFabricInfoV reports it (Hopper and later).
struct NvmlFabricHealth {
    int state = 0;                      // nvml::NVML_GPU_FABRIC_STATE_*
    int status = 0;                     // an nvmlReturn_t, meaningful once the state is COMPLETED
    unsigned int clique_id = 0;
    std::string cluster_uuid = {};                  // 8-4-4-4-12 hex
    std::optional<unsigned int> health_mask = {};  // nvmlGpuFabricInfo_v2 and later (r550+)
    std::optional<int> health_summary = {};        // nvmlGpuFabricInfo_v3 (r580+)
    bool operator==(const NvmlFabricHealth&) const = default;
};

// One NVLink link: its state (nvmlDeviceGetNvLinkState) and, for an active link, its error
// counters since the driver loaded or the counters were reset (nvmlDeviceGetNvLinkErrorCounter).
struct NvmlLinkHealth {
    unsigned int link = 0;
    bool active = false;
    std::optional<std::uint64_t> replay = {};
    std::optional<std::uint64_t> recovery = {};
    std::optional<std::uint64_t> crc_flit = {};
    std::optional<std::uint64_t> crc_data = {};
    bool operator==(const NvmlLinkHealth&) const = default;
};

struct NvmlDeviceHealth {
    int nvml_index = 0;
    std::string name;
    std::string uuid;
    std::string pci_bus_id;
    // What the driver asks to be done before the GPU is used again: nvmlDeviceGpuRecoveryAction_t
    // (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION through nvmlDeviceGetFieldValues, r565 and later;
    // nvml::NVML_GPU_RECOVERY_ACTION_*). Unknown on older drivers.
    std::optional<int> recovery_action;
    // The first query that answered NVML_ERROR_GPU_IS_LOST ("nvmlDeviceGetHandleByIndex_v2"), and
    // the first that answered NVML_ERROR_RESET_REQUIRED; empty when none did. After a lost answer
    // the GPU is asked nothing more.
    std::string lost_by;
    std::string reset_required_by;
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
    std::vector<std::string> mig_device_uuids;  // their UUIDs ("MIG-…"), as CUDA_VISIBLE_DEVICES names them
    // nvmlDeviceGetUnrepairableMemoryFlag_v1 (r590+): memory errors the GPU can no longer repair.
    std::optional<bool> memory_unrepairable;
    // nvmlDeviceGetPcieReplayCounter: link-level retransmissions since the driver loaded.
    std::optional<unsigned int> pcie_replay_count;
    std::optional<NvmlFabricHealth> fabric;  // unknown where the query is absent or not supported
    std::vector<NvmlLinkHealth> nvlinks;     // the links NVML answers for, in order
    // Whether nvidia-persistenced runs on this machine (the same for every GPU): a process of that
    // name, or the socket it offers containers; unknown from inside a container, which sees
    // neither the host's processes nor, unless the runtime mounts it, its socket.
    std::optional<bool> persistenced_running;
};

// Where collect_nvml_health looks for nvidia-persistenced.
struct NvmlHealthSettings {
    std::string root;          // prefix for /proc and /run ("" for the real system; tests: a fixture root)
    bool in_container = false;  // then not finding it means "unknown", not "not running"
};

// Queries every GPU NVML lists. Empty when NVML did not initialise.
[[nodiscard]] std::vector<NvmlDeviceHealth> collect_nvml_health(const NvmlFacts& nvml,
                                                                const NvmlHealthSettings& settings = {});

// Whether a process whose /proc/<pid>/comm is `name` (cut to the kernel's 15 characters, as comm
// is) runs, by scanning `proc` (at most `limit` entries); nullopt when `proc` cannot be listed.
[[nodiscard]] std::optional<bool> process_running(const std::string& proc, std::string_view name,
                                                  std::size_t limit = 65536);
[[nodiscard]] std::optional<bool> persistenced_running(const NvmlHealthSettings& settings);

// nvidia-smi -q's words for a recovery action ("None", "Reset", "Reboot", "Drain P2P", "Drain and
// Reset"; the later ones as nvml.h names them); "unknown (N)" for another value.
[[nodiscard]] std::string recovery_action_name(int action);
// "N/A" (not supported, as nvidia-smi -q shows it), "Not Started", "In Progress", "Completed".
[[nodiscard]] std::string fabric_state_name(int state);

// The facts of a fabric health mask (nvml.h NVML_GPU_FABRIC_HEALTH_GET), each field's value as
// nvml.h numbers it (0 not supported; for the two-bit ones 1 true, 2 false).
struct FabricHealthBits {
    unsigned int degraded_bandwidth = 0;
    unsigned int route_recovery = 0;
    unsigned int route_unhealthy = 0;
    unsigned int access_timeout_recovery = 0;
    unsigned int incorrect_configuration = 0;  // 1 none, 2.. the reason
    unsigned int partition_assigned = 0;
};
[[nodiscard]] FabricHealthBits decode_fabric_health(unsigned int mask);
// The problems a fabric reports ("bandwidth degraded", "route unhealthy", "incorrect configuration:
// insufficient NVLinks", "health summary Unhealthy"); empty when none.
[[nodiscard]] std::vector<std::string> fabric_health_problems(const NvmlFabricHealth& fabric);
// "state Completed, status Success, clique 2, cluster 9c6f…; bandwidth full, ..." or
// "state N/A, status N/A", as nvidia-smi -q's Fabric section reads.
[[nodiscard]] std::string describe_fabric(const NvmlFabricHealth& fabric);

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
    // The SM clock and temperature alone: two queries rather than four, for the engine's reading of
    // every timed section (probes/nvml/timed_conditions.hpp).
    [[nodiscard]] NvmlClockSample sm_clock_and_temperature(double seconds) const;

private:
    struct Api;
    std::unique_ptr<Api> api_;
};

}  // namespace cudacheck
