#include "report/remedy.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cudacheck {

int action_class_rank(Remedy remedy) {
    switch (remedy) {
        case Remedy::none: return 0;
        case Remedy::restart_app: return 1;
        case Remedy::fix_config: return 2;
        case Remedy::investigate: return 3;
        case Remedy::reset_gpu:
        case Remedy::drain_p2p:
        case Remedy::bus_reset:
        case Remedy::reboot: return 4;
        case Remedy::service: return 5;
    }
    return 0;
}

namespace {

// The device a finding names, by its GPU (UUID or PCI bus id) or its CUDA ordinal.
const DeviceInfo* device_of(const Report& report, const Finding& finding, const CheckResult& result) {
    for (const DeviceInfo& device : report.devices) {
        if (!finding.gpu.empty() && (finding.gpu == device.uuid || finding.gpu == device.pci_bus_id)) return &device;
        const std::optional<int> ordinal = finding.device ? finding.device : result.device;
        if (finding.gpu.empty() && ordinal && device.ordinal == *ordinal) return &device;
    }
    return nullptr;
}

// The key a GPU's findings are joined over: the UUID where the report knows it.
std::string gpu_key(const Finding& finding, const DeviceInfo* device) {
    if (device != nullptr && !device->uuid.empty()) return device->uuid;
    if (!finding.gpu.empty()) return finding.gpu;
    return device != nullptr ? device->pci_bus_id : std::string{};
}

bool stronger_for_node(Remedy candidate, Remedy current) {
    const int rank = action_class_rank(candidate);
    const int current_rank = action_class_rank(current);
    return rank != current_rank ? rank > current_rank : candidate > current;
}

}  // namespace

RemedyPlan plan_remedy(const Report& report) {
    RemedyPlan plan;
    for (const CheckResult& result : report.checks) {
        for (const Finding& finding : result.findings) {
            if (finding.remedy == Remedy::none) continue;
            const RemedyReason reason{result.check_id, finding.code, finding.status, finding.remedy, finding.message};
            if (stronger_for_node(finding.remedy, plan.step)) plan.step = finding.remedy;
            if (finding.remedy == Remedy::fix_config) {
                plan.configuration.push_back(reason);
                continue;
            }
            const DeviceInfo* device = device_of(report, finding, result);
            const bool of_one_gpu = !finding.gpu.empty() || finding.device.has_value() || result.device.has_value();
            const std::string key = gpu_key(finding, device);
            if (!of_one_gpu || key.empty()) {
                plan.node.push_back(reason);
                continue;
            }
            auto gpu =
                std::find_if(plan.gpus.begin(), plan.gpus.end(), [&](const GpuRemedy& g) { return g.gpu == key; });
            if (gpu == plan.gpus.end()) {
                GpuRemedy added;
                added.gpu = key;
                if (device != nullptr) {
                    added.pci_bus_id = device->pci_bus_id;
                    added.nvml_index = device->nvml_index;
                    added.cuda_device = device->ordinal;
                }
                plan.gpus.push_back(std::move(added));
                gpu = std::prev(plan.gpus.end());
            }
            if (on_gpu_ladder(finding.remedy) && finding.remedy > gpu->step) gpu->step = finding.remedy;
            gpu->because.push_back(reason);
        }
    }
    // The most disruptive first within each GPU's reasons; GPUs in NVML (PCI) order where known.
    for (GpuRemedy& gpu : plan.gpus)
        std::stable_sort(gpu.because.begin(), gpu.because.end(),
                         [](const RemedyReason& a, const RemedyReason& b) { return a.remedy > b.remedy; });
    std::stable_sort(plan.gpus.begin(), plan.gpus.end(), [](const GpuRemedy& a, const GpuRemedy& b) {
        return a.nvml_index.value_or(1 << 20) < b.nvml_index.value_or(1 << 20);
    });
    return plan;
}

std::string describe_step(Remedy step, std::optional<int> nvml_index) {
    const std::string gpu = nvml_index ? fmt::format("GPU {}", *nvml_index) : std::string("the GPU");
    const std::string index = nvml_index ? fmt::format(" -i {}", *nvml_index) : std::string(" -i <index>");
    switch (step) {
        case Remedy::none: return "nothing";
        case Remedy::fix_config: return "fix the configuration the findings name";
        case Remedy::investigate: return "investigate before relying on it";
        case Remedy::restart_app: return "restart (or fix) the application; nothing for the GPU";
        case Remedy::reset_gpu:
            return fmt::format("drain {}'s work and reset it (`sudo nvidia-smi -r{}`), or reboot", gpu, index);
        case Remedy::drain_p2p:
            return fmt::format("drain peer-to-peer (multi-GPU) work from {}, then reset it (`sudo nvidia-smi -r{}`)",
                               gpu, index);
        case Remedy::bus_reset: return fmt::format("drain the node and reset {} on the PCIe bus, or reboot", gpu);
        case Remedy::reboot: return "drain the node and reboot it";
        case Remedy::service: return fmt::format("take {} out of service and have it repaired or replaced", gpu);
    }
    return "nothing";
}

}  // namespace cudacheck
