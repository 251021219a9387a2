// nvrtc.compile's judge from hand-built outcomes: an exact saxpy passes, a compile that failed
// reports NVRTC's log, a wrong element fails naming it, and the driver's verdicts on the image.
#include "checks/nvrtc_compile.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cudacheck {
namespace {

NvrtcOutcome exact_saxpy() {
    NvrtcOutcome outcome;
    outcome.nvrtc_major = 13;
    outcome.nvrtc_minor = 0;
    outcome.major = 9;
    outcome.minor = 0;
    outcome.architectures = std::vector<int>{75, 80, 86, 89, 90, 100, 120};
    outcome.compile_status = NVRTC_SUCCESS;
    outcome.compile_ms = 12.4;
    outcome.builtins_path = "/usr/local/cuda/lib64/libnvrtc-builtins.so.13.0";
    outcome.image_bytes = 4096;
    outcome.module_load_ms = 0.8;
    for (std::size_t i = 0; i < 1000; ++i) outcome.out.push_back(expected_saxpy_element(i));
    return outcome;
}

CheckResult judged(const NvrtcOutcome& outcome) { return test::judged("nvrtc.compile", judge_nvrtc, outcome); }

TEST(JudgeNvrtc, passes_with_the_compile_time_when_every_element_is_exact) {
    const CheckResult result = judged(exact_saxpy());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_EQ(result.message, "NVRTC 13.0 compiled saxpy for sm_90 in 12 ms; 1000 elements exact");
    ASSERT_EQ(result.metrics.size(), 3u);
    EXPECT_EQ(result.metrics[0].name, "compile_time");
    EXPECT_EQ(result.metrics[1].name, "module_load_time");
    EXPECT_EQ(result.metrics[2].name, "elements_checked");
    EXPECT_EQ(result.metrics[2].value, 1000.0);
    ASSERT_EQ(result.evidence.size(), 4u);
    EXPECT_EQ(result.evidence[0].value, "75,80,86,89,90,100,120");
    EXPECT_EQ(result.evidence[3].value, "4096 bytes of CUBIN");
}

TEST(JudgeNvrtc, reports_the_first_log_lines_when_the_compile_failed) {
    NvrtcOutcome outcome = exact_saxpy();
    outcome.compile_status = NVRTC_ERROR_COMPILATION;
    outcome.compile_error = "NVRTC_ERROR_COMPILATION";
    outcome.log =
        "cudacheck_saxpy.cu(3): error: identifier \"__fmaf_rn\" is undefined\n\n"
        "cudacheck_saxpy.cu(3): error: expected a \";\"\n"
        "  detected during compilation\n"
        "2 errors detected in the compilation of \"cudacheck_saxpy.cu\".\n";
    outcome.nvrtc_dir = "/usr/local/cuda/lib64";
    outcome.builtins_beside = true;
    outcome.builtins_path.reset();
    outcome.image_bytes.reset();
    outcome.module_load_ms.reset();
    outcome.out.clear();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::nvrtc_compile_failed));
    EXPECT_EQ(result.code, "CC510");
    EXPECT_EQ(result.message, "nvrtcCompileProgram(--gpu-architecture=sm_90) failed: NVRTC_ERROR_COMPILATION");
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(),
                        Evidence{"nvrtc_log",
                                 "cudacheck_saxpy.cu(3): error: identifier \"__fmaf_rn\" is undefined | "
                                 "cudacheck_saxpy.cu(3): error: "
                                 "expected a \";\" | detected during compilation | ..."}),
              result.evidence.end());
    // The builtins library is beside NVRTC and the compile did not fail in it: the kernel is the suspect.
    EXPECT_NE(result.remediation.find("A correct kernel failed to compile with --gpu-architecture=sm_90"),
              std::string::npos)
        << result.remediation;
    EXPECT_TRUE(result.metrics.empty());
}

TEST(JudgeNvrtc, names_the_missing_builtins_when_the_compile_failed_without_them) {
    NvrtcOutcome outcome = exact_saxpy();
    outcome.compile_status = NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
    outcome.compile_error = "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";
    outcome.nvrtc_dir = "/opt/nvrtc/lib";
    outcome.builtins_beside = false;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::nvrtc_compile_failed));
    EXPECT_EQ(result.message,
              "nvrtcCompileProgram(--gpu-architecture=sm_90) failed: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE");
    EXPECT_NE(result.remediation.find(
                  "needs libnvrtc-builtins.so.13.0 from the same toolkit beside it (absent from /opt/nvrtc/lib)"),
              std::string::npos)
        << result.remediation;
}

TEST(JudgeNvrtc, fails_with_the_first_wrong_element_when_the_result_is_wrong) {
    NvrtcOutcome outcome = exact_saxpy();
    outcome.out[500] = std::nextafter(outcome.out[500], 10.0f);  // one ulp: what a non-fused a*x+y gives
    outcome.out[700] = 0.0f;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_NE(result.message.find(
                  "(--gpu-architecture=sm_90): 2 of 1000 elements differ from the host's fma (first at 500:"),
              std::string::npos)
        << result.message;
}

TEST(JudgeNvrtc, reports_ptx_too_new_when_the_driver_rejects_the_ptx_version) {
    NvrtcOutcome outcome = exact_saxpy();
    outcome.major = 12;
    outcome.minor = 1;  // not listed: PTX for compute_120, JIT-compiled
    outcome.module_load_ms.reset();
    outcome.driver_failure = DriverCallFailure{CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                                               "cuModuleLoadData: CUDA_ERROR_UNSUPPORTED_PTX_VERSION", ""};
    outcome.driver = CudaVersion{12, 8};
    outcome.out.clear();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::ptx_too_new));
    EXPECT_NE(result.message.find("compute_120"), std::string::npos) << result.message;
    EXPECT_EQ(result.evidence.back().value, "4096 bytes of PTX");
}

TEST(JudgeNvrtc, reports_the_failed_driver_call_when_the_cubin_does_not_load) {
    NvrtcOutcome outcome = exact_saxpy();
    outcome.module_load_ms.reset();
    outcome.driver_failure =
        DriverCallFailure{CUDA_ERROR_NO_BINARY_FOR_GPU, "cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU", "reinstall"};
    outcome.out.clear();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::cuda_call_failed));
    EXPECT_EQ(result.message,
              "cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU (loading/launching the CUBIN NVRTC produced)");
    ASSERT_EQ(result.metrics.size(), 1u);
    EXPECT_EQ(result.metrics[0].name, "compile_time");
}

// --- target choice and log ----------------------------------------------------------------

const std::vector<int> nvrtc13_architectures{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

TEST(NvrtcTarget, chooses_cubin_for_the_exact_architecture_when_listed) {
    const NvrtcTarget target = choose_nvrtc_target(nvrtc13_architectures, 9, 0);
    EXPECT_TRUE(target.possible);
    EXPECT_TRUE(target.cubin);
    EXPECT_EQ(target.option, "--gpu-architecture=sm_90");
    EXPECT_TRUE(target.verdict.find("CUBIN") != std::string::npos) << target.verdict;
}

TEST(NvrtcTarget, falls_back_to_ptx_of_the_newest_older_architecture_when_not_listed) {
    const NvrtcTarget target = choose_nvrtc_target(std::vector<int>{75, 80, 86, 90}, 8, 9);
    EXPECT_TRUE(target.possible);
    EXPECT_FALSE(target.cubin);
    EXPECT_EQ(target.architecture, 86);
    EXPECT_EQ(target.option, "--gpu-architecture=compute_86");
    EXPECT_TRUE(target.verdict.find("JIT") != std::string::npos) << target.verdict;
}

TEST(NvrtcTarget, is_impossible_when_the_gpu_is_older_than_every_listed_architecture) {
    const NvrtcTarget target = choose_nvrtc_target(nvrtc13_architectures, 7, 0);
    EXPECT_FALSE(target.possible);
    EXPECT_TRUE(target.option.empty());
    EXPECT_TRUE(target.verdict.find("sm_75") != std::string::npos) << target.verdict;
    EXPECT_FALSE(choose_nvrtc_target(std::vector<int>{}, 9, 0).possible);
}

TEST(NvrtcSupport, names_the_builtins_library_and_trims_the_log) {
    EXPECT_EQ(nvrtc_builtins_soname(13, 0), "libnvrtc-builtins.so.13.0");
    EXPECT_EQ(first_log_lines("\na.cu(3): error: x\n\n  b\nc\nd\n", 2), "a.cu(3): error: x | b | ...");
    EXPECT_EQ(first_log_lines("only\n", 3), "only");
    EXPECT_EQ(first_log_lines("", 3), "");
}

}  // namespace
}  // namespace cudacheck
