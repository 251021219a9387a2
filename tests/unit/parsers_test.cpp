// Unit tests for the pure parsers and fact tables, fed with the real captures under tests/fixtures/
// (see tests/fixtures/README.md), and for the probes that read a crafted directory tree.

#include "cuda/cuda_facts.hpp"
#include "util/system.hpp"
#include "util/units.hpp"
#include "util/environment.hpp"
#include "cudacheck/report.hpp"
#include "probes/driver_probe.hpp"
#include "probes/host_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "probes/toolkit_probe.hpp"
#include "probes/visible_devices.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace cudacheck;
namespace fs = std::filesystem;

// The text of a fixture file, by its path under tests/fixtures/.
std::string fixture(const std::string& relative) {
    const std::string path = std::string(CUDACHECK_SOURCE_DIR "/tests/fixtures/") + relative;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("missing fixture " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string fixture_path(const std::string& relative) {
    return std::string(CUDACHECK_SOURCE_DIR "/tests/fixtures/") + relative;
}

// A directory made with mkdtemp, removed with everything under it at the end of the test.
class ScratchTree {
public:
    ScratchTree() {
        std::string pattern = (fs::temp_directory_path() / "cudacheck-parsers-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        // Canonical, so paths compare equal to what realpath() reports.
        path_ = fs::canonical(pattern).string();
    }
    ScratchTree(const ScratchTree&) = delete;
    ScratchTree& operator=(const ScratchTree&) = delete;
    ~ScratchTree() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    [[nodiscard]] const std::string& path() const { return path_; }

    std::string write(const std::string& relative, std::string_view content, unsigned mode = 0644) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full.parent_path());
        {
            std::ofstream out(full, std::ios::binary | std::ios::trunc);
            out << content;
        }
        ::chmod(full.c_str(), mode);
        return full.string();
    }
    std::string make_dir(const std::string& relative) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full);
        return full.string();
    }
    std::string symlink(const std::string& target, const std::string& relative) const {
        const fs::path full = fs::path(path_) / relative;
        fs::create_directories(full.parent_path());
        fs::create_symlink(target, full);
        return full.string();
    }

private:
    std::string path_;
};

// ---------------------------------------------------------------------------------------------
// /etc/os-release

TEST(OsRelease, parses_quoted_and_bare_values_when_debian_12) {
    const auto values = parse_os_release(fixture("os-release/debian-12.txt"));
    EXPECT_EQ(values.size(), 9U);
    EXPECT_EQ(values.at("PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(values.at("NAME"), "Debian GNU/Linux");
    EXPECT_EQ(values.at("VERSION_ID"), "12");
    EXPECT_EQ(values.at("VERSION_CODENAME"), "bookworm");
    EXPECT_EQ(values.at("ID"), "debian");
    EXPECT_EQ(values.at("HOME_URL"), "https://www.debian.org/");
}

TEST(OsRelease, parses_every_key_when_ubuntu_22_04) {
    const auto values = parse_os_release(fixture("os-release/ubuntu-22.04.txt"));
    EXPECT_EQ(values.size(), 12U);
    EXPECT_EQ(values.at("PRETTY_NAME"), "Ubuntu 22.04.4 LTS");
    EXPECT_EQ(values.at("VERSION_ID"), "22.04");
    EXPECT_EQ(values.at("VERSION"), "22.04.4 LTS (Jammy Jellyfish)");
    EXPECT_EQ(values.at("ID"), "ubuntu");
    EXPECT_EQ(values.at("ID_LIKE"), "debian");
    EXPECT_EQ(values.at("UBUNTU_CODENAME"), "jammy");
    EXPECT_EQ(values.at("PRIVACY_POLICY_URL"), "https://www.ubuntu.com/legal/terms-and-policies/privacy-policy");
}

TEST(OsRelease, parses_last_line_when_ubuntu_24_04) {
    const auto values = parse_os_release(fixture("os-release/ubuntu-24.04.txt"));
    EXPECT_EQ(values.size(), 13U);
    EXPECT_EQ(values.at("PRETTY_NAME"), "Ubuntu 24.04.2 LTS");
    EXPECT_EQ(values.at("VERSION_ID"), "24.04");
    EXPECT_EQ(values.at("VERSION_CODENAME"), "noble");
    EXPECT_EQ(values.at("LOGO"), "ubuntu-logo");
}

TEST(OsRelease, keeps_spaces_inside_quotes_when_rocky_9_7) {
    const auto values = parse_os_release(fixture("os-release/rocky-9.7.txt"));
    EXPECT_EQ(values.size(), 19U);
    EXPECT_EQ(values.at("PRETTY_NAME"), "Rocky Linux 9.7 (Blue Onyx)");
    EXPECT_EQ(values.at("ID"), "rocky");
    EXPECT_EQ(values.at("ID_LIKE"), "rhel centos fedora");
    EXPECT_EQ(values.at("PLATFORM_ID"), "platform:el9");
    EXPECT_EQ(values.at("CPE_NAME"), "cpe:/o:rocky:rocky:9::baseos");
    EXPECT_EQ(values.at("SUPPORT_END"), "2032-05-31");
    EXPECT_EQ(values.at("REDHAT_SUPPORT_PRODUCT_VERSION"), "9.7");
}

TEST(OsRelease, reads_past_blank_line_when_almalinux_9_1) {
    const auto values = parse_os_release(fixture("os-release/almalinux-9.1.txt"));
    EXPECT_EQ(values.size(), 17U);
    EXPECT_EQ(values.count(""), 0U);
    EXPECT_EQ(values.at("PRETTY_NAME"), "AlmaLinux 9.1 (Lime Lynx)");
    EXPECT_EQ(values.at("VERSION_ID"), "9.1");
    EXPECT_EQ(values.at("ALMALINUX_MANTISBT_PROJECT"), "AlmaLinux-9");
    EXPECT_EQ(values.at("REDHAT_SUPPORT_PRODUCT_VERSION"), "9.1");
}

TEST(OsRelease, skips_comments_and_strips_single_quotes_when_present) {
    const auto values = parse_os_release("# a comment\nID='arch'\nno equals sign here\nBUILD_ID=rolling\n");
    EXPECT_EQ(values.size(), 2U);
    EXPECT_EQ(values.at("ID"), "arch");
    EXPECT_EQ(values.at("BUILD_ID"), "rolling");
}

TEST(OsRelease, returns_nothing_when_text_empty) { EXPECT_TRUE(parse_os_release("").empty()); }

// ---------------------------------------------------------------------------------------------
// WSL detection from /proc/sys/kernel/osrelease

TEST(DetectWsl, reports_wsl1_when_kernel_4_4_0_19041_microsoft) {
    EXPECT_EQ(detect_wsl(sys::trim(fixture("osrelease/wsl1-4.4.0-19041-Microsoft.txt"))), "WSL1");
}

TEST(DetectWsl, reports_wsl1_when_kernel_4_4_0_18362_microsoft) {
    EXPECT_EQ(detect_wsl(sys::trim(fixture("osrelease/wsl1-4.4.0-18362-Microsoft.txt"))), "WSL1");
}

TEST(DetectWsl, reports_wsl2_when_kernel_5_15_90_1_microsoft_standard_wsl2) {
    EXPECT_EQ(detect_wsl(sys::trim(fixture("osrelease/wsl2-5.15.90.1-microsoft-standard-WSL2.txt"))), "WSL2");
}

TEST(DetectWsl, reports_wsl2_when_kernel_5_15_133_1_microsoft_standard_wsl2) {
    EXPECT_EQ(detect_wsl(sys::trim(fixture("osrelease/wsl2-5.15.133.1-microsoft-standard-WSL2.txt"))), "WSL2");
}

TEST(DetectWsl, reports_wsl2_when_untrimmed_file_text) {
    EXPECT_EQ(detect_wsl(fixture("osrelease/wsl2-5.15.133.1-microsoft-standard-WSL2.txt")), "WSL2");
}

TEST(DetectWsl, reports_wsl2_when_older_microsoft_standard_kernel) {
    EXPECT_EQ(detect_wsl("4.19.128-microsoft-standard"), "WSL2");
}

TEST(DetectWsl, reports_nothing_when_plain_linux_kernel) {
    EXPECT_EQ(detect_wsl("6.1.0-18-amd64"), "");
    EXPECT_EQ(detect_wsl(""), "");
}

// ---------------------------------------------------------------------------------------------
// Container detection

TEST(DetectContainer, reports_nothing_when_no_signs) { EXPECT_EQ(detect_container(ContainerSigns{}), ""); }

TEST(DetectContainer, reports_docker_when_dockerenv_exists) {
    ContainerSigns signs;
    signs.dockerenv = true;
    EXPECT_EQ(detect_container(signs), "docker");
}

TEST(DetectContainer, reports_docker_when_cgroup_names_docker) {
    ContainerSigns signs;
    signs.cgroup = "12:cpu,cpuacct:/docker/3f8e2b1c\n0::/docker/3f8e2b1c\n";
    EXPECT_EQ(detect_container(signs), "docker");
}

TEST(DetectContainer, reports_kubernetes_when_service_host_set_even_with_dockerenv) {
    ContainerSigns signs;
    signs.dockerenv = true;
    signs.kubernetes_env = true;
    EXPECT_EQ(detect_container(signs), "kubernetes");
}

TEST(DetectContainer, reports_kubernetes_when_cgroup_names_kubepods) {
    ContainerSigns signs;
    signs.cgroup = "0::/kubepods/besteffort/pod1234/abcdef\n";
    EXPECT_EQ(detect_container(signs), "kubernetes");
}

TEST(DetectContainer, reports_podman_when_containerenv_exists) {
    ContainerSigns signs;
    signs.containerenv = true;
    EXPECT_EQ(detect_container(signs), "podman");
}

TEST(DetectContainer, reports_podman_when_container_variable_podman) {
    ContainerSigns signs;
    signs.container_variable = "podman";
    EXPECT_EQ(detect_container(signs), "podman");
}

TEST(DetectContainer, reports_containerd_when_cgroup_names_containerd) {
    ContainerSigns signs;
    signs.cgroup = "0::/system.slice/containerd.service\n";
    EXPECT_EQ(detect_container(signs), "containerd");
}

TEST(DetectContainer, reports_lxc_when_cgroup_names_lxc) {
    ContainerSigns signs;
    signs.cgroup = "0::/lxc/mybox\n";
    EXPECT_EQ(detect_container(signs), "lxc");
}

TEST(DetectContainer, reports_container_variable_when_systemd_nspawn) {
    ContainerSigns signs;
    signs.cgroup = "0::/\n";
    signs.container_variable = "systemd-nspawn";
    EXPECT_EQ(detect_container(signs), "systemd-nspawn");
}

// ---------------------------------------------------------------------------------------------
// /proc/cpuinfo and /proc/meminfo

TEST(CpuModel, returns_model_name_when_x86) {
    const std::string cpuinfo =
        "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
        "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n\n"
        "processor\t: 1\nmodel name\t: second entry\n";
    EXPECT_EQ(parse_cpu_model(cpuinfo), "Intel(R) Xeon(R) Platinum 8480+");
}

TEST(CpuModel, returns_cpu_part_when_arm_without_model_name) {
    const std::string cpuinfo =
        "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n\n"
        "processor\t: 1\nCPU part\t: 0xd40\n";
    EXPECT_EQ(parse_cpu_model(cpuinfo), "Arm CPU part 0xd4f");
}

TEST(CpuModel, returns_board_model_when_model_line_present) {
    EXPECT_EQ(parse_cpu_model("processor\t: 0\nCPU part\t: 0xd08\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"),
              "Raspberry Pi 4 Model B Rev 1.4");
}

TEST(CpuModel, returns_empty_when_no_known_key) { EXPECT_EQ(parse_cpu_model("processor\t: 0\n"), ""); }

TEST(MemTotal, converts_kib_to_bytes_when_present) {
    const std::string meminfo = "MemTotal:       263842804 kB\nMemFree:        1000 kB\n";
    EXPECT_EQ(parse_mem_total(meminfo), 263842804ULL * 1024ULL);
}

TEST(MemTotal, finds_line_when_not_first) {
    EXPECT_EQ(parse_mem_total("MemFree:        1000 kB\nMemTotal:       2048 kB\n"), 2048ULL * 1024ULL);
}

TEST(MemTotal, returns_zero_when_absent) { EXPECT_EQ(parse_mem_total("MemFree:        1000 kB\n"), 0U); }

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
    EXPECT_FALSE(parse_proc_driver_version("something else\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n")
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

// ---------------------------------------------------------------------------------------------
// nvcc --version and ptxas --version

TEST(NvccVersion, parses_release_and_full_when_nvcc_13_0) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-13.0.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "13.0");
    EXPECT_EQ(version->full, "13.0.88");
}

TEST(NvccVersion, parses_release_and_full_when_nvcc_12_4) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-12.4.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.4");
    EXPECT_EQ(version->full, "12.4.131");
}

TEST(NvccVersion, parses_release_and_full_when_nvcc_11_8) {
    const auto version = parse_nvcc_version(fixture("nvcc/nvcc-11.8.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "11.8");
    EXPECT_EQ(version->full, "11.8.89");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_11_8) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-11.8.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "11.8");
    EXPECT_EQ(version->full, "11.8.89");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_12_1) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-12.1.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.1");
    EXPECT_EQ(version->full, "12.1.105");
}

TEST(NvccVersion, parses_release_and_full_when_ptxas_12_9) {
    const auto version = parse_nvcc_version(fixture("nvcc/ptxas-12.9.txt"));
    ASSERT_TRUE(version.has_value());
    EXPECT_EQ(version->release, "12.9");
    EXPECT_EQ(version->full, "12.9.86");
}

TEST(NvccVersion, returns_nothing_when_output_has_no_release_line) {
    EXPECT_FALSE(parse_nvcc_version("").has_value());
    EXPECT_FALSE(parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")
                     .has_value());
}

// ---------------------------------------------------------------------------------------------
// version.json / version.txt

TEST(ToolkitVersionFile, reads_cuda_version_when_version_json) {
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda":{"name":"CUDA SDK","version":"13.0.2"}})"), "13.0.2");
}

TEST(ToolkitVersionFile, reads_cuda_version_when_json_has_other_components) {
    const std::string text = R"({
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.4.1"
   },
   "cuda_cccl" : {
      "name" : "CUDA C++ Core Compute Libraries",
      "version" : "12.4.127"
   }
})";
    EXPECT_EQ(parse_toolkit_version_file(text), "12.4.1");
}

TEST(ToolkitVersionFile, reads_version_when_legacy_version_txt) {
    EXPECT_EQ(parse_toolkit_version_file("CUDA Version 10.2.89"), "10.2.89");
    EXPECT_EQ(parse_toolkit_version_file("CUDA Version 10.2.89\n"), "10.2.89");
}

TEST(ToolkitVersionFile, returns_empty_when_json_lacks_cuda_version) {
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda_nvcc":{"version":"13.0.88"}})"), "");
    EXPECT_EQ(parse_toolkit_version_file(R"({"cuda":{"name":"CUDA SDK","version":13}})"), "");
}

TEST(ToolkitVersionFile, returns_empty_when_text_unrecognised) {
    EXPECT_EQ(parse_toolkit_version_file(""), "");
    EXPECT_EQ(parse_toolkit_version_file("hello"), "");
}

// ---------------------------------------------------------------------------------------------
// toolkit_root_of and collect_toolkits on crafted trees

TEST(ToolkitRoot, resolves_symlinked_root_when_nvcc_under_cuda_link) {
    ScratchTree tree;
    tree.write("usr/local/cuda-12.4/bin/nvcc", "#!/bin/sh\n", 0755);
    tree.symlink("cuda-12.4", "usr/local/cuda");
    EXPECT_EQ(toolkit_root_of(tree.path() + "/usr/local/cuda/bin/nvcc"), tree.path() + "/usr/local/cuda-12.4");
}

TEST(ToolkitRoot, returns_empty_when_path_has_no_bin_directory) {
    EXPECT_EQ(toolkit_root_of("/nonexistent-cudacheck/nvcc"), "");
}

TEST(ToolkitRoot, strips_bin_when_path_does_not_exist) {
    EXPECT_EQ(toolkit_root_of("/nonexistent-cudacheck/cuda-9.9/bin/nvcc"), "/nonexistent-cudacheck/cuda-9.9");
}

// A toolkit tree: usr/local/cuda-12.4 with an nvcc script printing `nvcc_text`, and the
// usr/local/cuda symlink to it.
void make_cuda_12_4(const ScratchTree& tree, const std::string& nvcc_script) {
    tree.write("usr/local/cuda-12.4/bin/nvcc", nvcc_script, 0755);
    tree.write("usr/local/cuda-12.4/version.json", R"({"cuda":{"name":"CUDA SDK","version":"12.4.1"}})");
    tree.symlink("cuda-12.4", "usr/local/cuda");
}

std::string script_printing_fixture(const std::string& relative) {
    return "#!/bin/sh\nexec /bin/cat '" + fixture_path(relative) + "'\n";
}

TEST(CollectToolkits, runs_toolkit_nvcc_when_not_on_path) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, "");
    EXPECT_EQ(facts.cuda_symlink, root);
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, root);
    EXPECT_EQ(facts.toolkits[0].version, "12.4.1");
    EXPECT_EQ(facts.toolkits[0].nvcc, root + "/bin/nvcc");
    EXPECT_EQ(facts.toolkits[0].found_as, (std::vector<std::string>{"/usr/local/cuda", "/usr/local/cuda-12.4"}));
    ASSERT_NE(facts.toolkit_at(root), nullptr);
    EXPECT_EQ(facts.toolkit_at(root)->version, "12.4.1");
    EXPECT_EQ(facts.toolkit_at(tree.path() + "/usr/local/cuda"), nullptr);
    EXPECT_EQ(facts.used_nvcc, root + "/bin/nvcc");
    EXPECT_EQ(facts.nvcc_failure, "");
    ASSERT_TRUE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_version->release, "12.4");
    EXPECT_EQ(facts.nvcc_version->full, "12.4.131");
}

TEST(CollectToolkits, prefers_path_nvcc_when_on_path) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere:" + tree.path() + "/usr/local/cuda/bin");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, tree.path() + "/usr/local/cuda/bin/nvcc");
    EXPECT_EQ(facts.used_nvcc, facts.path_nvcc);
    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].found_as,
              (std::vector<std::string>{"PATH", "/usr/local/cuda", "/usr/local/cuda-12.4"}));
    ASSERT_TRUE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_version->full, "12.4.131");
}

TEST(NvccDryrun, finds_the_directory_nvcc_runs_from_when_listed) {
    // Real `nvcc --dryrun -E -x cu /dev/null` output of CUDA 13.0, run as /usr/local/cuda/bin/nvcc.
    EXPECT_EQ(parse_nvcc_dryrun_here(fixture("nvcc/nvcc-13.0-dryrun.txt")), "/usr/local/cuda/bin");
    EXPECT_EQ(parse_nvcc_dryrun_here(fixture("nvcc/nvcc-13.0.txt")), "");
}

// usr/local/bin/nvcc is a wrapper script (as some images install) that runs the 12.4 toolkit's nvcc,
// which prints `--dryrun` output naming its own directory.
std::string make_nvcc_wrapper(const ScratchTree& tree) {
    const std::string bin = tree.path() + "/usr/local/cuda-12.4/bin";
    make_cuda_12_4(tree, "#!/bin/sh\ncase \"$1\" in --dryrun) echo '#$ _HERE_=" + bin + "';; *) exec /bin/cat '" +
                             fixture_path("nvcc/nvcc-12.4.txt") + "';; esac\n");
    tree.write("usr/local/cuda-12.4/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
    tree.write("usr/local/bin/nvcc", "#!/bin/sh\nexec " + bin + "/nvcc \"$@\"\n", 0755);
    return tree.path() + "/usr/local/bin/nvcc";
}

TEST(ResolveNvccRoot, sees_through_a_wrapper_script_when_nvcc_profile_is_absent) {
    ScratchTree tree;
    const std::string wrapper = make_nvcc_wrapper(tree);
    EXPECT_EQ(toolkit_root_of(wrapper), tree.path() + "/usr/local");
    EXPECT_EQ(resolve_nvcc_root(wrapper), tree.path() + "/usr/local/cuda-12.4");
    EXPECT_EQ(resolve_nvcc_root(tree.path() + "/usr/local/cuda/bin/nvcc"), tree.path() + "/usr/local/cuda-12.4");
}

TEST(CollectToolkits, credits_the_wrapped_toolkit_when_nvcc_on_path_is_a_wrapper) {
    ScratchTree tree;
    make_nvcc_wrapper(tree);
    fs::remove(tree.path() + "/usr/local/cuda-12.4/version.json");
    Environment environment;
    environment.set("PATH", tree.path() + "/usr/local/bin");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    const std::string root = tree.path() + "/usr/local/cuda-12.4";
    EXPECT_EQ(facts.path_nvcc, tree.path() + "/usr/local/bin/nvcc");
    EXPECT_EQ(facts.path_nvcc_root, root);
    ASSERT_EQ(facts.toolkits.size(), 1U) << "no toolkit at usr/local";
    EXPECT_EQ(facts.toolkits[0].found_as.front(), "PATH");
    EXPECT_EQ(facts.toolkits[0].version, "12.4.131") << "the version of the nvcc it runs";
}

TEST(CollectToolkits, ignores_cuda_home_when_directory_is_not_a_toolkit) {
    ScratchTree tree;
    make_cuda_12_4(tree, script_printing_fixture("nvcc/nvcc-12.4.txt"));
    const std::string stray = tree.make_dir("home/user/stray");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    environment.set("CUDA_HOME", stray);

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, tree.path() + "/usr/local/cuda-12.4");
}

TEST(CollectToolkits, lists_cuda_home_toolkit_when_it_has_version_txt) {
    ScratchTree tree;
    tree.write("opt/cuda-10.2/version.txt", "CUDA Version 10.2.89\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    environment.set("CUDA_HOME", tree.path() + "/opt/cuda-10.2");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    ASSERT_EQ(facts.toolkits.size(), 1U);
    EXPECT_EQ(facts.toolkits[0].root, tree.path() + "/opt/cuda-10.2");
    EXPECT_EQ(facts.toolkits[0].version, "10.2.89");
    EXPECT_EQ(facts.toolkits[0].nvcc, "");
    EXPECT_EQ(facts.toolkits[0].found_as, (std::vector<std::string>{"CUDA_HOME"}));
    EXPECT_EQ(facts.used_nvcc, "");
    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.cuda_symlink, "");
}

TEST(CollectToolkits, records_exit_status_when_nvcc_fails) {
    ScratchTree tree;
    make_cuda_12_4(tree, "#!/bin/sh\necho 'nvcc broke'\nexit 3\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "exited with status 3: nvcc broke");
}

TEST(CollectToolkits, records_output_when_nvcc_output_unrecognised) {
    ScratchTree tree;
    make_cuda_12_4(tree, "#!/bin/sh\necho 'hello there'\n");
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");

    const ToolkitFacts facts = collect_toolkits(environment, tree.path());

    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "unrecognised output: hello there");
}

TEST(CollectToolkits, finds_nothing_when_tree_empty) {
    ScratchTree tree;
    Environment environment;
    environment.set("PATH", tree.path() + "/nowhere");
    const ToolkitFacts facts = collect_toolkits(environment, tree.path());
    EXPECT_TRUE(facts.toolkits.empty());
    EXPECT_EQ(facts.path_nvcc, "");
    EXPECT_EQ(facts.used_nvcc, "");
    EXPECT_EQ(facts.cuda_symlink, "");
    EXPECT_FALSE(facts.nvcc_version.has_value());
    EXPECT_EQ(facts.nvcc_failure, "");
}

// ---------------------------------------------------------------------------------------------
// CUDA_VISIBLE_DEVICES

TEST(VisibleDevices, is_not_set_when_variable_unset) {
    const auto spec = parse_cuda_visible_devices(std::nullopt);
    EXPECT_FALSE(spec.set);
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, hides_all_when_empty_string) {
    const auto spec = parse_cuda_visible_devices("");
    EXPECT_TRUE(spec.set);
    EXPECT_EQ(spec.raw, "");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, lists_one_ordinal_when_0) {
    const auto spec = parse_cuda_visible_devices("0");
    EXPECT_TRUE(spec.set);
    EXPECT_EQ(spec.raw, "0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.entries[0].text, "0");
    EXPECT_EQ(spec.invalid_entry, "");
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, keeps_order_when_0_1) {
    const auto spec = parse_cuda_visible_devices("0,1");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.entries[1].ordinal, 1);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, keeps_order_when_1_0) {
    const auto spec = parse_cuda_visible_devices("1,0");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].ordinal, 1);
    EXPECT_EQ(spec.entries[1].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_gpu_uuid_prefix_when_gpu_dash) {
    const auto spec = parse_cuda_visible_devices("GPU-2a36941f");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::gpu_uuid);
    EXPECT_EQ(spec.entries[0].text, "GPU-2a36941f");
    EXPECT_EQ(spec.entries[0].ordinal, -1);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_mig_identifier_when_gpu_uuid_and_instance_ids) {
    const auto spec = parse_cuda_visible_devices("MIG-GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa/1/0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::mig_uuid);
    EXPECT_EQ(spec.entries[0].text, "MIG-GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa/1/0");
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_mig_uuid_when_mixed_with_ordinal) {
    const auto spec = parse_cuda_visible_devices("MIG-9e3d0c8a-5b1c-5f0e-8a7f-1d2e3f4a5b6c,0");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::mig_uuid);
    EXPECT_EQ(spec.entries[0].text, "MIG-9e3d0c8a-5b1c-5f0e-8a7f-1d2e3f4a5b6c");
    EXPECT_EQ(spec.entries[1].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[1].ordinal, 0);
}

TEST(VisibleDevices, hides_all_when_minus_1) {
    const auto spec = parse_cuda_visible_devices("-1");
    EXPECT_TRUE(spec.set);
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "-1");
    EXPECT_EQ(spec.invalid_reason, "not an ordinal, GPU UUID or MIG identifier");
}

TEST(VisibleDevices, stops_at_empty_entry_when_0_comma_comma_1) {
    const auto spec = parse_cuda_visible_devices("0,,1");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "(empty entry)");
    EXPECT_EQ(spec.invalid_reason, "empty entry between commas");
}

TEST(VisibleDevices, stops_at_invalid_entry_when_0_x_1) {
    const auto spec = parse_cuda_visible_devices("0,x,1");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "x");
    EXPECT_EQ(spec.invalid_reason, "not an ordinal, GPU UUID or MIG identifier");
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, stops_at_repeat_when_0_0) {
    const auto spec = parse_cuda_visible_devices("0,0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "0");
    EXPECT_EQ(spec.invalid_reason, "repeats an earlier ordinal");
}

TEST(VisibleDevices, stops_at_spaces_when_leading_space) {
    const auto spec = parse_cuda_visible_devices(" 0");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.raw, " 0");
    EXPECT_EQ(spec.invalid_entry, " 0");
    EXPECT_EQ(spec.invalid_reason, "contains spaces");
}

TEST(VisibleDevices, stops_when_gpu_dash_alone) {
    const auto spec = parse_cuda_visible_devices("GPU-");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "GPU-");
    EXPECT_EQ(spec.invalid_reason, "GPU- needs a UUID or prefix after it");
}

TEST(VisibleDevices, stops_when_mig_dash_alone) {
    const auto spec = parse_cuda_visible_devices("1,MIG-");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 1);
    EXPECT_EQ(spec.invalid_entry, "MIG-");
    EXPECT_EQ(spec.invalid_reason, "MIG- needs an identifier after it");
}

// NVML's list (bus order) as CUDA would number it, for --level quick.
std::vector<DeviceInfo> nvml_list(std::initializer_list<const char*> names) {
    std::vector<DeviceInfo> devices;
    for (const char* name : names) {
        DeviceInfo device;
        device.ordinal = static_cast<int>(devices.size());
        device.nvml_index = device.ordinal;
        device.name = name;
        device.uuid = fmt::format("GPU-{}{}-0000", device.ordinal, device.ordinal == 1 ? "abc" : "def");
        devices.push_back(device);
    }
    return devices;
}

TEST(PredictCudaView, renumbers_the_listed_gpus_in_the_order_given) {
    const auto view = predict_cuda_view(nvml_list({"H200", "H200", "H200"}), parse_cuda_visible_devices("2,GPU-1a"), std::nullopt);
    ASSERT_TRUE(view.certain);
    ASSERT_EQ(view.devices.size(), 2U);
    EXPECT_EQ(view.devices[0].ordinal, 0);
    EXPECT_EQ(view.devices[0].nvml_index, 2);
    EXPECT_EQ(view.devices[1].ordinal, 1);
    EXPECT_EQ(view.devices[1].uuid, "GPU-1abc-0000");
}

TEST(PredictCudaView, keeps_every_gpu_when_the_variable_is_unset_and_none_when_empty) {
    EXPECT_EQ(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices(std::nullopt), std::nullopt).devices.size(), 2U);
    const auto hidden = predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices(""), std::nullopt);
    EXPECT_TRUE(hidden.certain);
    EXPECT_TRUE(hidden.devices.empty());
}

TEST(PredictCudaView, stops_at_an_ordinal_or_uuid_that_names_no_gpu_or_a_repeat) {
    EXPECT_EQ(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("1,5,0"), std::nullopt).devices.size(), 1U);
    EXPECT_EQ(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("GPU-9,0"), std::nullopt).devices.size(), 0U);
    // "GPU-" alone would match both: an ambiguous prefix hides what follows, as in CUDA.
    EXPECT_EQ(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("0,GPU-0def,1"), std::nullopt).devices.size(), 1U);
}

TEST(PredictCudaView, is_uncertain_for_mixed_models_unless_numbered_by_bus_id_and_for_mig) {
    const auto mixed = predict_cuda_view(nvml_list({"A100", "T4"}), parse_cuda_visible_devices("1"), std::nullopt);
    EXPECT_FALSE(mixed.certain);
    EXPECT_FALSE(mixed.uncertain_reason.empty());
    const auto by_bus = predict_cuda_view(nvml_list({"A100", "T4"}), parse_cuda_visible_devices("1"), "PCI_BUS_ID");
    ASSERT_TRUE(by_bus.certain);
    EXPECT_EQ(by_bus.devices.at(0).name, "T4");
    EXPECT_FALSE(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("MIG-1"), std::nullopt).certain);
}

// ---------------------------------------------------------------------------------------------
// Driver probe helpers

TEST(LibraryVersion, reads_driver_version_when_versioned_file_name) {
    EXPECT_EQ(library_version_from_path("/usr/local/nvidia/lib64/libcuda.so.580.159.04", "libcuda.so."), "580.159.04");
    EXPECT_EQ(library_version_from_path("/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", "libcuda.so."),
              "535.104.05");
}

TEST(LibraryVersion, returns_empty_when_soname_major_only) {
    EXPECT_EQ(library_version_from_path("libcuda.so.1", "libcuda.so."), "");
    EXPECT_EQ(library_version_from_path("/usr/lib64/libcuda.so.1", "libcuda.so."), "");
}

TEST(LibraryVersion, returns_empty_when_unversioned_name) {
    EXPECT_EQ(library_version_from_path("/x/libcuda.so", "libcuda.so."), "");
}

TEST(LibraryVersion, returns_empty_when_other_library) {
    EXPECT_EQ(library_version_from_path("/usr/lib/libnvidia-ml.so.580.159.04", "libcuda.so."), "");
}

TEST(GpuUuid, formats_like_proc_information_when_h200_bytes) {
    const unsigned char bytes[16] = {0x2a, 0x36, 0x94, 0x1f, 0xb4, 0x1a, 0xb6, 0x0b,
                                     0x00, 0x06, 0x61, 0xeb, 0xcd, 0x2e, 0xc0, 0xaa};
    const std::string uuid = format_gpu_uuid(bytes);
    EXPECT_EQ(uuid, "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa");
    // The driver API and /proc spell the same GPU the same way.
    EXPECT_EQ(uuid, parse_gpu_information(fixture("proc/gpus-information-h200.txt")).uuid);
}

TEST(GpuUuid, pads_with_zeros_when_bytes_zero) {
    const unsigned char bytes[16] = {};
    EXPECT_EQ(format_gpu_uuid(bytes), "GPU-00000000-0000-0000-0000-000000000000");
}

DeviceInfo h200() {
    DeviceInfo device;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    device.cc_minor = 0;
    device.multiprocessors = 132;
    device.sm_clock_khz = 1980000;
    device.memory_clock_khz = 3201000;
    device.memory_bus_width_bits = 6144;
    return device;
}

TEST(PciBusId, normalizes_driver_api_and_sysfs_forms_to_nvidia_smi_form) {
    EXPECT_EQ(normalize_pci_bus_id("0000:00:06.0"), "00000000:00:06.0");
    EXPECT_EQ(normalize_pci_bus_id("0000:1a:00.0"), "00000000:1A:00.0");
    EXPECT_EQ(normalize_pci_bus_id("00000000:3B:00.0"), "00000000:3B:00.0");
    EXPECT_EQ(normalize_pci_bus_id("not a bus id"), "not a bus id");
}

TEST(DeviceRates, derives_bandwidth_and_fp32_peak_when_h200) {
    DeviceInfo device = h200();
    derive_device_rates(device);
    ASSERT_TRUE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_NEAR(*device.theoretical_bandwidth_gbps, 4916.736, 1e-6);  // 2 * 3.201 GHz * 768 bytes
    ASSERT_TRUE(device.fp32_peak_tflops.has_value());
    EXPECT_NEAR(*device.fp32_peak_tflops, 66.90816, 1e-9);  // 132 SMs * 128 lanes * 2 FLOP * 1.98 GHz
}

TEST(DeviceRates, gives_no_fp32_peak_when_compute_capability_unknown) {
    DeviceInfo device = h200();
    device.cc_major = 2;
    device.cc_minor = 0;
    derive_device_rates(device);
    EXPECT_FALSE(device.fp32_peak_tflops.has_value());
    ASSERT_TRUE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_NEAR(*device.theoretical_bandwidth_gbps, 4916.736, 1e-6);
}

TEST(DeviceRates, gives_no_bandwidth_when_memory_clock_zero) {
    DeviceInfo device = h200();
    device.memory_clock_khz = 0;
    derive_device_rates(device);
    EXPECT_FALSE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_TRUE(device.fp32_peak_tflops.has_value());
}

// ---------------------------------------------------------------------------------------------
// CUDA facts

TEST(CudaVersionValue, decodes_and_prints_when_12040) {
    const CudaVersion version = CudaVersion::from_encoded(12040);
    EXPECT_EQ(version.major, 12);
    EXPECT_EQ(version.minor, 4);
    EXPECT_EQ(version.to_string(), "12.4");
    EXPECT_EQ(version.encoded(), 12040);
}

TEST(CudaVersionValue, decodes_and_prints_when_13000) {
    EXPECT_EQ(CudaVersion::from_encoded(13000).to_string(), "13.0");
    EXPECT_EQ(CudaVersion::from_encoded(12090).to_string(), "12.9");
}

TEST(CudaVersionValue, orders_by_major_then_minor_when_compared) {
    EXPECT_LT((CudaVersion{12, 9}), (CudaVersion{13, 0}));
    EXPECT_LT((CudaVersion{12, 4}), (CudaVersion{12, 8}));
    EXPECT_EQ((CudaVersion{12, 4}), CudaVersion::from_encoded(12040));
}

TEST(MinimumDriver, gives_table_value_when_cuda_13_0) {
    const auto driver = minimum_driver_for({13, 0});
    ASSERT_TRUE(driver.has_value());
    EXPECT_EQ(*driver, "580.65.06");
}

TEST(MinimumDriver, gives_table_value_when_cuda_12_4_and_11_8) {
    EXPECT_EQ(minimum_driver_for({12, 4}).value_or(""), "550.54.14");
    EXPECT_EQ(minimum_driver_for({11, 8}).value_or(""), "520.61.05");
}

TEST(MinimumDriver, is_absent_when_cuda_12_7_never_released) {
    EXPECT_FALSE(minimum_driver_for({12, 7}).has_value());
}

TEST(FamilyMinimumDriver, gives_compatibility_floor_when_known_major) {
    EXPECT_EQ(family_minimum_driver(11).value_or(""), "450.80.02");
    EXPECT_EQ(family_minimum_driver(12).value_or(""), "525.60.13");
    EXPECT_EQ(family_minimum_driver(13).value_or(""), "580");
}

TEST(FamilyMinimumDriver, is_absent_when_unknown_major) {
    EXPECT_FALSE(family_minimum_driver(10).has_value());
    EXPECT_FALSE(family_minimum_driver(14).has_value());
}

TEST(ArchitectureName, names_known_compute_capabilities_when_in_table) {
    EXPECT_EQ(architecture_name(9, 0), "Hopper");
    EXPECT_EQ(architecture_name(8, 9), "Ada Lovelace");
    EXPECT_EQ(architecture_name(8, 6), "Ampere");
    EXPECT_EQ(architecture_name(8, 0), "Ampere");
    EXPECT_EQ(architecture_name(7, 5), "Turing");
    EXPECT_EQ(architecture_name(6, 1), "Pascal");
}

TEST(ArchitectureName, says_unknown_when_not_in_table) {
    EXPECT_EQ(architecture_name(2, 0), "unknown");
    EXPECT_EQ(architecture_name(99, 0), "unknown");
}

TEST(Fp32Lanes, gives_helper_cuda_values_when_known) {
    EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
    EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
    EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
    EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);
}

TEST(Fp32Lanes, is_absent_when_unknown) { EXPECT_FALSE(fp32_lanes_per_sm(2, 1).has_value()); }

TEST(MinimumComputeCapability, gives_7_5_when_cuda_13) {
    EXPECT_EQ(minimum_compute_capability(13), (std::pair{7, 5}));
    EXPECT_EQ(minimum_compute_capability(12), (std::pair{5, 0}));
    EXPECT_EQ(minimum_compute_capability(11), (std::pair{3, 5}));
}

TEST(MinimumComputeCapability, is_absent_when_unknown_major) {
    EXPECT_FALSE(minimum_compute_capability(9).has_value());
}

TEST(LastCudaMajor, gives_12_when_pascal_6_1) { EXPECT_EQ(last_cuda_major_supporting(6, 1), 12); }

TEST(LastCudaMajor, gives_11_when_kepler_3_7) { EXPECT_EQ(last_cuda_major_supporting(3, 7), 11); }

TEST(LastCudaMajor, gives_12_when_volta_7_0) { EXPECT_EQ(last_cuda_major_supporting(7, 0), 12); }

TEST(LastCudaMajor, is_absent_when_still_supported) {
    EXPECT_FALSE(last_cuda_major_supporting(9, 0).has_value());
    EXPECT_FALSE(last_cuda_major_supporting(7, 5).has_value());
}

TEST(CuResultName, names_known_codes_when_in_table) {
    EXPECT_EQ(cu_result_name(100), "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(cu_result_name(0), "CUDA_SUCCESS");
    EXPECT_EQ(cu_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
    EXPECT_EQ(cu_result_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
}

TEST(CuResultName, uses_number_when_code_unknown) { EXPECT_EQ(cu_result_name(12345), "CUDA_ERROR_12345"); }

// ---------------------------------------------------------------------------------------------
// util/system

TEST(Split, keeps_empty_fields_when_separators_adjacent) {
    EXPECT_EQ(sys::split("a:b::c", ':'), (std::vector<std::string>{"a", "b", "", "c"}));
}

TEST(Split, gives_one_empty_field_when_text_empty) {
    EXPECT_EQ(sys::split("", ':'), (std::vector<std::string>{""}));
}

TEST(Split, gives_trailing_empty_field_when_text_ends_with_separator) {
    EXPECT_EQ(sys::split("4.4.0-19041-Microsoft\n", '\n'), (std::vector<std::string>{"4.4.0-19041-Microsoft", ""}));
}

TEST(Trim, removes_spaces_tabs_and_newlines_when_at_both_ends) {
    EXPECT_EQ(sys::trim(" \t 580.159.04  \r\n"), "580.159.04");
    EXPECT_EQ(sys::trim("a b"), "a b");
    EXPECT_EQ(sys::trim(" \t\n"), "");
}

TEST(EditDistance, counts_edits_when_strings_differ) {
    EXPECT_EQ(sys::edit_distance("kitten", "sitting"), 3U);
    EXPECT_EQ(sys::edit_distance("", "abc"), 3U);
    EXPECT_EQ(sys::edit_distance("driver", "drvier"), 2U);
}

TEST(EditDistance, is_zero_when_strings_equal) { EXPECT_EQ(sys::edit_distance("cuda", "cuda"), 0U); }

TEST(FindInPath, finds_first_executable_when_listed_in_later_directory) {
    ScratchTree tree;
    tree.write("first/tool", "not executable\n", 0644);
    const std::string wanted = tree.write("second/tool", "#!/bin/sh\n", 0755);
    tree.write("third/tool", "#!/bin/sh\n", 0755);
    const std::string path_list =
        "::" + tree.path() + "/missing:" + tree.path() + "/first:" + tree.path() + "/second:" + tree.path() + "/third";
    EXPECT_EQ(sys::find_in_path("tool", path_list), wanted);
}

TEST(FindInPath, returns_empty_when_not_found) {
    ScratchTree tree;
    tree.make_dir("bin");
    EXPECT_EQ(sys::find_in_path("tool", tree.path() + "/bin"), "");
    EXPECT_EQ(sys::find_in_path("tool", ""), "");
}

TEST(RunCommand, captures_output_when_echo) {
    const auto result = sys::run_command({"/bin/echo", "hello", "world"}, std::chrono::seconds(10));
    EXPECT_TRUE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_status, 0);
    EXPECT_EQ(result.output, "hello world\n");
    EXPECT_EQ(result.error, "");
}

TEST(RunCommand, reports_exit_status_and_stderr_when_command_fails) {
    const auto result = sys::run_command({"/bin/sh", "-c", "echo oops >&2; exit 7"}, std::chrono::seconds(10));
    EXPECT_TRUE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_status, 7);
    EXPECT_EQ(result.output, "oops\n");
}

TEST(RunCommand, kills_child_when_it_runs_past_limit) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = sys::run_command({"/bin/sleep", "10"}, std::chrono::milliseconds(200));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(result.started);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_status, 128 + 9);  // SIGKILL
    EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(RunCommand, does_not_start_when_program_missing) {
    const auto result = sys::run_command({"/nonexistent-cudacheck/no-such-program"}, std::chrono::seconds(10));
    EXPECT_FALSE(result.started);
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.error, "No such file or directory");
}

TEST(RunCommand, does_not_start_when_argv_empty) {
    const auto result = sys::run_command({}, std::chrono::seconds(10));
    EXPECT_FALSE(result.started);
    EXPECT_EQ(result.error, "empty command");
}

TEST(RunCommand, replaces_environment_when_given) {
    const std::vector<std::string> environment{"CUDACHECK_PARSERS_TEST=1"};
    const auto result = sys::run_command({"/usr/bin/env"}, std::chrono::seconds(10), &environment);
    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.exit_status, 0);
    EXPECT_EQ(result.output, "CUDACHECK_PARSERS_TEST=1\n");
}

TEST(ReadFile, returns_nothing_when_file_missing) {
    EXPECT_FALSE(sys::read_file("/nonexistent-cudacheck/missing.txt").has_value());
}

TEST(ReadFile, returns_exact_bytes_when_fixture) {
    EXPECT_EQ(sys::read_file(fixture_path("osrelease/wsl1-4.4.0-19041-Microsoft.txt")), "4.4.0-19041-Microsoft\n");
}

TEST(ReadFile, truncates_when_over_limit) {
    EXPECT_EQ(sys::read_file(fixture_path("osrelease/wsl1-4.4.0-19041-Microsoft.txt"), 5), "4.4.0");
}

// ---------------------------------------------------------------------------------------------
// util/units

TEST(FormatBytes, uses_gib_with_one_decimal_when_h200_memory) {
    EXPECT_EQ(format_bytes(150323855360ULL), "140.0 GiB");
}

TEST(FormatBytes, uses_plain_bytes_when_below_one_kib) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1023), "1023 B");
}

TEST(FormatBytes, switches_unit_when_reaching_1024) {
    EXPECT_EQ(format_bytes(1024), "1.0 KiB");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(1ULL << 40), "1.0 TiB");
}

TEST(FormatBytes, stays_in_tib_when_beyond_largest_unit) { EXPECT_EQ(format_bytes(1ULL << 50), "1024.0 TiB"); }

TEST(FormatKhz, gives_whole_mhz_when_h200_clocks) {
    EXPECT_EQ(format_khz_as_mhz(1980000), "1980 MHz");
    EXPECT_EQ(format_khz_as_mhz(3201000), "3201 MHz");
}

}  // namespace
