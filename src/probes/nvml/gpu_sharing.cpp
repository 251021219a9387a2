#include "probes/nvml/gpu_sharing.hpp"

#include <algorithm>
#include <map>

namespace cudacheck {

namespace {

using namespace nvml;

std::optional<std::vector<ProcessUtilizationSample>> utilization_since(const NvmlApi& api, nvmlDevice_t device,
                                                                       std::int64_t since_us) {
    if (api.device_get_process_utilization == nullptr) return std::nullopt;
    const auto since = static_cast<unsigned long long>(std::max<std::int64_t>(since_us, 0));
    unsigned int count = 0;
    nvmlReturn_t result = api.device_get_process_utilization(device, nullptr, &count, since);
    if (result == NVML_ERROR_NOT_FOUND)
        return std::vector<ProcessUtilizationSample>{};  // no process used the GPU since
    if (result != NVML_SUCCESS && result != NVML_ERROR_INSUFFICIENT_SIZE) return std::nullopt;  // not supported here
    std::vector<nvmlProcessUtilizationSample_t> buffer(std::max(count, 1u) + 8);
    count = static_cast<unsigned int>(buffer.size());
    result = api.device_get_process_utilization(device, buffer.data(), &count, since);
    if (result == NVML_ERROR_NOT_FOUND) return std::vector<ProcessUtilizationSample>{};
    if (result != NVML_SUCCESS) return std::nullopt;
    std::vector<ProcessUtilizationSample> samples;
    for (unsigned int i = 0; i < count && i < buffer.size(); ++i)
        samples.push_back({buffer[i].pid, static_cast<std::int64_t>(buffer[i].timeStamp), buffer[i].smUtil});
    return samples;
}

bool in_a_window(std::int64_t timestamp_us, const std::vector<TimedSpan>& spans) {
    return std::any_of(spans.begin(), spans.end(), [&](const TimedSpan& span) {
        return timestamp_us >= span.start_us - utilization_sample_period_us &&
               timestamp_us <= span.end_us + utilization_sample_period_us;
    });
}

}  // namespace

std::optional<GpuSharing> judge_sharing(int device, const SharingSnapshot& snapshot,
                                        const std::vector<TimedSpan>& all_spans,
                                        const std::vector<unsigned int>& own_pids) {
    std::vector<TimedSpan> spans;
    for (const TimedSpan& span : all_spans)
        if (span.device == device) spans.push_back(span);
    if (spans.empty()) return std::nullopt;
    const auto own = [&](unsigned int pid) {
        return std::find(own_pids.begin(), own_pids.end(), pid) != own_pids.end();
    };
    const std::vector<GpuProcess> no_processes;
    const std::vector<GpuProcess>& listed = snapshot.processes ? *snapshot.processes : no_processes;
    // cudacheck holds a context on the GPU it timed: NVML lists it, unless its pids are another PID
    // namespace's (a container without the host's).
    const bool same_namespace =
        std::any_of(listed.begin(), listed.end(), [&](const GpuProcess& process) { return own(process.pid); });
    const auto listed_process = [&](unsigned int pid) -> const GpuProcess* {
        for (const GpuProcess& process : listed)
            if (process.pid == pid) return &process;
        return nullptr;
    };
    GpuSharing sharing;
    sharing.device = device;
    if (snapshot.samples) {
        std::map<unsigned int, unsigned int> busiest;  // pid -> highest SM % in a window
        for (const ProcessUtilizationSample& sample : *snapshot.samples)
            if (sample.sm_percent > 0 && in_a_window(sample.timestamp_us, spans))
                busiest[sample.pid] = std::max(busiest[sample.pid], sample.sm_percent);
        if (same_namespace) {
            sharing.method = "per-process utilization";
            std::erase_if(busiest, [&](const auto& entry) { return own(entry.first); });
        } else {
            // One of the busy pids is cudacheck's own, under a number this namespace does not know.
            sharing.method = "per-process utilization, other PID namespace";
            if (busiest.size() < 2) busiest.clear();
        }
        for (const auto& [pid, percent] : busiest) {
            const GpuProcess* process = same_namespace ? listed_process(pid) : nullptr;
            sharing.processes.push_back({pid, process != nullptr ? process->name : std::string(),
                                         static_cast<double>(percent),
                                         process != nullptr ? process->used_bytes : std::nullopt});
        }
    } else if (same_namespace) {
        sharing.method = "process list";
        for (const GpuProcess& process : listed)
            if (!own(process.pid))
                sharing.processes.push_back({process.pid, process.name, std::nullopt, process.used_bytes});
    }
    if (sharing.processes.empty()) return std::nullopt;
    // The busiest first.
    std::stable_sort(sharing.processes.begin(), sharing.processes.end(),
                     [](const SharingProcess& a, const SharingProcess& b) {
                         return a.sm_percent.value_or(-1) > b.sm_percent.value_or(-1);
                     });
    return sharing;
}

struct GpuSharingProbe::Api {
    NvmlApi api;
};

GpuSharingProbe::GpuSharingProbe(const NvmlFacts& nvml) {
    if (!nvml.initialised()) return;
    if (nvml.api.device_get_handle_by_index == nullptr) return;
    auto api = std::make_unique<Api>();
    api->api = nvml.api;
    api_ = std::move(api);
    devices_ = nvml.devices;
}

GpuSharingProbe::GpuSharingProbe(GpuSharingProbe&&) noexcept = default;
GpuSharingProbe::~GpuSharingProbe() = default;

bool GpuSharingProbe::ok() const { return api_ != nullptr; }

SharingSnapshot GpuSharingProbe::snapshot(std::string_view pci_bus_id, std::int64_t since_us) const {
    SharingSnapshot snapshot;
    if (!api_) return snapshot;
    nvmlDevice_t device = nvml_handle_of_pci_bus_id(api_->api, devices_, pci_bus_id);
    if (device == nullptr) return snapshot;
    std::vector<GpuProcess> processes;
    const bool compute = append_nvml_processes(api_->api.device_get_compute_processes, device, processes);
    const bool graphics = append_nvml_processes(api_->api.device_get_graphics_processes, device, processes);
    if (compute || graphics) {
        // A process with both a compute and a graphics context is listed twice.
        std::sort(processes.begin(), processes.end(),
                  [](const GpuProcess& a, const GpuProcess& b) { return a.pid < b.pid; });
        processes.erase(std::unique(processes.begin(), processes.end(),
                                    [](const GpuProcess& a, const GpuProcess& b) { return a.pid == b.pid; }),
                        processes.end());
        snapshot.processes = std::move(processes);
    }
    snapshot.samples = utilization_since(api_->api, device, since_us);
    return snapshot;
}

}  // namespace cudacheck
