#include "probes/nvml/nvml_health.hpp"

#include "util/process.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
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

// Notes the answers that say the GPU itself is gone or must be reset, whatever the query: NVML
// gives them to any call once the GPU is in that state.
void note_answer(NvmlDeviceHealth& entry, std::string_view query, nvmlReturn_t result) {
    if (result == NVML_ERROR_GPU_IS_LOST && entry.lost_by.empty()) entry.lost_by = query;
    if (result == NVML_ERROR_RESET_REQUIRED && entry.reset_required_by.empty()) entry.reset_required_by = query;
}

// The queries of one GPU, each answer noted (note_answer).
class GpuQueries {
public:
    GpuQueries(nvmlDevice_t device, NvmlDeviceHealth& entry) : device_(device), entry_(entry) {}
    // True once NVML answered NVML_ERROR_GPU_IS_LOST: the GPU is then asked nothing more.
    [[nodiscard]] bool lost() const { return !entry_.lost_by.empty(); }
    void note(std::string_view query, nvmlReturn_t result) { note_answer(entry_, query, result); }
    // `function(device, arguments...)`'s answer, noted; NVML_ERROR_FUNCTION_NOT_FOUND when the
    // driver lacks the entry point, NVML_ERROR_GPU_IS_LOST unasked once the GPU is lost.
    template <typename Function, typename... Arguments>
    nvmlReturn_t call(std::string_view query, Function function, Arguments... arguments) {
        if (function == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
        if (lost()) return NVML_ERROR_GPU_IS_LOST;
        const nvmlReturn_t result = function(device_, arguments...);
        note(query, result);
        return result;
    }
    // What the query answers through its last argument; nullopt when it fails.
    template <typename T, typename Function, typename... Arguments>
    std::optional<T> query(std::string_view name, Function function, Arguments... arguments) {
        T value{};
        if (call(name, function, arguments..., &value) != NVML_SUCCESS) return std::nullopt;
        return value;
    }

private:
    nvmlDevice_t device_;
    NvmlDeviceHealth& entry_;
};

std::optional<long long> field_integer(const nvmlFieldValue_t& field) {
    if (field.nvmlReturn != NVML_SUCCESS) return std::nullopt;
    switch (field.valueType) {
        case NVML_VALUE_TYPE_UNSIGNED_INT: return field.value.uiVal;
        case NVML_VALUE_TYPE_UNSIGNED_LONG: return static_cast<long long>(field.value.ulVal);
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return static_cast<long long>(field.value.ullVal);
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return field.value.sllVal;
        case NVML_VALUE_TYPE_SIGNED_INT: return field.value.siVal;
        case NVML_VALUE_TYPE_UNSIGNED_SHORT: return field.value.usVal;
        default: return std::nullopt;
    }
}

// The recovery action and the number of NVLink links, in one field-value query; the link count
// (nullopt where the driver does not say) bounds the per-link queries.
std::optional<long long> read_fields(const NvmlApi& api, GpuQueries& gpu, NvmlDeviceHealth& entry) {
    nvmlFieldValue_t fields[2] = {};
    fields[0].fieldId = NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
    fields[1].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
    if (gpu.call("nvmlDeviceGetFieldValues", api.device_get_field_values, 2, fields) != NVML_SUCCESS)
        return std::nullopt;
    for (const nvmlFieldValue_t& field : fields) gpu.note("nvmlDeviceGetFieldValues", field.nvmlReturn);
    if (auto action = field_integer(fields[0])) entry.recovery_action = static_cast<int>(*action);
    return field_integer(fields[1]);
}

std::string format_cluster_uuid(const unsigned char (&uuid)[NVML_GPU_FABRIC_UUID_LEN]) {
    std::string text;
    for (std::size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        text += fmt::format("{:02x}", uuid[i]);
    }
    return text;
}

// The fabric through nvmlDeviceGetGpuFabricInfoV with the newest struct the driver takes (_v3 from
// r580; an older driver answers NVML_ERROR_ARGUMENT_VERSION_MISMATCH to it and takes _v2), or the
// unversioned query on drivers before r550. Nullopt on GPUs without a fabric (NOT_SUPPORTED).
std::optional<NvmlFabricHealth> read_fabric(const NvmlApi& api, GpuQueries& gpu) {
    if (api.device_get_fabric_info_v != nullptr) {
        nvmlGpuFabricInfo_v3_t info{};
        info.version = nvmlGpuFabricInfo_v3;
        nvmlReturn_t result = gpu.call("nvmlDeviceGetGpuFabricInfoV", api.device_get_fabric_info_v, &info);
        bool has_summary = true;
        if (result == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
            info = nvmlGpuFabricInfo_v3_t{};
            info.version = nvmlGpuFabricInfo_v2;  // _v2's fields are _v3's first ones
            has_summary = false;
            result = gpu.call("nvmlDeviceGetGpuFabricInfoV", api.device_get_fabric_info_v, &info);
        }
        if (result != NVML_SUCCESS) return std::nullopt;
        NvmlFabricHealth fabric{.state = info.state,
                                .status = info.status,
                                .clique_id = info.cliqueId,
                                .cluster_uuid = format_cluster_uuid(info.clusterUuid),
                                .health_mask = info.healthMask};
        if (has_summary) fabric.health_summary = info.healthSummary;
        return fabric;
    }
    nvmlGpuFabricInfo_t info{};
    if (gpu.call("nvmlDeviceGetGpuFabricInfo", api.device_get_fabric_info, &info) != NVML_SUCCESS) return std::nullopt;
    return NvmlFabricHealth{.state = info.state,
                            .status = info.status,
                            .clique_id = info.cliqueId,
                            .cluster_uuid = format_cluster_uuid(info.clusterUuid)};
}

// Each link's state, and the error counters of the active ones (as `nvidia-smi nvlink -s` and
// `-e` show them): links up to the count the driver gave, else until NVML refuses a link number.
std::vector<NvmlLinkHealth> read_nvlinks(const NvmlApi& api, GpuQueries& gpu, std::optional<long long> link_count) {
    std::vector<NvmlLinkHealth> links;
    if (api.device_get_nvlink_state == nullptr) return links;
    const unsigned int count = link_count && *link_count >= 0 && *link_count <= NVML_NVLINK_MAX_LINKS
                                   ? static_cast<unsigned int>(*link_count)
                                   : NVML_NVLINK_MAX_LINKS;
    bool counters = api.device_get_nvlink_error_counter != nullptr;
    for (unsigned int link = 0; link < count; ++link) {
        int state = 0;
        const nvmlReturn_t result = gpu.call("nvmlDeviceGetNvLinkState", api.device_get_nvlink_state, link, &state);
        if (result == NVML_ERROR_INVALID_ARGUMENT || gpu.lost()) break;             // past the GPU's links
        if (result == NVML_ERROR_NOT_SUPPORTED && link == 0 && !link_count) break;  // no NVLink here
        if (result != NVML_SUCCESS) continue;
        NvmlLinkHealth entry{.link = link, .active = state == NVML_FEATURE_ENABLED};
        if (entry.active && counters) {
            const auto counter = [&](int which) {
                return gpu.query<unsigned long long>("nvmlDeviceGetNvLinkErrorCounter",
                                                     api.device_get_nvlink_error_counter, link, which);
            };
            entry.replay = counter(NVML_NVLINK_ERROR_DL_REPLAY);
            // Blackwell answers NOT_SUPPORTED (NVML change log, v565): then ask no more.
            counters = entry.replay.has_value();
            if (counters) {
                entry.recovery = counter(NVML_NVLINK_ERROR_DL_RECOVERY);
                entry.crc_flit = counter(NVML_NVLINK_ERROR_DL_CRC_FLIT);
                entry.crc_data = counter(NVML_NVLINK_ERROR_DL_CRC_DATA);
            }
        }
        links.push_back(entry);
    }
    return links;
}

void read_memory(const NvmlApi& api, GpuQueries& gpu, nvmlDevice_t device, NvmlDeviceHealth& entry) {
    int current = 0;
    int pending = 0;
    if (gpu.call("nvmlDeviceGetEccMode", api.device_get_ecc_mode, &current, &pending) == NVML_SUCCESS) {
        entry.ecc_current = current != 0;
        entry.ecc_pending = pending != 0;
    }
    if (entry.ecc_current.value_or(false)) {
        const auto errors = [&](int type, int counter) {
            return gpu.query<unsigned long long>("nvmlDeviceGetTotalEccErrors", api.device_get_total_ecc_errors, type,
                                                 counter);
        };
        entry.ecc_corrected_volatile = errors(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
        entry.ecc_uncorrected_volatile = errors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
        entry.ecc_corrected_aggregate = errors(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
        entry.ecc_uncorrected_aggregate = errors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
    }
    if (!gpu.lost()) {
        entry.retired_pages_single_bit =
            retired_page_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
        entry.retired_pages_double_bit =
            retired_page_count(api, device, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    }
    if (auto value = gpu.query<int>("nvmlDeviceGetRetiredPagesPendingStatus", api.device_get_retired_pages_pending))
        entry.retirement_pending = *value != 0;
    unsigned int corrected = 0, uncorrected = 0, is_pending = 0, failure = 0;
    if (gpu.call("nvmlDeviceGetRemappedRows", api.device_get_remapped_rows, &corrected, &uncorrected, &is_pending,
                 &failure) == NVML_SUCCESS) {
        entry.remapped_rows_corrected = corrected;
        entry.remapped_rows_uncorrected = uncorrected;
        entry.remap_pending = is_pending != 0;
        entry.remap_failed = failure != 0;
    }
    nvmlUnrepairableMemoryStatus_v1_t unrepairable{};
    if (gpu.call("nvmlDeviceGetUnrepairableMemoryFlag_v1", api.device_get_unrepairable_memory, &unrepairable) ==
        NVML_SUCCESS)
        entry.memory_unrepairable = unrepairable.bUnrepairableMemory != 0;
}

void read_operation(const NvmlApi& api, GpuQueries& gpu, NvmlDeviceHealth& entry) {
    entry.clocks_event_reasons =
        gpu.query<unsigned long long>("nvmlDeviceGetCurrentClocksEventReasons", api.device_get_clocks_event_reasons);
    entry.temperature_c =
        gpu.query<unsigned int>("nvmlDeviceGetTemperature", api.device_get_temperature, NVML_TEMPERATURE_GPU);
    entry.power_mw = gpu.query<unsigned int>("nvmlDeviceGetPowerUsage", api.device_get_power_usage);
    entry.power_limit_mw = gpu.query<unsigned int>("nvmlDeviceGetEnforcedPowerLimit", api.device_get_power_limit);
    entry.pcie_generation =
        gpu.query<unsigned int>("nvmlDeviceGetCurrPcieLinkGeneration", api.device_get_pcie_generation);
    entry.pcie_max_generation =
        gpu.query<unsigned int>("nvmlDeviceGetMaxPcieLinkGeneration", api.device_get_pcie_max_generation);
    entry.pcie_width = gpu.query<unsigned int>("nvmlDeviceGetCurrPcieLinkWidth", api.device_get_pcie_width);
    entry.pcie_max_width = gpu.query<unsigned int>("nvmlDeviceGetMaxPcieLinkWidth", api.device_get_pcie_max_width);
    entry.pcie_replay_count =
        gpu.query<unsigned int>("nvmlDeviceGetPcieReplayCounter", api.device_get_pcie_replay_counter);
    if (auto value = gpu.query<int>("nvmlDeviceGetPersistenceMode", api.device_get_persistence_mode))
        entry.persistence_mode = *value != 0;
}

void read_mig(const NvmlApi& api, GpuQueries& gpu, NvmlDeviceHealth& entry) {
    unsigned int mig_current = 0, mig_pending = 0;
    if (gpu.call("nvmlDeviceGetMigMode", api.device_get_mig_mode, &mig_current, &mig_pending) == NVML_SUCCESS) {
        entry.mig_current = mig_current != 0;
        entry.mig_pending = mig_pending != 0;
    }
    if (!entry.mig_current.value_or(false) || api.device_get_mig_device_by_index == nullptr) return;
    const auto slots = gpu.query<unsigned int>("nvmlDeviceGetMaxMigDeviceCount", api.device_get_max_mig_devices);
    if (!slots) return;
    unsigned int present = 0;
    for (unsigned int slot = 0; slot < std::min(*slots, 64U); ++slot) {
        nvmlDevice_t mig = nullptr;
        if (gpu.call("nvmlDeviceGetMigDeviceHandleByIndex", api.device_get_mig_device_by_index, slot, &mig) !=
            NVML_SUCCESS)
            continue;
        ++present;
        char uuid[96] = {};
        if (api.device_get_uuid(mig, uuid, sizeof uuid) == NVML_SUCCESS) entry.mig_device_uuids.emplace_back(uuid);
    }
    entry.mig_devices = present;
}

bool is_socket(const std::string& path) {
    struct stat status{};
    return ::stat(path.c_str(), &status) == 0 && S_ISSOCK(status.st_mode);
}

// The kernel keeps TASK_COMM_LEN (16) bytes of a process's name, the last one its NUL (proc(5),
// /proc/pid/comm): "nvidia-persistenced" reads "nvidia-persiste" there.
constexpr std::size_t comm_length = 15;

bool comm_is(const std::optional<std::string>& comm, std::string_view name) {
    return comm && sys::trim(*comm) == name.substr(0, comm_length);
}

std::string incorrect_configuration_name(unsigned int value) {
    switch (value) {
        case 2: return "incorrect system GUID";
        case 3: return "incorrect chassis serial number";
        case 4: return "no partition";
        case 5: return "insufficient NVLinks";
        case 6: return "incompatible GPU firmware";
        case 7: return "invalid location";
        case 8: return "GPU state invalid";
        default: return fmt::format("reason {}", value);
    }
}

std::string health_summary_name(int summary) {
    switch (summary) {
        case NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED: return "N/A";
        case NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY: return "Healthy";
        case NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY: return "Unhealthy";
        case NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY: return "Limited Capacity";
        default: return fmt::format("unknown ({})", summary);
    }
}

// "yes", "no" or "N/A" for a two-bit health field (1 true, 2 false, 0 not supported).
std::string_view yes_no_na(unsigned int value) {
    if (value == NVML_GPU_FABRIC_HEALTH_MASK_TRUE) return "yes";
    return value == NVML_GPU_FABRIC_HEALTH_MASK_FALSE ? "no" : "N/A";
}

std::string_view bandwidth_words(unsigned int value) {
    if (value == NVML_GPU_FABRIC_HEALTH_MASK_TRUE) return "degraded";
    return value == NVML_GPU_FABRIC_HEALTH_MASK_FALSE ? "full" : "N/A";
}

std::string configuration_words(unsigned int value) {
    if (value == 0) return "N/A";
    return value == NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE ? "none"
                                                                             : incorrect_configuration_name(value);
}

}  // namespace

std::optional<bool> process_running(const std::string& proc, std::string_view name, std::size_t limit) {
    const std::optional<std::vector<pid_t>> pids = sys::processes_named(proc, name, limit);
    if (!pids) return std::nullopt;
    return !pids->empty();
}

std::optional<bool> persistenced_running(const NvmlHealthSettings& settings) {
    // nvidia-persistenced's run directory holds its pid file and the socket its clients use, which
    // the NVIDIA container runtime mounts into containers (nvidia-persistenced.c: NVPD_PID_FILE;
    // nvidia-container-cli's IPC list). Some images put an empty file or /dev/null there
    // instead: only a socket counts.
    for (const char* run : {"/run/nvidia-persistenced", "/var/run/nvidia-persistenced"}) {
        const std::string directory = settings.root + run;
        if (is_socket(directory + "/socket")) return true;
        if (auto pid = sys::read_file(directory + "/nvidia-persistenced.pid", 32);
            pid && comm_is(sys::read_file(fmt::format("{}/proc/{}/comm", settings.root, sys::trim(*pid)), 64),
                           "nvidia-persistenced"))
            return true;
    }
    const std::optional<bool> seen = process_running(settings.root + "/proc", "nvidia-persistenced");
    // A container sees the host's processes only when it shares their PID namespace.
    if (seen == false && settings.in_container) return std::nullopt;
    return seen;
}

std::string recovery_action_name(int action) {
    switch (action) {
        // As nvidia-smi -q prints them (NVIDIA's "Error Recovery and Response Flags",
        // docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt: None, Reset, Reboot, Drain P2P, Drain and Reset).
        case NVML_GPU_RECOVERY_ACTION_NONE: return "None";
        case NVML_GPU_RECOVERY_ACTION_GPU_RESET: return "Reset";
        case NVML_GPU_RECOVERY_ACTION_NODE_REBOOT: return "Reboot";
        case NVML_GPU_RECOVERY_ACTION_DRAIN_P2P: return "Drain P2P";
        case NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET: return "Drain and Reset";
        // nvml.h's names: how nvidia-smi words these is not published.
        case NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN: return "Recover IMEX Domain";
        case NVML_GPU_RECOVERY_ACTION_BUS_RESET: return "Bus Reset";
        case NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT: return "System Reboot";
        default: return fmt::format("unknown ({})", action);
    }
}

std::string fabric_state_name(int state) {
    switch (state) {
        case NVML_GPU_FABRIC_STATE_NOT_SUPPORTED: return "N/A";
        case NVML_GPU_FABRIC_STATE_NOT_STARTED: return "Not Started";
        case NVML_GPU_FABRIC_STATE_IN_PROGRESS: return "In Progress";
        case NVML_GPU_FABRIC_STATE_COMPLETED: return "Completed";
        default: return fmt::format("unknown ({})", state);
    }
}

FabricHealthBits decode_fabric_health(unsigned int mask) {
    const auto field = [mask](unsigned int shift, unsigned int width) { return (mask >> shift) & width; };
    return FabricHealthBits{
        .degraded_bandwidth =
            field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW, NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_DEGRADED_BW),
        .route_recovery =
            field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY, NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_RECOVERY),
        .route_unhealthy =
            field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY, NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ROUTE_UNHEALTHY),
        .access_timeout_recovery = field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY,
                                         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_ACCESS_TIMEOUT_RECOVERY),
        .incorrect_configuration = field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION,
                                         NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION),
        .partition_assigned = field(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED,
                                    NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_PARTITION_ASSIGNED),
    };
}

std::vector<std::string> fabric_health_problems(const NvmlFabricHealth& fabric) {
    std::vector<std::string> problems;
    if (fabric.health_mask) {
        const FabricHealthBits bits = decode_fabric_health(*fabric.health_mask);
        if (bits.degraded_bandwidth == NVML_GPU_FABRIC_HEALTH_MASK_TRUE) problems.emplace_back("bandwidth degraded");
        if (bits.route_recovery == NVML_GPU_FABRIC_HEALTH_MASK_TRUE)
            problems.emplace_back("route recovery in progress");
        if (bits.route_unhealthy == NVML_GPU_FABRIC_HEALTH_MASK_TRUE) problems.emplace_back("route unhealthy");
        if (bits.access_timeout_recovery == NVML_GPU_FABRIC_HEALTH_MASK_TRUE)
            problems.emplace_back("access timeout recovery in progress");
        if (bits.incorrect_configuration > NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_NONE)
            problems.push_back("incorrect configuration: " +
                               incorrect_configuration_name(bits.incorrect_configuration));
    }
    if (fabric.health_summary == NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY ||
        fabric.health_summary == NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY)
        problems.push_back("health summary " + health_summary_name(*fabric.health_summary));
    return problems;
}

std::string describe_fabric(const NvmlFabricHealth& fabric) {
    if (fabric.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) return "state N/A, status N/A";
    std::string status = "N/A";
    if (fabric.state == NVML_GPU_FABRIC_STATE_COMPLETED)
        status = fabric.status == NVML_SUCCESS ? "Success" : nvml_return_name(fabric.status);
    std::string text = fmt::format("state {}, status {}", fabric_state_name(fabric.state), status);
    if (fabric.state != NVML_GPU_FABRIC_STATE_COMPLETED) return text;  // clique and health come with registration
    text += fmt::format(", clique {}, cluster {}", fabric.clique_id, fabric.cluster_uuid);
    if (fabric.health_summary) text += fmt::format("; health summary {}", health_summary_name(*fabric.health_summary));
    if (fabric.health_mask) {
        const FabricHealthBits bits = decode_fabric_health(*fabric.health_mask);
        text += fmt::format(
            "{} bandwidth {}, route recovery in progress {}, route unhealthy {}, access timeout recovery {}, incorrect "
            "configuration {}",
            fabric.health_summary ? "," : ";", bandwidth_words(bits.degraded_bandwidth), yes_no_na(bits.route_recovery),
            yes_no_na(bits.route_unhealthy), yes_no_na(bits.access_timeout_recovery),
            configuration_words(bits.incorrect_configuration));
    }
    return text;
}

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

std::vector<NvmlDeviceHealth> collect_nvml_health(const NvmlFacts& nvml, const NvmlHealthSettings& settings) {
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
        const nvmlReturn_t handle =
            api.device_get_handle_by_index(static_cast<unsigned int>(entry.nvml_index), &device);
        note_answer(entry, "nvmlDeviceGetHandleByIndex_v2", handle);
        if (handle == NVML_SUCCESS) {
            GpuQueries gpu(device, entry);
            const std::optional<long long> link_count = read_fields(api, gpu, entry);
            read_memory(api, gpu, device, entry);
            read_operation(api, gpu, entry);
            read_mig(api, gpu, entry);
            entry.fabric = read_fabric(api, gpu);
            entry.nvlinks = read_nvlinks(api, gpu, link_count);
        }
        health.push_back(std::move(entry));
    }
    // Needed only to tell legacy persistence mode from the daemon's, and a /proc scan costs.
    if (std::any_of(health.begin(), health.end(),
                    [](const NvmlDeviceHealth& gpu) { return gpu.persistence_mode.value_or(false); })) {
        const std::optional<bool> running = persistenced_running(settings);
        for (NvmlDeviceHealth& gpu : health) gpu.persistenced_running = running;
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
    NvmlClockSample sample = sm_clock_and_temperature(seconds);
    if (!api_) return sample;
    const NvmlApi& api = api_->api;
    sample.clocks_event_reasons = nvml_query<unsigned long long>(api.device_get_clocks_event_reasons, api_->device);
    sample.power_mw = nvml_query<unsigned int>(api.device_get_power_usage, api_->device);
    return sample;
}

NvmlClockSample NvmlClockSampler::sm_clock_and_temperature(double seconds) const {
    NvmlClockSample sample;
    sample.seconds = seconds;
    if (!api_) return sample;
    const NvmlApi& api = api_->api;
    sample.sm_clock_mhz = nvml_query<unsigned int>(api.device_get_clock_info, api_->device, NVML_CLOCK_SM);
    sample.temperature_c = nvml_query<unsigned int>(api.device_get_temperature, api_->device, NVML_TEMPERATURE_GPU);
    return sample;
}

}  // namespace cudacheck
