// driver.kernel_module: is the NVIDIA kernel driver loaded, can this user open its device files,
// and is any NVIDIA GPU held by nouveau instead.
#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

std::string container_hint(const HostInfo& host) {
    if (host.container.empty()) return {};
    return fmt::format(
        "This is a {} container: start it with GPU access (`docker run --gpus all …` with the NVIDIA Container "
        "Toolkit; on "
        "Kubernetes request `nvidia.com/gpu`). The driver is installed on the host, not in the image.",
        host.container);
}

}  // namespace

void judge_kernel_module(const KernelModuleFacts& facts, const HostInfo& host, ResultBuilder& result) {
    std::vector<std::string> nouveau_devices;
    for (const PciDisplayDevice& device : facts.pci_devices) {
        result.evidence("pci_device", fmt::format("{} bound to {}", device.address,
                                                  device.driver.empty() ? "no driver" : device.driver));
        if (device.driver == "nouveau") nouveau_devices.push_back(device.address);
    }
    if (facts.nouveau_loaded) result.evidence("nouveau_module", "loaded");
    if (!nouveau_devices.empty())
        result.add(Code::nouveau_bound,
                   fmt::format("nouveau drives NVIDIA GPU {}", sys::first_items(nouveau_devices, 90)));

    if (!facts.module && host.wsl == "WSL2") {
        // WSL 2 has no NVIDIA module in the Linux VM: the Windows driver serves the GPU through /dev/dxg.
        if (!facts.dxg)
            result.add(Code::device_nodes_missing, "WSL 2 without /dev/dxg: GPU paravirtualization is not available",
                       "Install the NVIDIA Windows driver (it includes WSL support), run `wsl --update` in PowerShell, "
                       "then `wsl --shutdown`.");
        else if (!facts.dxg->openable)
            result.add(Code::device_nodes_no_access, fmt::format("cannot open /dev/dxg ({})", facts.dxg->error));
        result.summary(
            "WSL 2: the GPU is reached through /dev/dxg; the driver is the Windows one (no Linux kernel module)");
        return;
    }
    if (!facts.module) {
        result.evidence("proc_driver_version", "absent");
        std::string remediation = container_hint(host);
        std::string message = "the NVIDIA kernel module is not loaded (/proc/driver/nvidia/version is absent)";
        if (!facts.pci_devices.empty())
            message += fmt::format("; {} NVIDIA GPU(s) on the PCI bus", facts.pci_devices.size());
        if (remediation.empty() && !facts.pci_devices.empty() && nouveau_devices.empty())
            remediation =
                "The GPU is present but no NVIDIA module is loaded: `sudo modprobe nvidia` (see `dmesg | grep -i nvrm` "
                "if it fails; Secure Boot may require signing the module), or install the driver and reboot.";
        result.add(Code::kernel_module_not_loaded, message, remediation);
        return;
    }

    const ModuleVersion& module = *facts.module;
    result.evidence("module_version", module.version);
    result.evidence("module_flavour", module.open_module ? "open" : "proprietary");
    if (!facts.sys_module_version.empty()) result.evidence("sys_module_version", facts.sys_module_version);
    for (const ProcGpu& gpu : facts.gpus)
        result.evidence("gpu", fmt::format("{} {} {}", gpu.bus_location, gpu.model, gpu.uuid));

    std::vector<std::string> missing;
    std::vector<std::string> denied;
    bool any_gpu_node = false;
    for (const DeviceNode& node : facts.nodes) {
        const bool required = node.path.find("nvidia-uvm") == std::string::npos;  // uvm is created on first use
        if (node.path.find("nvidiactl") == std::string::npos && required && node.exists) any_gpu_node = true;
        if (!node.exists) {
            result.evidence("device_file", node.path + ": absent");
            if (required) missing.push_back(node.path);
        } else if (!node.openable) {
            result.evidence("device_file", fmt::format("{}: cannot open ({})", node.path, node.error));
            denied.push_back(fmt::format("{} ({})", node.path, node.error));
        } else {
            result.evidence("device_file", node.path + ": ok");
        }
    }
    if (!any_gpu_node && !facts.gpus.empty()) missing.push_back("/dev/nvidia<N>");
    if (!missing.empty()) {
        std::string remediation = container_hint(host);
        if (remediation.empty())
            remediation =
                "Create them: `sudo nvidia-modprobe -u -c=0` (or reboot); check that the nvidia module loaded without "
                "errors (`dmesg | grep -i nvrm`).";
        result.add(Code::device_nodes_missing, fmt::format("device file(s) missing: {}", sys::first_items(missing, 90)),
                   remediation);
    }
    if (!denied.empty()) {
        std::string remediation =
            "Make the user a member of the group owning /dev/nvidia* (`ls -l /dev/nvidia*`, then `sudo usermod -aG "
            "<group> $USER` and log in again).";
        if (!host.container.empty())
            remediation =
                "The container's device cgroup denies access: start it with `--gpus all` (NVIDIA Container Toolkit) "
                "rather than "
                "bind-mounting /dev/nvidia* by hand.";
        result.add(Code::device_nodes_no_access,
                   sys::clip(fmt::format("cannot open {}", fmt::join(denied, ", ")), sys::max_headline), remediation);
    }
    result.summary(fmt::format("NVIDIA {} kernel module {} loaded; {} GPU(s) registered; device files accessible",
                               module.open_module ? "open" : "proprietary", module.version, facts.gpus.size()));
}

std::unique_ptr<Check> make_kernel_module_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "driver.kernel_module",
                  .title = "Kernel driver",
                  .description = "NVIDIA kernel module version, /dev/nvidia* access, nouveau",
                  .raises = {Code::kernel_module_not_loaded, Code::device_nodes_missing, Code::device_nodes_no_access,
                             Code::nouveau_bound},
                  .answers =
                      "the loaded NVIDIA module and its version, `/dev/nvidia*` and whether this user can open them, "
                      "nouveau"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_kernel_module(context.probes.kernel_module(), context.probes.host(), result);
        });
}

const CheckRegistration kernel_module_registration{300, make_kernel_module_check};

}  // namespace cudacheck
