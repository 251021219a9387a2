// device.health: each GPU's health as NVML reports it, judged with DCGM's thresholds where DCGM
// publishes them (fail: a row remap failed or pending, a page retirement pending, 63 or more
// retired pages, uncorrectable ECC errors; warn: hardware/thermal clock slowdown, a PCIe link below
// its maximum, persistence mode off). NVML needs no CUDA initialisation, so this runs at --level quick.
#include "checks/checks.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"

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
std::string label(const NvmlDeviceHealth& gpu, const std::vector<DeviceInfo>& cuda_devices) {
    std::string cuda;
    for (const DeviceInfo& device : cuda_devices)
        if (!gpu.pci_bus_id.empty() && device.pci_bus_id == gpu.pci_bus_id)
            cuda = fmt::format(", CUDA device {}", device.ordinal);
    return fmt::format("GPU {} ({}, {}{})", gpu.nvml_index, gpu.name, gpu.pci_bus_id, cuda);
}

void add_evidence(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    const std::string key = fmt::format("gpu{}", gpu.nvml_index);
    result.evidence(key, fmt::format("{} | {}", name, gpu.uuid.empty() ? "UUID ?" : gpu.uuid));
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
        result.evidence(key + "_pcie", fmt::format("gen {} of {}, x{} of x{}", or_unknown(gpu.pcie_generation),
                                                   or_unknown(gpu.pcie_max_generation), or_unknown(gpu.pcie_width),
                                                   or_unknown(gpu.pcie_max_width)));
    result.evidence(key + "_modes",
                    fmt::format("persistence {}, compute {}, MIG {}{}{}",
                                gpu.persistence_mode ? (*gpu.persistence_mode ? "on" : "off") : "?",
                                gpu.compute_mode.empty() ? "?" : gpu.compute_mode,
                                gpu.mig_current ? (*gpu.mig_current ? "on" : "off") : "n/a",
                                gpu.mig_pending && gpu.mig_pending != gpu.mig_current ? " (pending change at reset)"
                                                                                      : "",
                                gpu.mig_devices ? fmt::format(", {} MIG device(s)", *gpu.mig_devices) : ""));
}

void judge_memory(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    const std::string reset =
        fmt::format("Reset the GPU when no process uses it (`sudo nvidia-smi -r -i {}`) or reboot", gpu.nvml_index);
    if (gpu.remap_failed.value_or(false))
        result.add(Code::row_remap_failed,
                   fmt::format("{}: a memory row remap failed ({} rows remapped for uncorrectable errors)", name,
                               or_unknown(gpu.remapped_rows_uncorrected)),
                   fmt::format("Take {} out of service and have it replaced (RMA); `nvidia-smi -q -d ROW_REMAPPER -i "
                               "{}`.",
                               name, gpu.nvml_index));
    else if (gpu.remap_pending.value_or(false))
        result.add(Code::row_remap_pending,
                   fmt::format("{}: a memory row remap is pending until the GPU is reset", name),
                   reset + "; the remap then takes effect.");
    if (gpu.retirement_pending.value_or(false))
        result.add(Code::page_retirement_pending,
                   fmt::format("{}: retired memory pages are pending until the GPU is reset", name),
                   reset + "; the retirement then takes effect.");
    const unsigned int retired = gpu.retired_pages_single_bit.value_or(0) + gpu.retired_pages_double_bit.value_or(0);
    if (retired >= retired_pages_limit)
        result.add(Code::retired_pages_limit,
                   fmt::format("{}: {} memory pages retired ({} single-bit, {} double-bit), at or above DCGM's limit "
                               "of {}",
                               name, retired, gpu.retired_pages_single_bit.value_or(0),
                               gpu.retired_pages_double_bit.value_or(0), retired_pages_limit),
                   fmt::format("Take {} out of service and have it replaced (RMA).", name));
    if (gpu.ecc_uncorrected_volatile.value_or(0) > 0)
        result.add(Code::ecc_uncorrected_errors,
                   fmt::format("{}: {} uncorrectable ECC error(s) since the driver loaded ({} in the GPU's lifetime)",
                               name, *gpu.ecc_uncorrected_volatile, or_unknown(gpu.ecc_uncorrected_aggregate)),
                   fmt::format("Look at `sudo dmesg | grep -i xid` (Xid 48, 63, 64), reset the GPU when no process "
                               "uses it (`sudo nvidia-smi -r -i "
                               "{}`) or reboot, and have it checked if the errors recur.",
                               gpu.nvml_index));
}

void judge_operation(const NvmlDeviceHealth& gpu, const std::string& name, ResultBuilder& result) {
    constexpr std::uint64_t slowdowns = clocks_event::hw_slowdown | clocks_event::hw_thermal_slowdown |
                                        clocks_event::hw_power_brake_slowdown | clocks_event::sw_thermal_slowdown;
    const std::uint64_t reasons = gpu.clocks_event_reasons.value_or(0);
    if ((reasons & slowdowns) != 0)
        result.add(Code::gpu_clocks_slowed,
                   fmt::format("{}: clocks held down by {}{}", name, describe_clocks_event_reasons(reasons & slowdowns),
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
        result.add(Code::pcie_link_degraded,
                   fmt::format("{}: PCIe link runs at gen {} x{}, below the maximum gen {} x{}", name,
                               or_unknown(gpu.pcie_generation), or_unknown(gpu.pcie_width),
                               or_unknown(gpu.pcie_max_generation), or_unknown(gpu.pcie_max_width)),
                   "Reseat the GPU or its riser and check the slot's BIOS PCIe settings (`nvidia-smi -q -d PCIE`).");
    if (gpu.persistence_mode && !*gpu.persistence_mode)
        result.add(Code::persistence_mode_off, fmt::format("{}: persistence mode is off", name));
}

}  // namespace

void judge_health(const std::vector<NvmlDeviceHealth>& gpus, const std::vector<DeviceInfo>& cuda_devices,
                  ResultBuilder& result) {
    if (gpus.empty()) {
        result.skip("NVML lists no GPU");
        return;
    }
    std::vector<std::string> temperatures;
    for (const NvmlDeviceHealth& gpu : gpus) {
        const std::string name = label(gpu, cuda_devices);
        add_evidence(gpu, name, result);
        if (gpu.temperature_c) {
            result.metric(gpu_temperature, *gpu.temperature_c, {{"gpu", std::to_string(gpu.nvml_index)}});
            temperatures.push_back(fmt::format("{} C", *gpu.temperature_c));
        }
        if (gpu.power_mw) result.metric(gpu_power, *gpu.power_mw / 1000.0, {{"gpu", std::to_string(gpu.nvml_index)}});
        judge_memory(gpu, name, result);
        judge_operation(gpu, name, result);
    }
    result.summary(
        fmt::format("{} GPU(s) healthy: no pending or failed memory repairs, no uncorrectable ECC errors, no "
                    "slowdown{}",
                    gpus.size(), temperatures.empty() ? "" : fmt::format(" ({})", sys::first_items(temperatures, 24))));
}

std::unique_ptr<Check> make_device_health_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "device.health",
                  .title = "GPU health",
                  .description = "Each GPU through NVML: ECC errors, retired pages, remapped rows, clock slowdowns, "
                                 "temperature, power, PCIe link, persistence, MIG",
                  .depends_on = {"driver.nvml"},
                  .raises = {Code::row_remap_failed, Code::row_remap_pending, Code::page_retirement_pending,
                             Code::retired_pages_limit, Code::ecc_uncorrected_errors, Code::gpu_clocks_slowed,
                             Code::pcie_link_degraded, Code::persistence_mode_off},
                  .answers = "every GPU NVML lists, judged as DCGM's diagnostics judge a node: uncorrectable ECC "
                             "errors, retired "
                             "pages and remapped rows, clocks held down by heat, power or hardware, a PCIe link below "
                             "its maximum,"
                             " persistence mode; temperature, power and MIG mode"},
        [](CheckContext& context, ResultBuilder& result) {
            const NvmlFacts& nvml = context.probes.nvml();
            if (!nvml.initialised()) {
                result.skip("NVML is not available (see driver.nvml)");
                return;
            }
            // CUDA ordinals only when CUDA is up anyway (--level quick does not initialise it).
            const DriverFacts* driver = context.probes.initialises_cuda() ? &context.probes.driver() : nullptr;
            judge_health(collect_nvml_health(nvml), driver != nullptr ? driver->devices : std::vector<DeviceInfo>{},
                         result);
        });
}

const CheckRegistration device_health_registration{1000, make_device_health_check};

}  // namespace cudacheck
