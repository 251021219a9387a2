// driver.kernel_module (checks/driver_kernel_module.cpp): module, nouveau, WSL2, device files.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::bare_host;
using test::contains;
using test::finding_with;
using test::judge;
using test::loaded_module;

TEST(KernelModuleCheck, passes_with_module_gpu_and_accessible_nodes) {
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "580.159.04"));
    EXPECT_TRUE(contains(result.message, "open"));
}

TEST(KernelModuleCheck, fails_without_module_with_container_hint_in_container) {
    KernelModuleFacts facts;
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC201");
    EXPECT_TRUE(contains(result.remediation, "--gpus all"));
}

TEST(KernelModuleCheck, passes_under_wsl2_with_dxg_and_no_module) {
    KernelModuleFacts facts;
    facts.dxg = DeviceNode{"/dev/dxg", true, true, ""};
    HostInfo host = bare_host();
    host.wsl = "WSL2";
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "/dev/dxg"));
    facts.dxg.reset();
    const CheckResult missing =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(missing.code, "CC202");
    EXPECT_TRUE(contains(missing.remediation, "wsl --update"));
}

TEST(KernelModuleCheck, suggests_modprobe_when_gpu_present_but_module_absent) {
    KernelModuleFacts facts;
    facts.pci_devices.push_back({"0000:01:00.0", ""});
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC201");
    EXPECT_TRUE(contains(result.remediation, "modprobe nvidia"));
    EXPECT_TRUE(contains(result.message, "1 NVIDIA GPU(s) on the PCI bus"));
}

TEST(KernelModuleCheck, fails_when_nouveau_drives_the_gpu) {
    KernelModuleFacts facts;
    facts.pci_devices.push_back({"0000:01:00.0", "nouveau"});
    facts.nouveau_loaded = true;
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    ASSERT_NE(finding_with(result, "CC204"), nullptr);
    EXPECT_TRUE(contains(finding_with(result, "CC204")->remediation, "blacklist nouveau"));
    EXPECT_TRUE(contains(finding_with(result, "CC204")->message, "0000:01:00.0"));
}

TEST(KernelModuleCheck, fails_when_device_files_missing) {
    KernelModuleFacts facts = loaded_module();
    facts.nodes = {{"/dev/nvidiactl", false, false, ""}, {"/dev/nvidia-uvm", false, false, ""}};
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC202");
    EXPECT_TRUE(contains(result.message, "/dev/nvidiactl"));
    EXPECT_TRUE(contains(result.message, "/dev/nvidia<N>"));
    EXPECT_FALSE(contains(result.message, "nvidia-uvm")) << "nvidia-uvm is created on first use";
    EXPECT_TRUE(contains(result.remediation, "nvidia-modprobe"));
}

TEST(KernelModuleCheck, fails_when_device_files_not_openable) {
    KernelModuleFacts facts = loaded_module();
    facts.nodes[1] = {"/dev/nvidia0", true, false, "Permission denied"};
    const CheckResult result =
        judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC203");
    EXPECT_TRUE(contains(result.message, "Permission denied"));
    EXPECT_TRUE(contains(result.remediation, "usermod"));
}

}  // namespace
}  // namespace cudacheck
