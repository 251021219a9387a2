// cuda.kernel's judge from hand-built outcomes: an exact vector add passes, a wrong sum fails with
// where it was wrong, and the image verdicts (no image, PTX too new) come without a launch; CC511's
// text (add_ptx_too_new).
#include "checks/cuda_kernel.hpp"
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

KernelOutcome exact_vector_add() {
    KernelOutcome outcome;
    outcome.compute_capability = ComputeCapability{9, 0};
    outcome.embedded_architectures = "90-real";
    outcome.runtime_cuda = 13000;
    outcome.driver = CudaVersion{13, 0};
    outcome.binary_version = 90;
    outcome.ptx_version = 90;
    for (int i = 0; i < 1000; ++i) {
        outcome.a.push_back(static_cast<float>(i) * 0.37f);
        outcome.b.push_back(static_cast<float>(i) / 7.0f);
        outcome.sum.push_back(outcome.a.back() + outcome.b.back());
    }
    return outcome;
}

CheckResult judged(const KernelOutcome& outcome) { return test::judged("cuda.kernel", judge_kernel, outcome); }

TEST(JudgeKernel, passes_when_every_sum_is_exact) {
    const CheckResult result = judged(exact_vector_add());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(result.message.find("vector add of 1000 floats exact"), std::string::npos) << result.message;
    ASSERT_EQ(result.metrics.size(), 1u);
    EXPECT_EQ(result.metrics[0].value, 1000.0);
}

TEST(JudgeKernel, fails_with_the_first_wrong_sum_when_the_add_is_wrong) {
    KernelOutcome outcome = exact_vector_add();
    outcome.sum[417] += 1.0f;
    outcome.sum[900] = 0.0f;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_NE(result.message.find("2 of 1000 sums wrong (first at 417"), std::string::npos) << result.message;
}

TEST(JudgeKernel, reports_no_kernel_image_without_a_result_when_the_image_is_missing) {
    KernelOutcome outcome = exact_vector_add();
    outcome.compute_capability = ComputeCapability{12, 0};
    outcome.image_error = cudaErrorNoKernelImageForDevice;
    outcome.binary_version.reset();
    outcome.sum.clear();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::no_kernel_image));
    EXPECT_NE(result.remediation.find("-DCMAKE_CUDA_ARCHITECTURES=120"), std::string::npos) << result.remediation;
}

TEST(JudgeKernel, reports_ptx_too_new_when_the_driver_cannot_jit_the_own_ptx) {
    KernelOutcome outcome;
    outcome.compute_capability = ComputeCapability{12, 0};
    outcome.embedded_architectures = "90";  // PTX compute_90 only: JIT-compiled for 12.0
    outcome.runtime_cuda = 13000;
    outcome.driver = CudaVersion{12, 4};
    EXPECT_TRUE(own_ptx_unusable(outcome));
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::ptx_too_new));
}

TEST(JudgeKernel, keeps_the_image_evidence_when_the_measurement_stopped_early) {
    KernelOutcome outcome = exact_vector_add();
    outcome.driver.reset();  // cudaDriverGetVersion failed
    outcome.sum.clear();
    const CheckResult result = judged(outcome);
    ASSERT_EQ(result.evidence.size(), 2u);
    EXPECT_EQ(result.evidence[0].key, "embedded_architectures");
    EXPECT_EQ(result.evidence[1].key, "expected_image");
    EXPECT_TRUE(result.metrics.empty());
    EXPECT_TRUE(result.findings.empty());
}

// add_ptx_too_new, which nvrtc.compile uses too.
TEST(PtxJit, names_both_versions_and_the_minimum_driver_when_too_new) {
    const CheckResult result = test::judge("nvrtc.compile", [](ResultBuilder& builder) {
        add_ptx_too_new(builder, "the kernel NVRTC 12.4 compiled for compute_90", {12, 4}, {12, 2},
                        "use the NVRTC of the driver's CUDA version");
    });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC511");
    EXPECT_TRUE(test::contains(result.message, "CUDA 12.4")) << result.message;
    EXPECT_TRUE(test::contains(result.message, "(CUDA 12.2)")) << result.message;
    EXPECT_TRUE(test::contains(result.remediation, "550.54.14"))
        << "CUDA 12.4's minimum driver: " << result.remediation;
    EXPECT_TRUE(test::contains(result.remediation, "use the NVRTC of the driver's CUDA version")) << result.remediation;
}

}  // namespace
}  // namespace cudacheck
