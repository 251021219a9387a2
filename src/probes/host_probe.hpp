// Facts about the host: distribution, kernel, libc, CPU, memory, container and WSL.
#pragma once

#include "report/report.hpp"
#include "util/environment.hpp"

#include <map>
#include <string>
#include <string_view>

namespace cudacheck {

// KEY=value lines of /etc/os-release (quotes removed).
[[nodiscard]] std::map<std::string, std::string> parse_os_release(std::string_view text);
// From /proc/sys/kernel/osrelease: "WSL2" (…-microsoft-standard-WSL2), "WSL1" (…-Microsoft), or "".
[[nodiscard]] std::string detect_wsl(std::string_view kernel_release);

// The signs of a container runtime, read from the filesystem and environment.
struct ContainerSigns {
    bool dockerenv = false;          // /.dockerenv
    bool containerenv = false;       // /run/.containerenv (podman)
    bool kubernetes_env = false;     // KUBERNETES_SERVICE_HOST
    std::string cgroup;              // /proc/1/cgroup
    std::string container_variable;  // $container (systemd-nspawn, podman, lxc)
};
// "kubernetes", "podman", "docker", "containerd", "lxc", "<value of $container>", or "".
[[nodiscard]] std::string detect_container(const ContainerSigns& signs);

// The model name from /proc/cpuinfo (x86 "model name", Arm "Model"/"CPU part").
[[nodiscard]] std::string parse_cpu_model(std::string_view cpuinfo);
// MemTotal from /proc/meminfo in bytes (0 when absent).
[[nodiscard]] std::uint64_t parse_mem_total(std::string_view meminfo);

// Reads the live system (files under `root`, "" for the real /).
[[nodiscard]] HostInfo collect_host_info(const Environment& environment, const std::string& root = "");

}  // namespace cudacheck
