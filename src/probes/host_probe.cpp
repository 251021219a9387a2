#include "probes/host_probe.hpp"

#include "util/system.hpp"

#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace cudacheck {

std::map<std::string, std::string> parse_os_release(std::string_view text) {
    std::map<std::string, std::string> values;
    for (const std::string& raw_line : sys::split(text, '\n')) {
        const std::string_view line = sys::trim(raw_line);
        if (line.empty() || line.front() == '#') continue;
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) continue;
        std::string_view value = line.substr(equals + 1);
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        values[std::string(line.substr(0, equals))] = std::string(value);
    }
    return values;
}

std::string detect_wsl(std::string_view kernel_release) {
    // WSL2 kernels are "…-microsoft-standard-WSL2" (older ones "…-microsoft-standard");
    // WSL1 reports the Windows build as "4.4.0-19041-Microsoft".
    const std::string lower = sys::to_lower(kernel_release);
    if (lower.find("microsoft") == std::string::npos) return {};
    if (lower.find("wsl2") != std::string::npos || lower.find("microsoft-standard") != std::string::npos) return "WSL2";
    return "WSL1";
}

std::string detect_container(const ContainerSigns& signs) {
    if (signs.kubernetes_env || signs.cgroup.find("kubepods") != std::string::npos) return "kubernetes";
    if (signs.containerenv || signs.container_variable == "podman" || signs.cgroup.find("libpod") != std::string::npos)
        return "podman";
    if (signs.dockerenv || signs.cgroup.find("docker") != std::string::npos) return "docker";
    if (signs.cgroup.find("containerd") != std::string::npos) return "containerd";
    if (signs.cgroup.find("/lxc") != std::string::npos) return "lxc";
    return signs.container_variable;
}

std::string parse_cpu_model(std::string_view cpuinfo) {
    std::string fallback;
    for (const std::string& line : sys::split(cpuinfo, '\n')) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string_view key = sys::trim(std::string_view(line).substr(0, colon));
        const std::string_view value = sys::trim(std::string_view(line).substr(colon + 1));
        if (key == "model name" || key == "Model") return std::string(value);
        if (key == "CPU part" && fallback.empty()) fallback = "Arm CPU part " + std::string(value);
    }
    return fallback;
}

std::uint64_t parse_mem_total(std::string_view meminfo) {
    for (const std::string& line : sys::split(meminfo, '\n')) {
        if (!sys::starts_with(line, "MemTotal:")) continue;
        std::uint64_t kib = 0;
        for (char c : line)
            if (c >= '0' && c <= '9') kib = kib * 10 + static_cast<std::uint64_t>(c - '0');
        return kib * 1024;
    }
    return 0;
}

HostInfo collect_host_info(const Environment& environment, const std::string& root) {
    HostInfo host;
    char hostname[256] = {};
    if (::gethostname(hostname, sizeof hostname - 1) == 0) host.hostname = hostname;
    host.node_name = environment.get("NODE_NAME").value_or("");
    const auto os_release = parse_os_release(sys::read_file(root + "/etc/os-release").value_or(""));
    if (auto it = os_release.find("PRETTY_NAME"); it != os_release.end()) host.os_pretty_name = it->second;
    utsname names{};
    if (::uname(&names) == 0) {
        host.kernel_release = names.release;
        host.architecture = names.machine;
    }
    host.libc_version = std::string("glibc ") + ::gnu_get_libc_version();
    host.cpu_model = parse_cpu_model(sys::read_file(root + "/proc/cpuinfo").value_or(""));
    host.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
    host.memory_bytes = parse_mem_total(sys::read_file(root + "/proc/meminfo").value_or(""));
    ContainerSigns signs;
    signs.dockerenv = sys::exists(root + "/.dockerenv");
    signs.containerenv = sys::exists(root + "/run/.containerenv");
    signs.kubernetes_env = environment.is_set("KUBERNETES_SERVICE_HOST");
    signs.cgroup = sys::read_file(root + "/proc/1/cgroup").value_or("");
    signs.container_variable = environment.get("container").value_or("");
    host.container = detect_container(signs);
    host.wsl = detect_wsl(sys::trim(sys::read_file(root + "/proc/sys/kernel/osrelease").value_or(host.kernel_release)));
    return host;
}

}  // namespace cudacheck
