#include "probes/kernel_module_probe.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace cudacheck {

namespace {

// The first line is scanned by hand, as the pattern
// `NVRM version:.*?Kernel Module(?: for (\S+))?\s+(\d+(?:\.\d+)+)` matched it: libstdc++'s
// std::regex recurses once per character it repeats, so a long line (a crafted file under --root,
// a driver's future banner) could end the process with SIGSEGV. Linear in the line.

bool is_digit(char c) { return c >= '0' && c <= '9'; }
// ECMAScript's \s in the "C" locale.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

template <typename Keep>
std::size_t run_end(std::string_view text, std::size_t at, Keep&& keep) {
    while (at < text.size() && keep(text[at])) ++at;
    return at;
}

// From `at`: whitespace, then a version of two or more numbers ("580.159.04"); the version or
// nullopt.
std::optional<std::string_view> spaced_version(std::string_view line, std::size_t at) {
    const std::size_t start = run_end(line, at, is_space);
    if (start == at) return std::nullopt;
    std::size_t end = run_end(line, start, is_digit);
    if (end == start) return std::nullopt;
    int numbers = 1;
    while (end + 1 < line.size() && line[end] == '.' && is_digit(line[end + 1])) {
        end = run_end(line, end + 1, is_digit);
        ++numbers;
    }
    if (numbers < 2) return std::nullopt;
    return line.substr(start, end - start);
}

struct ModuleMatch {
    std::string_view architecture;  // after "for"; empty when the line has none
    std::string_view version;
};

// What follows a "Kernel Module" at `at`: " for ARCH" and the version, or the version alone.
std::optional<ModuleMatch> after_kernel_module(std::string_view line, std::size_t at) {
    constexpr std::string_view for_word = " for ";
    if (line.substr(at, for_word.size()) == for_word) {
        const std::size_t start = at + for_word.size();
        const std::size_t end = run_end(line, start, [](char c) { return !is_space(c); });
        if (end > start)
            if (const auto version = spaced_version(line, end))
                return ModuleMatch{line.substr(start, end - start), *version};
    }
    if (const auto version = spaced_version(line, at)) return ModuleMatch{{}, *version};
    return std::nullopt;
}

std::optional<ModuleMatch> match_module_line(std::string_view line) {
    constexpr std::string_view nvrm = "NVRM version:", module = "Kernel Module";
    std::size_t from = 0;
    while (true) {
        const std::size_t start = line.find(nvrm, from);
        if (start == std::string_view::npos) return std::nullopt;
        // `.*?` stops at a line break ('\r' here: the line ends at the first '\n').
        const std::size_t stop = std::min(line.find_first_of("\r\n", start), line.size());
        for (std::size_t at = line.find(module, start + nvrm.size()); at < stop; at = line.find(module, at + 1))
            if (const auto found = after_kernel_module(line, at + module.size())) return found;
        // A later "NVRM version:" before the break sees only fewer "Kernel Module"s: none of them matches.
        if (stop >= line.size()) return std::nullopt;
        from = stop + 1;
    }
}

}  // namespace

std::optional<ModuleVersion> parse_proc_driver_version(std::string_view text) {
    // Proprietary: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 …"
    // Open:        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build …"
    // Jetson:      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build …"
    const std::string_view first_line = text.substr(0, text.find('\n'));
    const std::optional<ModuleMatch> match = match_module_line(first_line);
    if (!match) return std::nullopt;
    ModuleVersion version;
    version.version = std::string(match->version);
    version.open_module = first_line.find("Open Kernel Module") != std::string_view::npos;
    if (!match->architecture.empty()) {
        version.architecture = std::string(match->architecture);
    } else {
        // "NVIDIA UNIX (\S+) Kernel Module": the word between them.
        constexpr std::string_view unix_word = "NVIDIA UNIX ", module = " Kernel Module";
        for (std::size_t at = first_line.find(unix_word); at != std::string_view::npos;
             at = first_line.find(unix_word, at + 1)) {
            const std::size_t start = at + unix_word.size();
            const std::size_t end = run_end(first_line, start, [](char c) { return !is_space(c); });
            if (end > start && first_line.substr(end, module.size()) == module) {
                version.architecture = std::string(first_line.substr(start, end - start));
                break;
            }
        }
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
    if (auto text = sys::read_file(root + "/proc/driver/nvidia/version"))
        facts.module = parse_proc_driver_version(*text);
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
