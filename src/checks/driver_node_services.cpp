// driver.node_services: the node's services CUDA needs before cuInit. On an NVSwitch system Fabric
// Manager must run, at the loaded driver's exact version, or every CUDA call answers 802
// (cudaErrorSystemNotReady, "system not yet initialized"): NVIDIA's Fabric Manager user guide
// (docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide). cuInit needs the nvidia-uvm module
// and /dev/nvidia-uvm; and each GPU the driver registers needs its /dev/nvidia<N> (a container is
// given only some: that is how GPUs are shared out).
#include "checks/driver_node_services.hpp"

#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

// A device file's name as the machine names it: KernelModuleFacts' paths carry the probes' root.
std::string device_name(const std::string& path) {
    const std::size_t slash = path.rfind("/dev/");
    return slash == std::string::npos ? path : path.substr(slash);
}

bool is_gpu_device_file(const std::string& path) {
    const std::string name = device_name(path);
    if (!sys::starts_with(name, "/dev/nvidia") || name.size() == 11) return false;
    return std::all_of(name.begin() + 11, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string driver_version_of(const KernelModuleFacts& kernel) {
    if (kernel.module && !kernel.module->version.empty()) return kernel.module->version;
    return kernel.sys_module_version;
}

std::string fabric_manager_install(const std::string& driver) {
    const std::string branch = driver.substr(0, driver.find('.'));
    return fmt::format(
        "Install Fabric Manager {0} (Debian/Ubuntu: `sudo apt install nvidia-fabricmanager-{1}={0}-1`; RHEL: `sudo dnf "
        "install nvidia-fabricmanager-{0}`), then `sudo systemctl enable --now nvidia-fabricmanager` and check "
        "/var/log/fabricmanager.log.",
        driver, branch);
}

void add_fabric_manager_evidence(const FabricManagerFacts& fm, ResultBuilder& result) {
    result.evidence("fabric_manager_binary", fm.binary.empty() ? "absent (no nv-fabricmanager in /usr/bin, /usr/sbin, "
                                                                 "/usr/local/bin, /usr/local/sbin, /bin, /sbin)"
                                                               : fm.binary);
    if (fm.package) result.evidence("fabric_manager_package", fm.package->name + " " + fm.package->version);
    if (!fm.version.empty()) result.evidence("fabric_manager_version", fm.version + " (" + fm.version_source + ")");
    if (!fm.version_note.empty()) result.evidence("fabric_manager_version_note", fm.version_note);
    if (!fm.processes_visible) result.evidence("fabric_manager_process", "unknown (/proc could not be listed)");
    else if (fm.pids.empty()) result.evidence("fabric_manager_process", "none named nv-fabricmanager");
    else result.evidence("fabric_manager_process", fmt::format("pid {}", fmt::join(fm.pids, ", ")));
    if (!fm.unit_state.empty()) result.evidence("fabric_manager_unit", "nvidia-fabricmanager.service " + fm.unit_state);
    else if (!fm.unit_note.empty()) result.evidence("fabric_manager_unit", fm.unit_note);
    if (!fm.log_note.empty()) result.evidence("fabric_manager_log", fm.log_path + ": " + fm.log_note);
    for (const std::string& line : fm.log_tail) result.evidence("fabric_manager_log", line);
}

// Fabric Manager on an NVSwitch system, outside a container; returns its part of the summary.
std::string judge_fabric_manager(const FabricManagerFacts& fm, const std::string& driver, ResultBuilder& result) {
    add_fabric_manager_evidence(fm, result);
    const bool running = !fm.pids.empty();
    const std::string last_log_line = fm.log_tail.empty() ? std::string() : "; its log ends: " + fm.log_tail.back();
    if (fm.binary.empty()) {
        result.add(Code::fabric_manager_missing,
                   fm.package ? fmt::format("NVSwitch system: {} is installed but nv-fabricmanager is missing",
                                            fm.package->name)
                              : "NVSwitch system without Fabric Manager (no nv-fabricmanager, no package)",
                   fabric_manager_install(driver));
        return "Fabric Manager missing";
    }
    if (!fm.version.empty() && !driver.empty() && fm.version != driver) {
        result.add(Code::fabric_manager_version_mismatch,
                   fmt::format("Fabric Manager {} but driver {}{}", fm.version, driver,
                               running ? ": the running one fails at its next start" : ": it cannot start"),
                   fmt::format("Fabric Manager refuses a driver of another version. {}",
                               fabric_manager_install(driver)));
        return "Fabric Manager " + fm.version + " differs from the driver";
    }
    if (!running && fm.log_mismatch && fm.log_mismatch->fabric_manager != fm.log_mismatch->driver &&
        (driver.empty() || fm.log_mismatch->driver == driver)) {
        result.add(Code::fabric_manager_version_mismatch,
                   fmt::format("Fabric Manager {} stopped: it is not driver {}'s version (its log)",
                               fm.log_mismatch->fabric_manager, fm.log_mismatch->driver),
                   fmt::format("{} The log line: {}", fabric_manager_install(fm.log_mismatch->driver),
                               sys::clip(fm.log_mismatch->line, 200)));
        return "Fabric Manager of another version";
    }
    if (!running && fm.processes_visible) {
        result.add(Code::fabric_manager_stopped,
                   fm.unit_state.empty() ? "Fabric Manager is installed but not running"
                                         : fmt::format("Fabric Manager is not running (unit {})", fm.unit_state),
                   fmt::format("`sudo systemctl enable --now nvidia-fabricmanager`, then `systemctl status "
                               "nvidia-fabricmanager` and /var/log/fabricmanager.log say whether it stays up{}.",
                               sys::clip(last_log_line, 200)));
        return "Fabric Manager not running";
    }
    return running ? fmt::format("Fabric Manager {}running (pid {})", fm.version.empty() ? "" : fm.version + " ",
                                 fm.pids.front())
                   : "Fabric Manager installed";
}

// nvidia-uvm and /dev/nvidia-uvm; returns its part of the summary.
std::string judge_uvm(const UvmFacts& uvm, bool in_container, ResultBuilder& result) {
    result.evidence("uvm_module", uvm.module_loaded ? "loaded (" + uvm.module_source + ")"
                                                    : "not loaded (not in /proc/modules, no /sys/module/nvidia_uvm)");
    result.evidence("uvm_device", std::string("/dev/nvidia-uvm ") + (uvm.device ? "present" : "absent") +
                                      ", /dev/nvidia-uvm-tools " + (uvm.tools_device ? "present" : "absent"));
    if (!uvm.modprobe.empty())
        result.evidence("nvidia_modprobe",
                        uvm.modprobe + (uvm.modprobe_setuid_root ? " (set-user-ID root)" : " (not set-user-ID root)"));
    // libcuda runs the set-user-ID nvidia-modprobe to load nvidia-uvm and create its device files
    // when they are missing (NVIDIA's CUDA installation guide, "Device Node Verification"), which a
    // container cannot do.
    const bool loads_on_first_use = !in_container && uvm.modprobe_setuid_root;
    const std::optional<Status> lowered = loads_on_first_use ? std::optional<Status>(Status::warn) : std::nullopt;
    const std::string later = loads_on_first_use ? "; nvidia-modprobe will load it at CUDA's first start" : "";
    if (!uvm.module_loaded) {
        result.add(Code::uvm_module_missing, "the nvidia-uvm module is not loaded" + later,
                   in_container ? "Load it on the host (`sudo modprobe nvidia-uvm`), then restart this container."
                                : "`sudo modprobe nvidia-uvm` (or `sudo nvidia-modprobe -u -c=0`, which also creates "
                                  "/dev/nvidia-uvm); to load it at boot: `echo nvidia-uvm | sudo tee "
                                  "/etc/modules-load.d/nvidia-uvm.conf`.",
                   lowered);
        return "nvidia-uvm not loaded";
    }
    if (!uvm.device) {
        result.add(Code::uvm_device_missing, "/dev/nvidia-uvm is missing (nvidia-uvm is loaded)" + later,
                   in_container ? "Start the container through the NVIDIA Container Toolkit (`docker run --gpus all`, "
                                  "or CDI `--device nvidia.com/gpu=all`), which passes /dev/nvidia-uvm and "
                                  "/dev/nvidia-uvm-tools; on the host, `sudo nvidia-modprobe -u -c=0` first if they "
                                  "are missing there."
                                : "`sudo nvidia-modprobe -u -c=0` creates /dev/nvidia-uvm and /dev/nvidia-uvm-tools.",
                   lowered);
        return "/dev/nvidia-uvm missing";
    }
    return "nvidia-uvm loaded";
}

// /dev/nvidia<N> against the GPUs the driver registers; returns its part of the summary. No device
// file at all is driver.kernel_module's finding (CC202).
std::string judge_device_files(const KernelModuleFacts& kernel, bool in_container, ResultBuilder& result) {
    std::vector<std::string> present;
    for (const DeviceNode& node : kernel.nodes)
        if (node.exists && is_gpu_device_file(node.path)) present.push_back(device_name(node.path));
    const std::size_t registered = kernel.gpus.size();
    result.evidence("gpu_device_files",
                    fmt::format("{} of {} registered GPU(s): {}", present.size(), registered,
                                present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", "))));
    if (present.empty() || present.size() >= registered) return fmt::format("{} GPU device file(s)", present.size());
    if (in_container) {
        result.evidence("gpu_device_files_note",
                        "a container is given only the GPUs allocated to it: fewer device files than GPUs is normal");
        return fmt::format("{} of {} GPUs given to this container", present.size(), registered);
    }
    result.add(Code::device_nodes_partial,
               fmt::format("{} of the {} GPUs the driver registers have a /dev/nvidia<N>", present.size(), registered),
               fmt::format("Create the missing ones: `sudo nvidia-modprobe -c=<N>` for each GPU's minor number (`grep "
                           "'Device Minor' /proc/driver/nvidia/gpus/*/information`), or reboot; present: {}.",
                           sys::first_items(present, 80)));
    return fmt::format("{} of {} GPU device files", present.size(), registered);
}

}  // namespace

void judge_node_services(const KernelModuleFacts& kernel, const HostInfo& host, const NodeServicesFacts& node,
                         ResultBuilder& result) {
    if (!kernel.module && host.wsl == "WSL2") {
        result.skip("WSL 2: the Windows driver serves the GPU; the Linux VM runs no Fabric Manager or nvidia-uvm");
        return;
    }
    if (!kernel.module && kernel.sys_module_version.empty()) {
        result.skip("the NVIDIA kernel module is not loaded (driver.kernel_module says why)");
        return;
    }
    const std::string driver = driver_version_of(kernel);
    const bool in_container = !host.container.empty();
    result.evidence("driver_version", driver.empty() ? "unknown" : driver);
    if (in_container) result.evidence("container", host.container);

    std::vector<std::string> parts;
    if (node.nvswitch_system()) {
        result.evidence("nvswitch", sys::first_items(node.nvswitch_signs, 200));
        if (in_container) {
            result.evidence("fabric_manager",
                            "runs on the host, out of a container's sight; device.health reads the "
                            "fabric state NVML reports");
            parts.push_back("NVSwitch system (Fabric Manager is the host's)");
        } else {
            parts.push_back("NVSwitch system: " + judge_fabric_manager(node.fabric_manager, driver, result));
        }
    } else {
        result.evidence("nvswitch",
                        "none (no /dev/nvidia-nvswitch*, no /proc/driver/nvidia-nvswitch/devices/*, no "
                        "NVML fabric): Fabric Manager not needed");
    }
    parts.push_back(judge_uvm(node.uvm, in_container, result));
    parts.push_back(judge_device_files(kernel, in_container, result));
    result.summary(fmt::format("{}", fmt::join(parts, "; ")));
}

namespace {

std::unique_ptr<Check> make_node_services_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "driver.node_services",
                  .title = "Node services",
                  .description =
                      "What CUDA needs running before cuInit: Fabric Manager on NVSwitch systems (present, "
                      "running, the driver's version), nvidia-uvm and /dev/nvidia-uvm, a /dev/nvidia<N> per GPU",
                  .raises = {Code::fabric_manager_missing, Code::fabric_manager_stopped,
                             Code::fabric_manager_version_mismatch, Code::uvm_module_missing, Code::uvm_device_missing,
                             Code::device_nodes_partial},
                  .answers = "on NVSwitch systems whether Fabric Manager is installed, runs and matches the driver's "
                             "version (else CUDA answers 802); the `nvidia-uvm` module and `/dev/nvidia-uvm`; whether "
                             "every GPU the driver registers has its `/dev/nvidia<N>`"},
        [](CheckContext& context, ResultBuilder& result) {
            const NodeView node = node_view(context.probes, context.environment);
            const std::string& root = node.root;
            const KernelModuleFacts& kernel = node.kernel;
            const HostInfo& host = node.host;
            NodeServicesOptions options{.in_container = !host.container.empty(),
                                        .start_programs = context.options.level != Level::quick};
            // Only on the real machine (NVML describes it, not a crafted tree), where the files show
            // no NVSwitch and the driver is loaded: NVML's fabric state names NVLink fabrics whose
            // switches the nvswitch driver does not show.
            if ((kernel.module || !kernel.sys_module_version.empty()) && root.empty()) {
                NodeServicesFacts files = collect_node_services(root, options);
                if (!files.nvswitch_system() && nvml_reports_fabric(context.probes.nvml())) {
                    options.nvml_fabric = true;
                    files = collect_node_services(root, options);
                }
                judge_node_services(kernel, host, files, result);
                return;
            }
            judge_node_services(kernel, host, collect_node_services(root, options), result);
        });
}

}  // namespace

const CheckRegistration node_services_registration{310, make_node_services_check};

}  // namespace cudacheck
