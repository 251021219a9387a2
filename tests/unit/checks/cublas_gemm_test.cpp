// cublas.gemm's judge from hand-built outcomes: a correct run passes with its rates against the
// datasheet, a NaN in a GEMM and a precision whose samples stray fail, and a run stopped part-way
// reports what it measured.
#include "checks/cublas_gemm.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>
#include <string_view>

namespace cudacheck {
namespace {

gpu::Accuracy accurate(double relative_error) {
    gpu::Accuracy accuracy;
    accuracy.relative_error = relative_error;
    accuracy.count = 32;
    return accuracy;
}

// An H200's run: the small products within rounding, every precision at a plausible rate.
GemmOutcome correct_run() {
    GemmOutcome outcome;
    outcome.sgemm = accurate(2e-7);
    outcome.dgemm = accurate(4e-16);
    outcome.device_name = "NVIDIA H200";
    outcome.warmups = 1;
    outcome.runs = 3;
    outcome.samples = 32;
    const double tflops[] = {50.0, 380.0, 700.0, 720.0};
    for (std::size_t i = 0; i < gemm_precisions.size(); ++i)
        outcome.throughput.push_back(
            {&gemm_precisions[i], gemm_precisions[i].size, tflops[i], accurate(gemm_precisions[i].tolerance / 10)});
    outcome.phases = "handle 120 ms, SGEMM/DGEMM with references 30 ms";
    return outcome;
}

CheckResult judged(const GemmOutcome& outcome) { return test::judged("cublas.gemm", judge_gemm, outcome); }

TEST(JudgeGemm, passes_with_each_rate_against_the_datasheet_peak_when_every_product_matches) {
    const CheckResult result = judged(correct_run());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(result.message.find("TFLOP/s: FP32 50, TF32 380 at 4096^3, FP16 700, BF16 720 at 8192^3"),
              std::string::npos)
        << result.message;
    const Metric* fp16 = test::metric(result, "gemm_fp16_8192");
    ASSERT_NE(fp16, nullptr);
    EXPECT_DOUBLE_EQ(fp16->value, 700.0);
    const Metric* fp16_share = test::metric(result, "gemm_fp16_fraction_of_peak");
    ASSERT_NE(fp16_share, nullptr);
    EXPECT_DOUBLE_EQ(fp16_share->value, 100.0 * 700.0 / 989.0);  // the H200's dense FP16 datasheet figure
}

TEST(JudgeGemm, fails_with_wrong_result_when_an_sgemm_element_is_nan) {
    GemmOutcome outcome = correct_run();
    // One NaN among the products, e.g. an element the kernel never wrote (the output is poisoned).
    gpu::AccuracyAccumulator accumulator;
    accumulator.add(1.0, 1.0);
    accumulator.add(std::numeric_limits<double>::quiet_NaN(), 2.0);
    outcome.sgemm = accumulator.result();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC504");
    EXPECT_NE(result.message.find("SGEMM 256x192x328"), std::string::npos) << result.message;
    EXPECT_EQ(result.findings.size(), 1u) << "DGEMM and every precision were right";
}

TEST(JudgeGemm, fails_only_the_precision_whose_samples_stray_from_float64) {
    GemmOutcome outcome = correct_run();
    outcome.throughput[3].accuracy = accurate(0.2);  // BF16: a fast wrong answer
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_NE(result.findings[0].message.find("BF16 GEMM 8192^3"), std::string::npos) << result.findings[0].message;
    ASSERT_NE(test::metric(result, "gemm_bf16_8192"), nullptr) << "its rate is still reported";
}

TEST(JudgeGemm, reports_no_share_of_peak_for_a_gpu_without_datasheet_figures) {
    GemmOutcome outcome = correct_run();
    outcome.device_name = "NVIDIA H200 NVL";  // another clock and power limit: no exact match
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(test::metric(result, "gemm_fp32_fraction_of_peak"), nullptr);
    EXPECT_NE(test::metric(result, "gemm_fp32_4096"), nullptr);
}

TEST(JudgeGemm, reports_what_was_measured_without_a_summary_when_stopped_part_way) {
    GemmOutcome outcome = correct_run();
    outcome.throughput.resize(2);  // FP16's cublasGemmEx failed
    outcome.phases.clear();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.message, "");
    EXPECT_NE(test::metric(result, "gemm_tf32_4096"), nullptr);
    EXPECT_EQ(test::metric(result, "gemm_fp16_8192"), nullptr);
    EXPECT_EQ(test::metric(result, "sgemm_relative_error"), nullptr);
}

// Each precision at its own size where a quarter of the free memory holds three such matrices of
// 4-byte elements; halved down to 2048 where it does not.
TEST(GemmSizes, each_precision_keeps_its_size_on_a_large_gpu_and_halves_on_a_small_one) {
    constexpr std::size_t gib = std::size_t{1} << 30;
    EXPECT_EQ(gemm_sizes(140 * gib), (std::array<std::size_t, 4>{4096, 4096, 8192, 8192}));
    EXPECT_EQ(gemm_sizes(3 * gib), (std::array<std::size_t, 4>{4096, 4096, 8192, 8192}))
        << "3 x 256 MiB is a quarter of 3 GiB";
    EXPECT_EQ(gemm_sizes(3 * gib - 1), (std::array<std::size_t, 4>{4096, 4096, 4096, 4096}));
    EXPECT_EQ(gemm_sizes(gib / 2), (std::array<std::size_t, 4>{2048, 2048, 2048, 2048})) << "never below 2048";
}

}  // namespace
}  // namespace cudacheck
