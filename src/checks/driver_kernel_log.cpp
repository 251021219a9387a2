// driver.kernel_log: what the NVIDIA driver wrote to the kernel log since boot (Xid and SXid events,
// GPUs fallen off the bus, GSP timeouts, adapters that failed to initialise), each judged by
// NVIDIA's Xid catalog and by what NVML says of its GPU now.
#include "checks/driver_kernel_log.hpp"

#include "checks/checks.hpp"
#include "cuda/xid_catalog.hpp"
#include "probes/probes.hpp"
#include "report/report_query.hpp"
#include "util/headline.hpp"
#include "util/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace cudacheck {
namespace {

// Counts, not a measurement: the GPU's own record, compared by fleet even from a shared GPU.
constexpr MetricFamily xid_events{.name = xid_events_family,
                                  .flat = "gpu{gpu}.xid{xid}",
                                  .unit = Unit::count,
                                  .help = "Xid events the NVIDIA driver logged for a GPU since boot.",
                                  .measured = false};

// At most this many of a finding's raw lines go into the evidence: the first ones and the last.
constexpr std::size_t evidence_lines = 3;

// nvmlDeviceGpuRecoveryAction_t (nvml.h).
constexpr int recovery_none = 0;

// How a finding names a GPU, from NVML (index, UUID, PCI bus id) and the driver's own
// "NVRM: GPU at PCI:…: GPU-…" lines.
struct GpuName {
    std::string pci;  // canonical, "0000:3b:00.0"; "" when the line named none
    std::string uuid;
    std::string nvml_pci_bus_id;  // NVML's spelling, "00000000:3B:00.0"
    std::optional<int> nvml_index;
    std::optional<int> recovery_action;

    // Finding::gpu: the UUID, else the PCI bus id as NVML spells it.
    [[nodiscard]] std::string finding_gpu() const {
        if (!uuid.empty()) return uuid;
        if (!nvml_pci_bus_id.empty()) return nvml_pci_bus_id;
        if (pci.empty()) return {};
        std::string spelled = pci;
        std::transform(spelled.begin(), spelled.end(), spelled.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        return pci.find(':') == 4 ? "0000" + spelled : spelled;
    }
    [[nodiscard]] std::string words() const {
        if (pci.empty()) return "a GPU the line does not name";
        if (nvml_index) return fmt::format("GPU {} ({})", *nvml_index, pci);
        return fmt::format("GPU {}", pci);
    }
    // In a headline: the NVML index alone where NVML lists the GPU.
    [[nodiscard]] std::string short_words() const {
        return nvml_index ? fmt::format("GPU {}", *nvml_index) : pci.empty() ? "an unnamed GPU" : "GPU " + pci;
    }
    // The metric's "gpu" label: the NVML index where NVML lists the GPU (result.hpp), else its address.
    [[nodiscard]] std::string label() const { return nvml_index ? std::to_string(*nvml_index) : pci; }
    [[nodiscard]] std::string reset_target() const { return pci.empty() ? "<index>" : pci; }
};

class GpuDirectory {
public:
    GpuDirectory(const KernelLogReading& log, const std::vector<KernelLogGpu>& gpus) : gpus_(gpus) {
        for (const KernelLogEvent& event : log.events)
            if (event.kind == KernelLogEventKind::gpu_identity && !event.pci.empty()) uuids_[event.pci] = event.uuid;
    }
    [[nodiscard]] GpuName name(const std::string& pci) const {
        GpuName name;
        name.pci = pci;
        if (const auto uuid = uuids_.find(pci); uuid != uuids_.end()) name.uuid = uuid->second;
        if (pci.empty()) return name;
        for (const KernelLogGpu& gpu : gpus_) {
            if (canonical_pci_address(gpu.pci_bus_id) != pci) continue;
            name.nvml_index = gpu.nvml_index;
            name.nvml_pci_bus_id = gpu.pci_bus_id;
            name.recovery_action = gpu.recovery_action;
            if (!gpu.uuid.empty()) name.uuid = gpu.uuid;
        }
        return name;
    }

private:
    const std::vector<KernelLogGpu>& gpus_;
    std::map<std::string, std::string> uuids_;
};

// The step nvmlDeviceGpuRecoveryAction_t names, as the code and remedy of a finding.
std::pair<Code, Remedy> recovery_step(int action) {
    switch (action) {
        case 1: return {Code::xid_reset_gpu, Remedy::reset_gpu};         // GPU_RESET
        case 2: return {Code::xid_reboot, Remedy::reboot};               // NODE_REBOOT
        case 3: return {Code::xid_reset_gpu, Remedy::drain_p2p};         // DRAIN_P2P
        case 4: return {Code::xid_reset_gpu, Remedy::reset_gpu};         // DRAIN_AND_RESET
        case 5: return {Code::xid_update_software, Remedy::fix_config};  // RECOVER_IMEX_DOMAIN
        case 6: return {Code::xid_reset_gpu, Remedy::bus_reset};         // BUS_RESET
        case 7: return {Code::xid_reboot, Remedy::reboot};               // SYSTEM_REBOOT
        default: return {Code::xid_unknown, Remedy::investigate};
    }
}

// nvml.h's names of the actions (NVML_GPU_RECOVERY_ACTION_…), for a headline.
std::string_view recovery_name(int action) {
    switch (action) {
        case 0: return "NONE";
        case 1: return "GPU_RESET";
        case 2: return "NODE_REBOOT";
        case 3: return "DRAIN_P2P";
        case 4: return "DRAIN_AND_RESET";
        case 5: return "RECOVER_IMEX_DOMAIN";
        case 6: return "BUS_RESET";
        case 7: return "SYSTEM_REBOOT";
        default: return "an unknown action";
    }
}

std::string_view recovery_words(int action) {
    switch (action) {
        case 0: return "no action";
        case 1: return "a GPU reset";
        case 2: return "a node reboot";
        case 3: return "draining peer-to-peer traffic";
        case 4: return "draining the GPU's work and resetting it";
        case 5: return "recovering the IMEX domain";
        case 6: return "a PCIe bus reset";
        case 7: return "a system reboot";
        default: return "an action cudacheck does not know";
    }
}

// An Xid's finding from the catalog's immediate resolution bucket.
std::optional<Code> xid_code(const KernelLogEvent& event, const XidInfo& info) {
    switch (info.immediate) {
        case XidBucket::ignore:
        case XidBucket::ignore_sympathetic:
        case XidBucket::informational: return std::nullopt;
        case XidBucket::workflow_xid_45:
        case XidBucket::sympathetic_report_solo:
        // "Solo: RESTART_FM / Not Solo: IGNORE (follow other Xid)": after another Xid the driver tore
        // the application down, and the earlier Xid carries the finding.
            if (event.caused_by) return std::nullopt;
            return Code::xid_restart_app;
        case XidBucket::workflow_nvlink5:
        // The catalog's NVLink5 decode sheet: RESET_GPU for the fatal and link-fatal rows; the
        // non-fatal rows are IGNORE or XID_154_EVAL (an Xid 154 after it names the action).
            if (event.fatal == false) return std::nullopt;
            return Code::xid_reset_gpu;
        case XidBucket::restart_app:
        case XidBucket::xid_154_eval: return Code::xid_restart_app;
        case XidBucket::reset_gpu:
        case XidBucket::workflow_xid_48:  // alone RESET_GPU; with Xid 63 or 64, drain and reset
        case XidBucket::workflow_nvlink:  // Xid 74: "A GPU reset or node reboot is needed to clear this error"
        case XidBucket::check_uvm:        // RESET_GPU where UVM is in use, as every CUDA program's is
            return Code::xid_reset_gpu;
        case XidBucket::restart_bm:
        case XidBucket::restart_vm: return Code::xid_reboot;
        case XidBucket::contact_support:
        case XidBucket::check_mechanicals: return Code::xid_contact_support;
        case XidBucket::update_sw: return Code::xid_update_software;
        case XidBucket::check_app_cuda:
        case XidBucket::xid_137_flow:
        case XidBucket::workflow_xid_13:
        case XidBucket::workflow_xid_31: return Code::xid_application_fault;
        default: return Code::xid_unknown;  // unknown and the investigatory buckets: no immediate step named
    }
}

enum class GroupKind { xid, sxid, fallen_off_bus, gsp_timeout, rm_init_adapter_failed };

// The events of one kind and one verdict on one GPU (or NVSwitch): one finding, or one piece of
// evidence where they call for none.
struct Group {
    GroupKind kind = GroupKind::xid;
    std::string pci;
    int number = 0;  // the Xid or SXid; 0 for the others
    std::optional<Code> code;
    std::vector<const KernelLogEvent*> events;
};

std::vector<Group> group_events(const KernelLogReading& log) {
    std::vector<Group> groups;
    const auto add = [&](GroupKind kind, const KernelLogEvent& event, int number) {
        const std::optional<Code> code = kernel_log_event_code(event);
        for (Group& group : groups)
            // Xid 154: the latest decides (the driver sets an action, then back to None once done).
            if (group.kind == kind && group.pci == event.pci && group.number == number &&
                (group.code == code || number == 154)) {
                group.events.push_back(&event);
                if (number == 154) group.code = code;
                return;
            }
        groups.push_back(Group{.kind = kind, .pci = event.pci, .number = number, .code = code, .events = {&event}});
    };
    for (const KernelLogEvent& event : log.events) {
        switch (event.kind) {
            case KernelLogEventKind::xid:
            // Xid 79 is "GPU has fallen off the bus", Xids 119 and 120 GSP RPC timeout and GSP error
            // (the Xid catalog): with the driver's own lines of the same fault, one finding.
                if (event.number == 79) add(GroupKind::fallen_off_bus, event, 0);
                else if (event.number == 119 || event.number == 120) add(GroupKind::gsp_timeout, event, 0);
                else add(GroupKind::xid, event, event.number);
                break;
            case KernelLogEventKind::sxid: add(GroupKind::sxid, event, event.number); break;
            case KernelLogEventKind::fallen_off_bus: add(GroupKind::fallen_off_bus, event, 0); break;
            case KernelLogEventKind::gsp_timeout: add(GroupKind::gsp_timeout, event, 0); break;
            case KernelLogEventKind::rm_init_adapter_failed: add(GroupKind::rm_init_adapter_failed, event, 0); break;
            case KernelLogEventKind::gpu_identity:
            case KernelLogEventKind::persistence_deprecated: break;
        }
    }
    // "NVRM: _kgspLogXid119: … GSP Timeout …" names no GPU: it belongs to the one GPU whose GSP timed out.
    const auto unnamed = std::find_if(groups.begin(), groups.end(), [](const Group& group) {
        return group.kind == GroupKind::gsp_timeout && group.pci.empty();
    });
    if (unnamed != groups.end()) {
        std::vector<Group*> named;
        for (Group& group : groups)
            if (group.kind == GroupKind::gsp_timeout && !group.pci.empty()) named.push_back(&group);
        if (named.size() == 1) {
            named.front()->events.insert(named.front()->events.end(), unnamed->events.begin(), unnamed->events.end());
            std::sort(named.front()->events.begin(), named.front()->events.end(),
                      [](const KernelLogEvent* a, const KernelLogEvent* b) { return a->seconds < b->seconds; });
            groups.erase(unnamed);
        }
    }
    return groups;
}

// The group in an evidence key: "xid 31", "sxid 12028", "fallen off the bus".
std::string group_words(const Group& group) {
    switch (group.kind) {
        case GroupKind::xid: return fmt::format("xid {}", group.number);
        case GroupKind::sxid: return fmt::format("sxid {}", group.number);
        case GroupKind::fallen_off_bus: return "fallen off the bus";
        case GroupKind::gsp_timeout: return "gsp timeout";
        case GroupKind::rm_init_adapter_failed: return "rm_init_adapter failed";
    }
    return {};
}

// What one group comes to, in words: the whole account, and shorter headlines for when it is longer
// than a headline (sys::max_headline), each dropping more of what the evidence keeps in full.
struct Verdict {
    std::optional<Remedy> remedy;  // where the value found names another step than the code's
    std::string message;
    std::vector<std::string> shorter;  // longest first
    std::string remediation;
};

// The finding's message: the account itself where it fits, else the first shorter one that does.
std::string headline_of(const Verdict& verdict) {
    if (sys::characters(verdict.message) <= sys::max_headline) return verdict.message;
    for (const std::string& candidate : verdict.shorter)
        if (sys::characters(candidate) <= sys::max_headline) return candidate;
    return sys::clip(verdict.shorter.empty() ? verdict.message : verdict.shorter.back(), sys::max_headline);
}

// The oldest and the newest age of a group's events, where their stamps and the clock tell.
struct Ages {
    std::optional<double> oldest, newest;
};
Ages ages_of(const KernelLogReading& log, const Group& group) {
    Ages ages;
    for (const KernelLogEvent* event : group.events)
        if (const std::optional<double> age = log.age_of(*event)) {
            ages.oldest = std::max(ages.oldest.value_or(*age), *age);
            ages.newest = std::min(ages.newest.value_or(*age), *age);
        }
    return ages;
}

std::string when_words(const KernelLogReading& log, const Group& group) {
    const auto [oldest, newest] = ages_of(log, group);
    if (group.events.size() == 1) return newest ? fmt::format("{} ago", format_age(*newest)) : "at an unknown time";
    if (!oldest || !newest) return fmt::format("{} times", group.events.size());
    if (format_age(*oldest) == format_age(*newest))
        return fmt::format("{} times, {} ago", group.events.size(), format_age(*newest));
    return fmt::format("{} times, from {} to {} ago", group.events.size(), format_age(*oldest), format_age(*newest));
}

// In a headline: "3 min ago", or "3 times, last 10 min ago" (the oldest is in the account).
std::string short_when_words(const KernelLogReading& log, const Group& group) {
    if (group.events.size() == 1) return when_words(log, group);
    const std::optional<double> newest = ages_of(log, group).newest;
    return newest ? fmt::format("{} times, last {} ago", group.events.size(), format_age(*newest))
                  : fmt::format("{} times", group.events.size());
}

// The processes the group's lines name, each once, in order: "oob (pid 4889)", "2708" (a pid alone
// where the line names no process).
std::vector<std::string> process_names(const Group& group) {
    std::vector<std::string> names;
    for (const KernelLogEvent* event : group.events) {
        if (event->process.empty() && !event->pid) continue;
        std::string name = event->process.empty() ? std::to_string(*event->pid)
                           : event->pid           ? fmt::format("{} (pid {})", event->process, *event->pid)
                                                  : event->process;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
    return names;
}

// "process oob (pid 4889)", "processes oob (pid 4889), 2708 and 2 more"; "" when no line names one.
std::string process_words(const Group& group) {
    const std::vector<std::string> names = process_names(group);
    if (names.empty()) return {};
    std::string text = names.size() == 1 ? "process " : "processes ";
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) text += (i == 0 ? "" : ", ") + names[i];
    if (names.size() > 3) text += fmt::format(" and {} more", names.size() - 3);
    return text;
}

// What an application fault did, from the driver's own text where it says (Xid 31's "Fault is of type
// … ACCESS_TYPE_VIRT_WRITE").
std::string fault_words(const Group& group) {
    const std::string& detail = group.events.back()->detail;
    if (detail.find("ACCESS_TYPE_VIRT_WRITE") != std::string::npos) return "wrote through an invalid address";
    if (detail.find("ACCESS_TYPE_VIRT_READ") != std::string::npos) return "read through an invalid address";
    if (detail.find("ACCESS_TYPE_VIRT_ATOMIC") != std::string::npos)
        return "made an atomic access through an invalid address";
    if (group.number == 31) return "accessed an invalid address";
    if (group.number == 13) return "raised a graphics engine exception (an out-of-range access or illegal instruction)";
    if (group.number == 43) return "was stopped by the driver after a fault of its own";
    return "faulted";
}

std::string xid_title(int number, const XidInfo* info) {
    if (info == nullptr || info->description.empty() || info->description == "Unused")
        return info != nullptr && !info->older_description.empty()
                   ? fmt::format("Xid {} ({})", number, info->older_description)
                   : fmt::format("Xid {}", number);
    return fmt::format("Xid {} ({})", number, info->description);
}

std::string caused_words(const Group& group) {
    std::set<int> causes;
    for (const KernelLogEvent* event : group.events)
        if (event->caused_by) causes.insert(*event->caused_by);
    if (causes.empty()) return {};
    std::string text;
    for (const int cause : causes) text += fmt::format("{}{}", text.empty() ? "" : ", ", cause);
    return fmt::format(" (caused by previous Xid {})", text);
}

std::string catalog_words(const XidInfo& info) {
    if (info.investigatory == info.immediate || info.investigatory == XidBucket::unknown)
        return fmt::format("NVIDIA's Xid catalog says {}", to_string(info.immediate));
    return fmt::format("NVIDIA's Xid catalog says {}, and {} if it recurs", to_string(info.immediate),
                       to_string(info.investigatory));
}

// Why a group is no finding, for its evidence.
std::string ignored_words(const Group& group) {
    const KernelLogEvent& last = *group.events.back();
    if (group.kind == GroupKind::xid && group.number == 154)
        return "the driver's last Xid 154 set the GPU's recovery action back to None";
    if (last.caused_by) return fmt::format("it follows Xid {}, which carries the finding", *last.caused_by);
    if (last.fatal == false) return "non-fatal; NVIDIA's Xid catalog: IGNORE, or the action an Xid 154 after it names";
    const XidInfo* info = find_xid(group.number);
    return info != nullptr ? catalog_words(*info) : "no action";
}

Verdict application_fault(const Group& group, const XidInfo* info, const GpuName& gpu, const std::string& when,
                          const std::string& short_when) {
    const std::string processes = process_words(group);
    Verdict verdict;
    verdict.message =
        fmt::format("{} on {}: {} {} {}{} — an application fault, no GPU action needed", xid_title(group.number, info),
                    gpu.words(), processes.empty() ? "a process the driver did not name" : processes,
                    fault_words(group), when, caused_words(group));
    // Shorter: the GPU by its index, one process named, then the verdict before what the process did.
    const std::string head = fmt::format("Xid {} on {}: ", group.number, gpu.short_words());
    const std::vector<std::string> names = process_names(group);
    std::string one = names.empty() ? "an unnamed process" : names.front();
    if (std::isdigit(static_cast<unsigned char>(one.front())) != 0) one = "pid " + one;  // a line with no name
    if (names.size() > 1) one += fmt::format(" and {} more", names.size() - 1);
    std::string fault = fault_words(group);
    fault = fault.substr(0, fault.find(" ("));
    verdict.shorter.push_back(
        fmt::format("{}{} {} {} — an application fault, no GPU action needed", head, one, fault, short_when));
    verdict.shorter.push_back(
        fmt::format("{}an application fault of {} {} — no GPU action needed", head, one, short_when));
    const std::string name = one.substr(0, one.find(" (pid"));
    verdict.shorter.push_back(
        fmt::format("{}an application fault of {} {} — no GPU action needed", head, name, short_when));
    verdict.shorter.push_back(fmt::format("{}an application fault {} — no GPU action needed", head, short_when));
    verdict.remediation = fmt::format(
        "Nothing for the GPU: fix {} (run it under `compute-sanitizer` to find the bad access). If the Xid repeats "
        "with different programs on this GPU, run `dcgmi diag -r 3 -i {}` before trusting it.",
        processes.empty() ? "the application that ran then" : "the application of " + processes,
        gpu.nvml_index ? std::to_string(*gpu.nvml_index) : gpu.reset_target());
    return verdict;
}

Verdict xid_verdict(const Group& group, Code code, const GpuName& gpu, const std::string& when,
                    const std::string& short_when) {
    const XidInfo* info = find_xid(group.number);
    if (code == Code::xid_application_fault) return application_fault(group, info, gpu, when, short_when);
    Verdict verdict;
    const std::string short_head = fmt::format("Xid {} on {} {}", group.number, gpu.short_words(), short_when);
    if (group.number == 154) {
        const int action = group.events.back()->recovery_action.value_or(-1);
        verdict.remedy = recovery_step(action).second;
        verdict.message = action < 0 ? fmt::format(
                                           "Xid 154 (GPU recovery action changed) on {} {}: the line names "
                                           "no action cudacheck can read",
                                           gpu.words(), when)
                                     : fmt::format("Xid 154 on {} {}: the driver asks for {} (recovery action {})",
                                                   gpu.words(), when, recovery_words(action), action);
        verdict.shorter.push_back(action < 0
                                      ? short_head + ": the line names no action cudacheck can read"
                                      : fmt::format("{}: the driver asks for {}", short_head, recovery_words(action)));
        if (action >= 0)
            verdict.shorter.push_back(fmt::format("{}: the driver asks for {}", short_head, recovery_name(action)));
        if (action < 0)
            verdict.remediation = "Read the recovery action with `nvidia-smi -q | grep -i recovery` and follow it.";
        return verdict;
    }
    const std::string processes = process_words(group);
    const std::string head = fmt::format("{} on {} {}{}{}", xid_title(group.number, info), gpu.words(), when,
                                         processes.empty() ? "" : ", " + processes, caused_words(group));
    if (info == nullptr) {
        verdict.message = head + ": not in the Xid catalog cudacheck carries";
        verdict.shorter.push_back(short_head + ": not in the Xid catalog cudacheck carries");
        verdict.remediation = fmt::format(
            "Look Xid {} up in NVIDIA's Xid catalog for this driver "
            "(docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) and follow its resolution; collect "
            "`sudo nvidia-bug-report.sh` if it recurs.",
            group.number);
        return verdict;
    }
    if (code == Code::xid_unknown) {
        verdict.message =
            fmt::format("{}: NVIDIA's Xid catalog names no immediate action ({})", head, to_string(info->immediate));
        verdict.shorter.push_back(fmt::format("{}{}: NVIDIA's Xid catalog names no immediate action ({})", short_head,
                                              caused_words(group), to_string(info->immediate)));
        verdict.shorter.push_back(fmt::format("{}: the Xid catalog names no immediate action", short_head));
    } else if (info->immediate == XidBucket::workflow_nvlink5) {
        verdict.message =
            fmt::format("{}: a fatal NVLink error; {} (RESET_GPU for the fatal rows)", head, catalog_words(*info));
        verdict.shorter.push_back(fmt::format("{}{}: a fatal NVLink error; NVIDIA's Xid catalog says RESET_GPU",
                                              short_head, caused_words(group)));
        verdict.shorter.push_back(fmt::format("{}: a fatal NVLink error, RESET_GPU", short_head));
    } else {
        verdict.message = fmt::format("{}: {}", head, catalog_words(*info));
        verdict.shorter.push_back(fmt::format("{}{}: {}", short_head, caused_words(group), catalog_words(*info)));
        verdict.shorter.push_back(
            fmt::format("{}: NVIDIA's Xid catalog says {}", short_head, to_string(info->immediate)));
        verdict.shorter.push_back(fmt::format("{}: {}", short_head, to_string(info->immediate)));
    }
    return verdict;
}

Verdict sxid_verdict(const Group& group, Code code, const std::string& when, const std::string& short_when) {
    const SxidInfo* info = find_sxid(group.number);
    const bool fatal = code == Code::sxid_fatal;
    const std::string title =
        info != nullptr ? fmt::format("SXid {} ({})", group.number, info->name) : fmt::format("SXid {}", group.number);
    Verdict verdict;
    const std::string nvswitch = group.pci.empty() ? "an NVSwitch" : "NVSwitch " + group.pci;
    verdict.message = fmt::format("{} {} on {} {}", fatal ? "fatal" : "non-fatal", title, nvswitch, when);
    std::string shorter =
        fmt::format("{} SXid {} on {} {}", fatal ? "fatal" : "non-fatal", group.number, nvswitch, short_when);
    if (fatal && info != nullptr && info->always_fatal) {
        verdict.remedy = Remedy::reboot;
        verdict.message += ": always fatal to the fabric, the host must restart";
        verdict.shorter.push_back(shorter + ": always fatal to the fabric, the host must restart");
        shorter += ": the host must restart";
        verdict.remediation = "Drain the node and reboot it; if the SXid recurs, have the baseboard serviced.";
    }
    verdict.shorter.push_back(std::move(shorter));
    return verdict;
}

Verdict verdict_of(const Group& group, Code code, const GpuName& gpu, const KernelLogReading& log) {
    const std::string when = when_words(log, group);
    const std::string short_when = short_when_words(log, group);
    Verdict verdict;
    switch (group.kind) {
        case GroupKind::xid: return xid_verdict(group, code, gpu, when, short_when);
        case GroupKind::sxid: return sxid_verdict(group, code, when, short_when);
        case GroupKind::fallen_off_bus:
            verdict.message = fmt::format("{} fell off the bus {}: it stopped answering on PCIe", gpu.words(), when);
            verdict.shorter.push_back(fmt::format("{} fell off the bus {}", gpu.short_words(), short_when));
            break;
        case GroupKind::gsp_timeout:
            verdict.message = fmt::format("the GSP firmware of {} stopped answering the driver {} (GSP RPC timeout)",
                                          gpu.words(), when);
            verdict.shorter.push_back(fmt::format("the GSP firmware of {} stopped answering {} (GSP RPC timeout)",
                                                  gpu.short_words(), short_when));
            verdict.shorter.push_back(fmt::format("GSP timeout on {} {}", gpu.short_words(), short_when));
            verdict.remediation = fmt::format(
                "Reset the GPU when no process uses it (`sudo nvidia-smi -r -i {}`) or reboot; if it recurs, update "
                "the "
                "driver and collect `sudo nvidia-bug-report.sh`.",
                gpu.reset_target());
            break;
        case GroupKind::rm_init_adapter_failed:
            verdict.message =
                fmt::format("the driver could not initialise {} {} (RmInitAdapter failed)", gpu.words(), when);
            verdict.shorter.push_back(fmt::format("the driver could not initialise {} {} (RmInitAdapter failed)",
                                                  gpu.short_words(), short_when));
            verdict.shorter.push_back(fmt::format("RmInitAdapter failed for {} {}", gpu.short_words(), short_when));
            break;
    }
    return verdict;
}

std::string specific_remediation(Code code, const GpuName& gpu) {
    if (code == Code::xid_reset_gpu)
        return fmt::format(
            "Drain {}'s work and reset it when no process uses it (`sudo nvidia-smi -r -i {}`), or reboot; if it "
            "recurs, follow the catalog's investigatory action.",
            gpu.words(), gpu.reset_target());
    return {};
}

// A GPU step NVML says is no longer pending: the fault is past.
bool resolved_by_nvml(Code code, const Verdict& verdict, const GpuName& gpu) {
    if (gpu.recovery_action != recovery_none) return false;
    const Remedy remedy = verdict.remedy.value_or(catalog_entry(code).remedy);
    return remedy == Remedy::reset_gpu || remedy == Remedy::drain_p2p || remedy == Remedy::bus_reset ||
           remedy == Remedy::reboot;
}

void add_lines(const KernelLogReading& log, const Group& group, const std::string& key, ResultBuilder& result) {
    std::vector<const KernelLogEvent*> shown;
    for (std::size_t i = 0; i < group.events.size(); ++i)
        if (i + 1 < evidence_lines || i + 1 == group.events.size()) shown.push_back(group.events[i]);
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const std::optional<double> age = log.age_of(*shown[i]);
        result.evidence(shown.size() == 1 ? key : fmt::format("{} ({})", key, i + 1),
                        fmt::format("{}: {}", age ? format_age(*age) + " ago" : "at an unknown time", shown[i]->line));
    }
}

void describe_reading(const KernelLogReading& log, ResultBuilder& result) {
    result.evidence("kernel_log", fmt::format("{}: {} lines ({} bytes) read in {:.1f} ms, {} of the NVIDIA driver",
                                              log.source, log.lines, log.bytes, log.read_ms, log.driver_lines));
    if (log.wrapped && log.first_seconds)
        result.evidence("kernel_log_start",
                        fmt::format("{} after boot: the older lines were overwritten, and their events are unknown",
                                    format_age(*log.first_seconds)));
    if (!log.limited.empty()) result.evidence("kernel_log_limit", log.limited);
    if (std::any_of(log.events.begin(), log.events.end(), [](const KernelLogEvent& event) {
            return event.kind == KernelLogEventKind::persistence_deprecated;
        }))
        result.evidence("persistence_mode",
                        "the driver notes legacy persistence mode is deprecated (nvidia-persistenced is its "
                        "successor)");
}

void add_xid_counts(const KernelLogReading& log, const GpuDirectory& directory, ResultBuilder& result) {
    std::map<std::pair<std::string, int>, int> counts;
    for (const KernelLogEvent& event : log.events)
        if (event.kind == KernelLogEventKind::xid && !event.pci.empty()) ++counts[{event.pci, event.number}];
    for (const auto& [key, count] : counts)
        result.metric(xid_events, count,
                      {{"gpu", directory.name(key.first).label()}, {"xid", std::to_string(key.second)}});
}

}  // namespace

std::optional<Code> kernel_log_event_code(const KernelLogEvent& event) {
    switch (event.kind) {
        case KernelLogEventKind::fallen_off_bus: return Code::gpu_fallen_off_bus;
        case KernelLogEventKind::gsp_timeout: return Code::gsp_timeout;
        case KernelLogEventKind::rm_init_adapter_failed: return Code::rm_init_adapter_failed;
        case KernelLogEventKind::sxid: {
            const SxidInfo* info = find_sxid(event.number);
            const bool fatal = event.fatal.value_or(info != nullptr && info->fatal);
            return fatal ? Code::sxid_fatal : Code::sxid_nonfatal;
        }
        case KernelLogEventKind::gpu_identity:
        case KernelLogEventKind::persistence_deprecated: return std::nullopt;
        case KernelLogEventKind::xid: break;
    }
    if (event.number == 79) return Code::gpu_fallen_off_bus;
    if (event.number == 119 || event.number == 120) return Code::gsp_timeout;
    const XidInfo* info = find_xid(event.number);
    if (info == nullptr) return Code::xid_unknown;
    if (info->application_fault) return Code::xid_application_fault;
    if (event.number == 154) {
        if (!event.recovery_action) return Code::xid_unknown;
        if (*event.recovery_action == recovery_none) return std::nullopt;
        return recovery_step(*event.recovery_action).first;
    }
    return xid_code(event, *info);
}

std::string format_age(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "an unknown time";
    if (seconds < 90) return fmt::format("{:.0f} s", seconds);
    if (seconds < 90 * 60) return fmt::format("{:.0f} min", seconds / 60);
    if (seconds < 36 * 3600) return fmt::format("{:.0f} h", seconds / 3600);
    return fmt::format("{:.0f} d", seconds / 86400);
}

void judge_kernel_log(const KernelLogReading& log, const std::vector<KernelLogGpu>& gpus, ResultBuilder& result) {
    if (!log.readable) {
        result.skip(log.unreadable.empty() ? "kernel log not readable" : log.unreadable);
        return;
    }
    describe_reading(log, result);
    const GpuDirectory directory(log, gpus);
    const std::vector<Group> groups = group_events(log);
    std::size_t findings = 0;
    for (const Group& group : groups) {
        const GpuName gpu = directory.name(group.pci);
        const std::string subject = fmt::format("{} {}", group_words(group), gpu.label());
        if (!group.code) {
            result.evidence(subject,
                            fmt::format("not a finding ({}): {}", ignored_words(group), when_words(log, group)));
            add_lines(log, group, subject, result);
            continue;
        }
        Code code = *group.code;
        Verdict verdict = verdict_of(group, code, gpu, log);
        if (resolved_by_nvml(code, verdict, gpu)) {
            verdict.message += "; NVML reports no recovery action pending for this GPU now";
            for (std::string& shorter : verdict.shorter) shorter += "; NVML: no recovery action pending now";
            code = Code::xid_resolved;
            verdict.remedy = std::nullopt;
            verdict.remediation = {};
        }
        if (verdict.remediation.empty()) verdict.remediation = specific_remediation(code, gpu);
        const std::string headline = headline_of(verdict);
        Finding finding = make_finding(code, sys::printable(headline), verdict.remediation);
        if (verdict.remedy) finding.remedy = *verdict.remedy;
        if (group.kind != GroupKind::sxid) finding.gpu = gpu.finding_gpu();
        // The whole account where the headline had to leave some of it out.
        if (headline != verdict.message)
            result.evidence(fmt::format("{} {} account", finding.code, subject), sys::printable(verdict.message));
        add_lines(log, group, fmt::format("{} {}", finding.code, subject), result);
        result.add(std::move(finding));
        ++findings;
    }
    add_xid_counts(log, directory, result);
    result.summary(findings == 0
                       ? fmt::format("no NVIDIA driver fault in the kernel log since boot ({} lines, {} of the driver)",
                                     log.lines, log.driver_lines)
                       : fmt::format("{} finding(s) from the NVIDIA driver's {} kernel-log lines since boot", findings,
                                     log.driver_lines));
}

namespace {

// NVML's GPUs, for the names and UUIDs of the GPUs the lines give by PCI address and their
// recovery action now; asked only when a line calls for it (NVML's health queries cost a few
// milliseconds per GPU; the probe reads them once for device.health and this check).
std::vector<KernelLogGpu> nvml_gpus(CheckContext& context, const KernelLogReading& log) {
    std::vector<KernelLogGpu> gpus;
    const bool needed = std::any_of(log.events.begin(), log.events.end(), [](const KernelLogEvent& event) {
        return event.kind != KernelLogEventKind::gpu_identity &&
               event.kind != KernelLogEventKind::persistence_deprecated && event.kind != KernelLogEventKind::sxid;
    });
    if (!needed) return gpus;
    if (!context.probes.nvml().initialised()) return gpus;
    for (const NvmlDeviceHealth& gpu : context.probes.nvml_health())
        gpus.push_back(KernelLogGpu{.nvml_index = gpu.nvml_index,
                                    .uuid = gpu.uuid,
                                    .pci_bus_id = gpu.pci_bus_id,
                                    .recovery_action = gpu.recovery_action});
    return gpus;
}

std::unique_ptr<Check> make_driver_kernel_log_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "driver.kernel_log",
                  .title = "Driver kernel log",
                  .description = "The NVIDIA driver's Xid, SXid and NVRM error lines in the kernel log since boot, "
                                 "judged by NVIDIA's Xid catalog",
                  .raises = {Code::xid_application_fault, Code::xid_restart_app, Code::xid_reset_gpu, Code::xid_reboot,
                             Code::xid_contact_support, Code::xid_update_software, Code::xid_unknown, Code::sxid_fatal,
                             Code::sxid_nonfatal, Code::gpu_fallen_off_bus, Code::gsp_timeout,
                             Code::rm_init_adapter_failed, Code::xid_resolved},
                  .answers = "what the NVIDIA driver logged since boot (`/dev/kmsg`, else `dmesg`'s syslog(2) or "
                             "the journal): each Xid by NVIDIA's Xid catalog, an application's own fault (Xid 13, "
                             "31, 43) as that process's bug, GPUs fallen off the bus, GSP timeouts, RmInitAdapter "
                             "failures and NVSwitch SXids, with their age and the step each asks for"},
        [](CheckContext& context, ResultBuilder& result) {
            const KernelLogReading& log = context.probes.kernel_log();
            judge_kernel_log(log, log.readable ? nvml_gpus(context, log) : std::vector<KernelLogGpu>{}, result);
        });
}

}  // namespace

// After driver.nvml (500), whose NVML names the GPUs, before toolkit.nvcc (600).
const CheckRegistration driver_kernel_log_registration{540, make_driver_kernel_log_check};

}  // namespace cudacheck
