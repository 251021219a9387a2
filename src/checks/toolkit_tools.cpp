// toolkit.tools: which developer tools of the CUDA toolkits are installed (Nsight Systems, Nsight
// Compute, cuda-gdb, compute-sanitizer, cuobjdump, nvdisasm), whether each runs, and whether
// profiling can work here for this user: Nsight Compute and CUPTI read GPU performance
// counters the driver may reserve for administrators, and Nsight Systems samples the CPU through
// perf events the kernel may restrict. A tool that is not installed is evidence, not a problem.
#include "checks/toolkit_tools.hpp"

#include "checks/checks.hpp"
#include "probes/probes.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <future>
#include <unistd.h>

namespace cudacheck {

namespace {

// The packages NVIDIA's CUDA repositories ship each tool in, one per toolkit version
// ("cuda-gdb-13-0"; the CUDA Installation Guide for Linux, "Package Manager Installation"). Nsight
// Systems has its own versioned package, nsight-systems-<its version>, and download page.
struct ToolPackage {
    std::string_view tool;
    std::string_view package;
};
constexpr ToolPackage tool_packages[] = {{"ncu", "cuda-nsight-compute"},
                                         {"cuda-gdb", "cuda-gdb"},
                                         {"compute-sanitizer", "cuda-sanitizer"},
                                         {"cuobjdump", "cuda-cuobjdump"},
                                         {"nvdisasm", "cuda-nvdisasm"}};
constexpr std::string_view nsys_package = "nsight-systems-<version>";
constexpr std::string_view nsys_download = "https://developer.nvidia.com/nsight-systems";

// Nsight Systems' Installation Guide ("Requirements for x86_64, Power, and Arm SBSA Targets on
// Linux"): CPU sampling and OS runtime tracing need /proc/sys/kernel/perf_event_paranoid at most 2
// for a user without CAP_SYS_ADMIN.
constexpr int nsys_paranoid_at_most = 2;

// "13-0" from the toolkit's "13.0.2".
std::string package_version(const std::string& toolkit_version) {
    const std::vector<std::string> parts = sys::split(toolkit_version, '.');
    return parts.size() >= 2 ? parts[0] + "-" + parts[1] : std::string("<major>-<minor>");
}

std::string package_of(const DeveloperTool& tool, const DeveloperToolSet& set) {
    for (const ToolPackage& entry : tool_packages)
        if (entry.tool == tool.name) return fmt::format("{}-{}", entry.package, package_version(set.version));
    return std::string(nsys_package);
}

bool runs(const DeveloperTool& tool) { return !tool.path.empty() && !tool.version.empty(); }
bool broken(const DeveloperTool& tool) { return !tool.path.empty() && tool.version.empty(); }
// Found in the toolkit's own bin/ (else it came from PATH).
bool in_toolkit(const DeveloperTool& tool, const DeveloperToolSet& set) {
    return set.toolkit.empty() || sys::starts_with(tool.path, set.toolkit + "/bin/");
}

const DeveloperTool* tool_named(const DeveloperToolSet& set, std::string_view name) {
    for (const DeveloperTool& tool : set.tools)
        if (tool.name == name && !tool.path.empty()) return &tool;
    return nullptr;
}

std::string failure_text(const DeveloperTool& tool) {
    return tool.failure.empty() ? "`--version` printed no version" : tool.failure;
}

std::string tool_evidence(const DeveloperTool& tool, const DeveloperToolSet& set) {
    if (tool.path.empty()) {
        if (tool.name == "nsys")
            return fmt::format(
                "not installed (Nsight Systems is a separate download/package: `sudo apt install {}` from NVIDIA's "
                "repository, "
                "or {})",
                nsys_package, nsys_download);
        return fmt::format("not installed (NVIDIA's package {})", package_of(tool, set));
    }
    const std::string where = in_toolkit(tool, set) ? tool.path : tool.path + " (on PATH, not in the toolkit)";
    if (runs(tool)) return fmt::format("{} at {}", tool.version, where);
    return fmt::format("does not run at {}: {}", where, failure_text(tool));
}

// "ncu 2025.3.1.0, cuda-gdb 13.0 in /usr/local/cuda-13.0; cuobjdump does not run; no nsys"
std::string tools_line(const DeveloperToolSet& set) {
    std::vector<std::string> running;
    std::vector<std::string> failing;
    std::vector<std::string> missing;
    for (const DeveloperTool& tool : set.tools) {
        if (runs(tool))
            running.push_back(
                fmt::format("{} {}{}", tool.name, tool.version, in_toolkit(tool, set) ? "" : " (from PATH)"));
        else if (broken(tool)) failing.push_back(tool.name);
        else missing.push_back(tool.name);
    }
    const std::string place =
        set.toolkit.empty() ? std::string("on PATH (no CUDA toolkit installed)") : "in " + set.toolkit;
    std::vector<std::string> parts;
    if (!running.empty()) parts.push_back(fmt::format("{} {}", fmt::join(running, ", "), place));
    if (!failing.empty())
        parts.push_back(fmt::format("{} {} not run", fmt::join(failing, ", "), failing.size() == 1 ? "does" : "do"));
    if (!missing.empty()) parts.push_back(fmt::format("no {}", fmt::join(missing, ", ")));
    if (parts.empty()) return "no developer tools looked for " + place;
    if (running.empty()) parts.front() += " " + place;
    return fmt::format("{}", fmt::join(parts, "; "));
}

// The headline's form of tools_line: how many run and where, and the names of those that do not
// ("5 of 6 tools run in /usr/local/cuda-13.0; no nsys"); each tool's version is evidence.
std::string tools_headline(const DeveloperToolSet& set) {
    std::size_t running = 0;
    std::vector<std::string> failing;
    std::vector<std::string> missing;
    for (const DeveloperTool& tool : set.tools) {
        if (runs(tool)) ++running;
        else if (broken(tool)) failing.push_back(tool.name);
        else missing.push_back(tool.name);
    }
    const std::string place = set.toolkit.empty() ? std::string("on PATH") : "in " + sys::clip_path(set.toolkit, 32);
    if (set.tools.empty()) return "no developer tools looked for " + place;
    std::string text = running == 0 && failing.empty()
                           ? fmt::format("none of {} developer tools installed {}", set.tools.size(), place)
                           : fmt::format("{} of {} tools run {}", running, set.tools.size(), place);
    if (!failing.empty())
        text += fmt::format("; {} fail{}", sys::first_items(failing, 24), failing.size() == 1 ? "s" : "");
    if (!missing.empty() && (running > 0 || !failing.empty())) text += "; no " + sys::first_items(missing, 24);
    return text;
}

std::string counters_text(const DeveloperToolFacts& facts) {
    const std::optional<bool>& admin_only = facts.permissions.admin_only;
    if (!admin_only) return "the driver's profiling restriction unknown";
    if (!*admin_only) return "profiling counters open to all users";
    return facts.effective_uid == 0 ? "profiling counters reserved for root, which this process is"
                                    : "profiling counters reserved for root";
}

void judge_permissions(const DeveloperToolFacts& facts, const DeveloperToolSet& used, ResultBuilder& result) {
    const ProfilingPermissions& permissions = facts.permissions;
    const bool root = facts.effective_uid == 0;
    if (!permissions.admin_only)
        result.evidence("rm_profiling_admin_only",
                        "unknown (no RmProfilingAdminOnly in /proc/driver/nvidia/params: is the NVIDIA driver "
                        "loaded?)");
    else
        result.evidence("rm_profiling_admin_only",
                        *permissions.admin_only
                            ? "1 (NVreg_RestrictProfilingToAdminUsers=1: GPU performance counters for "
                              "administrators only)"
                            : "0 (GPU performance counters open to all users)");
    if (!permissions.perf_event_paranoid)
        result.evidence("perf_event_paranoid", "unknown (no /proc/sys/kernel/perf_event_paranoid)");
    else if (*permissions.perf_event_paranoid > nsys_paranoid_at_most)
        result.evidence("perf_event_paranoid",
                        fmt::format("{} (above {}: no CPU sampling for Nsight Systems as a user without CAP_SYS_ADMIN)",
                                    *permissions.perf_event_paranoid, nsys_paranoid_at_most));
    else result.evidence("perf_event_paranoid", std::to_string(*permissions.perf_event_paranoid));
    result.evidence("effective_uid", root ? std::string("0 (root)") : std::to_string(facts.effective_uid));

    // NVIDIA, "ERR_NVGPUCTRPERM: Permission issue with Performance Counters"
    // (https://developer.nvidia.com/ERR_NVGPUCTRPERM): since driver 418.43 on Linux the counters can
    // be reserved for administrators; the module option NVreg_RestrictProfilingToAdminUsers=0 in a
    // /etc/modprobe.d/*.conf file opens them, once the module is loaded again (the initramfs
    // rebuilt where it carries the module, then a reboot).
    if (permissions.admin_only.value_or(false) && !root) {
        const DeveloperTool* ncu = tool_named(used, "ncu");
        result.evidence("profiling_restricted",
                        fmt::format("the NVIDIA driver reserves GPU performance counters for administrators "
                                    "(RmProfilingAdminOnly: 1) and this "
                                    "process runs as uid {}: Nsight Compute (ncu{}) and CUPTI's metrics, such as the "
                                    "PyTorch profiler's counters, "
                                    "fail with ERR_NVGPUCTRPERM",
                                    facts.effective_uid, ncu != nullptr ? " at " + ncu->path : std::string()));
        result.add(Code::profiling_restricted,
                   fmt::format("the driver reserves GPU performance counters for administrators and this process runs "
                               "as uid {}: ncu fails",
                               facts.effective_uid),
                   fmt::format("Profile as root (`sudo {} ...`), or open the counters to all users: `echo 'options "
                               "nvidia "
                               "NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
                               "/etc/modprobe.d/nvidia-profiling.conf`, then `sudo "
                               "update-initramfs -u -k all` (Debian, Ubuntu) or `sudo dracut --regenerate-all -f` "
                               "(RHEL, Fedora) and reboot; "
                               "`grep RmProfilingAdminOnly /proc/driver/nvidia/params` then shows 0.",
                               ncu != nullptr ? ncu->path : std::string("ncu")));
    }
    const DeveloperTool* nsys = tool_named(used, "nsys");
    if (nsys != nullptr && permissions.perf_event_paranoid &&
        *permissions.perf_event_paranoid > nsys_paranoid_at_most && !root) {
        result.evidence("perf_events_restricted", fmt::format("/proc/sys/kernel/perf_event_paranoid is {} (above {}) "
                                                              "and Nsight Systems is installed ({}): as uid {} nsys "
                                                              "cannot sample the CPU or trace OS runtime calls, and "
                                                              "its timeline lacks the CPU side",
                                                              *permissions.perf_event_paranoid, nsys_paranoid_at_most,
                                                              nsys->path, facts.effective_uid));
        result.add(Code::perf_events_restricted,
                   fmt::format("kernel.perf_event_paranoid is {} (above {}): nsys cannot sample the CPU as uid {}",
                               *permissions.perf_event_paranoid, nsys_paranoid_at_most, facts.effective_uid),
                   fmt::format("Lower it for this boot: `sudo sysctl -w kernel.perf_event_paranoid={0}`; to keep it, "
                               "`echo "
                               "'kernel.perf_event_paranoid={0}' | sudo tee /etc/sysctl.d/99-nsight-systems.conf`. Or "
                               "profile as root.",
                               nsys_paranoid_at_most));
    }
}

void judge_broken_tools(const DeveloperToolSet& set, ResultBuilder& result) {
    for (const DeveloperTool& tool : set.tools) {
        if (!broken(tool)) continue;
        std::string remediation;
        if (!in_toolkit(tool, set))
            remediation = fmt::format(
                "Reinstall the package that owns {0} (`dpkg -S {0}` or `rpm -qf {0}` names it), or take its directory "
                "off "
                "PATH.",
                tool.path);
        else if (tool.name == "nsys")
            remediation = fmt::format(
                "Reinstall Nsight Systems: `sudo apt install --reinstall {}` from NVIDIA's repository, or from {}.",
                nsys_package, nsys_download);
        else
            remediation = fmt::format(
                "Reinstall it: `sudo apt install --reinstall {0}` (`sudo dnf reinstall {0}` on RHEL, Fedora); the "
                "error above "
                "names what it lacks.",
                package_of(tool, set));
        // The headline names the tool; why it does not run is evidence when it does not fit.
        const std::string account = fmt::format("{} at {} does not run: {}", tool.name, tool.path, failure_text(tool));
        std::string message = sys::lead(account, sys::max_headline);
        if (message != account) result.evidence(tool.name + " failure", account);
        result.add(Code::developer_tool_broken, std::move(message), std::move(remediation));
    }
}

}  // namespace

ToolsToolkitChoice choose_tools_toolkit(const ToolkitFacts& toolkits) {
    if (!toolkits.path_nvcc_root.empty()) return {toolkits.path_nvcc_root, "the nvcc on PATH runs from it"};
    if (!toolkits.cuda_symlink.empty() && toolkits.toolkit_at(toolkits.cuda_symlink) != nullptr)
        return {toolkits.cuda_symlink, "no nvcc on PATH; /usr/local/cuda points to it"};
    if (!toolkits.toolkits.empty())
        return {toolkits.toolkits.front().root, "no nvcc on PATH, no /usr/local/cuda; the first toolkit found"};
    return {};
}

void judge_developer_tools(const DeveloperToolFacts& facts, ResultBuilder& result) {
    static const DeveloperToolSet none;
    const DeveloperToolSet& used = facts.toolkits.empty() ? none : facts.toolkits.front();
    if (used.toolkit.empty()) result.evidence("toolkit", "none installed: the tools on PATH");
    else
        result.evidence("toolkit",
                        fmt::format("{}{} ({})", used.toolkit, used.version.empty() ? "" : " " + used.version,
                                    used.chosen.empty() ? "the toolkit builds use" : used.chosen));
    for (const DeveloperTool& tool : used.tools) result.evidence(tool.name, tool_evidence(tool, used));
    for (std::size_t i = 1; i < facts.toolkits.size(); ++i)
        result.evidence("other_toolkit", tools_line(facts.toolkits[i]));

    judge_permissions(facts, used, result);
    for (const DeveloperToolSet& set : facts.toolkits) judge_broken_tools(set, result);

    result.evidence("tools", tools_line(used));
    std::string summary = tools_headline(used);
    summary += "; " + counters_text(facts);
    if (tool_named(used, "nsys") != nullptr && facts.permissions.perf_event_paranoid)
        summary += fmt::format("; perf_event_paranoid {}", *facts.permissions.perf_event_paranoid);
    if (facts.toolkits.size() > 1) summary += fmt::format("; {} other toolkit(s)", facts.toolkits.size() - 1);
    result.summary(std::move(summary));
}

namespace {

// The toolkit builds use, with its tools in its bin/ else on PATH, and every other toolkit with
// those in its bin/ only; every `--version` at once, so the check costs the slowest tool.
DeveloperToolFacts gather_developer_tools(CheckContext& context) {
    const ToolkitFacts& toolkits = context.probes.toolkits();
    const ToolsToolkitChoice choice = choose_tools_toolkit(toolkits);
    const auto version_of = [&toolkits](const std::string& root) {
        const Toolkit* toolkit = toolkits.toolkit_at(root);
        return toolkit != nullptr ? toolkit->version : std::string();
    };
    DeveloperToolFacts facts;
    facts.toolkits.push_back({choice.root, version_of(choice.root), choice.why, {}});
    for (const Toolkit& toolkit : toolkits.toolkits)
        if (toolkit.root != choice.root) facts.toolkits.push_back({toolkit.root, toolkit.version, {}, {}});

    Environment bin_only = context.environment;
    bin_only.unset("PATH");
    std::vector<std::future<std::vector<DeveloperTool>>> asked;
    for (std::size_t i = 0; i < facts.toolkits.size(); ++i) {
        const Environment* environment = i == 0 ? &context.environment : &bin_only;
        asked.push_back(std::async(std::launch::async, [root = facts.toolkits[i].toolkit, environment] {
            return collect_developer_tools(root, *environment);
        }));
    }
    facts.permissions = context.probes.profiling_permissions();
    facts.effective_uid = ::geteuid();
    for (std::size_t i = 0; i < facts.toolkits.size(); ++i) facts.toolkits[i].tools = asked[i].get();
    return facts;
}

}  // namespace

std::unique_ptr<Check> make_toolkit_tools_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "toolkit.tools",
                  .title = "Developer tools",
                  .description = "nsys, ncu, cuda-gdb, compute-sanitizer, cuobjdump and nvdisasm of each toolkit and "
                                 "their versions; whether profiling may read "
                                 "GPU counters and sample the CPU as this user",
                  .min_level = Level::standard,
                  .raises = {Code::profiling_restricted, Code::perf_events_restricted, Code::developer_tool_broken},
                  .answers = "each toolkit's nsys, ncu, cuda-gdb, compute-sanitizer, cuobjdump and nvdisasm and "
                             "whether `--version` runs; whether ncu and "
                             "CUPTI may read the GPU counters (`RmProfilingAdminOnly`) and nsys sample the CPU "
                             "(`perf_event_paranoid`) as this user"},
        [](CheckContext& context, ResultBuilder& result) {
            judge_developer_tools(gather_developer_tools(context), result);
        });
}

const CheckRegistration toolkit_tools_registration{620, make_toolkit_tools_check};

}  // namespace cudacheck
