// The multi-GPU paths of the binary that the fake driver can reach (without a
// multi-GPU machine): `--devices` choosing the GPUs the per-device checks run on, the skips of
// cuda.p2p and nccl.allreduce with fewer than two GPUs, and each GPU's NVLink faults carried to its
// own Prometheus labels. The fake libcuda and NVML answer per GPU from FAKE_GPU_STATE
// (support/fake_env.hpp); the fake libcuda cannot run CUDA runtime work, so GPU checks that reach
// the runtime fail here (EndToEnd.gpu_checks_fail_cleanly_when_the_runtime_cannot_use_the_driver),
// and these tests hold only which GPUs they ran on, never their figures.
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// Runs with `-o report.json -q` under the fake driver with `gpus` GPUs, and returns the report.
nlohmann::json run_on_fake_gpus(const test::TempDir& dir, int gpus, std::vector<std::string> arguments,
                                std::vector<std::pair<std::string, std::string>> overrides = {}) {
    const std::string path = dir.path() + "/report.json";
    arguments.insert(arguments.end(), {"-o", path, "-q"});
    overrides.insert(overrides.begin(),
                     {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", std::to_string(gpus)}});
    const test::BinaryRun run = run_cudacheck(arguments, overrides);
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(run.output, "") << "-q prints nothing";
    nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    return report;
}

// The CUDA ordinals a check's results were for (a per-device check has one result per device).
std::set<int> devices_of(const nlohmann::json& report, const std::string& id) {
    std::set<int> devices;
    for (const auto& check : report["checks"])
        if (check["id"] == id && check["device"].is_number()) devices.insert(check["device"].get<int>());
    return devices;
}

// A machine of one GPU: both multi-GPU checks skip, saying why and naming the one device, at the
// level where both would run (nccl.allreduce runs at --level full only).
TEST(MultiGpuEndToEnd, one_gpu_machine_skips_p2p_and_nccl_naming_its_one_device) {
    test::TempDir dir;
    const auto report = run_on_fake_gpus(dir, 1, {"--level", "full", "--only", "cuda.p2p,nccl.allreduce"});
    for (const char* id : {"cuda.p2p", "nccl.allreduce"}) {
        const auto* check = test::find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["status"], "skip") << id;
        EXPECT_EQ((*check)["skip_reason"], "needs 2 or more GPUs; only device 0 is selected (or usable)") << id;
    }
    EXPECT_EQ(report["exit_code"], 0) << "a skip is no failure";
}

// `--devices 1` on two GPUs: the per-device checks run on GPU 1 alone, cuda.devices still
// describes both, and cuda.p2p skips naming device 1.
TEST(MultiGpuEndToEnd, devices_option_chooses_the_gpus_the_per_device_checks_run_on) {
    test::TempDir dir;
    const auto report = run_on_fake_gpus(dir, 2, {"--devices", "1", "--only", "cuda.devices,cuda.kernel,cuda.p2p"});
    EXPECT_EQ(devices_of(report, "cuda.kernel"), std::set<int>{1});
    ASSERT_EQ(report["devices"].size(), 2u) << "cuda.devices describes every visible device";
    const auto* p2p = test::find_check(report, "cuda.p2p");
    ASSERT_NE(p2p, nullptr);
    EXPECT_EQ((*p2p)["status"], "skip");
    EXPECT_EQ((*p2p)["skip_reason"], "needs 2 or more GPUs; only device 1 is selected (or usable)");
    // And without --devices, each per-device check runs on both.
    const auto both = run_on_fake_gpus(dir, 2, {"--only", "cuda.devices,cuda.kernel"});
    EXPECT_EQ(devices_of(both, "cuda.kernel"), (std::set<int>{0, 1}));
}

// The two-GPU command on a one-GPU machine is a usage error naming the count, before any check.
TEST(MultiGpuEndToEnd, devices_list_beyond_a_one_gpu_machine_is_a_usage_error) {
    const test::BinaryRun run =
        run_cudacheck({"--devices", "0,1"}, {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "1"}});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    // The first ordinal past the count is named.
    EXPECT_TRUE(contains(run.output, "--devices 1: this machine has 1 visible CUDA device(s) (ordinals 0..0)"))
        << run.output;
}

// GPU 1's NVLink faults (link 1 down, replay errors on link 0) reach the Prometheus output under
// GPU 1's labels alone (gpu is NVML's index, UUID the fake NVML's), as a cluster's alert joins them
// with dcgm-exporter's series; GPU 0's links are all up and count nothing.
TEST(MultiGpuEndToEnd, each_gpus_nvlink_faults_carry_that_gpus_prometheus_labels) {
    test::TempDir dir;
    const std::string state = dir.write("gpus.json", R"({"devices": [{"FAKE_NVML_NVLINK": "1,1,1,1"},
        {"FAKE_NVML_NVLINK": "1,0,1,1", "FAKE_NVML_NVLINK_ERRORS": "0:5,0,0,0"}]})");
    const std::string prom = dir.path() + "/report.prom";
    const auto report = run_on_fake_gpus(dir, 2, {"--level", "quick", "--only", "device.health", "-o", prom},
                                         {{"FAKE_GPU_STATE", state}});
    const auto* health = test::find_check(report, "device.health");
    ASSERT_NE(health, nullptr);
    EXPECT_EQ((*health)["status"], "warn");
    std::set<std::string> findings;  // "gpu code" of each cudacheck_finding sample at 1
    std::istringstream lines(test::read_text(prom));
    for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("cudacheck_finding{") || !line.ends_with(" 1")) continue;
        const auto label = [&line](const std::string& name) {
            const std::size_t at = line.find(name + "=\"");
            return at == std::string::npos
                       ? std::string("-")
                       : line.substr(at + name.size() + 2, line.find('"', at + name.size() + 2) - at - name.size() - 2);
        };
        findings.insert(label("gpu") + " " + label("UUID") + " " + label("code"));
    }
    EXPECT_EQ(findings, (std::set<std::string>{"1 GPU-00000000-0000-0000-0000-000000000001 CC255",
                                               "1 GPU-00000000-0000-0000-0000-000000000001 CC256"}));
}

}  // namespace
}  // namespace cudacheck
