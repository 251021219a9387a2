#include "probes/nvml/nvml_health.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utility>

namespace cudacheck {

namespace {

using namespace nvml;

std::optional<unsigned int> retired_page_count(const NvmlApi& api, nvmlDevice_t device, int cause) {
    if (api.device_get_retired_pages == nullptr) return std::nullopt;
    unsigned int count = 0;  // 0 with no buffer asks for the count
    const nvmlReturn_t result = api.device_get_retired_pages(device, cause, &count, nullptr);
    if (result != NVML_SUCCESS && result != NVML_ERROR_INSUFFICIENT_SIZE) return std::nullopt;
    return count;
}

}  // namespace

std::string describe_clocks_event_reasons(std::uint64_t reasons) {
    static constexpr std::pair<std::uint64_t, const char*> names[] = {
        {clocks_event::gpu_idle, "GPU idle"},
        {clocks_event::applications_clocks_setting, "applications clocks setting"},
        {clocks_event::sw_power_cap, "SW power cap"},
        {clocks_event::hw_slowdown, "HW slowdown"},
        {clocks_event::sync_boost, "sync boost"},
        {clocks_event::sw_thermal_slowdown, "SW thermal slowdown"},
        {clocks_event::hw_thermal_slowdown, "HW thermal slowdown"},
        {clocks_event::hw_power_brake_slowdown, "HW power brake slowdown"},
        {clocks_event::display_clock_setting, "display clock setting"},
    };
    std::vector<std::string> words;
    std::uint64_t known = 0;
    for (const auto& [bit, name] : names) {
        known |= bit;
        if ((reasons & bit) != 0) words.emplace_back(name);
    }
    if ((reasons & ~known) != 0) words.push_back(fmt::format("other (0x{:x})", reasons & ~known));
    return words.empty() ? "none" : fmt::format("{}", fmt::join(words, ", "));
}

std::vector<NvmlDeviceHealth> collect_nvml_health(const NvmlFacts& nvml) {
    std::vector<NvmlDeviceHealth> health;
    const NvmlApi& api = nvml.api;
    if (!nvml.initialised() || api.device_get_handle_by_index == nullptr) return health;

    for (const DeviceInfo& listed : nvml.devices) {
        NvmlDeviceHealth entry;
        entry.nvml_index = listed.nvml_index.value_or(listed.ordinal);
        entry.name = listed.name;
        entry.uuid = listed.uuid;
        entry.pci_bus_id = listed.pci_bus_id;
        entry.compute_mode = listed.compute_mode;
        nvmlDevice_t device = nullptr;
        if (api.device_get_handle_by_index(static_cast<unsigned int>(entry.nvml_index), &device) != NVML_SUCCESS) {
            health.push_back(std::move(entry));
            continue;
        }
        int current = 0;
        int pending = 0;
        if (api.device_get_ecc_mode(device, &current, &pending) == NVML_SUCCESS) {
            entry.ecc_current = current != 0;
            entry.ecc_pending = pending != 0;
        }
        if (entry.ecc_current.value_or(false)) {
            const auto errors = [&](int type, int counter) {
                return nvml_query<unsigned long long>(api.device_get_total_ecc_errors, device, type, counter);
            };
            entry.ecc_corrected_volatile = errors(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
            entry.ecc_uncorrected_volatile = errors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
            entry.ecc_corrected_aggregate = errors(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
            entry.ecc_uncorrected_aggregate = errors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
        }
        entry.retired_pages_single_bit =
            retired_page_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
        entry.retired_pages_double_bit =
            retired_page_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
        if (auto value = nvml_query<int>(api.device_get_retired_pages_pending, device))
            entry.retirement_pending = *value != 0;
        unsigned int corrected = 0, uncorrected = 0, is_pending = 0, failure = 0;
        if (api.device_get_remapped_rows != nullptr &&
            api.device_get_remapped_rows(device, &corrected, &uncorrected, &is_pending, &failure) == NVML_SUCCESS) {
            entry.remapped_rows_corrected = corrected;
            entry.remapped_rows_uncorrected = uncorrected;
            entry.remap_pending = is_pending != 0;
            entry.remap_failed = failure != 0;
        }
        entry.clocks_event_reasons = nvml_query<unsigned long long>(api.device_get_clocks_event_reasons, device);
        entry.temperature_c = nvml_query<unsigned int>(api.device_get_temperature, device, NVML_TEMPERATURE_GPU);
        entry.power_mw = nvml_query<unsigned int>(api.device_get_power_usage, device);
        entry.power_limit_mw = nvml_query<unsigned int>(api.device_get_power_limit, device);
        entry.pcie_generation = nvml_query<unsigned int>(api.device_get_pcie_generation, device);
        entry.pcie_max_generation = nvml_query<unsigned int>(api.device_get_pcie_max_generation, device);
        entry.pcie_width = nvml_query<unsigned int>(api.device_get_pcie_width, device);
        entry.pcie_max_width = nvml_query<unsigned int>(api.device_get_pcie_max_width, device);
        if (auto value = nvml_query<int>(api.device_get_persistence_mode, device)) entry.persistence_mode = *value != 0;
        unsigned int mig_current = 0, mig_pending = 0;
        if (api.device_get_mig_mode != nullptr &&
            api.device_get_mig_mode(device, &mig_current, &mig_pending) == NVML_SUCCESS) {
            entry.mig_current = mig_current != 0;
            entry.mig_pending = mig_pending != 0;
        }
        if (entry.mig_current.value_or(false)) {
            unsigned int slots = 0, present = 0;
            if (auto maximum = nvml_query<unsigned int>(api.device_get_max_mig_devices, device);
                maximum && api.device_get_mig_device_by_index != nullptr) {
                slots = *maximum;
                for (unsigned int slot = 0; slot < slots; ++slot) {
                    nvmlDevice_t mig = nullptr;
                    if (api.device_get_mig_device_by_index(device, slot, &mig) == NVML_SUCCESS) ++present;
                }
                entry.mig_devices = present;
            }
        }
        health.push_back(std::move(entry));
    }
    return health;
}

struct NvmlClockSampler::Api {
    NvmlApi api;
    nvmlDevice_t device = nullptr;
};

NvmlClockSampler::NvmlClockSampler(const NvmlFacts& nvml, std::string_view pci_bus_id) {
    if (!nvml.initialised()) return;
    nvmlDevice_t device = nvml_handle_of_pci_bus_id(nvml.api, nvml.devices, pci_bus_id);
    if (device == nullptr) return;
    api_ = std::make_unique<Api>(Api{nvml.api, device});
}

NvmlClockSampler::~NvmlClockSampler() = default;

bool NvmlClockSampler::ok() const { return api_ != nullptr; }

NvmlClockSample NvmlClockSampler::sample(double seconds) const {
    NvmlClockSample sample;
    sample.seconds = seconds;
    if (!api_) return sample;
    const NvmlApi& api = api_->api;
    sample.sm_clock_mhz = nvml_query<unsigned int>(api.device_get_clock_info, api_->device, NVML_CLOCK_SM);
    sample.clocks_event_reasons = nvml_query<unsigned long long>(api.device_get_clocks_event_reasons, api_->device);
    sample.temperature_c = nvml_query<unsigned int>(api.device_get_temperature, api_->device, NVML_TEMPERATURE_GPU);
    sample.power_mw = nvml_query<unsigned int>(api.device_get_power_usage, api_->device);
    return sample;
}

}  // namespace cudacheck
