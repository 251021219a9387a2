// nccl.allreduce without NCCL or GPUs: the skip without NCCL, a failing NCCL (a stub library),
// nccl-tests' bandwidth and NCCL's version and result names, and the judge from hand-built outcomes.
#include "checks/nccl_allreduce.hpp"
#include "bind/nccl.hpp"
#include "engine/registry.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(NcclAllreduce, missing_library_is_a_skip_naming_where_to_get_it) {
    test::CheckHarness harness;
    CheckContext context = harness.make({0, 1});
    ResultBuilder builder;
    run_nccl_allreduce(context, builder, "libnccl-absent-for-test.so.2");
    const CheckResult result = std::move(builder).finish("nccl.allreduce", std::nullopt);
    EXPECT_EQ(result.status, Status::skip);
    EXPECT_TRUE(result.findings.empty());
    EXPECT_NE(result.skip_reason.find("libnccl-absent-for-test.so.2"), std::string::npos) << result.skip_reason;
    EXPECT_NE(result.skip_reason.find("nvidia-nccl-cu13"), std::string::npos) << result.skip_reason;
    EXPECT_NE(result.skip_reason.find("libnccl2"), std::string::npos) << result.skip_reason;
}

TEST(NcclAllreduce, failed_nccl_call_before_the_gpu_work_is_an_nccl_finding) {
    test::CheckHarness harness;
    CheckContext context = harness.make({0, 1});
    ResultBuilder builder;
    // Thrown out of the check, the engine would report NCCL's failure as a cudacheck bug (CC901).
    ASSERT_NO_THROW(run_nccl_allreduce(context, builder, CUDACHECK_STUB_NCCL));
    const CheckResult result = std::move(builder).finish("nccl.allreduce", std::nullopt);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, code_string(Code::nccl_call_failed));
    EXPECT_NE(result.findings[0].message.find("ncclGetVersion failed: ncclSystemError (unhandled system error (stub))"),
              std::string::npos)
        << result.findings[0].message;
}

TEST(NcclAllreduce, bus_bandwidth_is_nccl_tests_formula) {
    EXPECT_DOUBLE_EQ(nccl_allreduce_bus_bandwidth(100.0, 2), 100.0);
    EXPECT_DOUBLE_EQ(nccl_allreduce_bus_bandwidth(100.0, 8), 175.0);
    EXPECT_DOUBLE_EQ(nccl_allreduce_bus_bandwidth(100.0, 1), 0.0);
    EXPECT_DOUBLE_EQ(nccl_allreduce_bus_bandwidth(100.0, 0), 0.0);
}

TEST(NcclAllreduce, version_codes_and_result_names_read_as_nccl_h_defines_them) {
    EXPECT_EQ(nccl_version_text(22809), "2.28.9");
    EXPECT_EQ(nccl_version_text(21903), "2.19.3");
    EXPECT_EQ(nccl_version_text(2804), "2.8.4");
    EXPECT_EQ(nccl_result_name(1), "ncclUnhandledCudaError");
    EXPECT_EQ(nccl_result_name(6), "ncclRemoteError");
    EXPECT_EQ(nccl_result_name(42), "ncclResult_t 42");
}

TEST(NcclAllreduce, runs_at_full_level_only_and_spans_devices) {
    const Registry registry(builtin_checks());
    const Check* check = registry.find("nccl.allreduce");
    ASSERT_NE(check, nullptr);
    EXPECT_EQ(check->info().min_level, Level::full);
    EXPECT_EQ(check->info().scope, Scope::multi_device);
    ASSERT_NE(registry.find("cuda.p2p"), nullptr);
    EXPECT_EQ(registry.find("cuda.p2p")->info().min_level, Level::standard);
}

// Two GPUs that each hold the float64 sum to within rounding, 2^24 floats each, three timed runs.
AllReduceOutcome correct_allreduce() {
    AllReduceOutcome outcome;
    outcome.version = "2.28.9";
    outcome.devices = {0, 1};
    outcome.count = std::size_t{1} << 24;
    outcome.warmups = 1;
    outcome.runs = 3;
    outcome.init_ms = 250.0;
    outcome.times_ms = {12.0f, 10.0f, 8.0f};
    gpu::Accuracy close;
    close.relative_error = 3e-8;
    close.count = 1 << 20;
    outcome.accuracy = {{0, close}, {1, close}};
    outcome.complete = true;
    return outcome;
}

CheckResult judged(const AllReduceOutcome& outcome) { return test::judged("nccl.allreduce", judge_allreduce, outcome); }

TEST(JudgeAllReduce, passes_with_the_median_run_as_nccl_tests_bandwidths_when_every_gpu_holds_the_sum) {
    const CheckResult result = judged(correct_allreduce());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    // 64 MiB in the median 10 ms: 6.71 GB/s algorithm bandwidth; over 2 ranks the bus carries the same.
    ASSERT_NE(test::metric(result, "algorithm_bandwidth"), nullptr);
    EXPECT_DOUBLE_EQ(test::metric(result, "algorithm_bandwidth")->value, 67108864.0 / 10e-3 / 1e9);
    ASSERT_NE(test::metric(result, "bus_bandwidth"), nullptr);
    EXPECT_DOUBLE_EQ(test::metric(result, "bus_bandwidth")->value, 67108864.0 / 10e-3 / 1e9);
    ASSERT_NE(test::metric(result, "comm_init_time"), nullptr);
    EXPECT_DOUBLE_EQ(test::metric(result, "comm_init_time")->value, 250.0);
    EXPECT_NE(result.message.find("NCCL 2.28.9, 2 GPUs"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("correct on every GPU"), std::string::npos) << result.message;
}

TEST(JudgeAllReduce, fails_for_the_one_gpu_whose_sum_is_wrong) {
    AllReduceOutcome outcome = correct_allreduce();
    outcome.accuracy[1].accuracy.relative_error = 0.5;  // e.g. one rank's data dropped from the sum
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].code, "CC504");
    EXPECT_EQ(result.findings[0].device, 1);
    EXPECT_NE(result.findings[0].message.find("on device 1"), std::string::npos) << result.findings[0].message;
    EXPECT_EQ(result.message.find("correct on every GPU"), std::string::npos) << result.message;
}

TEST(JudgeAllReduce, a_nan_in_the_sum_never_passes) {
    AllReduceOutcome outcome = correct_allreduce();
    outcome.accuracy[0].accuracy.non_finite = 1;
    EXPECT_EQ(judged(outcome).code, "CC504");
}

TEST(JudgeAllReduce, reports_the_gpus_verified_and_no_rates_when_the_measurement_stopped_part_way) {
    AllReduceOutcome outcome = correct_allreduce();
    outcome.accuracy[0].accuracy.relative_error = 0.25;
    outcome.accuracy.pop_back();  // the copy back from GPU 1 failed
    outcome.complete = false;
    const CheckResult result = judged(outcome);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].device, 0);
    EXPECT_TRUE(result.metrics.empty());
}

}  // namespace
}  // namespace cudacheck
