// One root cause, one finding (engine/root_cause.cpp): where driver.kernel_module says
// CUDA cannot work at all, the checks that need the driver say so in one line instead of failing
// with findings of their own; elsewhere nothing changes.
#include "engine/root_cause.hpp"
#include "support/function_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::make_check;
using test::passing;

CheckResult result_of(const std::string& id, std::vector<Finding> findings, Status status = Status::fail) {
    CheckResult result;
    result.check_id = id;
    result.status = findings.empty() ? status : findings.front().status;
    if (!findings.empty()) {
        result.code = findings.front().code;
        result.message = findings.front().message;
        result.remediation = "a fix";
    }
    result.findings = std::move(findings);
    return result;
}

Finding finding(Code code, Status status = Status::fail, std::optional<int> device = std::nullopt) {
    return Finding{status, code_string(code), "broken: " + code_string(code), "a fix", device};
}

CheckResult skipped(const std::string& id, const std::string& reason) {
    CheckResult result;
    result.check_id = id;
    result.status = Status::skip;
    result.skip_reason = reason;
    result.message = reason;
    return result;
}

struct Machine {
    CheckList owned;
    std::vector<const Check*> checks;
    Machine() {
        owned.push_back(make_check("host.os", passing()));
        owned.push_back(make_check("driver.kernel_module", passing()));
        owned.push_back(make_check("driver.libcuda", passing()));
        owned.push_back(make_check("driver.nvml", passing()));
        owned.push_back(make_check("toolkit.nvcc", passing()));
        owned.push_back(make_check("cuda.pairing", passing(), {"driver.libcuda"}));
        owned.push_back(make_check("device.health", passing(), {"driver.nvml"}));
        owned.push_back(make_check("cuda.kernel", passing(), {}, Scope::device));
        owned.push_back(make_check("gpu.stress", passing(), {}, Scope::device, Level::full));
        for (const auto& check : owned) checks.push_back(check.get());
    }
};

std::vector<CheckResult> no_driver_results(Code root_code) {
    return {result_of("host.os", {}, Status::pass),
            result_of("driver.kernel_module", {finding(root_code)}),
            result_of("driver.libcuda", {finding(Code::libcuda_not_found)}),
            result_of("driver.nvml", {finding(Code::nvml_not_found, Status::warn)}),
            result_of("toolkit.nvcc", {finding(Code::nvcc_not_found, Status::warn)}),
            skipped("cuda.pairing", "needs driver.libcuda, which ended with fail (CC210)"),
            skipped("device.health", "NVML is not available (see driver.nvml)"),
            skipped("cuda.kernel", "no CUDA device is available (see driver.libcuda and cuda.devices)"),
            skipped("gpu.stress", "runs at --level full and above")};
}

const CheckResult& by_id(const std::vector<CheckResult>& results, const std::string& id) {
    return *std::find_if(results.begin(), results.end(),
                         [&](const CheckResult& result) { return result.check_id == id; });
}

TEST(RootCause, a_missing_kernel_module_is_the_one_finding_and_the_driver_checks_say_so) {
    for (Code root : {Code::kernel_module_not_loaded, Code::device_nodes_missing, Code::device_nodes_no_access}) {
        Machine machine;
        std::vector<CheckResult> results = no_driver_results(root);
        attribute_to_root_cause(results, machine.checks, Level::standard);
        const std::string reason = "needs driver.kernel_module, which ended with fail (" + code_string(root) + ")";
        EXPECT_EQ(by_id(results, "driver.kernel_module").status, Status::fail);
        EXPECT_EQ(by_id(results, "driver.kernel_module").findings.size(), 1U);
        for (const char* id : {"driver.libcuda", "driver.nvml", "cuda.pairing", "device.health", "cuda.kernel"}) {
            const CheckResult& result = by_id(results, id);
            EXPECT_EQ(result.status, Status::skip) << id;
            EXPECT_EQ(result.skip_reason, reason) << id;
            EXPECT_EQ(result.message, reason) << id;
            EXPECT_TRUE(result.findings.empty()) << id;
            EXPECT_TRUE(result.code.empty()) << id;
            EXPECT_TRUE(result.remediation.empty()) << id;
        }
        // What libcuda found stays in its evidence.
        const std::vector<Evidence>& evidence = by_id(results, "driver.libcuda").evidence;
        ASSERT_EQ(evidence.size(), 1U);
        EXPECT_EQ(evidence[0].key, "not_judged");
        EXPECT_EQ(evidence[0].value, "fail CC210: broken: CC210");
        // A check that does not need the driver keeps its own finding; one below the level its reason.
        EXPECT_EQ(by_id(results, "toolkit.nvcc").status, Status::warn);
        EXPECT_EQ(by_id(results, "gpu.stress").skip_reason, "runs at --level full and above");
        EXPECT_EQ(by_id(results, "host.os").status, Status::pass);
        // And the report leads with the root cause.
        EXPECT_EQ(results.front().check_id, "driver.kernel_module");
        EXPECT_EQ(results[1].check_id, "host.os");
    }
}

TEST(RootCause, at_the_full_level_a_full_level_check_is_a_consequence_too) {
    Machine machine;
    std::vector<CheckResult> results = no_driver_results(Code::kernel_module_not_loaded);
    for (CheckResult& result : results)
        if (result.check_id == "gpu.stress")
            result = skipped("gpu.stress", "no CUDA device is available (see driver.libcuda and cuda.devices)");
    attribute_to_root_cause(results, machine.checks, Level::full);
    EXPECT_EQ(by_id(results, "gpu.stress").skip_reason, "needs driver.kernel_module, which ended with fail (CC201)");
}

TEST(RootCause, changes_nothing_when_the_module_is_loaded_or_only_one_gpu_is_affected) {
    Machine machine;
    // A working module: libcuda's own failure is its own finding.
    std::vector<CheckResult> working = no_driver_results(Code::kernel_module_not_loaded);
    for (CheckResult& result : working)
        if (result.check_id == "driver.kernel_module") result = result_of("driver.kernel_module", {}, Status::pass);
    const std::vector<CheckResult> before = working;
    attribute_to_root_cause(working, machine.checks, Level::standard);
    EXPECT_EQ(working, before);
    // Device files missing for GPU 1 only, or nouveau on one GPU: the other GPUs still work.
    for (const Finding& partial :
         {finding(Code::device_nodes_missing, Status::fail, 1), finding(Code::nouveau_bound)}) {
        std::vector<CheckResult> results = no_driver_results(Code::kernel_module_not_loaded);
        for (CheckResult& result : results)
            if (result.check_id == "driver.kernel_module") result = result_of("driver.kernel_module", {partial});
        const std::vector<CheckResult> unchanged = results;
        attribute_to_root_cause(results, machine.checks, Level::standard);
        EXPECT_EQ(results, unchanged) << partial.code;
    }
    // No module seen, yet libcuda works (a sandbox hiding /proc/driver/nvidia): every finding stands.
    std::vector<CheckResult> hidden = no_driver_results(Code::kernel_module_not_loaded);
    for (CheckResult& result : hidden)
        if (result.check_id == "driver.libcuda") result = result_of("driver.libcuda", {}, Status::pass);
    const std::vector<CheckResult> hidden_before = hidden;
    attribute_to_root_cause(hidden, machine.checks, Level::standard);
    EXPECT_EQ(hidden, hidden_before);
    // No kernel-module result at all (--only driver.libcuda).
    std::vector<CheckResult> alone{result_of("driver.libcuda", {finding(Code::libcuda_not_found)})};
    const std::vector<CheckResult> alone_before = alone;
    attribute_to_root_cause(alone, machine.checks, Level::standard);
    EXPECT_EQ(alone, alone_before);
}

}  // namespace
}  // namespace cudacheck
