// device.health: each GPU's health as NVML reports it, read as `nvidia-smi -q` shows it and judged
// with DCGM's thresholds where DCGM publishes them (fail: NVML's recovery action not None, a GPU
// lost or needing a reset, a row remap failed or pending, a page retirement pending, 63 or more
// retired pages, uncorrectable ECC errors, unrepairable memory, a fabric not registered; warn:
// fabric health, NVLink links down or erring, PCIe replays, hardware/thermal clock slowdown, a
// PCIe link below its maximum, persistence mode off or by the deprecated legacy mode). NVML needs
// no CUDA initialisation, so this runs at --level quick.
#include "checks/checks.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "probes/probes.hpp"
#include "probes/visible_devices.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

constexpr MetricFamily gpu_temperature{"gpu_temperature", "gpu{gpu}.temperature", Unit::celsius,
                                       "GPU temperature when device.health read it."};
constexpr MetricFamily gpu_power{"gpu_power", "gpu{gpu}.power", Unit::watts,
                                 "GPU power draw when device.health read it."};

// DCGM fails a GPU with this many retired pages (dcgmi diag, "page retirement" health watch).
constexpr unsigned int retired_pages_limit = 63;

template <typename T>
std::string or_unknown(const std::optional<T>& value) {
    return value ? fmt::format("{}", *value) : "?";
}
std::string yes_no(const std::optional<bool>& value) { return value ? (*value ? "yes" : "no") : "?"; }

// "GPU 0 (NVIDIA H200, 00000000:19:00.0, CUDA device 0)"
// In a finding's message without the bus id ("GPU 0 (NVIDIA H200, CUDA device 0)"), which the
// evidence and the finding's `gpu` carry, so that the message stays a headline.
std::string label(const NvmlDeviceHealth& gpu, const std::vector<DeviceInfo>& cuda_devices, bool bus_id = true) {
    std::string cuda;
    for (const DeviceInfo& device : cuda_devices)
        if (!gpu.pci_bus_id.empty() && device.pci_bus_id == gpu.pci_bus_id)
            cuda = fmt::format(", CUDA device {}", device.ordinal);
    if (!bus_id) return fmt::format("GPU {} ({}{})", gpu.nvml_index, gpu.name.empty() ? "?" : gpu.name, cuda);
    return fmt::format("GPU {} ({}, {}{})", gpu.nvml_index, gpu.name.empty() ? "?" : gpu.name,
                       gpu.pci_bus_id.empty() ? "?" : gpu.pci_bus_id, cuda);
}

// A finding about one GPU, named for the report's per-GPU remedy by its UUID, else its PCI bus id;
// `remedy` where the value found names the step rather than the code. The message is a headline
// (a long GPU name and a long list are cut; the evidence keeps them whole).
void add_for_gpu(ResultBuilder& result, const NvmlDeviceHealth& gpu, Code code, const std::string& message,
                 std::string remediation = {}, std::optional<Remedy> remedy = std::nullopt) {
    Finding finding = make_finding(code, sys::clip(message, sys::max_headline), std::move(remediation));
    finding.gpu = !gpu.uuid.empty() ? gpu.uuid : gpu.pci_bus_id;
    if (remedy) finding.remedy = *remedy;
    result.add(std::move(finding));
}

std::string reset_step(const NvmlDeviceHealth& gpu) {
    return fmt::format("Reset GPU {} when no process uses it: `sudo nvidia-smi -r -i {}`", gpu.nvml_index,
                       gpu.nvml_index);
}

// "18 links, 18 active; replay 0, recovery 0, CRC 0", as `nvidia-smi nvlink -s` and `-e` count them.
std::string describe_nvlinks(const std::vector<NvmlLinkHealth>& links) {
    std::vector<std::string> inactive;
    std::uint64_t replay = 0, recovery = 0, crc = 0;
    bool counted = false;
    for (const NvmlLinkHealth& link : links) {
        if (!link.active) inactive.push_back(std::to_string(link.link));
        counted |= link.replay.has_value();
        replay += link.replay.value_or(0);
        recovery += link.recovery.value_or(0);
        crc += link.crc_flit.value_or(0) + link.crc_data.value_or(0);
    }
    return fmt::format("{} links, {} active{}; {}", links.size(), links.size() - inactive.size(),
                       inactive.empty() ? "" : fmt::format(" (inactive: {})", fmt::join(inactive, ", ")),
                       counted ? fmt::format("replay {}, recovery {}, CRC {}", replay, recovery, crc)
                               : std::string("error counters N/A"));
}

void add_evidence(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    const std::string key = fmt::format("gpu{}", gpu.nvml_index);
    result.evidence(key, fmt::format("{} | {}", name, gpu.uuid.empty() ? "UUID ?" : gpu.uuid));
    if (!gpu.lost_by.empty() || !gpu.reset_required_by.empty())
        result.evidence(key + "_nvml_answer",
                        !gpu.lost_by.empty() ? fmt::format("NVML_ERROR_GPU_IS_LOST ({})", gpu.lost_by)
                                             : fmt::format("NVML_ERROR_RESET_REQUIRED ({})", gpu.reset_required_by));
    if (!gpu.lost_by.empty()) return;  // nothing else was asked
    if (gpu.recovery_action) result.evidence(key + "_recovery_action", recovery_action_name(*gpu.recovery_action));
    if (gpu.ecc_current)
        result.evidence(
            key + "_ecc",
            *gpu.ecc_current
                ? fmt::format("on{}; errors volatile {} corrected / {} uncorrected, aggregate {} / {}",
                              gpu.ecc_pending == gpu.ecc_current ? "" : " (pending: off after reset)",
                              or_unknown(gpu.ecc_corrected_volatile), or_unknown(gpu.ecc_uncorrected_volatile),
                              or_unknown(gpu.ecc_corrected_aggregate), or_unknown(gpu.ecc_uncorrected_aggregate))
                : fmt::format("off{}", gpu.ecc_pending.value_or(false) ? " (pending: on after reset)" : ""));
    if (gpu.remapped_rows_corrected)
        result.evidence(key + "_remapped_rows",
                        fmt::format("{} corrected, {} uncorrected, pending {}, failed {}", *gpu.remapped_rows_corrected,
                                    or_unknown(gpu.remapped_rows_uncorrected), yes_no(gpu.remap_pending),
                                    yes_no(gpu.remap_failed)));
    if (gpu.memory_unrepairable) result.evidence(key + "_unrepairable_memory", *gpu.memory_unrepairable ? "yes" : "no");
    if (gpu.retired_pages_single_bit || gpu.retired_pages_double_bit || gpu.retirement_pending)
        result.evidence(key + "_retired_pages",
                        fmt::format("{} single-bit, {} double-bit, pending {}",
                                    or_unknown(gpu.retired_pages_single_bit), or_unknown(gpu.retired_pages_double_bit),
                                    yes_no(gpu.retirement_pending)));
    if (gpu.clocks_event_reasons)
        result.evidence(key + "_clocks_event_reasons", describe_clocks_event_reasons(*gpu.clocks_event_reasons));
    if (gpu.temperature_c)
        result.evidence(key + "_temperature", fmt::format("{} C", *gpu.temperature_c), *gpu.temperature_c,
                        Unit::celsius);
    if (gpu.power_mw)
        result.evidence(key + "_power",
                        fmt::format("{:.0f} W of {} W enforced limit", *gpu.power_mw / 1000.0,
                                    gpu.power_limit_mw ? fmt::format("{:.0f}", *gpu.power_limit_mw / 1000.0) : "?"),
                        *gpu.power_mw / 1000.0, Unit::watts);
    if (gpu.pcie_generation || gpu.pcie_width)
        result.evidence(key + "_pcie",
                        fmt::format("gen {} of {}, x{} of x{}{}", or_unknown(gpu.pcie_generation),
                                    or_unknown(gpu.pcie_max_generation), or_unknown(gpu.pcie_width),
                                    or_unknown(gpu.pcie_max_width),
                                    gpu.pcie_replay_count ? fmt::format("; replays {}", *gpu.pcie_replay_count) : ""));
    result.evidence(key + "_fabric", gpu.fabric ? describe_fabric(*gpu.fabric) : "state N/A, status N/A");
    if (!gpu.nvlinks.empty()) result.evidence(key + "_nvlink", describe_nvlinks(gpu.nvlinks));
    std::vector<std::string> erring;
    for (const NvmlLinkHealth& link : gpu.nvlinks)
        if (link.replay.value_or(0) + link.recovery.value_or(0) + link.crc_flit.value_or(0) +
                link.crc_data.value_or(0) >
            0)
            erring.push_back(fmt::format("link {}: replay {}, recovery {}, CRC flit {}, CRC data {}", link.link,
                                         link.replay.value_or(0), link.recovery.value_or(0), link.crc_flit.value_or(0),
                                         link.crc_data.value_or(0)));
    if (!erring.empty()) result.evidence(key + "_nvlink_errors", fmt::format("{}", fmt::join(erring, "; ")));
    result.evidence(key + "_modes",
                    fmt::format("persistence {}, compute {}, MIG {}{}{}",
                                gpu.persistence_mode ? (*gpu.persistence_mode ? "on" : "off") : "?",
                                gpu.compute_mode.empty() ? "?" : gpu.compute_mode,
                                gpu.mig_current ? (*gpu.mig_current ? "on" : "off") : "n/a",
                                gpu.mig_pending && gpu.mig_pending != gpu.mig_current ? " (pending change at reset)"
                                                                                      : "",
                                gpu.mig_devices ? fmt::format(", {} MIG device(s)", *gpu.mig_devices) : ""));
    if (!gpu.mig_device_uuids.empty())
        result.evidence(key + "_mig_devices", sys::first_items(gpu.mig_device_uuids, 800));
}

// What each recovery action asks (nvml.h nvmlDeviceGpuRecoveryAction_t; what to do from NVIDIA's
// "Error Recovery and Response Flags", docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt).
struct RecoveryStep {
    std::string meaning;  // a sentence without its full stop, put before the remediation
    std::string remediation;
    Remedy remedy = Remedy::investigate;
};

RecoveryStep recovery_step(const NvmlDeviceHealth& gpu) {
    using namespace nvml;
    const int index = gpu.nvml_index;
    switch (*gpu.recovery_action) {
        case NVML_GPU_RECOVERY_ACTION_GPU_RESET:
            return {"The GPU hit a fault that only a reset clears", reset_step(gpu) + "; reboot if the reset fails.",
                    Remedy::reset_gpu};
        case NVML_GPU_RECOVERY_ACTION_NODE_REBOOT:
            return {"The fault may have left the operating system inconsistent", "Drain the node and reboot it.",
                    Remedy::reboot};
        case NVML_GPU_RECOVERY_ACTION_DRAIN_P2P:
            return {"Peer-to-peer traffic must be quiesced",
                    "Stop the processes that use peer-to-peer (NVLink) traffic on the node's GPUs and turn off UVM "
                    "persistence mode, then run cudacheck again: NVML then names the next step.",
                    Remedy::drain_p2p};
        case NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET:
            return {"Peer-to-peer traffic must be drained and the GPU reset",
                    fmt::format("Stop the processes that use peer-to-peer (NVLink) traffic on the node's GPUs, then "
                                "reset GPU {} when no process uses it: `sudo nvidia-smi -r -i {}`.",
                                index, index),
                    Remedy::reset_gpu};
        case NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN:
            return {"The GPU's IMEX domain must be recovered",
                    "Recover the node's IMEX domain (restart the IMEX daemon, `sudo systemctl restart nvidia-imex`, on "
                    "the domain's nodes), then run cudacheck again.",
                    Remedy::fix_config};
        case NVML_GPU_RECOVERY_ACTION_BUS_RESET:
            return {"The GPU needs a reset of its PCIe bus, more than a GPU reset",
                    "Drain the node and have the platform reset the GPU's PCIe slot (a secondary bus reset), or "
                    "reboot the node.",
                    Remedy::bus_reset};
        case NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT:
            return {"The system must be restarted", "Drain the node and reboot it.", Remedy::reboot};
        default:
            return {"An action cudacheck does not know",
                    fmt::format("`nvidia-smi -q -i {}` names it; see the driver's documentation.", index),
                    Remedy::investigate};
    }
}

// The driver's own verdict on the GPU: lost, reset required, its recovery action. True when the
// GPU is lost: nothing else about it is known.
bool judge_recovery(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    if (!gpu.lost_by.empty()) {
        add_for_gpu(result, gpu, Code::gpu_lost,
                    fmt::format("{}: NVML answers NVML_ERROR_GPU_IS_LOST ({})", name, gpu.lost_by),
                    "The GPU has fallen off the bus or is otherwise inaccessible: drain the node and reboot it; `sudo "
                    "dmesg | grep -i -e xid -e 'fallen off'` shows what the driver saw (Xid 79). If it recurs, have "
                    "the "
                    "GPU's power, cooling and seating checked.");
        return true;
    }
    if (!gpu.reset_required_by.empty())
        add_for_gpu(result, gpu, Code::gpu_reset_required,
                    fmt::format("{}: NVML answers NVML_ERROR_RESET_REQUIRED ({})", name, gpu.reset_required_by),
                    "The GPU must be reset before it can be used again. " + reset_step(gpu) +
                        "; reboot if the reset fails.");
    if (gpu.recovery_action && *gpu.recovery_action != nvml::NVML_GPU_RECOVERY_ACTION_NONE) {
        RecoveryStep step = recovery_step(gpu);
        add_for_gpu(result, gpu, Code::gpu_recovery_action,
                    fmt::format("{}: NVML's GPU recovery action is {}", name,
                                recovery_action_name(*gpu.recovery_action)),
                    step.meaning + ". " + step.remediation, step.remedy);
    }
    return false;
}

void judge_memory(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    const std::string reset =
        fmt::format("Reset the GPU when no process uses it (`sudo nvidia-smi -r -i {}`) or reboot", gpu.nvml_index);
    if (gpu.memory_unrepairable.value_or(false))
        add_for_gpu(result, gpu, Code::memory_unrepairable, fmt::format("{}: NVML reports unrepairable memory", name),
                    fmt::format("Take {} out of service and have it replaced (RMA); `nvidia-smi -q -i {}` shows its "
                                "memory state.",
                                name, gpu.nvml_index));
    if (gpu.remap_failed.value_or(false))
        add_for_gpu(result, gpu, Code::row_remap_failed,
                    fmt::format("{}: a memory row remap failed ({} rows remapped for uncorrectable errors)", name,
                                or_unknown(gpu.remapped_rows_uncorrected)),
                    fmt::format("Take {} out of service and have it replaced (RMA); `nvidia-smi -q -d ROW_REMAPPER -i "
                                "{}`.",
                                name, gpu.nvml_index));
    else if (gpu.remap_pending.value_or(false))
        add_for_gpu(result, gpu, Code::row_remap_pending,
                    fmt::format("{}: a memory row remap is pending until the GPU is reset", name),
                    reset + "; the remap then takes effect.");
    if (gpu.retirement_pending.value_or(false))
        add_for_gpu(result, gpu, Code::page_retirement_pending,
                    fmt::format("{}: retired memory pages are pending until the GPU is reset", name),
                    reset + "; the retirement then takes effect.");
    const unsigned int retired = gpu.retired_pages_single_bit.value_or(0) + gpu.retired_pages_double_bit.value_or(0);
    if (retired >= retired_pages_limit)
        add_for_gpu(result, gpu, Code::retired_pages_limit,
                    fmt::format("{}: {} memory pages retired ({} single-bit, {} double-bit), at or above DCGM's "
                                "limit of {}",
                                name, retired, gpu.retired_pages_single_bit.value_or(0),
                                gpu.retired_pages_double_bit.value_or(0), retired_pages_limit),
                    fmt::format("Take {} out of service and have it replaced (RMA).", name));
    if (gpu.ecc_uncorrected_volatile.value_or(0) > 0)
        add_for_gpu(result, gpu, Code::ecc_uncorrected_errors,
                    fmt::format("{}: {} uncorrectable ECC error(s) since the driver loaded ({} in the GPU's lifetime)",
                                name, *gpu.ecc_uncorrected_volatile, or_unknown(gpu.ecc_uncorrected_aggregate)),
                    fmt::format("Look at `sudo dmesg | grep -i xid` (Xid 48, 63, 64), reset the GPU when no process "
                                "uses it (`sudo nvidia-smi -r -i "
                                "{}`) or reboot, and have it checked if the errors recur.",
                                gpu.nvml_index));
}

// Fabric Manager registers each GPU of an NVSwitch system with the NVLink fabric; until the GPU's
// fabric state is Completed with status Success, CUDA answers cudaErrorSystemNotReady (802,
// "system not yet initialized"), which NVIDIA's Fabric Manager guide gives as the sign of an
// unregistered GPU. GPUs without a fabric say NOT_SUPPORTED and are not judged.
void judge_fabric(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    if (!gpu.fabric || gpu.fabric->state == nvml::NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) return;
    const NvmlFabricHealth& fabric = *gpu.fabric;
    const std::string why =
        "Until Fabric Manager registers the GPU, CUDA calls answer cudaErrorSystemNotReady (802, \"system not yet "
        "initialized\"). ";
    if (fabric.state != nvml::NVML_GPU_FABRIC_STATE_COMPLETED)
        add_for_gpu(result, gpu, Code::fabric_not_ready,
                    fmt::format("{}: fabric state {}: CUDA answers 802 until it is registered", name,
                                fabric_state_name(fabric.state)),
                    why + fmt::format("Start Fabric Manager at the driver's version (`sudo systemctl enable --now "
                                      "nvidia-fabricmanager`; its log: /var/log/fabricmanager.log) and wait until "
                                      "`nvidia-smi -q -i {}` shows Fabric State Completed, Status Success.",
                                      gpu.nvml_index));
    else if (fabric.status != nvml::NVML_SUCCESS)
        add_for_gpu(result, gpu, Code::fabric_not_ready,
                    fmt::format("{}: fabric registration failed: {}", name, nvml_return_name(fabric.status)),
                    why +
                        "Read Fabric Manager's log (/var/log/fabricmanager.log) for the GPU, fix what it names "
                        "(NVLink trays, partition, firmware), then restart it (`sudo systemctl restart "
                        "nvidia-fabricmanager`).");
    const std::vector<std::string> problems = fabric_health_problems(fabric);
    if (problems.empty()) return;
    // An incorrect configuration alone is a setting to fix, not traffic to drain.
    const bool configuration_only = std::all_of(problems.begin(), problems.end(), [](const std::string& problem) {
        return sys::starts_with(problem, "incorrect configuration");
    });
    add_for_gpu(result, gpu, Code::fabric_unhealthy,
                fmt::format("{}: NVLink fabric health: {}", name, fmt::join(problems, ", ")),
                configuration_only
                    ? "Fix the fabric's configuration Fabric Manager names in its log (/var/log/fabricmanager.log), "
                      "then restart it (`sudo systemctl restart nvidia-fabricmanager`)."
                    : "Drain multi-GPU work from the node, then reset its GPUs (`sudo nvidia-smi -r`); if it "
                      "persists, check the NVLink trays and Fabric Manager's log.",
                configuration_only ? std::optional<Remedy>(Remedy::fix_config) : std::nullopt);
}

// Links down, and error counters above zero since the driver loaded: DCGM's NVLink health watch
// fails a GPU whose replay or recovery errors grow at all in its window and warns at 100 CRC
// errors a second (dcgm_gpu_hardware_limits.h: DCGM_LIMIT_MAX_NVLINK_ERROR 1,
// DCGM_LIMIT_MAX_NVLINK_CRC_ERROR 100.0). One reading gives no rate, so any count warns, with
// the counts, for a second look.
void judge_nvlink(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    if (gpu.nvlinks.empty()) return;
    std::vector<std::string> down;
    std::vector<std::string> erring;
    for (const NvmlLinkHealth& link : gpu.nvlinks) {
        if (!link.active) down.push_back(std::to_string(link.link));
        const std::uint64_t crc = link.crc_flit.value_or(0) + link.crc_data.value_or(0);
        if (link.replay.value_or(0) + link.recovery.value_or(0) + crc > 0)
            erring.push_back(fmt::format("link {}: replay {}, recovery {}, CRC {}", link.link, link.replay.value_or(0),
                                         link.recovery.value_or(0), crc));
    }
    // A GPU with no active link may have no NVLink peer at all (a PCIe card without a bridge); on a
    // fabric (NVSwitch) system every link is expected up.
    const bool on_fabric = gpu.fabric && gpu.fabric->state != nvml::NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
    if (!down.empty() && (down.size() < gpu.nvlinks.size() || on_fabric))
        add_for_gpu(result, gpu, Code::nvlink_link_down,
                    fmt::format("{}: {} of {} NVLink links inactive (link {})", name, down.size(), gpu.nvlinks.size(),
                                sys::first_items(down, 60)),
                    fmt::format("`nvidia-smi nvlink -s -i {}` shows the links; reset the GPU when no process uses it "
                                "(`sudo nvidia-smi -r -i {}`) or reboot, and have the link checked if it stays down.",
                                gpu.nvml_index, gpu.nvml_index));
    if (!erring.empty())
        add_for_gpu(result, gpu, Code::nvlink_errors,
                    fmt::format("{}: NVLink errors on {} link(s) ({})", name, erring.size(),
                                sys::first_items(erring, 60)),
                    fmt::format("`nvidia-smi nvlink -e -i {}` shows the counters; DCGM fails a GPU whose replay or "
                                "recovery errors keep growing: run cudacheck again later and, if they grew, drain the "
                                "node and have the link checked.",
                                gpu.nvml_index));
}

void judge_operation(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    constexpr std::uint64_t slowdowns = clocks_event::hw_slowdown | clocks_event::hw_thermal_slowdown |
                                        clocks_event::hw_power_brake_slowdown | clocks_event::sw_thermal_slowdown;
    const std::uint64_t reasons = gpu.clocks_event_reasons.value_or(0);
    if ((reasons & slowdowns) != 0)
        add_for_gpu(result, gpu, Code::gpu_clocks_slowed,
                    fmt::format("{}: clocks held down by {}{}", name,
                                describe_clocks_event_reasons(reasons & slowdowns),
                                gpu.temperature_c ? fmt::format(" at {} C", *gpu.temperature_c) : ""),
                    fmt::format("Check cooling and power for {} (`nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i "
                                "{}`).",
                                name, gpu.nvml_index));
    // An idle GPU lowers its link generation to save power; the width never changes by itself.
    const bool idle = (reasons & clocks_event::gpu_idle) != 0 || !gpu.clocks_event_reasons;
    const bool narrower = gpu.pcie_width && gpu.pcie_max_width && *gpu.pcie_width < *gpu.pcie_max_width;
    const bool slower =
        !idle && gpu.pcie_generation && gpu.pcie_max_generation && *gpu.pcie_generation < *gpu.pcie_max_generation;
    if (narrower || slower)
        add_for_gpu(result, gpu, Code::pcie_link_degraded,
                    fmt::format("{}: PCIe link runs at gen {} x{}, below the maximum gen {} x{}", name,
                                or_unknown(gpu.pcie_generation), or_unknown(gpu.pcie_width),
                                or_unknown(gpu.pcie_max_generation), or_unknown(gpu.pcie_max_width)),
                    "Reseat the GPU or its riser and check the slot's BIOS PCIe settings (`nvidia-smi -q -d PCIE`).");
    // DCGM's PCIe health watch warns above 8 replays a minute (dcgm_gpu_hardware_limits.h:
    // DCGM_LIMIT_MAX_PCIREPLAY_RATE); a count since the driver loaded gives no rate, so any warns.
    if (gpu.pcie_replay_count.value_or(0) > 0)
        add_for_gpu(result, gpu, Code::pcie_replay_errors,
                    fmt::format("{}: the PCIe link replayed {} packet(s) since the driver loaded", name,
                                *gpu.pcie_replay_count),
                    fmt::format("Read the counter again later (`nvidia-smi -q -d PCIE -i {}`, Replays Since Reset): "
                                "DCGM warns above 8 replays a minute. If it grows, reseat the GPU or its riser and "
                                "check the slot.",
                                gpu.nvml_index));
    if (gpu.persistence_mode && !*gpu.persistence_mode)
        add_for_gpu(result, gpu, Code::persistence_mode_off, fmt::format("{}: persistence mode is off", name));
    else if (gpu.persistence_mode && gpu.persistenced_running == false)
        add_for_gpu(result, gpu, Code::persistence_legacy_mode,
                    fmt::format("{}: legacy persistence mode; nvidia-persistenced not running", name),
                    "Persistence mode is on by the legacy mode (`nvidia-smi -pm 1`), which the driver deprecates. Run "
                    "the persistence daemon instead: `sudo systemctl enable --now nvidia-persistenced`.");
}

void judge_mig(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    if (gpu.mig_current.value_or(false) && gpu.mig_devices == 0u)
        add_for_gpu(
            result, gpu, Code::mig_without_instances,
            fmt::format("{}: MIG is on with no MIG device: CUDA sees no device on it", name),
            fmt::format("Create instances (`sudo nvidia-smi mig -i {} -cgi <profile> -C`, profiles: `nvidia-smi "
                        "mig -i {} -lgip`), or turn MIG off (`sudo nvidia-smi -i {} -mig 0`, then reset the GPU "
                        "when idle).",
                        gpu.nvml_index, gpu.nvml_index, gpu.nvml_index));
    if (gpu.mig_current && gpu.mig_pending && gpu.mig_current != gpu.mig_pending)
        add_for_gpu(result, gpu, Code::mig_mode_pending,
                    fmt::format("{}: MIG mode changes from {} to {} at the next GPU reset", name,
                                *gpu.mig_current ? "on" : "off", *gpu.mig_pending ? "on" : "off"),
                    reset_step(gpu) + "; reboot if the reset fails.");
}

// Whether `entry` ("MIG-<uuid>", a prefix of one, or the older "MIG-GPU-<uuid>/<gi>/<ci>") names
// a MIG device NVML lists.
bool names_listed_mig(std::string_view entry, const std::vector<NvmlDeviceHealth>& gpus) {
    for (const NvmlDeviceHealth& gpu : gpus) {
        for (const std::string& uuid : gpu.mig_device_uuids)
            if (sys::starts_with(uuid, entry)) return true;
        if (sys::starts_with(entry, "MIG-GPU-") && gpu.mig_current.value_or(false) && !gpu.uuid.empty() &&
            sys::starts_with(entry.substr(4), gpu.uuid))
            return true;
    }
    return false;
}

// CUDA_VISIBLE_DEVICES' MIG entries against the MIG devices NVML lists: CUDA hides a MIG device it
// cannot find, and the entries after it (CUDA C Programming Guide, "CUDA Environment Variables").
void judge_visible_mig(const std::vector<NvmlDeviceHealth>& gpus, const std::optional<std::string>& variable,
                       ResultBuilder& result) {
    if (!variable) return;
    const VisibleDevicesSpec spec = parse_cuda_visible_devices(*variable);
    const bool any_mig = std::any_of(gpus.begin(), gpus.end(),
                                     [](const NvmlDeviceHealth& gpu) { return gpu.mig_current.value_or(false); });
    // Judged only when every MIG GPU's devices were listed.
    const bool listed = std::all_of(gpus.begin(), gpus.end(), [](const NvmlDeviceHealth& gpu) {
        return !gpu.mig_current.value_or(false) || gpu.mig_devices.has_value();
    });
    std::vector<std::string> known;
    for (const NvmlDeviceHealth& gpu : gpus)
        known.insert(known.end(), gpu.mig_device_uuids.begin(), gpu.mig_device_uuids.end());
    for (const VisibleEntry& entry : spec.entries) {
        if (entry.kind != VisibleEntryKind::mig_uuid) continue;
        if (!any_mig)
            result.add(Code::visible_mig_device_unknown,
                       sys::clip(fmt::format("CUDA_VISIBLE_DEVICES names {}, but MIG is off on every GPU", entry.text),
                                 sys::max_headline),
                       "Set CUDA_VISIBLE_DEVICES to GPU ordinals or GPU-… UUIDs (`nvidia-smi -L`), or turn MIG on and "
                       "create instances (`sudo nvidia-smi -i <gpu> -mig 1`, reset the GPU, `sudo nvidia-smi mig -cgi "
                       "<profile> -C`).");
        else if (listed && !names_listed_mig(entry.text, gpus))
            result.add(Code::visible_mig_device_unknown,
                       sys::clip(fmt::format("CUDA_VISIBLE_DEVICES names {}, a MIG device NVML does not list",
                                             entry.text),
                                 sys::max_headline),
                       fmt::format("Set CUDA_VISIBLE_DEVICES to MIG UUIDs that `nvidia-smi -L` lists ({}), or to GPU "
                                   "ordinals.",
                                   known.empty() ? "none" : sys::first_items(known, 400)));
    }
}

}  // namespace

void judge_health(const std::vector<NvmlDeviceHealth>& gpus, const std::vector<DeviceInfo>& cuda_devices,
                  ResultBuilder& result, const std::optional<std::string>& cuda_visible_devices) {
    if (gpus.empty()) {
        result.skip("NVML lists no GPU");
        return;
    }
    std::vector<std::string> temperatures;
    for (const NvmlDeviceHealth& gpu : gpus) {
        add_evidence(gpu, label(gpu, cuda_devices), result);
        const std::string name = label(gpu, cuda_devices, /*bus_id=*/false);
        if (judge_recovery(gpu, name, result)) continue;  // lost: nothing else is known
        if (gpu.temperature_c) {
            result.metric(gpu_temperature, *gpu.temperature_c, {{"gpu", std::to_string(gpu.nvml_index)}});
            temperatures.push_back(fmt::format("{} C", *gpu.temperature_c));
        }
        if (gpu.power_mw) result.metric(gpu_power, *gpu.power_mw / 1000.0, {{"gpu", std::to_string(gpu.nvml_index)}});
        judge_memory(gpu, name, result);
        judge_fabric(gpu, name, result);
        judge_nvlink(gpu, name, result);
        judge_operation(gpu, name, result);
        judge_mig(gpu, name, result);
    }
    const auto persistence = std::find_if(gpus.begin(), gpus.end(), [](const NvmlDeviceHealth& gpu) {
        return gpu.persistence_mode.value_or(false);
    });
    if (persistence != gpus.end())
        result.evidence("nvidia_persistenced", !persistence->persistenced_running   ? "not visible from this container"
                                               : *persistence->persistenced_running ? "running"
                                                                                    : "not running");
    judge_visible_mig(gpus, cuda_visible_devices, result);
    result.summary(sys::clip(
        fmt::format("{} GPU(s) healthy: no recovery action, pending repair, uncorrected ECC error or slowdown{}",
                    gpus.size(), temperatures.empty() ? "" : fmt::format(" ({})", sys::first_items(temperatures, 24))),
        sys::max_headline));
}

std::unique_ptr<Check> make_device_health_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "device.health",
                  .title = "GPU health",
                  .description = "Each GPU through NVML: recovery action, lost or reset-required answers, ECC errors, "
                                 "retired pages, remapped rows, unrepairable memory, NVLink fabric and links, PCIe "
                                 "link and replays, clock slowdowns, temperature, power, persistence, MIG",
                  .depends_on = {"driver.nvml"},
                  .raises = {Code::row_remap_failed,
                             Code::row_remap_pending,
                             Code::page_retirement_pending,
                             Code::retired_pages_limit,
                             Code::ecc_uncorrected_errors,
                             Code::gpu_clocks_slowed,
                             Code::pcie_link_degraded,
                             Code::persistence_mode_off,
                             Code::mig_without_instances,
                             Code::gpu_recovery_action,
                             Code::gpu_lost,
                             Code::gpu_reset_required,
                             Code::fabric_not_ready,
                             Code::fabric_unhealthy,
                             Code::nvlink_link_down,
                             Code::nvlink_errors,
                             Code::pcie_replay_errors,
                             Code::mig_mode_pending,
                             Code::persistence_legacy_mode,
                             Code::memory_unrepairable,
                             Code::visible_mig_device_unknown},
                  .answers = "every GPU NVML lists, as `nvidia-smi -q` shows it and judged as DCGM's diagnostics "
                             "judge a node: the driver's recovery action, a GPU lost or needing a reset, uncorrectable "
                             "ECC errors, retired pages, remapped rows and unrepairable memory, the NVLink fabric "
                             "(Fabric Manager's registration, the 802 predictor) and links, PCIe replays, clocks held "
                             "down by heat, power or hardware, a PCIe link below its maximum, persistence mode and "
                             "nvidia-persistenced, MIG mode and the MIG devices CUDA_VISIBLE_DEVICES names"},
        [](CheckContext& context, ResultBuilder& result) {
            const NvmlFacts& nvml = context.probes.nvml();
            if (!nvml.initialised()) {
                result.skip("NVML is not available (see driver.nvml)");
                return;
            }
            // CUDA ordinals only when CUDA is up anyway (--level quick does not initialise it).
            const DriverFacts* driver = context.probes.initialises_cuda() ? &context.probes.driver() : nullptr;
            judge_health(context.probes.nvml_health(), driver != nullptr ? driver->devices : std::vector<DeviceInfo>{},
                         result, context.environment.get("CUDA_VISIBLE_DEVICES"));
        });
}

const CheckRegistration device_health_registration{1000, make_device_health_check};

}  // namespace cudacheck
