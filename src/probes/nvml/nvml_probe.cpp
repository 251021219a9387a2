#include "probes/nvml/nvml_probe.hpp"

#include "cuda/cuda_facts.hpp"
#include "probes/driver_probe.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

namespace cudacheck {

namespace {

using namespace nvml;

std::string compute_mode_name(int mode) {
    switch (mode) {
        case 0: return "default";
        case 1: return "exclusive_thread";
        case 2: return "prohibited";
        case 3: return "exclusive_process";
        default: return fmt::format("unknown({})", mode);
    }
}

DeviceInfo describe_device(const NvmlApi& api, unsigned int index, std::vector<std::string>& errors) {
    DeviceInfo info;
    info.ordinal = static_cast<int>(index);
    info.source = "nvml";
    info.nvml_index = static_cast<int>(index);
    const auto failed = [&](std::string_view what, nvmlReturn_t result) {
        errors.push_back(fmt::format("NVML device {}: {} failed: {}", index, what, nvml_return_name(result)));
    };
    nvmlDevice_t device = nullptr;
    if (nvmlReturn_t result = api.device_get_handle_by_index(index, &device); result != NVML_SUCCESS) {
        failed("nvmlDeviceGetHandleByIndex", result);
        return info;
    }
    char text[256] = {};
    if (nvmlReturn_t result = api.device_get_name(device, text, sizeof text); result == NVML_SUCCESS) info.name = text;
    else failed("nvmlDeviceGetName", result);
    if (nvmlReturn_t result = api.device_get_uuid(device, text, sizeof text); result == NVML_SUCCESS) info.uuid = text;
    else failed("nvmlDeviceGetUUID", result);
    nvmlPciInfo_t pci{};
    if (nvmlReturn_t result = api.device_get_pci_info(device, &pci); result == NVML_SUCCESS)
        info.pci_bus_id = normalize_pci_bus_id(pci.busId);
    else failed("nvmlDeviceGetPciInfo_v3", result);
    if (nvmlReturn_t result = api.device_get_cuda_compute_capability(device, &info.cc_major, &info.cc_minor);
        result != NVML_SUCCESS)
        failed("nvmlDeviceGetCudaComputeCapability", result);
    info.architecture = std::string(architecture_name(info.cc_major, info.cc_minor));
    nvmlMemory_t memory{};
    if (nvmlReturn_t result = api.device_get_memory_info(device, &memory); result == NVML_SUCCESS)
        info.total_memory_bytes = *(info.framebuffer_bytes = memory.total);
    else failed("nvmlDeviceGetMemoryInfo", result);
    unsigned int value = 0;
    if (api.device_get_max_clock_info(device, NVML_CLOCK_SM, &value) == NVML_SUCCESS)
        info.sm_clock_khz = static_cast<int>(value) * 1000;
    if (api.device_get_max_clock_info(device, NVML_CLOCK_MEM, &value) == NVML_SUCCESS)
        info.memory_clock_khz = static_cast<int>(value) * 1000;
    // Optional entry points (newer drivers): absent or unsupported leaves the field unknown (0).
    if (api.device_get_memory_bus_width != nullptr && api.device_get_memory_bus_width(device, &value) == NVML_SUCCESS)
        info.memory_bus_width_bits = static_cast<int>(value);
    const auto lanes = fp32_lanes_per_sm(info.cc_major, info.cc_minor);
    if (api.device_get_num_gpu_cores != nullptr && lanes &&
        api.device_get_num_gpu_cores(device, &value) == NVML_SUCCESS)
        info.multiprocessors = static_cast<int>(value) / *lanes;
    int current = 0;
    int pending = 0;
    if (api.device_get_ecc_mode(device, &current, &pending) == NVML_SUCCESS) info.ecc_enabled = current != 0;
    int mode = 0;
    if (api.device_get_compute_mode(device, &mode) == NVML_SUCCESS) info.compute_mode = compute_mode_name(mode);
    derive_device_rates(info);
    return info;
}

// Runs of whitespace (the stub's banner spans lines and rows of '!') as one space, trimmed.
std::string collapse_whitespace(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// The compute processes on a device other than this one; nullopt when NVML cannot list them.
std::optional<std::vector<GpuProcess>> other_processes(const NvmlApi& api, nvmlDevice_t device) {
    std::vector<GpuProcess> processes;
    if (!append_nvml_processes(api.device_get_compute_processes, device, processes)) return std::nullopt;
    const auto self = static_cast<unsigned int>(::getpid());
    std::erase_if(processes, [&](const GpuProcess& process) { return process.pid == self; });
    return processes;
}

NvmlDeviceUsage describe_usage(const NvmlApi& api, unsigned int index) {
    NvmlDeviceUsage usage;
    usage.nvml_index = static_cast<int>(index);
    nvmlDevice_t device = nullptr;
    if (api.device_get_handle_by_index(index, &device) != NVML_SUCCESS) return usage;
    nvmlMemory_t memory{};
    if (api.device_get_memory_info(device, &memory) == NVML_SUCCESS) {
        usage.free_bytes = memory.free;
        usage.total_bytes = memory.total;
    }
    usage.processes = other_processes(api, device);
    return usage;
}

}  // namespace

bool append_nvml_processes(NvmlProcessList list, nvmlDevice_t device, std::vector<GpuProcess>& processes) {
    if (list == nullptr) return false;
    std::vector<nvmlProcessInfo_t> infos(16);
    unsigned int count = static_cast<unsigned int>(infos.size());
    nvmlReturn_t result = list(device, &count, infos.data());
    // Processes may start between the calls: retry with room to spare, a few times.
    for (int attempt = 0; result == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 3; ++attempt) {
        infos.resize(count + 8);
        count = static_cast<unsigned int>(infos.size());
        result = list(device, &count, infos.data());
    }
    if (result != NVML_SUCCESS) return false;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
        GpuProcess process;
        process.pid = infos[i].pid;
        if (infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) process.used_bytes = infos[i].usedGpuMemory;
        if (auto comm = sys::read_file(fmt::format("/proc/{}/comm", process.pid), 64))
            process.name = std::string(sys::trim(*comm));
        processes.push_back(std::move(process));
    }
    return true;
}

std::string describe_processes(std::vector<GpuProcess> processes) {
    std::sort(processes.begin(), processes.end(), [](const GpuProcess& a, const GpuProcess& b) {
        return a.used_bytes.value_or(0) > b.used_bytes.value_or(0);
    });
    constexpr std::size_t shown = 3;
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < processes.size() && i < shown; ++i) {
        const GpuProcess& process = processes[i];
        parts.push_back(fmt::format("pid {}{}{}", process.pid, process.name.empty() ? "" : " " + process.name,
                                    process.used_bytes ? fmt::format(" ({})", format_bytes(*process.used_bytes)) : ""));
    }
    std::string text = fmt::format("{}", fmt::join(parts, ", "));
    if (processes.size() > shown) text += fmt::format(" and {} more", processes.size() - shown);
    return text;
}

const NvmlDeviceUsage* NvmlFacts::usage_of_pci_bus_id(std::string_view pci_bus_id) const {
    for (const DeviceInfo& device : devices)
        if (!pci_bus_id.empty() && device.pci_bus_id == pci_bus_id) return usage_of(device.nvml_index);
    return nullptr;
}

const NvmlDeviceUsage* NvmlFacts::usage_of(std::optional<int> nvml_index) const {
    if (!nvml_index) return nullptr;
    for (const NvmlDeviceUsage& entry : usage)
        if (entry.nvml_index == *nvml_index) return &entry;
    return nullptr;
}

void attach_nvml_facts(std::vector<DeviceInfo>& devices, const NvmlFacts& nvml) {
    for (DeviceInfo& device : devices)
        for (const DeviceInfo& physical : nvml.devices)
            if (!device.pci_bus_id.empty() && physical.pci_bus_id == device.pci_bus_id) {
                device.nvml_index = physical.nvml_index;
                device.framebuffer_bytes = physical.framebuffer_bytes;
            }
}

nvmlDevice_t nvml_handle_of_pci_bus_id(const NvmlApi& api, const std::vector<DeviceInfo>& listed,
                                       std::string_view pci_bus_id) {
    if (pci_bus_id.empty() || api.device_get_handle_by_index == nullptr) return nullptr;
    const auto gpu = std::find_if(listed.begin(), listed.end(),
                                  [&](const DeviceInfo& device) { return device.pci_bus_id == pci_bus_id; });
    if (gpu == listed.end()) return nullptr;
    // NVML's devices are numbered by their NVML index (describe_device sets both).
    nvmlDevice_t handle = nullptr;
    if (api.device_get_handle_by_index(static_cast<unsigned int>(gpu->nvml_index.value_or(gpu->ordinal)), &handle) !=
        NVML_SUCCESS)
        return nullptr;
    return handle;
}

NvmlFacts collect_nvml() {
    const trace::Span span("NVML: open, init, query every GPU");
    NvmlFacts facts;
    // Announced steps (util/actions.hpp): one that killed or hung an earlier process is not retried.
    const actions::Action opening{actions::Kind::load, "libnvidia-ml.so.1"};
    const actions::Action initialising{actions::Kind::driver_call, "nvmlInit"};
    for (const actions::Action* step : {&opening, &initialising})
        if (const actions::Failure* failure = actions::failed(*step)) {
            facts.step_failure = *failure;
            facts.failed_step = actions::describe(*step);
            facts.library =
                DynamicLibrary::refused("libnvidia-ml.so.1", fmt::format("{} {}", facts.failed_step, failure->how));
            return facts;
        }
    {
        const actions::Announced announced(opening);
        facts.library = DynamicLibrary::open("libnvidia-ml.so.1");
    }
    if (!facts.library.ok()) return facts;
    facts.missing_symbols = bind_symbols(facts.library, nvml_symbols, facts.api);
    const NvmlApi& api = facts.api;
    if (!facts.missing_symbols.empty()) return facts;

    const nvmlReturn_t init = [&] {
        const trace::Span init_span("nvmlInit");
        const actions::Announced announced(initialising);
        return api.init();
    }();
    facts.init_result = init;
    if (init != NVML_SUCCESS) {
        const char* text = api.error_string(init);
        const std::string_view said = text != nullptr ? text : "";
        // The toolkit's stub answers every call with NVML_ERROR_DRIVER_NOT_LOADED and, as its error
        // string, a banner ("... libnvidia-ml.so in GDK package is a stub library that is attached
        // only for build purposes ..."): evidence, not a message.
        facts.stub = facts.library.loaded_path().find("/stubs/") != std::string::npos ||
                     said.find("stub library") != std::string_view::npos;
        if (facts.stub) {
            facts.stub_banner = sys::printable(collapse_whitespace(said));
            facts.init_error = nvml_return_name(init);
        } else {
            facts.init_error = fmt::format("{} ({})", nvml_return_name(init), sys::printable(said));
        }
        return facts;
    }
    char version[96] = {};
    if (api.system_get_driver_version(version, sizeof version) == NVML_SUCCESS) facts.driver_version = version;
    int cuda = 0;
    if (api.system_get_cuda_driver_version(&cuda) == NVML_SUCCESS) facts.cuda_driver_version = cuda;
    unsigned int count = 0;
    if (nvmlReturn_t result = api.device_get_count(&count); result != NVML_SUCCESS) {
        facts.device_errors.push_back(fmt::format("nvmlDeviceGetCount failed: {}", nvml_return_name(result)));
        return facts;
    }
    for (unsigned int index = 0; index < count; ++index) {
        {
            const trace::Span device_span(fmt::format("NVML: facts of GPU {}", index));
            facts.devices.push_back(describe_device(api, index, facts.device_errors));
        }
        const trace::Span usage_span(fmt::format("NVML: usage of GPU {}", index));
        facts.usage.push_back(describe_usage(api, index));
        nvmlDevice_t device = nullptr;
        unsigned int current = 0;
        unsigned int pending = 0;
        // GPUs without MIG answer NVML_ERROR_NOT_SUPPORTED.
        if (api.device_get_mig_mode != nullptr && api.device_get_handle_by_index(index, &device) == NVML_SUCCESS &&
            api.device_get_mig_mode(device, &current, &pending) == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE)
            facts.mig_enabled.push_back(static_cast<int>(index));
    }
    // No nvmlShutdown: the process is about to end, and shutting down costs time for nothing.
    return facts;
}

}  // namespace cudacheck
