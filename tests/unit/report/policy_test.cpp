// --expect policies (report/policy.cpp): refused policies, verdicts, version bounds, the binary.
#include "report/policy.hpp"
#include "support/example_reports.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::example_with_resolution;
using test::find_metric;
using test::find_result;
using test::run_cudacheck;
using test::source_dir;
namespace fs = std::filesystem;

Policy policy_from(const std::string& text) {
    Expected<Policy> policy = parse_policy(text, "policy.json");
    if (!policy) throw std::runtime_error(policy.error().message);
    return *policy;
}

std::string policy_error(const std::string& text) {
    const Expected<Policy> policy = parse_policy(text, "policy.json");
    EXPECT_FALSE(policy) << text;
    return test::error_of(policy);
}

TEST(Policy, refuses_bad_policies_naming_the_place) {
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "drivr": {"min": "550"}})"),
              "policy.json: at /drivr: unknown key; expected one of schema_version, description, driver, driver_cuda, "
              "runtime, toolkit, "
              "device_count, compute_capability, libraries, performance, allowed_warnings");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "device_count": {"min": "8"}})"),
              "policy.json: at /device_count/min: expected an integer, found \"8\"");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "runtime": {"min": "13.0", "max": "12.4"}})"),
              "policy.json: at /runtime: impossible range: min 13.0 is above max 12.4");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "device_count": {"min": 9, "max": 8}})"),
              "policy.json: at /device_count: impossible range: min 9 is above max 8");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "driver": {"min": "latest"}})"),
              "policy.json: at /driver/min: 'latest' is not a version such as 12.4 or 550.54.15");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "allowed_warnings": ["CC115", "CC999"]})"),
              "policy.json: at /allowed_warnings/1: 'CC999' is not a cudacheck code (`cudacheck explain --markdown` "
              "lists them)");
    EXPECT_EQ(
        policy_error(
            R"({"schema_version": "1.0.0", "performance": [{"check": "cublas.gemm", "metric": "x", "min": -1}]})"),
        "policy.json: at /performance/0/min: -1 is not a non-negative figure");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "libraries": {"libcudnn.so.9": {"minimum": "9"}}})"),
              "policy.json: at /libraries/libcudnn.so.9/minimum: unknown key; expected one of min, max");
    EXPECT_EQ(policy_error(R"({"schema_version": "2.1.0"})"),
              "policy.json: at /schema_version: policy schema 2.1.0 is incompatible: this cudacheck reads policies of "
              "schema 1.x");
    EXPECT_EQ(policy_error(R"({"driver": {}})"), "policy.json: at /schema_version: missing");
    EXPECT_EQ(policy_error("[1, 2]"), "policy.json: expected an object, found [1,2]");
}

TEST(Policy, example_policies_in_docs_are_valid) {
    for (const char* name : {"ci-job.json", "cluster-node.json"}) {
        EXPECT_EQ(test::error_of(read_policy_file(source_dir + "/docs/policies/" + name)), "");
    }
}

TEST(Policy, passes_a_machine_that_meets_it) {
    Report report = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    const auto policy = read_policy_file(source_dir + "/docs/policies/ci-job.json");
    ASSERT_TRUE(policy) << test::error_of(policy);
    apply_policy(*policy, report);
    for (const CheckResult& result : report.checks)
        if (result.check_id.starts_with("expect."))
            EXPECT_EQ(result.status, Status::pass) << result.check_id << ": " << result.message;
    EXPECT_EQ(report.exit_code, 0);
}

TEST(Policy, fails_each_unmet_expectation_with_expected_and_found) {
    Report report = example_with_resolution("h200/cudacheck.json", "9.0.0.312");
    find_result(report, "driver.nvml")->findings.push_back({Status::warn, "CC220", "no NVML", "install it"});
    const Policy policy = policy_from(R"({"schema_version": "1.0.0",
        "driver": {"min": "590"}, "toolkit": {"max": "13.0"}, "device_count": {"min": 8, "max": 8}, "compute_capability": {"min": "10.0"},
        "libraries": {"libcudnn.so.9": {"min": "9.1"}, "libnccl.so.2": {}},
        "performance": [{"check": "cublas.gemm", "metric": "gemm_bf16_8192", "min": 900, "unit": "TFLOP/s"},
                        {"check": "cudnn.conv", "metric": "absent_metric", "min": 1}],
        "allowed_warnings": ["CC115"]})");
    const std::vector<CheckResult> results = evaluate_policy(policy, report);
    std::vector<std::string> verdicts;
    for (const CheckResult& result : results) {
        std::string codes;
        for (const Finding& finding : result.findings) codes += " " + finding.code;
        verdicts.push_back(result.check_id + " " + std::string(to_string(result.status)) + codes);
    }
    EXPECT_EQ(verdicts,
              (std::vector<std::string>{"expect.driver_version fail CC701", "expect.toolkit_version pass",
                                        "expect.device_count fail CC705", "expect.compute_capability fail CC706",
                                        "expect.libraries fail CC708 CC707", "expect.performance fail CC709 CC710",
                                        "expect.warnings fail CC711"}));
    EXPECT_EQ(results[0].message, "driver 580.159.04 is outside the policy's range: expected >= 590, found 580.159.04");
    EXPECT_EQ(results[0].evidence, (std::vector<Evidence>{{"expected", ">= 590"}, {"found", "580.159.04"}}));
    EXPECT_EQ(results[5].findings[0].message,
              fmt::format("cublas.gemm[0] gemm_bf16_8192 is {:.1f} TFLOP/s, below the policy's minimum 900",
                          find_metric(report, "cublas.gemm", "gemm_bf16_8192")->value));
    apply_policy(policy, report);
    EXPECT_EQ(report.summary.overall, Status::fail);
    EXPECT_EQ(report.exit_code, 1);
}

// A floor for a figure measured while another process used the GPU: neither failed nor
// passed, but not comparable (a warning); the same figure of an idle GPU is held to the floor.
TEST(Policy, a_figure_measured_on_a_shared_gpu_is_not_comparable) {
    const Policy policy = policy_from(R"({"schema_version": "1.0.0",
        "performance": [{"check": "cublas.gemm", "metric": "gemm_bf16_8192", "min": 900, "unit": "TFLOP/s"}]})");
    Report report = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    EXPECT_EQ(evaluate_policy(policy, report).front().code, "CC709") << "idle: below the floor";
    find_result(report, "cublas.gemm")->shared_gpu = {
        GpuSharing{0, "per-process utilization", {{477, "python3", 99.0, std::nullopt}}}};
    const CheckResult verdict = evaluate_policy(policy, report).front();
    EXPECT_EQ(verdict.status, Status::warn);
    EXPECT_EQ(verdict.code, "CC712");
    EXPECT_TRUE(verdict.message.find("measured while another process used the GPU (GPU 0: pid 477 python3 (SM 99%))") !=
                std::string::npos)
        << verdict.message;
    apply_policy(policy, report);
    EXPECT_EQ(report.exit_code, 0);
}

// A policy written for a figure's old size (gemm_fp32_8192, before cublas.gemm measured FP32 at
// 4096^3): not measured, and the message names the figure measured instead.
TEST(Policy, a_figure_measured_at_another_size_is_named_where_the_policy_asks_for_the_old_one) {
    const Policy policy = policy_from(R"({"schema_version": "1.0.0",
        "performance": [{"check": "cublas.gemm", "metric": "gemm_fp32_8192", "min": 40, "unit": "TFLOP/s"}]})");
    Report report = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    for (Metric& metric : find_result(report, "cublas.gemm")->metrics)
        if (metric.name == "gemm_fp32_8192")
            metric = make_metric({"gemm", "gemm_{precision}_{size}", Unit::tflops, "GEMM."}, metric.value,
                                 {{"precision", "fp32"}, {"size", "4096"}});
    const CheckResult verdict = evaluate_policy(policy, report).front();
    EXPECT_EQ(verdict.code, "CC710");
    EXPECT_TRUE(verdict.message.find("was not measured") != std::string::npos) << verdict.message;
    EXPECT_TRUE(verdict.message.find("; it measured gemm_fp32_4096 instead") != std::string::npos) << verdict.message;
    EXPECT_TRUE(verdict.message.find("fraction_of_peak") == std::string::npos) << "only figures of another size";
}

TEST(Policy, version_bounds_match_every_version_they_prefix) {
    const Policy policy = policy_from(R"({"schema_version": "1.0.0", "toolkit": {"min": "12.4", "max": "12.9"}})");
    for (const auto& [nvcc, inside] : std::vector<std::pair<std::string, bool>>{
             {"12.9.86", true}, {"12.4", true}, {"12.3.107", false}, {"13.0.88", false}, {"", false}}) {
        Report report;
        report.versions.nvcc = nvcc;
        EXPECT_EQ(evaluate_policy(policy, report).front().status == Status::pass, inside) << nvcc;
    }
}

TEST(Policy, binary_appends_expect_results_and_refuses_a_bad_policy_before_running) {
    test::TempDir dir;
    const std::string policy =
        dir.write("policy.json",
                  R"({"schema_version": "1.0.0", "driver": {"min": "550"}, "device_count": {"min": 0}})");
    const std::string report_path = dir.path() + "/report.json";
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "--expect", policy, "-o", report_path, "-q"},
                                              {{"LD_LIBRARY_PATH", test::unset_marker}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const auto document = nlohmann::json::parse(test::read_text(report_path));
    const auto* driver = test::find_check(document, "expect.driver_version");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["status"], "fail");
    EXPECT_EQ((*driver)["code"], "CC701");
    EXPECT_EQ((*test::find_check(document, "expect.device_count"))["status"], "pass");
    EXPECT_EQ(document["exit_code"], 1);
    EXPECT_EQ(document["summary"]["counts"]["fail"], 1);

    const std::string bad = dir.write("bad.json", R"({"schema_version": "1.0.0", "device_count": {"min": true}})");
    const test::BinaryRun refused = run_cudacheck({"--expect", bad, "-o", dir.path() + "/never.json"});
    EXPECT_EQ(refused.exit_status, 2);
    EXPECT_EQ(refused.output, "cudacheck: " + bad + ": at /device_count/min: expected an integer, found true\n");
    EXPECT_FALSE(fs::exists(dir.path() + "/never.json"));
}

}  // namespace
}  // namespace cudacheck
