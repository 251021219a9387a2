#include "probes/node_services.hpp"

#include "probes/probes.hpp"

#include "util/process.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <sys/stat.h>
#include <unistd.h>

namespace cudacheck {

std::string node_root(const Environment& environment, const std::string& probes_root) {
    if (!probes_root.empty()) return probes_root;
    const std::optional<std::string> chosen = environment.get("CUDACHECK_NODE_ROOT");
    if (chosen && sys::starts_with(*chosen, "/")) return *chosen;
    return {};
}

NodeView node_view(Probes& probes, const Environment& environment) {
    NodeView view;
    view.root = node_root(environment, probes.root());
    if (view.root == probes.root()) {
        view.kernel = probes.kernel_module();
        view.host = probes.host();
    } else {
        view.kernel = collect_kernel_module(view.root);
        view.host = collect_host_info(environment, view.root);
    }
    return view;
}

namespace {

bool is_version_char(char c) { return (c >= '0' && c <= '9') || c == '.'; }

// The run of digits and dots at `at` ("535.161.08"), without a trailing dot.
std::string version_at(std::string_view text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && is_version_char(text[end])) ++end;
    while (end > at && text[end - 1] == '.') --end;
    return std::string(text.substr(at, end - at));
}

}  // namespace

std::string parse_fabric_manager_version(std::string_view output) {
    // "Fabric Manager version is : 450.102.04" (a NVIDIA forum transcript of
    // `/usr/bin/nv-fabricmanager --version`; the same line is what NVIDIA's own test suites and
    // GPUd's parser read).
    constexpr std::string_view marker = "Fabric Manager version is";
    const std::size_t at = output.find(marker);
    if (at == std::string_view::npos) return {};
    std::size_t from = at + marker.size();
    while (from < output.size() && (output[from] == ' ' || output[from] == ':' || output[from] == '\t')) ++from;
    return version_at(output, from);
}

std::optional<InstalledPackage> find_dpkg_package(std::string_view status, std::string_view name) {
    // dpkg's status file: stanzas separated by blank lines, "Package:", "Status: install ok
    // installed", "Version: [epoch:]upstream[-revision]" (deb-version(7)).
    InstalledPackage stanza;
    bool installed = false;
    std::string version;
    const auto finish = [&]() -> std::optional<InstalledPackage> {
        // "<name>" or "<name>-<branch>"; not nvidia-fabricmanager-dev-535, its headers.
        const std::string_view suffix = std::string_view(stanza.name).substr(std::min(stanza.name.size(), name.size()));
        const bool branch = suffix.size() > 1 && suffix[0] == '-' &&
                            std::all_of(suffix.begin() + 1, suffix.end(), [](char c) { return c >= '0' && c <= '9'; });
        const bool named = sys::starts_with(stanza.name, name) && (suffix.empty() || branch);
        if (!named || !installed || version.empty()) return std::nullopt;
        std::string_view upstream = version;
        if (const std::size_t colon = upstream.find(':'); colon != std::string_view::npos)
            upstream = upstream.substr(colon + 1);
        if (const std::size_t dash = upstream.rfind('-'); dash != std::string_view::npos)
            upstream = upstream.substr(0, dash);
        return InstalledPackage{stanza.name, std::string(upstream)};
    };
    std::size_t start = 0;
    while (start <= status.size()) {
        std::size_t end = status.find('\n', start);
        if (end == std::string_view::npos) end = status.size();
        const std::string_view line = status.substr(start, end - start);
        if (sys::trim(line).empty()) {
            if (auto found = finish()) return found;
            stanza = {};
            installed = false;
            version.clear();
        } else if (sys::starts_with(line, "Package:")) {
            stanza.name = std::string(sys::trim(line.substr(8)));
        } else if (sys::starts_with(line, "Status:")) {
            installed = sys::trim(line.substr(7)).ends_with(" installed");
        } else if (sys::starts_with(line, "Version:")) {
            version = std::string(sys::trim(line.substr(8)));
        }
        if (end == status.size()) break;
        start = end + 1;
    }
    return finish();
}

std::optional<FabricManagerLogMismatch> find_log_version_mismatch(const std::vector<std::string>& lines) {
    constexpr std::string_view interface = "driver interface version ", driver = "with driver version ";
    for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
        const std::size_t at = line->find(interface);
        if (at == std::string::npos) continue;
        const std::size_t driver_at = line->find(driver, at);
        if (driver_at == std::string::npos) continue;
        FabricManagerLogMismatch mismatch{version_at(*line, at + interface.size()),
                                          version_at(*line, driver_at + driver.size()), *line};
        if (!mismatch.fabric_manager.empty() && !mismatch.driver.empty()) return mismatch;
    }
    return std::nullopt;
}

std::vector<std::string> last_lines(std::string_view text, std::size_t count) {
    std::vector<std::string> lines;
    std::size_t end = text.size();
    while (end > 0 && lines.size() < count) {
        const std::size_t start = text.rfind('\n', end - 1);
        const std::size_t from = start == std::string_view::npos ? 0 : start + 1;
        const std::string_view line = sys::trim(text.substr(from, end - from));
        if (!line.empty()) {
            std::string printable = sys::printable(line);
            if (printable.size() > 300) printable = printable.substr(0, 297) + "...";
            lines.push_back(std::move(printable));
        }
        if (start == std::string_view::npos) break;
        end = start;
    }
    std::reverse(lines.begin(), lines.end());
    return lines;
}

bool modules_list_has(std::string_view proc_modules, std::string_view module) {
    std::size_t start = 0;
    while (start < proc_modules.size()) {
        std::size_t end = proc_modules.find('\n', start);
        if (end == std::string_view::npos) end = proc_modules.size();
        const std::string_view line = proc_modules.substr(start, end - start);
        if (sys::starts_with(line, module) && line.size() > module.size() && line[module.size()] == ' ') return true;
        start = end + 1;
    }
    return false;
}

namespace {

constexpr auto child_time_limit = std::chrono::milliseconds(2000);
constexpr std::size_t log_tail_bytes = std::size_t{64} * 1024;
constexpr std::size_t log_tail_lines = 6;
constexpr std::size_t dpkg_status_limit = 32u << 20;
constexpr std::size_t most_processes = 100000;

// The first of `names` in the usual directories of system programs, as the machine names it
// (without the root).
std::string find_program(const std::string& root, std::string_view name) {
    for (const char* directory : {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin"}) {
        const std::string path = std::string(directory) + "/" + std::string(name);
        if (sys::is_executable_file(root + path)) return path;
    }
    return {};
}

// A program's output on one line, clipped: for a note that says what it answered.
std::string one_line(std::string_view output) {
    std::string text;
    for (char c : sys::trim(output)) text += c == '\n' || c == '\r' ? ' ' : c;
    text = sys::printable(text);
    if (text.size() > 160) text = text.substr(0, 157) + "...";
    return text;
}

std::string describe_failure(const sys::CommandResult& run) {
    if (!run.started) return "could not start: " + run.error;
    if (run.timed_out) return "gave no answer within 2 s (stopped)";
    const std::string said = one_line(run.output);
    return said.empty() ? "exit status " + std::to_string(run.exit_status) + ", no output"
                        : "exit status " + std::to_string(run.exit_status) + ": " + said;
}

// The processes whose name is nv-fabricmanager. The kernel keeps 15 characters of a name
// (TASK_COMM_LEN 16, proc(5) /proc/pid/comm), so the running daemon shows as "nv-fabricmanage"
// (systemd's status prints "Main PID: 29850 (nv-fabricmanage)").
std::vector<int> fabric_manager_processes(const std::string& root, bool& visible) {
    const std::optional<std::vector<pid_t>> pids =
        sys::processes_named(root + "/proc", "nv-fabricmanager", most_processes);
    visible = pids.has_value();
    return pids ? std::vector<int>(pids->begin(), pids->end()) : std::vector<int>{};
}

// The last `bytes` of a file, from a whole line on; or the error.
Expected<std::string> read_tail(const std::string& path, std::size_t bytes) {
    const Expected<sys::RegularFile> file = sys::open_regular_file(path);
    if (!file) return file.error();
    const std::uint64_t from = file->size > bytes ? file->size - bytes : 0;
    std::string text(static_cast<std::size_t>(std::min<std::uint64_t>(file->size, bytes)), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::pread(file->fd, text.data() + got, text.size() - got, static_cast<off_t>(from + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(file->fd);
    text.resize(got);
    if (from > 0) {
        const std::size_t newline = text.find('\n');
        text = newline == std::string::npos ? std::string() : text.substr(newline + 1);
    }
    return text;
}

std::vector<std::string> nvswitch_signs(const std::string& root) {
    std::vector<std::string> signs;
    // The nvswitch driver's device files (/dev/nvidia-nvswitchctl, /dev/nvidia-nvswitch<N>) and its
    // procfs directory, one entry per NVSwitch by PCI address (Fabric Manager user guide, "NVSwitch
    // Core Software Stack").
    for (const std::string& name : sys::list_directory(root + "/dev"))
        if (sys::starts_with(name, "nvidia-nvswitch") && name != "nvidia-nvswitchctl") signs.push_back("/dev/" + name);
    for (const std::string& name : sys::list_directory(root + "/proc/driver/nvidia-nvswitch/devices"))
        signs.push_back("/proc/driver/nvidia-nvswitch/devices/" + name);
    if (signs.size() > 16) signs.resize(16);
    return signs;
}

void collect_fabric_manager(const std::string& root, const NodeServicesOptions& options, FabricManagerFacts& facts) {
    facts.binary = find_program(root, "nv-fabricmanager");
    if (!options.in_container && !facts.binary.empty() && !options.start_programs)
        facts.version_note = "`" + facts.binary + " --version` not run at --level quick (--level standard runs it)";
    if (!options.in_container && !facts.binary.empty() && options.start_programs) {
        const sys::CommandResult run = sys::run_command({root + facts.binary, "--version"}, child_time_limit);
        facts.version = parse_fabric_manager_version(run.output);
        if (!facts.version.empty()) facts.version_source = "`" + facts.binary + " --version`";
        else facts.version_note = "`" + facts.binary + " --version` " + describe_failure(run);
    }
    if (facts.version.empty() || facts.binary.empty()) {
        if (const auto status = sys::read_file(root + "/var/lib/dpkg/status", dpkg_status_limit))
            facts.package = find_dpkg_package(*status, "nvidia-fabricmanager");
        if (facts.package && facts.version.empty()) {
            facts.version = facts.package->version;
            facts.version_source = "dpkg package " + facts.package->name;
        }
    }
    facts.pids = fabric_manager_processes(root, facts.processes_visible);
    if (!options.in_container && facts.pids.empty() && !options.start_programs)
        facts.unit_note =
            "`systemctl is-active nvidia-fabricmanager.service` not run at --level quick (--level "
            "standard runs it)";
    if (!options.in_container && facts.pids.empty() && options.start_programs) {
        const std::string systemctl = find_program(root, "systemctl");
        if (systemctl.empty()) {
            facts.unit_note = "no systemctl";
        } else {
            const sys::CommandResult run =
                sys::run_command({root + systemctl, "is-active", "nvidia-fabricmanager.service"}, child_time_limit);
            // is-active prints one state (systemctl(1)): active, inactive, failed, activating, ...
            const std::string state(sys::trim(run.output));
            static const std::vector<std::string> states = {"active",       "inactive",  "failed",     "activating",
                                                            "deactivating", "reloading", "refreshing", "maintenance"};
            if (run.started && !run.timed_out && std::find(states.begin(), states.end(), state) != states.end())
                facts.unit_state = state;
            else facts.unit_note = "`systemctl is-active nvidia-fabricmanager.service` " + describe_failure(run);
        }
    }
    // The log file fabricmanager.cfg names by default (LOG_FILE_NAME=/var/log/fabricmanager.log).
    facts.log_path = "/var/log/fabricmanager.log";
    const Expected<std::string> log = read_tail(root + facts.log_path, log_tail_bytes);
    if (!log) {
        facts.log_note = log.error().code == ENOENT ? "absent" : "unreadable (" + log.error().message + ")";
        return;
    }
    facts.log_tail = last_lines(*log, log_tail_lines);
    facts.log_mismatch = find_log_version_mismatch(last_lines(*log, 200));
}

void collect_uvm(const std::string& root, UvmFacts& facts) {
    if (const auto modules = sys::read_file(root + "/proc/modules");
        modules && modules_list_has(*modules, "nvidia_uvm")) {
        facts.module_loaded = true;
        facts.module_source = "/proc/modules";
    } else if (sys::is_directory(root + "/sys/module/nvidia_uvm")) {
        facts.module_loaded = true;
        facts.module_source = "/sys/module/nvidia_uvm";
    }
    facts.device = sys::exists(root + "/dev/nvidia-uvm");
    facts.tools_device = sys::exists(root + "/dev/nvidia-uvm-tools");
    facts.modprobe = find_program(root, "nvidia-modprobe");
    struct stat status{};
    if (!facts.modprobe.empty() && ::stat((root + facts.modprobe).c_str(), &status) == 0)
        facts.modprobe_setuid_root = status.st_uid == 0 && (status.st_mode & S_ISUID) != 0;
}

}  // namespace

bool nvml_reports_fabric(const NvmlFacts& nvml) {
    const NvmlApi& api = nvml.api;
    if (!nvml.initialised() || api.device_get_handle_by_index == nullptr) return false;
    if (api.device_get_fabric_info_v == nullptr && api.device_get_fabric_info == nullptr) return false;
    for (std::size_t index = 0; index < nvml.devices.size() && index < 64; ++index) {
        nvml::nvmlDevice_t device = nullptr;
        if (api.device_get_handle_by_index(static_cast<unsigned int>(index), &device) != nvml::NVML_SUCCESS) continue;
        std::optional<nvml::nvmlGpuFabricState_t> state;
        if (api.device_get_fabric_info_v != nullptr) {
            // r580 takes version 3, r550 version 2 (a prefix of it): the newest first.
            for (const unsigned int version : {nvml::nvmlGpuFabricInfo_v3, nvml::nvmlGpuFabricInfo_v2}) {
                nvml::nvmlGpuFabricInfo_v3_t info{};
                info.version = version;
                if (api.device_get_fabric_info_v(device, &info) == nvml::NVML_SUCCESS) {
                    state = info.state;
                    break;
                }
            }
        }
        if (!state && api.device_get_fabric_info != nullptr) {
            nvml::nvmlGpuFabricInfo_t info{};
            if (api.device_get_fabric_info(device, &info) == nvml::NVML_SUCCESS) state = info.state;
        }
        if (state && *state != nvml::NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) return true;
    }
    return false;
}

NodeServicesFacts collect_node_services(const std::string& root, const NodeServicesOptions& options) {
    NodeServicesFacts facts;
    facts.nvswitch_signs = nvswitch_signs(root);
    if (facts.nvswitch_signs.empty() && options.nvml_fabric)
        facts.nvswitch_signs.push_back("NVML: a GPU's fabric state is other than not-supported");
    if (facts.nvswitch_system()) collect_fabric_manager(root, options, facts.fabric_manager);
    collect_uvm(root, facts.uvm);
    return facts;
}

}  // namespace cudacheck
