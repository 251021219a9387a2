#include "engine/root_cause.hpp"

#include "report/catalog.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string>

namespace cudacheck {

namespace {

constexpr std::string_view kernel_module_id = "driver.kernel_module";

// The checks through which the others reach the driver: the module itself, and the two libraries
// every CUDA and NVML call goes through.
bool is_driver_gate(std::string_view id) {
    return id == kernel_module_id || id == "driver.libcuda" || id == "driver.nvml";
}

// A kernel-module finding that leaves no GPU usable: no module (CC201), or device files missing or
// closed (CC202, CC203) for the whole machine rather than for one GPU.
bool blocks_all_cuda(const Finding& finding) {
    if (finding.status != Status::fail || finding.device) return false;
    return finding.code == code_string(Code::kernel_module_not_loaded) ||
           finding.code == code_string(Code::device_nodes_missing) ||
           finding.code == code_string(Code::device_nodes_no_access);
}

// Whether the check needs the driver: a GPU check, or a host check that depends, directly or
// through others, on driver.kernel_module, driver.libcuda or driver.nvml.
class DriverNeeds {
public:
    explicit DriverNeeds(const std::vector<const Check*>& checks) {
        for (const Check* check : checks) infos_.emplace(check->info().id, &check->info());
    }
    bool needs_driver(const std::string& id) {
        if (const auto known = memo_.find(id); known != memo_.end()) return known->second;
        memo_[id] = false;  // a dependency cycle (none is registered) ends here
        const auto found = infos_.find(id);
        bool needs = false;
        if (found != infos_.end()) {
            const CheckInfo& info = *found->second;
            needs = info.scope != Scope::host;
            for (const std::string& dependency : info.depends_on)
                needs = needs || is_driver_gate(dependency) || needs_driver(dependency);
        }
        return memo_[id] = needs;
    }
    [[nodiscard]] const CheckInfo* info(const std::string& id) const {
        const auto found = infos_.find(id);
        return found == infos_.end() ? nullptr : found->second;
    }

private:
    std::map<std::string, const CheckInfo*, std::less<>> infos_;
    std::map<std::string, bool> memo_;
};

}  // namespace

std::string root_cause_reason(const CheckResult& root) {
    return fmt::format("needs {}, which ended with {} ({})", root.check_id, to_string(root.status), root.code);
}

void attribute_to_root_cause(std::vector<CheckResult>& results, const std::vector<const Check*>& checks, Level level) {
    const auto root = std::find_if(results.begin(), results.end(), [](const CheckResult& result) {
        return result.check_id == kernel_module_id &&
               std::any_of(result.findings.begin(), result.findings.end(), blocks_all_cuda);
    });
    if (root == results.end()) return;
    // And only when the driver indeed does not work: a libcuda that initialised and found GPUs
    // shows the module is there after all (a sandbox that hides /proc/driver/nvidia, such as
    // gVisor's), and every finding then stands on its own.
    const auto libcuda = std::find_if(results.begin(), results.end(),
                                      [](const CheckResult& result) { return result.check_id == "driver.libcuda"; });
    if (libcuda == results.end() || libcuda->status == Status::pass || libcuda->status == Status::warn ||
        libcuda->status == Status::skip)
        return;
    const std::string reason = root_cause_reason(*root);
    DriverNeeds needs(checks);
    for (CheckResult& result : results) {
        if (&result == &*root || result.status == Status::pass) continue;
        const bool gate = is_driver_gate(result.check_id);
        if (!gate && !needs.needs_driver(result.check_id)) continue;
        // Below the run's level it would not have run with a working driver either: its reason stands.
        if (const CheckInfo* info = needs.info(result.check_id); info != nullptr && level < info->min_level) continue;
        if (result.status != Status::skip) {
            // What the check found, kept as evidence: on this machine it is a consequence, not a cause.
            for (const Finding& finding : result.findings)
                result.evidence.push_back(
                    {"not_judged", fmt::format("{} {}: {}", to_string(finding.status), finding.code, finding.message)});
            result.findings.clear();
            result.code.clear();
            result.remediation.clear();
        }
        result.status = Status::skip;
        result.skip_reason = reason;
        result.message = reason;
    }
    // The report leads with it: the first check of the table and of the JSON.
    std::rotate(results.begin(), root, root + 1);
}

}  // namespace cudacheck
