// host.container (checks/host_container.cpp): fixture roots (a CDI spec of another driver, a
// container that lost its devices, WSL 2 with and without the Windows driver's libraries, healthy
// hosts and containers), each run as the engine runs the check, with its golden verdict and code;
// the judge on facts a tree cannot hold (EPERM, NVML's "Unknown Error"); and the binary end to end.
#include "checks/host_container.hpp"

#include "bind/nvml.hpp"
#include "engine/registry.hpp"
#include "support/check_judging.hpp"
#include "support/library_tree.hpp"
#include "support/test_support.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::contains;

const std::string cdi_570 = CUDACHECK_SOURCE_DIR "/tests/fixtures/node/cdi/nvidia-570.133.20-g4dn.yaml";

// A host with driver `version` loaded, one GPU and its device files.
void write_driver(const test::TempDir& root, const std::string& version = "570.133.20") {
    root.write("proc/driver/nvidia/version",
               "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + version + "  Sat Mar  8 01:27:06 UTC 2025\n");
    root.write("proc/driver/nvidia/gpus/0000:00:1e.0/information",
               "Model: \t\t Tesla T4\nBus Location: \t 0000:00:1e.0\n");
    for (const char* node : {"dev/nvidiactl", "dev/nvidia0", "dev/nvidia-uvm"}) root.write(node, "", 0666);
}

CheckResult run_container(const std::string& root) {
    Environment environment;
    RunOptions options;
    ProbeSettings settings;
    settings.root = root;
    Probes probes{environment, settings};
    CheckContext context{options, environment, probes, std::nullopt, {}};
    const Registry registry(builtin_checks());
    ResultBuilder builder;
    registry.find("host.container")->run(context, builder);
    CheckResult result = std::move(builder).finish("host.container", std::nullopt);
    test::expect_codes_declared(result);
    return result;
}

TEST(ContainerCheck, passes_a_host_whose_cdi_spec_names_the_loaded_driver) {
    test::TempDir root;
    write_driver(root);
    root.write("etc/cdi/nvidia.yaml", test::read_text(cdi_570));
    root.write("usr/bin/nvidia-ctk", "#!/bin/sh\necho 'NVIDIA Container Toolkit CLI version 1.17.8'\n", 0755);
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "not in a container")) << result.message;
    EXPECT_TRUE(contains(result.message, "nvidia-ctk 1.17.8")) << result.message;
    EXPECT_TRUE(contains(result.message, "1 CDI spec(s)")) << result.message;
}

TEST(ContainerCheck, fails_a_cdi_spec_of_another_driver) {
    test::TempDir root;
    write_driver(root, "580.95.05");
    root.write("etc/cdi/nvidia.yaml", test::read_text(cdi_570));
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC275");
    EXPECT_TRUE(contains(result.message, "/etc/cdi/nvidia.yaml names driver 570.133.20, the loaded one is 580.95.05"))
        << result.message;
    EXPECT_TRUE(contains(result.remediation, "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
    EXPECT_TRUE(contains(result.remediation, "line 83"));
}

TEST(ContainerCheck, passes_a_container_that_keeps_its_devices) {
    test::TempDir root;
    write_driver(root);
    root.write(".dockerenv", "");
    root.write("sys/fs/cgroup/devices/devices.list", "c 1:3 rwm\nc 195:* rwm\nc 508:* rwm\n");
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "in a docker container")) << result.message;
}

TEST(ContainerCheck, fails_a_container_whose_device_list_lost_the_gpus) {
    // After a `systemctl daemon-reload` on a cgroup v1 host, the container's device list keeps only
    // the runtime's defaults (NVIDIA/nvidia-container-toolkit#48).
    test::TempDir root;
    write_driver(root);
    root.write(".dockerenv", "");
    root.write("sys/fs/cgroup/devices/devices.list", "c 1:3 rwm\nc 1:5 rwm\nc 5:0 rwm\nc 136:* rwm\n");
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC276");
    EXPECT_TRUE(contains(result.message, "c 195:0 rw")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "Restart the container"));
    EXPECT_TRUE(contains(result.remediation, "create-dev-char-symlinks"));
}

TEST(ContainerCheck, passes_wsl2_whose_loader_finds_the_windows_driver) {
    test::TempDir root;
    root.write("proc/sys/kernel/osrelease", "5.15.133.1-microsoft-standard-WSL2\n");
    root.write("usr/lib/wsl/lib/libcuda.so.1", test::minimal_shared_object());
    root.write("usr/lib/wsl/lib/libnvidia-ml.so.1", test::minimal_shared_object());
    root.write("etc/ld.so.cache", test::ld_so_cache({{"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"},
                                                     {"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"}}));
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "WSL 2")) << result.message;
}

TEST(ContainerCheck, fails_wsl2_where_a_linux_driver_shadows_the_windows_one) {
    test::TempDir root;
    root.write("proc/sys/kernel/osrelease", "5.15.133.1-microsoft-standard-WSL2\n");
    root.write("usr/lib/wsl/lib/libcuda.so.1", test::minimal_shared_object());
    root.write("usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", test::minimal_shared_object());
    root.symlink("libcuda.so.535.104.05", "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    // ldconfig lists the distribution's directory before ld.wsl.conf's.
    root.write("etc/ld.so.cache", test::ld_so_cache({{"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
                                                     {"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}}));
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC278");
    EXPECT_TRUE(contains(result.message, "libcuda.so.1 resolves to a Linux driver's")) << result.message;
    EXPECT_TRUE(contains(result.message, "libcuda.so.535.104.05")) << result.message;
}

TEST(ContainerCheck, fails_wsl2_without_the_windows_drivers_libraries) {
    test::TempDir root;
    root.write("proc/version", "Linux version 5.15.133.1-microsoft-standard-WSL2 (root@1c602f52c2e4) #1 SMP\n");
    const CheckResult result = run_container(root.path());
    EXPECT_EQ(result.code, "CC278");
    EXPECT_TRUE(contains(result.message, "without /usr/lib/wsl/lib/libcuda.so.1")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "wsl --update"));
}

// The judge on facts a crafted tree cannot hold.
CheckResult judge_in_container(const KernelModuleFacts& kernel, std::optional<NvmlAnswer> nvml) {
    HostInfo host = test::bare_host();
    host.container = "kubernetes";
    const ContainerRuntimeFacts runtime;
    return test::judge("host.container", [&](ResultBuilder& r) {
        judge_container(ContainerInput{host, kernel, runtime, std::move(nvml)}, r);
    });
}

TEST(ContainerJudge, fails_when_the_device_cgroup_refuses_an_open) {
    KernelModuleFacts kernel = test::loaded_module();
    kernel.nodes[1] = {"/dev/nvidia0", true, false, std::strerror(EPERM)};
    const CheckResult result = judge_in_container(kernel, std::nullopt);
    EXPECT_EQ(result.code, "CC276");
    EXPECT_TRUE(contains(result.message, "open /dev/nvidia0")) << result.message;
    // A file mode refusal (EACCES) is a permission problem, driver.kernel_module's CC203.
    kernel.nodes[1].error = std::strerror(EACCES);
    EXPECT_EQ(judge_in_container(kernel, std::nullopt).status, Status::pass);
}

TEST(ContainerJudge, fails_on_nvmls_unknown_error_in_a_container_only) {
    const NvmlAnswer unknown{nvml::NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN (Unknown Error)", {}};
    const CheckResult result = judge_in_container(test::loaded_module(), unknown);
    EXPECT_EQ(result.code, "CC276");
    EXPECT_TRUE(contains(result.message, "Unknown Error")) << result.message;
    const CheckResult outside = test::judge("host.container", [&](ResultBuilder& r) {
        judge_container(ContainerInput{test::bare_host(), test::loaded_module(), {}, unknown}, r);
    });
    EXPECT_EQ(outside.status, Status::pass);
}

TEST(ContainerEndToEnd, reports_lost_access_from_nvml_and_a_stale_spec) {
    test::TempDir root;
    write_driver(root, "580.159.04");
    root.write(".dockerenv", "");
    root.write("etc/cdi/nvidia.yaml", test::read_text(cdi_570));
    const test::TempDir out;
    const std::string path = out.path() + "/report.json";
    const std::string fake_driver_dir = std::filesystem::path(CUDACHECK_FAKE_DRIVER).parent_path().string();
    const test::BinaryRun run = test::run_cudacheck({"--level", "quick", "--only", "host.container", "-o", path, "-q"},
                                                    {{"CUDACHECK_NODE_ROOT", root.path()},
                                                     {"LD_LIBRARY_PATH", fake_driver_dir},
                                                     {"FAKE_NVML_INIT_RESULT", "999"},
                                                     {"KUBERNETES_SERVICE_HOST", test::unset_marker},
                                                     {"container", test::unset_marker}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    const nlohmann::json* check = test::find_check(report, "host.container");
    ASSERT_NE(check, nullptr);
    std::vector<std::string> codes;
    for (const auto& finding : (*check)["findings"]) codes.push_back(finding["code"]);
    std::sort(codes.begin(), codes.end());
    EXPECT_EQ(codes, (std::vector<std::string>{"CC275", "CC276"})) << check->dump();
}

}  // namespace
}  // namespace cudacheck
