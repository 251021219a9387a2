// host.container: whether this process runs in a container and what the container runtime did to
// the GPUs. A CDI spec generated for one driver names its libraries by version (libcuda.so.<version>)
// and goes stale when the driver is upgraded; a container whose device cgroup rules were rewritten
// by a `systemctl daemon-reload` on the host keeps its device files but may no longer open them
// (NVML "Unknown Error": NVIDIA/nvidia-container-toolkit#48 and #251, NVIDIA's notice
// NVIDIA/nvidia-docker#1730); under WSL 2 the Windows driver's libraries in /usr/lib/wsl/lib must be
// the ones the loader finds (NVIDIA's CUDA on WSL user guide). Container detection itself is
// host_probe's (host.os shows it); WSL 1 is host.os's finding.
#include "checks/host_container.hpp"

#include "bind/nvml.hpp"
#include "checks/checks.hpp"
#include "probes/node_services.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudacheck {

namespace {

std::string device_name(const std::string& path) {
    const std::size_t at = path.rfind("/dev/");
    return at == std::string::npos ? path : path.substr(at);
}

std::string driver_version_of(const KernelModuleFacts& kernel) {
    if (kernel.module && !kernel.module->version.empty()) return kernel.module->version;
    return kernel.sys_module_version;
}

// A CDI spec whose libraries name another driver than the loaded one: one finding per spec.
void judge_cdi(const std::vector<CdiSpec>& specs, const std::string& driver, ResultBuilder& result) {
    for (const CdiSpec& spec : specs) {
        if (!spec.note.empty()) {
            result.evidence("cdi_spec", spec.path + ": not read (" + spec.note + ")");
            continue;
        }
        std::vector<std::string> versions;
        for (const CdiLibrary& library : spec.libraries)
            if (std::find(versions.begin(), versions.end(), library.version) == versions.end())
                versions.push_back(library.version);
        result.evidence("cdi_spec", fmt::format("{}: {}", spec.path,
                                                versions.empty() ? "names no versioned libcuda or libnvidia-ml"
                                                                 : "driver libraries " +
                                                                       fmt::format("{}", fmt::join(versions, ", "))));
        if (driver.empty()) continue;
        const auto stale = std::find_if(spec.libraries.begin(), spec.libraries.end(),
                                        [&](const CdiLibrary& library) { return library.version != driver; });
        if (stale == spec.libraries.end()) continue;
        result.add(Code::cdi_spec_stale,
                   sys::clip(fmt::format("CDI spec {} names driver {}, the loaded one is {}", spec.path, stale->version,
                                         driver),
                             sys::max_headline),
                   fmt::format("Regenerate it for the loaded driver: `sudo nvidia-ctk cdi generate --output={}` (line "
                               "{} "
                               "mounts {}), then restart the containers started with it.",
                               spec.path, stale->line, stale->path));
    }
}

bool says_unknown(const std::string& text) { return text.find("NVML_ERROR_UNKNOWN") != std::string::npos; }

// Device access a container lost: the device files are there but opening them is refused by the
// device cgroup (EPERM; a file mode refusal is EACCES, driver.kernel_module's CC203), the cgroup v1
// list no longer allows them, or NVML answers "Unknown Error".
void judge_device_access(const ContainerInput& input, ResultBuilder& result) {
    std::vector<std::string> signs;
    const std::string not_permitted = std::strerror(EPERM);
    for (const DeviceNode& node : input.kernel.nodes)
        if (node.exists && !node.openable && node.error == not_permitted)
            signs.push_back("open " + device_name(node.path) + ": " + node.error);
    for (const CgroupDeviceAccess& access : input.runtime.cgroup_access)
        if (!access.allowed)
            signs.push_back(fmt::format("{} allows no c {}:{} rw ({})", input.runtime.devices_list_path, access.major,
                                        access.minor, access.path));
    if (input.nvml) {
        const NvmlAnswer& nvml = *input.nvml;
        if (nvml.init_result == nvml::NVML_ERROR_UNKNOWN || says_unknown(nvml.init_error))
            signs.push_back("nvmlInit: " + nvml.init_error);
        for (const std::string& error : nvml.device_errors)
            if (says_unknown(error)) signs.push_back(error);
    }
    if (!input.runtime.devices_list_path.empty())
        result.evidence("devices_list",
                        fmt::format("{}: {} NVIDIA device file(s) checked", input.runtime.devices_list_path,
                                    input.runtime.cgroup_access.size()));
    for (const std::string& sign : signs) result.evidence("device_access", sign);
    if (signs.empty()) return;
    result.add(Code::container_device_access_lost,
               sys::clip("this container lost access to its GPUs: " + signs.front(), sys::max_headline),
               "Restart the container (`docker restart`, or delete the pod): it gets its devices back. So that a "
               "`systemctl daemon-reload` on the host does not take them again, on the host: `sudo nvidia-ctk system "
               "create-dev-char-symlinks --create-all` (with the udev rule of NVIDIA's notice, "
               "github.com/NVIDIA/nvidia-docker/issues/1730), or Docker's `\"exec-opts\": "
               "[\"native.cgroupdriver=cgroupfs\"]` in /etc/docker/daemon.json, or start containers through CDI.");
}

void judge_wsl(const WslFacts& wsl, ResultBuilder& result) {
    result.evidence("wsl2", wsl.source);
    result.evidence("wsl_libcuda",
                    std::string("/usr/lib/wsl/lib/libcuda.so.1 ") + (wsl.windows_libcuda ? "present" : "absent"));
    if (!wsl.cache_status.empty()) result.evidence("ld_so_cache", wsl.cache_status);
    for (const WslLibrary& library : wsl.libraries)
        result.evidence("wsl_library", library.resolved.empty() ? library.soname + ": not found by the loader"
                                                                : fmt::format("{} -> {} ({})", library.soname,
                                                                              library.real_path, library.rule));
    const std::string keep_wsl_path =
        "Keep /usr/lib/wsl/lib first: `echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo "
        "ldconfig`.";
    if (!wsl.windows_libcuda) {
        result.add(Code::wsl_library_path, "WSL 2 without /usr/lib/wsl/lib/libcuda.so.1 (the Windows driver's CUDA)",
                   "Install the current NVIDIA Windows driver (it carries WSL 2 support), run `wsl --update` and `wsl "
                   "--shutdown` in PowerShell; install no Linux driver inside WSL.");
        return;
    }
    for (const WslLibrary& library : wsl.libraries) {
        if (library.soname == "libcuda.so.1" && library.resolved.empty()) {
            result.add(Code::wsl_library_path, "the loader does not reach /usr/lib/wsl/lib/libcuda.so.1",
                       keep_wsl_path);
        } else if (!library.resolved.empty() && !library.from_windows) {
            result.add(Code::wsl_library_path,
                       sys::clip(fmt::format("{} resolves to a Linux driver's {}, not /usr/lib/wsl/lib's",
                                             library.soname, library.real_path),
                                 sys::max_headline),
                       fmt::format("Remove the Linux driver from the distribution (`sudo apt remove --purge "
                                   "'libnvidia-compute-*' 'nvidia-driver-*'`, or delete {}; it was found by {}). {}",
                                   library.resolved, library.rule, keep_wsl_path));
        }
    }
}

}  // namespace

void judge_container(const ContainerInput& input, ResultBuilder& result) {
    const std::string& container = input.host.container;
    const bool in_container = !container.empty() || input.runtime.overlay_root;
    std::string where = container.empty() ? (input.runtime.overlay_root ? "a container (overlay root filesystem)" : "")
                                          : "a " + container + " container";
    result.evidence("container", where.empty() ? "none detected" : where);
    if (input.runtime.overlay_root) result.evidence("root_filesystem", "overlay (/proc/self/mountinfo)");

    std::vector<std::string> parts;
    parts.push_back(where.empty() ? "not in a container" : "in " + where);
    std::vector<std::string> tools;
    for (const ToolkitProgram& program : input.runtime.toolkit) {
        result.evidence("container_toolkit",
                        fmt::format("{} {} ({}){}", program.name,
                                    program.version.empty() ? "version unknown" : program.version, program.path,
                                    program.note.empty() ? "" : ": " + program.note));
        tools.push_back(program.name + (program.version.empty() ? "" : " " + program.version));
    }
    if (!tools.empty()) parts.push_back(fmt::format("NVIDIA container toolkit: {}", fmt::join(tools, ", ")));
    if (!input.runtime.cdi_specs.empty())
        parts.push_back(fmt::format("{} CDI spec(s)", input.runtime.cdi_specs.size()));

    judge_cdi(input.runtime.cdi_specs, driver_version_of(input.kernel), result);
    if (in_container) judge_device_access(input, result);
    if (input.runtime.wsl) {
        judge_wsl(*input.runtime.wsl, result);
        parts.push_back("WSL 2");
    }
    result.summary(fmt::format("{}", fmt::join(parts, "; ")));
}

namespace {

std::unique_ptr<Check> make_container_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "host.container",
                  .title = "Container runtime",
                  .description = "The container and the NVIDIA container toolkit: CDI specs against the loaded driver, "
                                 "GPU access a container lost, WSL 2's /usr/lib/wsl/lib",
                  .raises = {Code::cdi_spec_stale, Code::container_device_access_lost, Code::wsl_library_path},
                  .answers =
                      "whether this runs in a container (Docker, podman, Kubernetes, an overlay root); the NVIDIA "
                      "container toolkit's version and whether its CDI specs name the loaded driver; a container "
                      "that lost its GPUs (NVML \"Unknown Error\"); under WSL 2 whether the loader finds "
                      "`/usr/lib/wsl/lib`'s libcuda"},
        [](CheckContext& context, ResultBuilder& result) {
            const NodeView node = node_view(context.probes, context.environment);
            const std::string& root = node.root;
            const KernelModuleFacts& kernel = node.kernel;
            const HostInfo& host = node.host;
            const ContainerRuntimeFacts runtime =
                collect_container_runtime(context.environment, root,
                                          {.wsl2 = host.wsl == "WSL2",
                                           .in_container = !host.container.empty(),
                                           .ask_versions = context.options.level != Level::quick});
            ContainerInput input{host, kernel, runtime, std::nullopt};
            if (!host.container.empty() || runtime.overlay_root) {
                const NvmlFacts& nvml = context.probes.nvml();
                input.nvml = NvmlAnswer{nvml.init_result, nvml.init_error, nvml.device_errors};
            }
            judge_container(input, result);
        });
}

}  // namespace

const CheckRegistration container_registration{110, make_container_check};

}  // namespace cudacheck
