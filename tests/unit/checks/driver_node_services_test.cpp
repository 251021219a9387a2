// driver.node_services (checks/driver_node_services.cpp): fixture roots of NVSwitch and plain nodes,
// each run as the engine runs the check (probes pointed at the tree), with its golden verdict and
// code; the judge on hand-built facts; and the binary end to end (CUDACHECK_NODE_ROOT).
#include "checks/driver_node_services.hpp"

#include "engine/registry.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::contains;

constexpr const char* driver = "580.159.04";

// A node with two GPUs of driver 580.159.04 (the GPU machine's banner, tests/fixtures/proc) and
// nvidia-uvm loaded; `nvswitch` adds two NVSwitches, a Fabric Manager of `fm_version` ("" for
// none) and, when `fm_running`, its process.
struct NodeTree {
    test::TempDir root;
    explicit NodeTree(bool nvswitch = false, std::string fm_version = driver, bool fm_running = true) {
        root.write("proc/driver/nvidia/version",
                   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                   "(nixbld@)  Thu Jan  1 00:00:00 UTC 1970\nGCC version:  gcc version 14.3.0 (GCC) \n");
        for (const char* bus : {"0000:19:00.0", "0000:3b:00.0"})
            root.write(std::string("proc/driver/nvidia/gpus/") + bus + "/information",
                       std::string("Model: \t\t NVIDIA H100 80GB HBM3\nBus Location: \t ") + bus + "\n");
        for (const char* node :
             {"dev/nvidiactl", "dev/nvidia0", "dev/nvidia1", "dev/nvidia-uvm", "dev/nvidia-uvm-tools"})
            root.write(node, "", 0666);
        root.write("proc/modules",
                   "nvidia_uvm 1896448 0 - Live 0x0000000000000000 (POE)\n"
                   "nvidia 104275968 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n");
        root.write("proc/1/comm", "systemd\n");
        if (!nvswitch) return;
        root.write("dev/nvidia-nvswitchctl", "", 0666);
        root.write("dev/nvidia-nvswitch0", "", 0666);
        root.write("dev/nvidia-nvswitch1", "", 0666);
        root.write("proc/driver/nvidia-nvswitch/devices/0000:05:00.0/information", "");
        if (!fm_version.empty())
            root.write("usr/bin/nv-fabricmanager", "#!/bin/sh\necho 'Fabric Manager version is : " + fm_version + "'\n",
                       0755);
        if (fm_running) root.write("proc/29850/comm", "nv-fabricmanage\n");
    }
    void remove(const std::string& relative) const { std::filesystem::remove(root.path() + "/" + relative); }
};

CheckResult run_check(const std::string& id, const std::string& root, Environment environment = {}) {
    RunOptions options;
    ProbeSettings settings;
    settings.root = root;
    Probes probes{environment, settings};
    CheckContext context{options, environment, probes, std::nullopt, {}};
    const Registry registry(builtin_checks());
    ResultBuilder builder;
    registry.find(id)->run(context, builder);
    CheckResult result = std::move(builder).finish(id, std::nullopt);
    test::expect_codes_declared(result);
    return result;
}

CheckResult run_node(const NodeTree& tree) { return run_check("driver.node_services", tree.root.path()); }

const Evidence* evidence_of(const CheckResult& result, std::string_view key) {
    for (const Evidence& item : result.evidence)
        if (item.key == key) return &item;
    return nullptr;
}

TEST(NodeServicesCheck, passes_a_healthy_nvswitch_node) {
    const NodeTree tree(true);
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "Fabric Manager 580.159.04 running (pid 29850)")) << result.message;
    EXPECT_TRUE(contains(result.message, "nvidia-uvm loaded")) << result.message;
}

TEST(NodeServicesCheck, passes_a_healthy_node_without_nvswitches) {
    const NodeTree tree;
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    ASSERT_NE(evidence_of(result, "nvswitch"), nullptr);
    EXPECT_TRUE(contains(evidence_of(result, "nvswitch")->value, "Fabric Manager not needed"));
    EXPECT_TRUE(contains(result.message, "2 GPU device file(s)")) << result.message;
}

TEST(NodeServicesCheck, fails_an_nvswitch_node_without_fabric_manager) {
    const NodeTree tree(true, "", false);
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC270");
    EXPECT_TRUE(contains(result.remediation, "nvidia-fabricmanager-580=580.159.04-1")) << result.remediation;
}

TEST(NodeServicesCheck, fails_a_stopped_fabric_manager_with_its_unit_state_and_log) {
    const NodeTree tree(true, driver, false);
    tree.root.write("usr/bin/systemctl",
                    "#!/bin/sh\n[ \"$1 $2\" = 'is-active nvidia-fabricmanager.service' ] && echo failed\nexit 3\n",
                    0755);
    tree.root.write("var/log/fabricmanager.log",
                    "[Dec 05 2026 01:00:00] [INFO] [tid 812] Fabric Manager version 580.159.04 is running\n"
                    "[Dec 05 2026 01:00:01] [ERROR] [tid 812] request to query NVSwitch device information from "
                    "NVSwitch "
                    "driver failed with error:WARNING Nothing to do\n");
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC271");
    EXPECT_TRUE(contains(result.message, "unit failed")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "Nothing to do")) << result.remediation;
}

TEST(NodeServicesCheck, fails_a_fabric_manager_of_another_version) {
    const NodeTree tree(true, "580.95.05", false);
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC272");
    EXPECT_TRUE(contains(result.message, "Fabric Manager 580.95.05 but driver 580.159.04")) << result.message;
    // Running at another version: still the mismatch (an upgraded package, the old daemon still up).
    const NodeTree running(true, "580.95.05", true);
    EXPECT_EQ(run_node(running).code, "CC272");
}

TEST(NodeServicesCheck, reads_the_version_mismatch_from_fabric_managers_log) {
    // A binary that prints no version, and the log line of NVIDIA/gpu-operator#544 for this driver.
    const NodeTree tree(true, "", false);
    tree.root.write("usr/bin/nv-fabricmanager", "#!/bin/sh\nexit 1\n", 0755);
    tree.root.write("var/log/fabricmanager.log",
                    "fabric manager NVIDIA GPU driver interface version 580.95.05 don't match with driver version "
                    "580.159.04. Please update with matching NVIDIA driver package.\n");
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.code, "CC272");
    EXPECT_TRUE(contains(result.message, "580.95.05")) << result.message;
}

TEST(NodeServicesCheck, fails_without_the_uvm_module) {
    const NodeTree tree;
    tree.root.write("proc/modules", "nvidia 104275968 0 - Live 0x0000000000000000 (POE)\n");
    tree.remove("dev/nvidia-uvm");
    tree.remove("dev/nvidia-uvm-tools");
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC273");
    EXPECT_TRUE(contains(result.remediation, "sudo modprobe nvidia-uvm"));
}

TEST(NodeServicesCheck, fails_without_the_uvm_device_file) {
    const NodeTree tree;
    tree.remove("dev/nvidia-uvm");
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC274");
    EXPECT_TRUE(contains(result.remediation, "nvidia-modprobe -u -c=0"));
}

TEST(NodeServicesCheck, warns_on_partial_device_files_outside_a_container_only) {
    const NodeTree tree;
    tree.remove("dev/nvidia1");
    const CheckResult outside = run_node(tree);
    EXPECT_EQ(outside.status, Status::warn);
    EXPECT_EQ(outside.code, "CC277");
    EXPECT_TRUE(contains(outside.message, "1 of the 2 GPUs")) << outside.message;

    tree.root.write(".dockerenv", "");
    const CheckResult inside = run_node(tree);
    EXPECT_EQ(inside.status, Status::pass) << inside.message;
    EXPECT_TRUE(contains(inside.message, "1 of 2 GPUs given to this container")) << inside.message;
}

TEST(NodeServicesCheck, leaves_fabric_manager_to_the_host_in_a_container) {
    const NodeTree tree(true, "", false);
    tree.root.write(".dockerenv", "");
    const CheckResult result = run_node(tree);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    ASSERT_NE(evidence_of(result, "fabric_manager"), nullptr);
    EXPECT_TRUE(contains(evidence_of(result, "fabric_manager")->value, "host"));
}

TEST(NodeServicesCheck, skips_without_the_nvidia_module_and_under_wsl2) {
    test::TempDir bare;
    bare.write("proc/modules", "");
    EXPECT_EQ(run_check("driver.node_services", bare.path()).status, Status::skip);
    bare.write("proc/sys/kernel/osrelease", "5.15.133.1-microsoft-standard-WSL2\n");
    const CheckResult wsl = run_check("driver.node_services", bare.path());
    EXPECT_EQ(wsl.status, Status::skip);
    EXPECT_TRUE(contains(wsl.skip_reason, "WSL 2"));
}

// The judge on facts a tree cannot hold: a set-user-ID root nvidia-modprobe.
TEST(NodeServicesJudge, lowers_a_missing_uvm_module_to_a_warning_where_nvidia_modprobe_loads_it) {
    KernelModuleFacts kernel = test::loaded_module();
    NodeServicesFacts node;
    node.uvm.modprobe = "/usr/bin/nvidia-modprobe";
    node.uvm.modprobe_setuid_root = true;
    const CheckResult result = test::judge("driver.node_services", [&](ResultBuilder& r) {
        judge_node_services(kernel, test::bare_host(), node, r);
    });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC273");
    EXPECT_TRUE(contains(result.message, "nvidia-modprobe will load it")) << result.message;

    HostInfo container = test::bare_host();
    container.container = "docker";
    const CheckResult inside =
        test::judge("driver.node_services", [&](ResultBuilder& r) { judge_node_services(kernel, container, node, r); });
    EXPECT_EQ(inside.status, Status::fail);
    EXPECT_TRUE(contains(inside.remediation, "on the host"));
}

// The binary end to end, the tree named by CUDACHECK_NODE_ROOT.
nlohmann::json run_binary(const std::string& root, int expected_exit) {
    const test::TempDir out;
    const std::string path = out.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "--only", "driver.node_services,host.container", "-o", path, "-q"},
                            {{"CUDACHECK_NODE_ROOT", root},
                             {"KUBERNETES_SERVICE_HOST", test::unset_marker},
                             {"container", test::unset_marker}});
    EXPECT_EQ(run.exit_status, expected_exit) << run.output;
    nlohmann::json report = nlohmann::json::parse(test::read_text(path), nullptr, false);
    EXPECT_FALSE(report.is_discarded()) << run.output;
    test::expect_codes_declared(report);
    return report;
}

TEST(NodeServicesEndToEnd, reports_a_stopped_fabric_manager_and_passes_a_healthy_node) {
    const NodeTree stopped(true, driver, false);
    const nlohmann::json failing = run_binary(stopped.root.path(), 1);
    const nlohmann::json* check = test::find_check(failing, "driver.node_services");
    ASSERT_NE(check, nullptr);
    EXPECT_EQ((*check)["code"], "CC271");
    EXPECT_EQ((*check)["status"], "fail");

    const NodeTree healthy(true);
    const nlohmann::json passing = run_binary(healthy.root.path(), 0);
    EXPECT_EQ((*test::find_check(passing, "driver.node_services"))["status"], "pass");
    EXPECT_EQ((*test::find_check(passing, "host.container"))["status"], "pass");
}

}  // namespace
}  // namespace cudacheck
