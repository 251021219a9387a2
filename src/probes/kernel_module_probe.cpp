#include "probes/kernel_module_probe.hpp"

#include "util/system.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <regex>
#include <unistd.h>

namespace cudacheck {

std::optional<ModuleVersion> parse_proc_driver_version(std::string_view text) {
    // Proprietary: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 …"
    // Open:        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build …"
    // Jetson:      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build …"
    static const std::regex pattern(R"(NVRM version:.*?Kernel Module(?: for (\S+))?\s+(\d+(?:\.\d+)+))");
    const std::string first_line(text.substr(0, text.find('\n')));
    std::smatch match;
    if (!std::regex_search(first_line, match, pattern)) return std::nullopt;
    ModuleVersion version;
    version.version = match[2];
    version.open_module = first_line.find("Open Kernel Module") != std::string::npos;
    if (match[1].matched) {
        version.architecture = match[1];
    } else {
        static const std::regex proprietary_arch(R"(NVIDIA UNIX (\S+) Kernel Module)");
        std::smatch arch;
        if (std::regex_search(first_line, arch, proprietary_arch)) version.architecture = arch[1];
    }
    return version;
}

ProcGpu parse_gpu_information(std::string_view text) {
    ProcGpu gpu;
    for (const std::string& line : sys::split(text, '\n')) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string_view key = sys::trim(std::string_view(line).substr(0, colon));
        const std::string value(sys::trim(std::string_view(line).substr(colon + 1)));
        if (key == "Model") gpu.model = value;
        else if (key == "GPU UUID") gpu.uuid = value;
        else if (key == "Bus Location") gpu.bus_location = value;
    }
    return gpu;
}

namespace {

DeviceNode probe_node(const std::string& path) {
    DeviceNode node;
    node.path = path;
    node.exists = sys::exists(path);
    if (!node.exists) return node;
    // Opening is what CUDA does; access() would miss container device-cgroup denials.
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        node.openable = true;
        ::close(fd);
    } else {
        node.error = std::strerror(errno);
    }
    return node;
}

bool is_gpu_node_name(const std::string& name) {
    if (!sys::starts_with(name, "nvidia") || name.size() == 6) return false;
    for (std::size_t i = 6; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return false;
    return true;
}

}  // namespace

KernelModuleFacts collect_kernel_module(const std::string& root) {
    KernelModuleFacts facts;
    if (auto text = sys::read_file(root + "/proc/driver/nvidia/version")) facts.module = parse_proc_driver_version(*text);
    facts.sys_module_version = std::string(sys::trim(sys::read_file(root + "/sys/module/nvidia/version").value_or("")));
    const std::string gpus_dir = root + "/proc/driver/nvidia/gpus";
    for (const std::string& bus : sys::list_directory(gpus_dir)) {
        ProcGpu gpu = parse_gpu_information(sys::read_file(gpus_dir + "/" + bus + "/information").value_or(""));
        if (gpu.bus_location.empty()) gpu.bus_location = bus;
        facts.gpus.push_back(std::move(gpu));
    }
    facts.nodes.push_back(probe_node(root + "/dev/nvidiactl"));
    for (const std::string& name : sys::list_directory(root + "/dev"))
        if (is_gpu_node_name(name)) facts.nodes.push_back(probe_node(root + "/dev/" + name));
    facts.nodes.push_back(probe_node(root + "/dev/nvidia-uvm"));
    const std::string pci_dir = root + "/sys/bus/pci/devices";
    for (const std::string& address : sys::list_directory(pci_dir)) {
        const std::string device_dir = pci_dir + "/" + address;
        if (sys::trim(sys::read_file(device_dir + "/vendor").value_or("")) != "0x10de") continue;
        // Display controllers are class 0x03xxxx (VGA 0x0300, 3D 0x0302); skip NVIDIA bridges and audio.
        if (!sys::starts_with(sys::trim(sys::read_file(device_dir + "/class").value_or("")), "0x03")) continue;
        const std::string driver_link = sys::read_link(device_dir + "/driver");
        facts.pci_devices.push_back({address, driver_link.substr(driver_link.find_last_of('/') + 1)});
    }
    facts.nouveau_loaded = sys::is_directory(root + "/sys/module/nouveau");
    if (sys::exists(root + "/dev/dxg")) facts.dxg = probe_node(root + "/dev/dxg");
    return facts;
}

}  // namespace cudacheck
