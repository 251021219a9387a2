// The node's services that CUDA needs before cuInit, read from files under a root: Fabric Manager
// on NVSwitch systems (its binary, package, process, systemd unit, log and version) and the
// nvidia-uvm module with its device files. Two programs may run, each bounded in time and output:
// `nv-fabricmanager --version` and `systemctl is-active`. The loaded driver, the GPUs it registers
// and /dev/nvidia<N> come from kernel_module_probe, the container from host_probe.
#pragma once

#include "probes/host_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/nvml/nvml_probe.hpp"
#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Where the node probes read the machine: the probes' own root (ProbeSettings::root, the unit
// tests' crafted trees), else CUDACHECK_NODE_ROOT (for the binary's end-to-end tests only: a crafted
// tree standing in for `/`), else "" (the real machine).
[[nodiscard]] std::string node_root(const Environment& environment, const std::string& probes_root);

class Probes;
// The tree the node checks read and its host and kernel-module facts: the run's own (Probes) when
// node_root is the probes' root, else read again under CUDACHECK_NODE_ROOT.
struct NodeView {
    std::string root;
    KernelModuleFacts kernel;
    HostInfo host;
};
[[nodiscard]] NodeView node_view(Probes& probes, const Environment& environment);

// The version in `nv-fabricmanager --version`'s "Fabric Manager version is : 535.161.08"; "" when
// the output has none.
[[nodiscard]] std::string parse_fabric_manager_version(std::string_view output);

struct InstalledPackage {
    std::string name;     // "nvidia-fabricmanager-535"
    std::string version;  // upstream version, epoch and Debian revision removed: "535.161.08"
};
// The first installed package of /var/lib/dpkg/status named `name` or `name`-<branch> (NVIDIA's
// branch packages: nvidia-fabricmanager-535); nullopt when none is installed.
[[nodiscard]] std::optional<InstalledPackage> find_dpkg_package(std::string_view status, std::string_view name);

// Fabric Manager's own complaint when its version is not the driver's, as it logs it:
// "fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version
// 530.41.03. Please update with matching NVIDIA driver package." (NVIDIA/gpu-operator#544).
struct FabricManagerLogMismatch {
    std::string fabric_manager;  // 530.30.02
    std::string driver;          // 530.41.03
    std::string line;
};
// The last such line of `lines`; nullopt when none.
[[nodiscard]] std::optional<FabricManagerLogMismatch> find_log_version_mismatch(const std::vector<std::string>& lines);

// The last `count` non-empty lines of `text`, each clipped to 300 characters and made printable.
[[nodiscard]] std::vector<std::string> last_lines(std::string_view text, std::size_t count);

// Whether /proc/modules lists `module` ("nvidia_uvm 1896448 0 - Live 0x0000000000000000 (POE)").
[[nodiscard]] bool modules_list_has(std::string_view proc_modules, std::string_view module);

struct FabricManagerFacts {
    std::string binary;  // the nv-fabricmanager found, as the machine names it ("/usr/bin/nv-fabricmanager"); "" none
    std::optional<InstalledPackage> package;  // from dpkg's status, when asked
    std::string version;  // Fabric Manager's version; "" unknown
    std::string version_source;  // "`/usr/bin/nv-fabricmanager --version`", "dpkg package nvidia-fabricmanager-535"
    std::string version_note;  // why `--version` gave none ("timed out after 2 s", its output)
    std::vector<int> pids;  // processes named nv-fabricmanager
    bool processes_visible = true;  // false when /proc could not be listed
    std::string unit_state;  // `systemctl is-active nvidia-fabricmanager.service`: "active", "failed", ...; "" not
                             // asked
    std::string unit_note;  // why the unit's state is unknown
    std::string log_path;  // "/var/log/fabricmanager.log"
    std::vector<std::string> log_tail;  // its last lines
    std::string log_note;  // "absent", "unreadable (Permission denied)"; "" when read
    std::optional<FabricManagerLogMismatch> log_mismatch;
};

struct UvmFacts {
    bool module_loaded = false;
    std::string module_source;  // "/proc/modules" or "/sys/module/nvidia_uvm"
    bool device = false;  // /dev/nvidia-uvm
    bool tools_device = false;  // /dev/nvidia-uvm-tools
    std::string modprobe;  // nvidia-modprobe's path when installed; "" none
    bool modprobe_setuid_root = false;  // owned by root with the set-user-ID bit: CUDA can load the module as any user
};

struct NodeServicesFacts {
    // What shows NVSwitches: /dev/nvidia-nvswitch* device files, /proc/driver/nvidia-nvswitch/devices/* entries.
    std::vector<std::string> nvswitch_signs;
    [[nodiscard]] bool nvswitch_system() const { return !nvswitch_signs.empty(); }
    FabricManagerFacts fabric_manager;  // gathered on NVSwitch systems only
    UvmFacts uvm;
};

struct NodeServicesOptions {
    // In a container: the host runs Fabric Manager, out of sight; neither `--version` nor systemctl is run.
    bool in_container = false;
    // GPUs whose NVML fabric state is other than not-supported (NVSwitch systems whose switches the
    // nvswitch driver does not show, such as NVLink 5 fabrics managed through NVLSM).
    bool nvml_fabric = false;
    // Whether `nv-fabricmanager --version` and `systemctl is-active` may be run: `--level quick`
    // reads files only (the version then comes from the package database, if it is there).
    bool start_programs = true;
};

// Whether NVML reports a fabric state other than not-supported for any GPU (nvmlDeviceGetGpuFabricInfo:
// GPUs attached to an NVLink fabric, Hopper and later), for NVSwitch systems whose switches the
// nvswitch driver does not show. One query per GPU; false when NVML is not up or lacks the query.
[[nodiscard]] bool nvml_reports_fabric(const NvmlFacts& nvml);

// Reads the machine under `root` ("" for the real one).
[[nodiscard]] NodeServicesFacts collect_node_services(const std::string& root, const NodeServicesOptions& options);

}  // namespace cudacheck
