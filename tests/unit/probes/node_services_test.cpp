// probes/node_services: Fabric Manager's version, package and log, /proc/modules, and what the
// probe gathers from crafted roots (programs it runs are scripts in the tree).
#include "probes/node_services.hpp"

#include "support/test_support.hpp"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

TEST(FabricManagerVersion, reads_the_version_line) {
    // `nv-fabricmanager --version` as a NVIDIA forum transcript and GPUd's parser test show it.
    EXPECT_EQ(parse_fabric_manager_version("Fabric Manager version is : 450.102.04\n"), "450.102.04");
    EXPECT_EQ(parse_fabric_manager_version("\n\n\tFabric Manager version is : 535.161.08\n\n"), "535.161.08");
    EXPECT_EQ(parse_fabric_manager_version("nv-fabricmanager: unrecognized option\n"), "");
    EXPECT_EQ(parse_fabric_manager_version("Fabric Manager version is : \n"), "");
}

TEST(FabricManagerPackage, finds_the_installed_branch_package_in_dpkg_status) {
    const std::string status =
        "Package: nvidia-fabricmanager-dev-535\nStatus: install ok installed\nVersion: 535.161.08-1\n\n"
        "Package: nvidia-fabricmanager-535\nStatus: deinstall ok config-files\nVersion: 535.104.05-1\n\n"
        "Package: nvidia-fabricmanager-580\nStatus: install ok installed\nArchitecture: amd64\n"
        "Version: 1:580.159.04-1ubuntu1\n\nPackage: zlib1g\nStatus: install ok installed\nVersion: 1:1.2.13\n";
    // The dev package (headers) is not Fabric Manager; the 535 one is removed (config files only).
    const auto package = find_dpkg_package(status, "nvidia-fabricmanager");
    ASSERT_TRUE(package);
    EXPECT_EQ(package->name, "nvidia-fabricmanager-580");
    EXPECT_EQ(package->version, "580.159.04");  // epoch and Debian revision removed
    EXPECT_FALSE(find_dpkg_package("Package: nvidia-fabricmanagerx\nStatus: install ok installed\nVersion: 1\n",
                                   "nvidia-fabricmanager"));
}

TEST(FabricManagerLog, finds_the_driver_version_complaint) {
    // The line of NVIDIA/gpu-operator#544.
    const std::vector<std::string> lines = {
        "[Jun 28 2023 10:01:02] [INFO] [tid 3228] Fabric Manager version 530.30.02 is running with the following "
        "configuration options",
        "[Jun 28 2023 10:01:02] [ERROR] [tid 3228] fabric manager NVIDIA GPU driver interface version 530.30.02 don't "
        "match with driver version 530.41.03. Please update with matching NVIDIA driver package."};
    const auto mismatch = find_log_version_mismatch(lines);
    ASSERT_TRUE(mismatch);
    EXPECT_EQ(mismatch->fabric_manager, "530.30.02");
    EXPECT_EQ(mismatch->driver, "530.41.03");
    EXPECT_FALSE(find_log_version_mismatch({lines[0]}));
}

TEST(FabricManagerLog, last_lines_are_bounded_and_printable) {
    EXPECT_EQ(last_lines("a\n\nb\nc\n\n", 2), (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(last_lines("only", 5), (std::vector<std::string>{"only"}));
    const std::vector<std::string> long_line = last_lines(std::string(1000, 'x') + "\x1b[2J", 1);
    ASSERT_EQ(long_line.size(), 1U);
    EXPECT_LE(long_line[0].size(), 300U);
    EXPECT_EQ(long_line[0].find('\x1b'), std::string::npos);
}

TEST(ProcModules, names_a_module_by_its_whole_name) {
    const std::string modules =
        "nvidia_uvm 1896448 0 - Live 0x0000000000000000 (POE)\nnvidia 9000000 1 nvidia_uvm, Live 0x0\n";
    EXPECT_TRUE(modules_list_has(modules, "nvidia_uvm"));
    EXPECT_TRUE(modules_list_has(modules, "nvidia"));
    EXPECT_FALSE(modules_list_has("nvidia_uvm_x 1 0 - Live 0x0\nnvidia 1 0 - Live 0x0\n", "nvidia_uvm"));
}

TEST(NodeServicesProbe, node_root_prefers_the_probes_root_then_the_test_variable) {
    Environment environment;
    EXPECT_EQ(node_root(environment, ""), "");
    environment.set("CUDACHECK_NODE_ROOT", "/tmp/tree");
    EXPECT_EQ(node_root(environment, ""), "/tmp/tree");
    EXPECT_EQ(node_root(environment, "/other"), "/other");
    environment.set("CUDACHECK_NODE_ROOT", "relative");
    EXPECT_EQ(node_root(environment, ""), "");
}

TEST(NodeServicesProbe, gathers_fabric_manager_from_a_crafted_nvswitch_node) {
    test::TempDir root;
    root.write("dev/nvidia-nvswitch0", "");
    root.write("dev/nvidia-nvswitchctl", "");
    root.write("proc/driver/nvidia-nvswitch/devices/0000:05:00.0", "");
    root.write("usr/bin/nv-fabricmanager", "#!/bin/sh\necho 'Fabric Manager version is : 535.161.08'\n", 0755);
    root.write("proc/4242/comm", "nv-fabricmanage\n");
    root.write("proc/77/comm", "bash\n");
    root.write("var/log/fabricmanager.log", "line one\nline two\n");
    root.write("proc/modules", "nvidia_uvm 1896448 0 - Live 0x0000000000000000 (POE)\n");
    root.write("dev/nvidia-uvm", "");
    const NodeServicesFacts facts = collect_node_services(root.path(), {});
    ASSERT_TRUE(facts.nvswitch_system());
    EXPECT_EQ(facts.nvswitch_signs,
              (std::vector<std::string>{"/dev/nvidia-nvswitch0", "/proc/driver/nvidia-nvswitch/devices/0000:05:00.0"}));
    const FabricManagerFacts& fm = facts.fabric_manager;
    EXPECT_EQ(fm.binary, "/usr/bin/nv-fabricmanager");
    EXPECT_EQ(fm.version, "535.161.08");
    EXPECT_TRUE(contains(fm.version_source, "--version"));
    EXPECT_EQ(fm.pids, std::vector<int>{4242});
    EXPECT_EQ(fm.unit_state, "");  // running: systemctl is not asked
    EXPECT_EQ(fm.log_tail, (std::vector<std::string>{"line one", "line two"}));
    EXPECT_TRUE(facts.uvm.module_loaded);
    EXPECT_TRUE(facts.uvm.device);
    EXPECT_FALSE(facts.uvm.tools_device);
}

TEST(NodeServicesProbe, asks_systemctl_when_no_process_runs_and_bounds_a_hanging_version) {
    test::TempDir root;
    root.write("dev/nvidia-nvswitch0", "");
    root.write("usr/bin/nv-fabricmanager", "#!/bin/sh\nexec sleep 30\n", 0755);
    root.write("usr/bin/systemctl", "#!/bin/sh\necho failed\nexit 3\n", 0755);
    root.write("proc/1/comm", "systemd\n");
    root.write("var/lib/dpkg/status",
               "Package: nvidia-fabricmanager-535\nStatus: install ok installed\nVersion: 535.104.05-1\n");
    const auto start = std::chrono::steady_clock::now();
    const NodeServicesFacts facts = collect_node_services(root.path(), {});
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(5));
    const FabricManagerFacts& fm = facts.fabric_manager;
    EXPECT_TRUE(contains(fm.version_note, "no answer within 2 s")) << fm.version_note;
    EXPECT_EQ(fm.version, "535.104.05");  // from the package
    EXPECT_EQ(fm.version_source, "dpkg package nvidia-fabricmanager-535");
    EXPECT_TRUE(fm.pids.empty());
    EXPECT_EQ(fm.unit_state, "failed");
    EXPECT_EQ(fm.log_note, "absent");
}

TEST(NodeServicesProbe, runs_nothing_in_a_container_and_nothing_without_nvswitches) {
    test::TempDir root;
    root.write("dev/nvidia-nvswitch0", "");
    root.write("usr/bin/nv-fabricmanager", "#!/bin/sh\ntouch \"$0.ran\"\n", 0755);
    root.write("usr/bin/systemctl", "#!/bin/sh\ntouch \"$0.ran\"\n", 0755);
    const NodeServicesFacts contained = collect_node_services(root.path(), {.in_container = true});
    EXPECT_TRUE(contained.nvswitch_system());
    EXPECT_FALSE(std::filesystem::exists(root.path() + "/usr/bin/nv-fabricmanager.ran"));
    EXPECT_FALSE(std::filesystem::exists(root.path() + "/usr/bin/systemctl.ran"));

    test::TempDir plain;
    plain.write("usr/bin/nv-fabricmanager", "#!/bin/sh\ntouch \"$0.ran\"\n", 0755);
    const NodeServicesFacts facts = collect_node_services(plain.path(), {});
    EXPECT_FALSE(facts.nvswitch_system());
    EXPECT_EQ(facts.fabric_manager.binary, "");
    EXPECT_FALSE(std::filesystem::exists(plain.path() + "/usr/bin/nv-fabricmanager.ran"));
    EXPECT_FALSE(facts.uvm.module_loaded);
}

TEST(NodeServicesProbe, reads_only_the_tail_of_a_large_log) {
    test::TempDir root;
    root.write("dev/nvidia-nvswitch0", "");
    std::string log;
    for (int i = 0; i < 200000; ++i) log += "[INFO] filler line " + std::to_string(i) + "\n";
    log += "fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version 530.41.03.\n";
    root.write("var/log/fabricmanager.log", log);
    const NodeServicesFacts facts = collect_node_services(root.path(), {.in_container = true});
    ASSERT_TRUE(facts.fabric_manager.log_mismatch);
    EXPECT_EQ(facts.fabric_manager.log_mismatch->driver, "530.41.03");
    EXPECT_EQ(facts.fabric_manager.log_tail.size(), 6U);
}

}  // namespace
}  // namespace cudacheck
