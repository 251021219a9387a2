// What a container runtime did to the NVIDIA driver's view of this process, read from files under a
// root: an overlay root filesystem (a container sign host_probe does not read), the NVIDIA container
// toolkit's programs and their versions (each `--version` bounded in time and output), the CDI specs
// the toolkit generated and the driver libraries they name, the control group v1 device list, and
// under WSL 2 whether the loader reaches the Windows driver's libraries in /usr/lib/wsl/lib.
#pragma once

#include "util/environment.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// Whether /proc/self/mountinfo mounts `/` from an overlay filesystem (Docker's, containerd's and
// podman's overlay2 snapshotters): the mount point field is "/" and the type after " - " is "overlay".
[[nodiscard]] bool mountinfo_overlay_root(std::string_view mountinfo);

// A driver library a CDI spec mounts: a `hostPath:`/`path:` (YAML) or "hostPath"/"path" (JSON) value
// naming libcuda.so.<version> or libnvidia-ml.so.<version>.
struct CdiLibrary {
    std::string path;     // /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05
    std::string version;  // 535.104.05
    int line = 0;         // 1-based, in its file
};
// The driver libraries a CDI spec's text names, without a YAML parser: the lines whose key is
// hostPath or path and whose value's file name is libcuda.so.<v> or libnvidia-ml.so.<v> with a version
// of two or more numbers (the soname links .so.1 name none). At most 64.
[[nodiscard]] std::vector<CdiLibrary> parse_cdi_libraries(std::string_view spec);

struct CdiSpec {
    std::string path;  // as the machine names it: /etc/cdi/nvidia.yaml
    std::vector<CdiLibrary> libraries;
    std::string note;  // why it was not read ("larger than 4 MiB", "Permission denied"); "" when read
};

// A program of the NVIDIA container toolkit and what its `--version` said.
struct ToolkitProgram {
    std::string name;     // nvidia-ctk, nvidia-container-cli
    std::string path;     // /usr/bin/nvidia-ctk
    std::string version;  // 1.17.8; "" when its answer held none
    std::string note;     // its first line, or why there is none
};
// "NVIDIA Container Toolkit CLI version 1.17.8" (nvidia-ctk) or "cli-version: 1.17.8"
// (nvidia-container-cli) -> "1.17.8"; "" when neither.
[[nodiscard]] std::string parse_toolkit_version(std::string_view output);

// Whether the control group v1 device list (devices.list: "c 195:* rwm", "a *:* rwm") lets a
// process read and write the character device major:minor.
[[nodiscard]] bool devices_list_allows(std::string_view devices_list, unsigned major, unsigned minor);

// A device file of the driver's and what the cgroup v1 list says of it.
struct CgroupDeviceAccess {
    std::string path;  // /dev/nvidia0
    unsigned major = 0;
    unsigned minor = 0;
    bool allowed = true;
};

// What a loader search finds for one of the driver's libraries under WSL 2.
struct WslLibrary {
    std::string soname;      // libcuda.so.1
    std::string resolved;    // the file the loader opens (as the machine names it); "" when none
    std::string real_path;   // its target, links resolved (as the machine names it)
    std::string rule;        // "ld.so.cache", "LD_LIBRARY_PATH entry /x", ...
    bool from_windows = false;  // under /usr/lib/wsl
};

struct WslFacts {
    std::string source;  // what says WSL 2: "/proc/sys/kernel/osrelease 5.15.167.4-microsoft-standard-WSL2"
    bool windows_libcuda = false;  // /usr/lib/wsl/lib/libcuda.so.1 exists
    std::vector<WslLibrary> libraries;  // libcuda.so.1, libnvidia-ml.so.1
    std::string cache_status;  // the loader search's ld.so.cache line
};

struct ContainerRuntimeFacts {
    bool overlay_root = false;
    std::vector<ToolkitProgram> toolkit;
    std::vector<CdiSpec> cdi_specs;
    // The cgroup v1 device list (its path) and the driver's device files it does not allow; absent
    // under cgroup v2, whose device rules are a BPF program nothing can read back.
    std::string devices_list_path;
    std::vector<CgroupDeviceAccess> cgroup_access;
    std::optional<WslFacts> wsl;  // under WSL 2 only
};

struct ContainerRuntimeOptions {
    bool wsl2 = false;  // host_probe's verdict (its kernel release); /proc/version is read besides
    bool in_container = false;  // read the cgroup's device list
    // Whether the container toolkit's programs are asked their `--version`: `--level quick` reads
    // files only, and leaves their versions unknown.
    bool ask_versions = true;
};

// Reads the machine under `root` ("" for the real one); `environment` gives LD_LIBRARY_PATH for WSL's
// loader search.
[[nodiscard]] ContainerRuntimeFacts collect_container_runtime(const Environment& environment, const std::string& root,
                                                              const ContainerRuntimeOptions& options);

}  // namespace cudacheck
