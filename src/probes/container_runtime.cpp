#include "probes/container_runtime.hpp"

#include "probes/host_probe.hpp"
#include "probes/library_locator.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <chrono>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace cudacheck {

bool mountinfo_overlay_root(std::string_view mountinfo) {
    // proc(5), /proc/pid/mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw":
    // the fifth field is the mount point; after the " - " separator come the type and the source.
    std::size_t start = 0;
    bool overlay = false;
    while (start < mountinfo.size()) {
        std::size_t end = mountinfo.find('\n', start);
        if (end == std::string_view::npos) end = mountinfo.size();
        const std::vector<std::string> fields = sys::split(mountinfo.substr(start, end - start), ' ');
        start = end + 1;
        if (fields.size() < 7 || fields[4] != "/") continue;
        const auto separator = std::find(fields.begin() + 6, fields.end(), "-");
        // A later mount on / hides an earlier one: the last line for / is the root seen.
        if (separator != fields.end() && separator + 1 != fields.end()) overlay = *(separator + 1) == "overlay";
    }
    return overlay;
}

namespace {

bool is_path_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
           c == '_' || c == '-' || c == '+';
}

// The version after ".so." in a file name when it has two or more numbers ("535.104.05"); "" otherwise.
std::string library_version(std::string_view file_name, std::string_view stem) {
    if (!sys::starts_with(file_name, stem)) return {};
    const std::string_view version = file_name.substr(stem.size());
    int numbers = 0;
    bool in_number = false;
    for (char c : version) {
        if (c >= '0' && c <= '9') {
            if (!in_number) ++numbers;
            in_number = true;
        } else if (c == '.' && in_number) {
            in_number = false;
        } else {
            return {};
        }
    }
    if (!in_number || numbers < 2) return {};
    return std::string(version);
}

// The key written before the value that starts at `at` on its line: "hostPath" for
// `    hostPath: /usr/lib/...` and for `"hostPath": "/usr/lib/..."`.
std::string_view key_before(std::string_view line, std::size_t at) {
    std::size_t end = at;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '"' || line[end - 1] == '\'' || line[end - 1] == '\t'))
        --end;
    if (end == 0 || line[end - 1] != ':') return {};
    --end;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '"' || line[end - 1] == '\'')) --end;
    std::size_t start = end;
    while (start > 0 &&
           ((line[start - 1] >= 'a' && line[start - 1] <= 'z') || (line[start - 1] >= 'A' && line[start - 1] <= 'Z')))
        --start;
    return line.substr(start, end - start);
}

}  // namespace

std::vector<CdiLibrary> parse_cdi_libraries(std::string_view spec) {
    // A CDI spec (the Container Device Interface specification, github.com/cncf-tags/container-device-interface,
    // SPEC.md) mounts the driver's libraries as containerEdits.mounts entries with hostPath and
    // containerPath; `nvidia-ctk cdi generate` names each by its versioned file
    // (libcuda.so.<driver version>), in YAML or JSON.
    constexpr std::size_t most = 64;
    std::vector<CdiLibrary> libraries;
    int line_number = 0;
    std::size_t start = 0;
    while (start < spec.size() && libraries.size() < most) {
        std::size_t end = spec.find('\n', start);
        if (end == std::string_view::npos) end = spec.size();
        const std::string_view line = spec.substr(start, end - start);
        ++line_number;
        start = end + 1;
        for (const std::string_view stem : {std::string_view("libcuda.so."), std::string_view("libnvidia-ml.so.")}) {
            for (std::size_t at = line.find(stem); at != std::string_view::npos && libraries.size() < most;
                 at = line.find(stem, at + 1)) {
                std::size_t path_start = at;
                while (path_start > 0 && is_path_char(line[path_start - 1])) --path_start;
                std::size_t path_end = at;
                while (path_end < line.size() && is_path_char(line[path_end])) ++path_end;
                const std::string_view path = line.substr(path_start, path_end - path_start);
                const std::string_view file_name =
                    path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
                if (file_name.size() < stem.size() || file_name.substr(0, stem.size()) != stem) continue;
                const std::string version = library_version(file_name, stem);
                const std::string_view key = key_before(line, path_start);
                if (version.empty() || (key != "hostPath" && key != "path")) continue;
                libraries.push_back({std::string(path), version, line_number});
            }
        }
    }
    return libraries;
}

std::string parse_toolkit_version(std::string_view output) {
    // `nvidia-ctk --version`: "NVIDIA Container Toolkit CLI version 1.17.8" then "commit: ...";
    // `nvidia-container-cli --version`: "cli-version: 1.17.8", "lib-version: 1.17.8", "build date: ...".
    for (const std::string_view marker : {std::string_view("CLI version "), std::string_view("cli-version:")}) {
        const std::size_t at = output.find(marker);
        if (at == std::string_view::npos) continue;
        std::size_t from = at + marker.size();
        while (from < output.size() && output[from] == ' ') ++from;
        std::size_t end = from;
        while (end < output.size() && output[end] != '\n' && output[end] != ' ' && output[end] != '\r') ++end;
        return sys::printable(output.substr(from, std::min<std::size_t>(end - from, 40)));
    }
    return {};
}

bool devices_list_allows(std::string_view devices_list, unsigned major, unsigned minor) {
    // The device controller of cgroup v1 (the kernel's Documentation/admin-guide/cgroup-v1/devices.rst):
    // one entry a line, "type major:minor access", type a (all), c or b, '*' for any number, access
    // a subset of "rwm". An entry "a *:* rwm" allows everything.
    const auto number_matches = [](std::string_view field, unsigned value) {
        if (field == "*") return true;
        unsigned parsed = 0;
        if (field.empty() || field.size() > 9) return false;
        for (char c : field) {
            if (c < '0' || c > '9') return false;
            parsed = parsed * 10 + static_cast<unsigned>(c - '0');
        }
        return parsed == value;
    };
    for (const std::string& raw : sys::split(devices_list, '\n')) {
        const std::vector<std::string> fields = sys::split(sys::trim(raw), ' ');
        if (fields.size() != 3 || (fields[0] != "a" && fields[0] != "c")) continue;
        const std::size_t colon = fields[1].find(':');
        if (colon == std::string::npos) continue;
        const bool numbers = number_matches(std::string_view(fields[1]).substr(0, colon), major) &&
                             number_matches(std::string_view(fields[1]).substr(colon + 1), minor);
        const bool read_write = fields[2].find('r') != std::string::npos && fields[2].find('w') != std::string::npos;
        if (numbers && read_write) return true;
    }
    return false;
}

namespace {

constexpr auto child_time_limit = std::chrono::milliseconds(2000);
constexpr std::size_t spec_limit = 4u << 20;
constexpr std::size_t most_specs = 64;
// The NVIDIA driver's character device major and nvidiactl's minor (the CUDA installation guide's
// device-node script: `mknod -m 666 /dev/nvidia$i c 195 $i`, `mknod -m 666 /dev/nvidiactl c 195 255`).
constexpr unsigned nvidia_major = 195;
constexpr unsigned nvidiactl_minor = 255;

std::string strip_root(const std::string& root, const std::string& path) {
    return !root.empty() && sys::starts_with(path, root) ? path.substr(root.size()) : path;
}

void collect_toolkit(const std::string& root, bool ask_versions, std::vector<ToolkitProgram>& programs) {
    // /usr/local/nvidia/toolkit is where the GPU Operator's toolkit container installs them.
    for (const char* name : {"nvidia-ctk", "nvidia-container-cli"}) {
        for (const char* directory : {"/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/nvidia/toolkit"}) {
            const std::string path = std::string(directory) + "/" + name;
            if (!sys::is_executable_file(root + path)) continue;
            ToolkitProgram program{name, path, {}, {}};
            if (!ask_versions) {
                program.note = "`--version` not asked at --level quick (it starts the program)";
                programs.push_back(std::move(program));
                break;
            }
            const sys::CommandResult run = sys::run_command({root + path, "--version"}, child_time_limit);
            program.version = parse_toolkit_version(run.output);
            if (!run.started) program.note = "could not start: " + run.error;
            else if (run.timed_out) program.note = "`--version` gave no answer within 2 s (stopped)";
            else if (program.version.empty()) {
                std::string first(sys::trim(std::string_view(run.output).substr(0, run.output.find('\n'))));
                program.note = "`--version` said: " + sys::printable(first.substr(0, 120));
            }
            programs.push_back(std::move(program));
            break;
        }
    }
}

void collect_cdi(const std::string& root, std::vector<CdiSpec>& specs) {
    // The directories CDI consumers read specs from (CDI SPEC.md: /etc/cdi for static specs,
    // /var/run/cdi for generated ones).
    for (const char* directory : {"/etc/cdi", "/var/run/cdi"}) {
        for (const std::string& name : sys::list_directory(root + directory)) {
            if (specs.size() >= most_specs) return;
            if (!name.ends_with(".yaml") && !name.ends_with(".yml") && !name.ends_with(".json")) continue;
            CdiSpec spec;
            spec.path = std::string(directory) + "/" + name;
            const Expected<std::string> text = sys::read_regular_file(root + spec.path, spec_limit);
            if (!text) spec.note = text.error().message;
            else spec.libraries = parse_cdi_libraries(*text);
            specs.push_back(std::move(spec));
        }
    }
}

void collect_cgroup_access(const std::string& root, ContainerRuntimeFacts& facts) {
    const std::string list_path = "/sys/fs/cgroup/devices/devices.list";
    const std::optional<std::string> list = sys::read_file(root + list_path, 1 << 20);
    if (!list) return;
    facts.devices_list_path = list_path;
    for (const std::string& name : sys::list_directory(root + "/dev")) {
        unsigned minor = 0;
        if (name == "nvidiactl") {
            minor = nvidiactl_minor;
        } else if (sys::starts_with(name, "nvidia") && name.size() > 6 && name.size() < 10 &&
                   std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            minor = static_cast<unsigned>(std::stoul(name.substr(6)));
        } else {
            continue;
        }
        unsigned major = nvidia_major;
        struct stat status{};
        if (::stat((root + "/dev/" + name).c_str(), &status) == 0 && S_ISCHR(status.st_mode)) {
            major = ::major(status.st_rdev);
            minor = ::minor(status.st_rdev);
        }
        facts.cgroup_access.push_back({"/dev/" + name, major, minor, devices_list_allows(*list, major, minor)});
    }
}

WslLibrary resolve_wsl_library(const std::string& root, std::string_view soname, const LoaderSearch& search,
                               DirectoryListings& listings) {
    const Resolution resolution = resolve(soname, search, listings);
    WslLibrary library;
    library.soname = std::string(soname);
    if (!resolution.found()) return library;
    library.resolved = strip_root(root, resolution.path);
    library.real_path = strip_root(root, resolution.real_path.empty() ? resolution.path : resolution.real_path);
    library.rule = resolution.rule;
    library.from_windows =
        sys::starts_with(library.resolved, "/usr/lib/wsl/") || sys::starts_with(library.real_path, "/usr/lib/wsl/");
    return library;
}

}  // namespace

ContainerRuntimeFacts collect_container_runtime(const Environment& environment, const std::string& root,
                                                const ContainerRuntimeOptions& options) {
    ContainerRuntimeFacts facts;
    facts.overlay_root = mountinfo_overlay_root(sys::read_file(root + "/proc/self/mountinfo", 4 << 20).value_or(""));
    collect_toolkit(root, options.ask_versions, facts.toolkit);
    collect_cdi(root, facts.cdi_specs);
    if (options.in_container || facts.overlay_root) collect_cgroup_access(root, facts);

    std::string source;
    if (options.wsl2) {
        source = "kernel release (host.os)";
    } else {
        // /proc/version: "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@...) ...".
        const std::string version(sys::trim(sys::read_file(root + "/proc/version", 4096).value_or("")));
        if (detect_wsl(version) == "WSL2") source = "/proc/version: " + sys::printable(version.substr(0, 120));
    }
    if (source.empty()) return facts;
    WslFacts wsl;
    wsl.source = std::move(source);
    // NVIDIA's CUDA on WSL user guide: the Windows driver maps libcuda.so.1 and libnvidia-ml.so.1
    // into /usr/lib/wsl/lib; "do not install any Linux display driver in WSL", whose libraries would
    // shadow them.
    wsl.windows_libcuda = sys::exists(root + "/usr/lib/wsl/lib/libcuda.so.1");
    const LoaderSearch search = loader_search(environment, root);
    wsl.cache_status = search.cache_status;
    DirectoryListings listings;
    for (const std::string_view soname : {std::string_view("libcuda.so.1"), std::string_view("libnvidia-ml.so.1")})
        wsl.libraries.push_back(resolve_wsl_library(root, soname, search, listings));
    facts.wsl = std::move(wsl);
    return facts;
}

}  // namespace cudacheck
