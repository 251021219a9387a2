// host.os facts (probes/host_probe): /etc/os-release, WSL, containers, CPU and memory, on captures.
#include "support/fixtures.hpp"

#include "probes/host_probe.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture;

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

}  // namespace

// ---------------------------------------------------------------------------------------------
// The Kubernetes node: NODE_NAME, which the DaemonSet sets from spec.nodeName, is the
// report's host.node_name (Prometheus's Hostname); unset, there is none.

namespace {

TEST(HostInfoNode, records_node_name_from_the_environment_and_nothing_without_it) {
    cudacheck::Environment environment;
    environment.set("NODE_NAME", "gpu-node-17");
    EXPECT_EQ(cudacheck::collect_host_info(environment).node_name, "gpu-node-17");
    EXPECT_EQ(cudacheck::collect_host_info(cudacheck::Environment{}).node_name, "");
}

}  // namespace
