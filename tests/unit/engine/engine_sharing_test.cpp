// The engine on a shared GPU (engine/engine.cpp): after a check that timed work on a GPU
// (the test-only fault.timed, without a GPU), NVML is asked who else used it meanwhile; here the
// fake NVML answers (tests/support/fake_nvml.cpp), "self" standing for the worker's own context.
#include "support/test_support.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::contains;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

nlohmann::json timed_check(const test::TempDir& dir, const std::vector<std::pair<std::string, std::string>>& nvml,
                           int& exit_status, std::vector<std::string> extra = {}) {
    std::vector<std::pair<std::string, std::string>> environment{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                 {"FAKE_CUDA_DEVICE_COUNT", "1"}};
    environment.insert(environment.end(), nvml.begin(), nvml.end());
    std::vector<std::string> arguments{"--only", "fault.timed", "-o", dir.path() + "/report.json", "-q"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const test::BinaryRun run = test::run_cudacheck(arguments, environment, test::Build::with_faults);
    exit_status = run.exit_status;
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    const auto* check = test::find_check(report, "fault.timed");
    EXPECT_NE(check, nullptr) << report.dump(1);
    return check != nullptr ? *check : nlohmann::json();
}

std::string evidence(const nlohmann::json& check, const std::string& key) {
    for (const auto& item : check["evidence"])
        if (item["key"] == key) return item["value"].get<std::string>();
    return {};
}

// Another process busy on the GPU while the check timed: a warning (CC907) naming it and its use,
// the flag in JSON, and the check could ask before it judged.
TEST(EngineSharing, names_the_process_that_used_the_gpu_during_the_timing) {
    test::TempDir dir;
    int exit_status = -1;
    const nlohmann::json check = timed_check(dir,
                                             {{"FAKE_NVML_PROCESSES", "self:512,4242:2048"},
                                              {"FAKE_NVML_PROCESS_UTILIZATION", "self:60,4242:95"}},
                                             exit_status);
    EXPECT_EQ(exit_status, 0) << "a warning";
    EXPECT_EQ(check["status"], "warn");
    EXPECT_EQ(check["code"], "CC907");
    EXPECT_TRUE(contains(check["message"].get<std::string>(),
                         "GPU 0 was shared while fault.timed timed its work: pid 4242 (SM 95%, 2.0 GiB) also used it"))
        << check["message"];
    ASSERT_EQ(check["shared_gpu"].size(), 1u) << check.dump(1);
    EXPECT_EQ(check["shared_gpu"][0]["device"], 0);
    EXPECT_EQ(check["shared_gpu"][0]["method"], "per-process utilization");
    EXPECT_EQ(check["shared_gpu"][0]["processes"],
              nlohmann::json::parse(R"([{"pid":4242,"name":null,"sm_percent":95.0,"memory_bytes":2147483648}])"));
    EXPECT_EQ(evidence(check, "sharing_seen_before_judging"), "1");
    EXPECT_EQ(evidence(check, "shared_gpu0"), "pid 4242 (SM 95%, 2.0 GiB) (NVML per-process utilization)");
}

// cudacheck alone on the GPU, or another process holding a context without using it: nothing new.
TEST(EngineSharing, says_nothing_when_the_gpu_was_cudacheck_s_alone) {
    for (const auto& processes : {std::string("self:512"), std::string("self:512,4242:2048")}) {
        test::TempDir dir;
        int exit_status = -1;
        const nlohmann::json check =
            timed_check(dir, {{"FAKE_NVML_PROCESSES", processes}, {"FAKE_NVML_PROCESS_UTILIZATION", "self:97"}},
                        exit_status);
        EXPECT_EQ(exit_status, 0);
        EXPECT_EQ(check["status"], "pass") << processes << ": " << check.dump(1);
        EXPECT_TRUE(check["shared_gpu"].empty());
        EXPECT_EQ(evidence(check, "sharing_seen_before_judging"), "0");
    }
}

// A performance floor for a figure of a shared GPU is not comparable (CC712, a warning), where the
// same figure alone fails it (CC709).
TEST(EngineSharing, a_policy_floor_does_not_fail_a_shared_measurement) {
    test::TempDir dir;
    const std::string policy = dir.write("policy.json", R"({"schema_version": "1.0.0",
        "performance": [{"check": "fault.timed", "metric": "pretend_bandwidth", "min": 200, "unit": "GB/s"}]})");
    for (const bool shared : {true, false}) {
        int exit_status = -1;
        (void)timed_check(dir,
                          {{"FAKE_NVML_PROCESSES", "self:512,4242:2048"},
                           {"FAKE_NVML_PROCESS_UTILIZATION", shared ? "self:60,4242:95" : "self:60"}},
                          exit_status, {"--expect", policy});
        const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
        const auto* verdict = test::find_check(report, "expect.performance");
        ASSERT_NE(verdict, nullptr);
        EXPECT_EQ((*verdict)["code"], shared ? "CC712" : "CC709") << (*verdict)["message"];
        EXPECT_EQ(exit_status, shared ? 0 : 1);
    }
}

}  // namespace
}  // namespace cudacheck
