#include "probes/nvml_health.hpp"

#include "probes/nvml_types.hpp"
#include "bind/symbols.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utility>

namespace cudacheck {

namespace {

// Values from nvml.h (CUDA 13.0) besides the shared types (probes/nvml_types.hpp).
using namespace nvml;
constexpr int nvml_memory_error_corrected = 0;
constexpr int nvml_memory_error_uncorrected = 1;
constexpr int nvml_volatile_ecc = 0;
constexpr int nvml_aggregate_ecc = 1;
constexpr int nvml_retired_single_bit = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
constexpr int nvml_retired_double_bit = 1;  // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
constexpr int nvml_temperature_gpu = 0;

struct HealthApi {
    nvmlReturn_t (*get_handle)(unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;
    nvmlReturn_t (*total_ecc_errors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
    nvmlReturn_t (*retired_pages)(nvmlDevice_t, int, unsigned int*, unsigned long long*) = nullptr;
    nvmlReturn_t (*retired_pages_pending)(nvmlDevice_t, int*) = nullptr;
    nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
    nvmlReturn_t (*clocks_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*pcie_generation)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*pcie_max_generation)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*pcie_width)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*pcie_max_width)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*persistence_mode)(nvmlDevice_t, int*) = nullptr;
    nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int*, unsigned int*) = nullptr;
    nvmlReturn_t (*max_mig_devices)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*mig_device_by_index)(nvmlDevice_t, unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned int*) = nullptr;
};


// Calls `query` when the entry point exists; the value when NVML answered, else nullopt.
template <typename T, typename Function, typename... Arguments>
std::optional<T> ask(Function function, nvmlDevice_t device, Arguments... arguments) {
    if (function == nullptr) return std::nullopt;
    T value{};
    if (function(device, arguments..., &value) != 0) return std::nullopt;
    return value;
}

// Every entry point device.health and the stress's sampler use; missing ones stay nullptr.
constexpr LibrarySymbol<HealthApi> health_symbols[] = {
    optional_symbol<&HealthApi::get_handle>("nvmlDeviceGetHandleByIndex_v2"),
    optional_symbol<&HealthApi::ecc_mode>("nvmlDeviceGetEccMode"),
    optional_symbol<&HealthApi::total_ecc_errors>("nvmlDeviceGetTotalEccErrors"),
    optional_symbol<&HealthApi::retired_pages>("nvmlDeviceGetRetiredPages"),
    optional_symbol<&HealthApi::retired_pages_pending>("nvmlDeviceGetRetiredPagesPendingStatus"),
    optional_symbol<&HealthApi::remapped_rows>("nvmlDeviceGetRemappedRows"),
    // Renamed in r535; the old name stays for older drivers.
    optional_symbol<&HealthApi::clocks_event_reasons>("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"),
    optional_symbol<&HealthApi::temperature>("nvmlDeviceGetTemperature"),
    optional_symbol<&HealthApi::power_usage>("nvmlDeviceGetPowerUsage"),
    optional_symbol<&HealthApi::power_limit>("nvmlDeviceGetEnforcedPowerLimit"),
    optional_symbol<&HealthApi::pcie_generation>("nvmlDeviceGetCurrPcieLinkGeneration"),
    optional_symbol<&HealthApi::pcie_max_generation>("nvmlDeviceGetMaxPcieLinkGeneration"),
    optional_symbol<&HealthApi::pcie_width>("nvmlDeviceGetCurrPcieLinkWidth"),
    optional_symbol<&HealthApi::pcie_max_width>("nvmlDeviceGetMaxPcieLinkWidth"),
    optional_symbol<&HealthApi::persistence_mode>("nvmlDeviceGetPersistenceMode"),
    optional_symbol<&HealthApi::mig_mode>("nvmlDeviceGetMigMode"),
    optional_symbol<&HealthApi::max_mig_devices>("nvmlDeviceGetMaxMigDeviceCount"),
    optional_symbol<&HealthApi::mig_device_by_index>("nvmlDeviceGetMigDeviceHandleByIndex"),
    optional_symbol<&HealthApi::clock_info>("nvmlDeviceGetClockInfo"),
};

HealthApi resolve_health_api(const DynamicLibrary& library) {
    HealthApi api;
    (void)bind_symbols(library, health_symbols, api);  // every one optional: a missing query is not asked
    return api;
}

std::optional<unsigned int> retired_page_count(const HealthApi& api, nvmlDevice_t device, int cause) {
    if (api.retired_pages == nullptr) return std::nullopt;
    unsigned int count = 0;  // 0 with no buffer asks for the count
    const nvmlReturn_t result = api.retired_pages(device, cause, &count, nullptr);
    if (result != 0 && result != nvml_error_insufficient_size) return std::nullopt;
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
    if (!nvml.initialised()) return health;
    const HealthApi api = resolve_health_api(nvml.library);
    if (api.get_handle == nullptr) return health;

    for (const DeviceInfo& listed : nvml.devices) {
        NvmlDeviceHealth entry;
        entry.nvml_index = listed.nvml_index.value_or(listed.ordinal);
        entry.name = listed.name;
        entry.uuid = listed.uuid;
        entry.pci_bus_id = listed.pci_bus_id;
        entry.compute_mode = listed.compute_mode;
        nvmlDevice_t device = nullptr;
        if (api.get_handle(static_cast<unsigned int>(entry.nvml_index), &device) != 0) {
            health.push_back(std::move(entry));
            continue;
        }
        int current = 0;
        int pending = 0;
        if (api.ecc_mode != nullptr && api.ecc_mode(device, &current, &pending) == 0) {
            entry.ecc_current = current != 0;
            entry.ecc_pending = pending != 0;
        }
        if (entry.ecc_current.value_or(false)) {
            entry.ecc_corrected_volatile = ask<unsigned long long>(api.total_ecc_errors, device, nvml_memory_error_corrected, nvml_volatile_ecc);
            entry.ecc_uncorrected_volatile = ask<unsigned long long>(api.total_ecc_errors, device, nvml_memory_error_uncorrected, nvml_volatile_ecc);
            entry.ecc_corrected_aggregate = ask<unsigned long long>(api.total_ecc_errors, device, nvml_memory_error_corrected, nvml_aggregate_ecc);
            entry.ecc_uncorrected_aggregate = ask<unsigned long long>(api.total_ecc_errors, device, nvml_memory_error_uncorrected, nvml_aggregate_ecc);
        }
        entry.retired_pages_single_bit = retired_page_count(api, device, nvml_retired_single_bit);
        entry.retired_pages_double_bit = retired_page_count(api, device, nvml_retired_double_bit);
        if (auto value = ask<int>(api.retired_pages_pending, device)) entry.retirement_pending = *value != 0;
        unsigned int corrected = 0, uncorrected = 0, is_pending = 0, failure = 0;
        if (api.remapped_rows != nullptr && api.remapped_rows(device, &corrected, &uncorrected, &is_pending, &failure) == 0) {
            entry.remapped_rows_corrected = corrected;
            entry.remapped_rows_uncorrected = uncorrected;
            entry.remap_pending = is_pending != 0;
            entry.remap_failed = failure != 0;
        }
        entry.clocks_event_reasons = ask<unsigned long long>(api.clocks_event_reasons, device);
        entry.temperature_c = ask<unsigned int>(api.temperature, device, nvml_temperature_gpu);
        entry.power_mw = ask<unsigned int>(api.power_usage, device);
        entry.power_limit_mw = ask<unsigned int>(api.power_limit, device);
        entry.pcie_generation = ask<unsigned int>(api.pcie_generation, device);
        entry.pcie_max_generation = ask<unsigned int>(api.pcie_max_generation, device);
        entry.pcie_width = ask<unsigned int>(api.pcie_width, device);
        entry.pcie_max_width = ask<unsigned int>(api.pcie_max_width, device);
        if (auto value = ask<int>(api.persistence_mode, device)) entry.persistence_mode = *value != 0;
        unsigned int mig_current = 0, mig_pending = 0;
        if (api.mig_mode != nullptr && api.mig_mode(device, &mig_current, &mig_pending) == 0) {
            entry.mig_current = mig_current != 0;
            entry.mig_pending = mig_pending != 0;
        }
        if (entry.mig_current.value_or(false)) {
            unsigned int slots = 0, present = 0;
            if (auto maximum = ask<unsigned int>(api.max_mig_devices, device); maximum && api.mig_device_by_index != nullptr) {
                slots = *maximum;
                for (unsigned int slot = 0; slot < slots; ++slot) {
                    nvmlDevice_t mig = nullptr;
                    if (api.mig_device_by_index(device, slot, &mig) == 0) ++present;
                }
                entry.mig_devices = present;
            }
        }
        health.push_back(std::move(entry));
    }
    return health;
}

struct NvmlClockSampler::Api {
    HealthApi api;
    nvmlDevice_t device = nullptr;
};

NvmlClockSampler::NvmlClockSampler(const NvmlFacts& nvml, std::string_view pci_bus_id) {
    if (!nvml.initialised() || pci_bus_id.empty()) return;
    const DeviceInfo* listed = nullptr;
    for (const DeviceInfo& device : nvml.devices)
        if (device.pci_bus_id == pci_bus_id) listed = &device;
    if (listed == nullptr) return;
    auto api = std::make_unique<Api>();
    api->api = resolve_health_api(nvml.library);
    if (api->api.get_handle == nullptr || api->api.get_handle(static_cast<unsigned int>(listed->nvml_index.value_or(listed->ordinal)), &api->device) != 0)
        return;
    api_ = std::move(api);
}

NvmlClockSampler::~NvmlClockSampler() = default;

bool NvmlClockSampler::ok() const { return api_ != nullptr; }

NvmlClockSample NvmlClockSampler::sample(double seconds) const {
    NvmlClockSample sample;
    sample.seconds = seconds;
    if (!api_) return sample;
    constexpr int nvml_clock_sm = 1;
    const HealthApi& api = api_->api;
    sample.sm_clock_mhz = ask<unsigned int>(api.clock_info, api_->device, nvml_clock_sm);
    sample.clocks_event_reasons = ask<unsigned long long>(api.clocks_event_reasons, api_->device);
    sample.temperature_c = ask<unsigned int>(api.temperature, api_->device, nvml_temperature_gpu);
    sample.power_mw = ask<unsigned int>(api.power_usage, api_->device);
    return sample;
}

}  // namespace cudacheck
