// probes/container_runtime: overlay roots, the libraries a CDI spec names (a real spec from
// tests/fixtures/node/cdi), the toolkit's version lines, cgroup v1 device lists, and what the probe
// gathers from crafted roots.
#include "probes/container_runtime.hpp"
#include "probes/node_services.hpp"

#include "support/library_tree.hpp"
#include "support/test_support.hpp"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <random>
#include <sys/stat.h>

namespace cudacheck {
namespace {

using test::contains;

TEST(MountInfo, sees_an_overlay_root) {
    // proc(5)'s example line, and a Docker container's root (overlay2 snapshotter).
    const std::string host =
        "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
        "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n";
    const std::string docker =
        "611 514 0:52 / / rw,relatime master:265 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/"
        "docker/overlay2/l/B,upperdir=/var/lib/docker/overlay2/x/diff,workdir=/var/lib/docker/overlay2/x/work\n"
        "612 611 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n";
    EXPECT_FALSE(mountinfo_overlay_root(host));
    EXPECT_TRUE(mountinfo_overlay_root(docker));
    EXPECT_FALSE(mountinfo_overlay_root(""));
    EXPECT_FALSE(mountinfo_overlay_root("garbage\n1 2 3\n- - - - - - - -\n"));
}

TEST(CdiSpec, names_the_driver_libraries_of_a_generated_spec) {
    const std::string spec =
        test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/node/cdi/nvidia-570.133.20-g4dn.yaml");
    const std::vector<CdiLibrary> libraries = parse_cdi_libraries(spec);
    // hostPath lines of libcuda.so.570.133.20 and libnvidia-ml.so.570.133.20; not their containerPath
    // lines, not the hook's "libcuda.so.1::..." link.
    ASSERT_EQ(libraries.size(), 2U);
    EXPECT_EQ(libraries[0].path, "/usr/lib/x86_64-linux-gnu/libcuda.so.570.133.20");
    EXPECT_EQ(libraries[0].version, "570.133.20");
    EXPECT_EQ(libraries[0].line, 83);
    EXPECT_EQ(libraries[1].path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.133.20");
}

TEST(CdiSpec, reads_json_and_path_keys_and_ignores_sonames) {
    // The same mounts in the JSON the CDI specification also allows (constructed for this test).
    const std::string json =
        R"({"cdiVersion":"0.6.0","containerEdits":{"mounts":[{"hostPath":"/usr/lib64/libcuda.so.535.104.05",)"
        R"("containerPath":"/usr/lib64/libcuda.so.535.104.05"},{"hostPath": "/usr/lib64/libcuda.so.1"}]}})"
        "\n  - path: /usr/lib64/libnvidia-ml.so.535.104.05\n  - containerPath: /x/libcuda.so.999.1.1\n"
        "    hostPath: /usr/lib64/libcuda.so.535.104.05.bak\n";
    const std::vector<CdiLibrary> libraries = parse_cdi_libraries(json);
    ASSERT_EQ(libraries.size(), 2U);
    EXPECT_EQ(libraries[0].version, "535.104.05");
    EXPECT_EQ(libraries[0].line, 1);
    EXPECT_EQ(libraries[1].path, "/usr/lib64/libnvidia-ml.so.535.104.05");
    EXPECT_EQ(libraries[1].line, 2);
}

TEST(CdiSpec, bounds_what_it_keeps) {
    std::string spec;
    for (int i = 0; i < 1000; ++i) spec += "  hostPath: /lib/libcuda.so.1." + std::to_string(i) + "\n";
    EXPECT_EQ(parse_cdi_libraries(spec).size(), 64U);
    EXPECT_TRUE(parse_cdi_libraries(std::string(100000, ':')).empty());
}

TEST(ContainerToolkit, reads_both_programs_version_lines) {
    EXPECT_EQ(parse_toolkit_version(
                  "NVIDIA Container Toolkit CLI version 1.17.8\ncommit: f202b80a9b9d0db00d9b1d73c0128c8962c55f4d\n"),
              "1.17.8");
    EXPECT_EQ(parse_toolkit_version("cli-version: 1.14.6\nlib-version: 1.14.6\nbuild date: 2024-02-27T10:52+00:00\n"),
              "1.14.6");
    EXPECT_EQ(parse_toolkit_version("flag provided but not defined: -version\n"), "");
}

TEST(CgroupDevices, allows_by_type_number_and_access) {
    EXPECT_TRUE(devices_list_allows("a *:* rwm\n", 195, 0));
    EXPECT_TRUE(devices_list_allows("c 1:3 rwm\nc 195:* rwm\n", 195, 7));
    EXPECT_TRUE(devices_list_allows("c 195:0 rw\n", 195, 0));
    EXPECT_FALSE(devices_list_allows("c 195:0 rw\n", 195, 1));
    EXPECT_FALSE(devices_list_allows("c 195:0 r\n", 195, 0));
    EXPECT_FALSE(devices_list_allows("b 195:* rwm\n", 195, 0));
    // What a container's list keeps after a `systemctl daemon-reload` rewrote it: the defaults only.
    EXPECT_FALSE(devices_list_allows("c 1:3 rwm\nc 1:5 rwm\nc 5:0 rwm\nc 136:* rwm\n", 195, 255));
    EXPECT_FALSE(devices_list_allows("c 195 rw\nc :: rw\nc 1999999999999:0 rw\n", 195, 0));
}

TEST(ContainerRuntimeProbe, gathers_toolkit_specs_and_a_lost_device_list) {
    test::TempDir root;
    root.write("usr/bin/nvidia-ctk",
               "#!/bin/sh\necho 'NVIDIA Container Toolkit CLI version 1.17.8'\necho 'commit: x'\n", 0755);
    root.write("usr/bin/nvidia-container-cli", "#!/bin/sh\nexec sleep 30\n", 0755);
    root.write("etc/cdi/nvidia.yaml",
               test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/node/cdi/nvidia-570.133.20-g4dn.yaml"));
    root.write("etc/cdi/notes.txt", "not a spec");
    root.write("var/run/cdi/big.json", std::string((4u << 20) + 1, ' '));
    root.write("proc/self/mountinfo", "611 514 0:52 / / rw,relatime - overlay overlay rw\n");
    root.write("sys/fs/cgroup/devices/devices.list", "c 1:3 rwm\nc 195:0 rw\n");
    root.write("dev/nvidiactl", "");
    root.write("dev/nvidia0", "");
    const auto start = std::chrono::steady_clock::now();
    const ContainerRuntimeFacts facts = collect_container_runtime(Environment(), root.path(), {});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(facts.overlay_root);
    ASSERT_EQ(facts.toolkit.size(), 2U);
    EXPECT_EQ(facts.toolkit[0].version, "1.17.8");
    EXPECT_TRUE(contains(facts.toolkit[1].note, "within 2 s")) << facts.toolkit[1].note;
    ASSERT_EQ(facts.cdi_specs.size(), 2U);
    EXPECT_EQ(facts.cdi_specs[0].path, "/etc/cdi/nvidia.yaml");
    EXPECT_EQ(facts.cdi_specs[0].libraries.size(), 2U);
    EXPECT_TRUE(contains(facts.cdi_specs[1].note, "MiB")) << facts.cdi_specs[1].note;
    EXPECT_EQ(facts.devices_list_path, "/sys/fs/cgroup/devices/devices.list");
    ASSERT_EQ(facts.cgroup_access.size(), 2U);
    EXPECT_TRUE(facts.cgroup_access[0].allowed);  // nvidia0: 195:0
    EXPECT_EQ(facts.cgroup_access[1].path, "/dev/nvidiactl");
    EXPECT_EQ(facts.cgroup_access[1].minor, 255U);
    EXPECT_FALSE(facts.cgroup_access[1].allowed);
    EXPECT_FALSE(facts.wsl);
}

TEST(ContainerRuntimeProbe, under_wsl2_follows_the_loader_to_the_windows_driver) {
    test::TempDir root;
    root.write("proc/version",
               "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0) #1 SMP\n");
    root.write("usr/lib/wsl/lib/libcuda.so.1", test::minimal_shared_object());
    root.write("usr/lib/wsl/lib/libnvidia-ml.so.1", test::minimal_shared_object());
    root.write("etc/ld.so.cache", test::ld_so_cache({{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"},
                                                     {"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"}}));
    const ContainerRuntimeFacts facts = collect_container_runtime(Environment(), root.path(), {});
    ASSERT_TRUE(facts.wsl);
    EXPECT_TRUE(contains(facts.wsl->source, "/proc/version"));
    EXPECT_TRUE(facts.wsl->windows_libcuda);
    ASSERT_EQ(facts.wsl->libraries.size(), 2U);
    EXPECT_EQ(facts.wsl->libraries[0].resolved, "/usr/lib/wsl/lib/libcuda.so.1");
    EXPECT_TRUE(facts.wsl->libraries[0].from_windows);
    EXPECT_TRUE(facts.wsl->libraries[1].from_windows);
}

// Garbage in: random bytes and mutations of real text give bounded answers and never crash or hang.
TEST(NodeParsers, survive_random_and_mutated_input) {
    std::mt19937 random(38);
    const std::string seeds[] = {
        test::read_text(CUDACHECK_SOURCE_DIR "/tests/fixtures/node/cdi/nvidia-570.133.20-g4dn.yaml"),
        "611 514 0:52 / / rw,relatime - overlay overlay rw\n",
        "c 195:* rwm\na *:* rwm\n",
        "Package: nvidia-fabricmanager-580\nStatus: install ok installed\nVersion: 1:580.159.04-1\n",
        "fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version 530.41.03.\n",
        "Fabric Manager version is : 450.102.04\n"};
    const auto start = std::chrono::steady_clock::now();
    int tried = 0;
    for (int round = 0; round < 400; ++round) {
        std::string input = seeds[static_cast<std::size_t>(round) % std::size(seeds)];
        for (int edit = 0; edit < 1 + round % 20 && !input.empty(); ++edit)
            input[random() % input.size()] = static_cast<char>(random() % 256);
        if (round % 7 == 0) input = input.substr(0, random() % (input.size() + 1));
        EXPECT_LE(parse_cdi_libraries(input).size(), 64U);
        (void)mountinfo_overlay_root(input);
        (void)devices_list_allows(input, 195, 0);
        if (const auto package = find_dpkg_package(input, "nvidia-fabricmanager")) {
            EXPECT_LE(package->name.size(), input.size());
        }
        const std::vector<std::string> lines = last_lines(input, 200);
        EXPECT_LE(lines.size(), 200U);
        (void)find_log_version_mismatch(lines);
        EXPECT_LE(parse_fabric_manager_version(input).size(), input.size());
        EXPECT_LE(parse_toolkit_version(input).size(), 4 * 40U);
        ++tried;
    }
    EXPECT_EQ(tried, 400);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(NodeParsers, a_fifo_in_place_of_a_file_is_not_waited_on) {
    test::TempDir root;
    root.write("dev/nvidia-nvswitch0", "");
    for (const char* path : {"var/log/fabricmanager.log", "etc/cdi/nvidia.yaml", "proc/modules", "proc/self/mountinfo",
                             "sys/fs/cgroup/devices/devices.list", "var/lib/dpkg/status"}) {
        const std::string full = root.path() + "/" + path;
        std::filesystem::create_directories(std::filesystem::path(full).parent_path());
        ASSERT_EQ(::mkfifo(full.c_str(), 0600), 0) << full;
    }
    const auto start = std::chrono::steady_clock::now();
    const NodeServicesFacts node = collect_node_services(root.path(), {.in_container = true});
    const ContainerRuntimeFacts runtime = collect_container_runtime(Environment(), root.path(), {.in_container = true});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    EXPECT_TRUE(contains(node.fabric_manager.log_note, "FIFO")) << node.fabric_manager.log_note;
    ASSERT_EQ(runtime.cdi_specs.size(), 1U);
    EXPECT_TRUE(contains(runtime.cdi_specs[0].note, "FIFO")) << runtime.cdi_specs[0].note;
    EXPECT_FALSE(node.uvm.module_loaded);
}

}  // namespace
}  // namespace cudacheck
