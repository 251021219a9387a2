// The kernel module (probes/kernel_module_probe): /proc/driver/nvidia, captured and in crafted trees.
#include "support/fixtures.hpp"

#include "probes/kernel_module_probe.hpp"

#include <gtest/gtest.h>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture;
using cudacheck::test::ScratchTree;

// ---------------------------------------------------------------------------------------------
// /proc/driver/nvidia/version

TEST(ProcDriverVersion, parses_open_module_version_when_580) {
    const auto module = parse_proc_driver_version(fixture("proc/proc-driver-version-open-580.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->version, "580.159.04");
    EXPECT_TRUE(module->open_module);
    EXPECT_EQ(module->architecture, "x86_64");
}

TEST(ProcDriverVersion, parses_open_module_version_when_525_arch) {
    const auto module = parse_proc_driver_version(fixture("proc/proc-driver-version-open-525-arch.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->version, "525.60.11");
    EXPECT_TRUE(module->open_module);
    EXPECT_EQ(module->architecture, "x86_64");
}

TEST(ProcDriverVersion, parses_open_module_version_when_565_ubuntu) {
    const auto module = parse_proc_driver_version(fixture("proc/proc-driver-version-open-565-ubuntu.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->version, "565.57.01");
    EXPECT_TRUE(module->open_module);
    EXPECT_EQ(module->architecture, "x86_64");
}

TEST(ProcDriverVersion, parses_proprietary_module_when_384) {
    const auto module = parse_proc_driver_version(fixture("proc/proc-driver-version-proprietary-384.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->version, "384.98");
    EXPECT_FALSE(module->open_module);
    EXPECT_EQ(module->architecture, "x86_64");
}

TEST(ProcDriverVersion, parses_aarch64_module_when_jetson_35_3_1) {
    const auto module = parse_proc_driver_version(fixture("proc/proc-driver-version-aarch64-jetson-35.3.1.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->version, "35.3.1");
    EXPECT_TRUE(module->open_module);
    EXPECT_EQ(module->architecture, "aarch64");
}

TEST(ProcDriverVersion, returns_nothing_when_text_is_not_nvrm) {
    EXPECT_FALSE(parse_proc_driver_version("").has_value());
    EXPECT_FALSE(parse_proc_driver_version("GCC version:  gcc version 12.2.0 (GCC)\n").has_value());
}

TEST(ProcDriverVersion, ignores_second_line_when_first_line_lacks_version) {
    // Only the NVRM line counts; a version on the GCC line must not be taken.
    EXPECT_FALSE(
        parse_proc_driver_version("something else\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n")
            .has_value());
}

// ---------------------------------------------------------------------------------------------
// /proc/driver/nvidia/gpus/<bus>/information

TEST(GpuInformation, parses_tab_separated_fields_when_h200) {
    const ProcGpu gpu = parse_gpu_information(fixture("proc/gpus-information-h200.txt"));
    EXPECT_EQ(gpu.model, "NVIDIA H200");
    EXPECT_EQ(gpu.uuid, "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa");
    EXPECT_EQ(gpu.bus_location, "0000:00:06.0");
}

TEST(GpuInformation, leaves_fields_empty_when_text_empty) {
    const ProcGpu gpu = parse_gpu_information("");
    EXPECT_EQ(gpu.model, "");
    EXPECT_EQ(gpu.uuid, "");
    EXPECT_EQ(gpu.bus_location, "");
}

// ---------------------------------------------------------------------------------------------
// collect_kernel_module on a crafted tree

TEST(CollectKernelModule, reads_module_gpus_nodes_and_pci_when_tree_complete) {
    ScratchTree tree;
    tree.write("proc/driver/nvidia/version", fixture("proc/proc-driver-version-open-580.txt"));
    tree.write("proc/driver/nvidia/gpus/0000:00:06.0/information", fixture("proc/gpus-information-h200.txt"));
    tree.write("sys/module/nvidia/version", "580.159.04\n");
    tree.write("dev/nvidiactl", "");
    tree.write("dev/nvidia0", "");
    tree.write("dev/nvidia-modeset", "");  // not a GPU node: must not be listed
    // An NVIDIA VGA controller bound to nouveau.
    tree.write("sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n");
    tree.write("sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n");
    tree.symlink("../../../bus/pci/drivers/nouveau", "sys/bus/pci/devices/0000:01:00.0/driver");
    // The same card's HDMI audio function (class 0x0403): not a display device.
    tree.write("sys/bus/pci/devices/0000:01:00.1/vendor", "0x10de\n");
    tree.write("sys/bus/pci/devices/0000:01:00.1/class", "0x040300\n");
    // An Intel display controller: not NVIDIA.
    tree.write("sys/bus/pci/devices/0000:00:02.0/vendor", "0x8086\n");
    tree.write("sys/bus/pci/devices/0000:00:02.0/class", "0x030000\n");
    tree.make_dir("sys/module/nouveau");

    const KernelModuleFacts facts = collect_kernel_module(tree.path());

    ASSERT_TRUE(facts.module.has_value());
    EXPECT_EQ(facts.module->version, "580.159.04");
    EXPECT_TRUE(facts.module->open_module);
    EXPECT_EQ(facts.sys_module_version, "580.159.04");

    ASSERT_EQ(facts.gpus.size(), 1U);
    EXPECT_EQ(facts.gpus[0].bus_location, "0000:00:06.0");
    EXPECT_EQ(facts.gpus[0].model, "NVIDIA H200");
    EXPECT_EQ(facts.gpus[0].uuid, "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa");

    ASSERT_EQ(facts.nodes.size(), 3U);
    EXPECT_EQ(facts.nodes[0].path, tree.path() + "/dev/nvidiactl");
    EXPECT_TRUE(facts.nodes[0].exists);
    EXPECT_TRUE(facts.nodes[0].openable);
    EXPECT_EQ(facts.nodes[0].error, "");
    EXPECT_EQ(facts.nodes[1].path, tree.path() + "/dev/nvidia0");
    EXPECT_TRUE(facts.nodes[1].exists);
    EXPECT_TRUE(facts.nodes[1].openable);
    EXPECT_EQ(facts.nodes[2].path, tree.path() + "/dev/nvidia-uvm");
    EXPECT_FALSE(facts.nodes[2].exists);
    EXPECT_FALSE(facts.nodes[2].openable);

    ASSERT_EQ(facts.pci_devices.size(), 1U);
    EXPECT_EQ(facts.pci_devices[0].address, "0000:01:00.0");
    EXPECT_EQ(facts.pci_devices[0].driver, "nouveau");
    EXPECT_TRUE(facts.nouveau_loaded);
}

TEST(CollectKernelModule, uses_directory_name_when_information_missing) {
    ScratchTree tree;
    tree.make_dir("proc/driver/nvidia/gpus/0000:00:07.0");
    const KernelModuleFacts facts = collect_kernel_module(tree.path());
    ASSERT_EQ(facts.gpus.size(), 1U);
    EXPECT_EQ(facts.gpus[0].bus_location, "0000:00:07.0");
    EXPECT_EQ(facts.gpus[0].model, "");
}

TEST(CollectKernelModule, reports_unbound_device_when_no_driver_link) {
    ScratchTree tree;
    tree.write("sys/bus/pci/devices/0000:02:00.0/vendor", "0x10de\n");
    tree.write("sys/bus/pci/devices/0000:02:00.0/class", "0x030200\n");
    const KernelModuleFacts facts = collect_kernel_module(tree.path());
    ASSERT_EQ(facts.pci_devices.size(), 1U);
    EXPECT_EQ(facts.pci_devices[0].address, "0000:02:00.0");
    EXPECT_EQ(facts.pci_devices[0].driver, "");
}

TEST(CollectKernelModule, finds_nothing_when_tree_empty) {
    ScratchTree tree;
    const KernelModuleFacts facts = collect_kernel_module(tree.path());
    EXPECT_FALSE(facts.module.has_value());
    EXPECT_EQ(facts.sys_module_version, "");
    EXPECT_TRUE(facts.gpus.empty());
    ASSERT_EQ(facts.nodes.size(), 2U);  // nvidiactl and nvidia-uvm are always listed
    EXPECT_EQ(facts.nodes[0].path, tree.path() + "/dev/nvidiactl");
    EXPECT_FALSE(facts.nodes[0].exists);
    EXPECT_EQ(facts.nodes[1].path, tree.path() + "/dev/nvidia-uvm");
    EXPECT_FALSE(facts.nodes[1].exists);
    EXPECT_TRUE(facts.pci_devices.empty());
    EXPECT_FALSE(facts.nouveau_loaded);
}

}  // namespace
