// Facts about the NVIDIA kernel driver: the loaded module's version, the GPUs it drives, the
// device files CUDA opens, and which driver each NVIDIA PCI display device is bound to.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct ModuleVersion {
    std::string version;   // "580.159.04"
    bool open_module = false;  // "Open Kernel Module" vs the proprietary one
    std::string architecture;  // "x86_64", "aarch64", or empty
};
// Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ...").
[[nodiscard]] std::optional<ModuleVersion> parse_proc_driver_version(std::string_view text);

struct ProcGpu {
    std::string bus_location;  // "0000:00:06.0"
    std::string model;         // "NVIDIA H200"
    std::string uuid;          // "GPU-…"
};
// Parses /proc/driver/nvidia/gpus/<bus>/information ("Model: \t\t NVIDIA H200" lines).
[[nodiscard]] ProcGpu parse_gpu_information(std::string_view text);

struct DeviceNode {
    std::string path;
    bool exists = false;
    bool openable = false;  // opened read-write by this process
    std::string error;      // strerror when it could not be opened
};

struct PciDisplayDevice {
    std::string address;  // "0000:00:06.0"
    std::string driver;   // "nvidia", "nouveau", "vfio-pci", or "" when unbound
};

struct KernelModuleFacts {
    std::optional<ModuleVersion> module;  // from /proc/driver/nvidia/version
    std::string sys_module_version;       // /sys/module/nvidia/version
    std::vector<ProcGpu> gpus;            // /proc/driver/nvidia/gpus/*
    std::vector<DeviceNode> nodes;        // /dev/nvidiactl, /dev/nvidia<N>, /dev/nvidia-uvm
    std::vector<PciDisplayDevice> pci_devices;  // vendor 0x10de, class 0x03xx
    bool nouveau_loaded = false;          // /sys/module/nouveau exists
    std::optional<DeviceNode> dxg;        // /dev/dxg, WSL 2's GPU paravirtualization device, when present
};

// Reads the live system; `root` prefixes every path (tests use crafted trees).
[[nodiscard]] KernelModuleFacts collect_kernel_module(const std::string& root = "");

}  // namespace cudacheck
