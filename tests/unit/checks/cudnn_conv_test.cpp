// cudnn.conv without a GPU: the convolution's tolerance and judge from hand-built outcomes (a wrong
// convolution, a wrong output shape), cuDNN statuses as codes, the sub-library judgement, and a broken
// libcudnn.so.9 end to end.
#include "checks/cudnn_conv.hpp"
#include "bind/dynamic_library.hpp"
#include "checks/reference/convolution.hpp"
#include "probes/cuda_libraries.hpp"
#include "support/check_judging.hpp"
#include "support/headlines.hpp"
#include "support/test_support.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

using namespace cudnn_nvrtc;
using namespace reference;
namespace fs = std::filesystem;

using test::contains;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

TEST(ConvolutionTolerance, is_wider_for_transform_algorithms_and_below_tf32_error_when_compared) {
    const double gemm = convolution_tolerance(0);      // IMPLICIT_GEMM
    const double winograd = convolution_tolerance(6);  // WINOGRAD
    EXPECT_EQ(gemm, 1e-5);
    EXPECT_GT(winograd, gemm);
    EXPECT_LT(winograd, 5e-4) << "TF32's unit roundoff must still fail";
}

TEST(CudnnStatus, maps_sublibrary_statuses_to_their_codes_when_failed) {
    EXPECT_EQ(code_for_cudnn_status(1008), Code::cudnn_sublibrary_missing);  // SUBLIBRARY_LOADING_FAILED
    EXPECT_EQ(code_for_cudnn_status(3009), Code::cudnn_sublibrary_missing);  // NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE
    EXPECT_EQ(code_for_cudnn_status(1002), Code::cudnn_version_mismatch);    // SUBLIBRARY_VERSION_MISMATCH
    EXPECT_EQ(code_for_cudnn_status(5000), Code::library_call_failed);       // EXECUTION_FAILED
    EXPECT_EQ(code_for_cudnn_status(2000), Code::library_call_failed);       // BAD_PARAM
}

// --- the convolution's judge ------------------------------------------------------------------

// The standard level's problem: 2x3x32x32 input, 64 3x3 filters, padding 1.
const ConvShape standard_shape{.n = 2, .c = 3, .h = 32, .w = 32, .k = 64, .r = 3, .s = 3, .pad = 1, .stride = 1};

std::vector<float> as_floats(const std::vector<double>& values) { return {values.begin(), values.end()}; }

ConvolutionOutcome measured(const std::vector<float>& output) {
    ConvolutionOutcome outcome;
    outcome.shape = standard_shape;
    outcome.output_dims = {{standard_shape.n, standard_shape.k, standard_shape.out_h(), standard_shape.out_w()}};
    outcome.algorithm = 1;  // IMPLICIT_PRECOMP_GEMM
    outcome.chosen_by = "heuristics (rank 1 of 8)";
    outcome.workspace_bytes = 0;
    outcome.accuracy = convolution_accuracy(standard_shape, output);
    outcome.timed_runs = 5;
    outcome.times_ms = {0.02f, 0.01f, 0.01f, 0.03f, 0.01f};
    return outcome;
}

CheckResult judged(const ConvolutionOutcome& outcome) { return test::judged("cudnn.conv", judge_convolution, outcome); }

TEST(JudgeConvolution, passes_the_float_rounded_cross_correlation_with_its_median_time) {
    const ConvolutionInputs inputs = seeded_convolution_inputs(standard_shape);
    const CheckResult result =
        judged(measured(as_floats(reference_convolution(standard_shape, inputs.input, inputs.filter))));
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(test::account(result), "problem: 2x3x32x32 * 64x3x3x3 (NCHW float, pad 1, stride 1)"))
        << test::account(result);
    EXPECT_TRUE(contains(result.message, "convolution 2x3x32x32 * 64x3x3x3 correct (IMPLICIT_PRECOMP_GEMM"))
        << result.message;
    EXPECT_TRUE(contains(result.message, "0.010 ms")) << result.message;
}

TEST(JudgeConvolution, fails_a_true_convolution_that_flips_the_filter) {
    // Convolution in the textbook sense (the filter rotated by 180 degrees) where deep learning
    // frameworks, and cuDNN's CUDNN_CROSS_CORRELATION, mean cross-correlation.
    ConvolutionInputs inputs = seeded_convolution_inputs(standard_shape);
    std::vector<float> flipped(inputs.filter.size());
    const auto rs = static_cast<std::size_t>(standard_shape.r * standard_shape.s);
    for (std::size_t plane = 0; plane < inputs.filter.size() / rs; ++plane)
        for (std::size_t i = 0; i < rs; ++i) flipped[plane * rs + i] = inputs.filter[plane * rs + rs - 1 - i];
    const CheckResult result =
        judged(measured(as_floats(reference_convolution(standard_shape, inputs.input, flipped))));
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC504");
    EXPECT_TRUE(contains(result.message, "cuDNN convolution 2x3x32x32 * 64x3x3x3")) << result.message;
    EXPECT_TRUE(contains(result.message, "over all 131072 outputs")) << result.message;
}

TEST(JudgeConvolution, fails_an_output_with_one_unwritten_element) {
    const ConvolutionInputs inputs = seeded_convolution_inputs(standard_shape);
    std::vector<float> output = as_floats(reference_convolution(standard_shape, inputs.input, inputs.filter));
    output[4321] = std::numeric_limits<float>::quiet_NaN();  // the poison cudaMemset left
    EXPECT_EQ(judged(measured(output)).code, "CC504");
}

TEST(JudgeConvolution, fails_when_cudnn_gives_another_output_shape) {
    ConvolutionOutcome outcome;
    outcome.shape = standard_shape;
    outcome.output_dims = {{2, 64, 30, 30}};  // as if padding were ignored
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, "CC504");
    EXPECT_TRUE(contains(result.message, "cuDNN gives output 2x64x30x30")) << result.message;
    EXPECT_TRUE(contains(result.message, "expected 2x64x32x32")) << result.message;
}

// --- sub-libraries ----------------------------------------------------------------------------

const std::string system_dir = "/usr/lib/x86_64-linux-gnu";
const std::string pip_dir = "/home/u/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib";

// All seven sub-libraries, each present beside the main library; graph, ops and cnn loaded from
// `loaded_dir` with file names ending in `suffix` ("" for pip's bare .so.9).
std::vector<SubLibraryState> states(const std::string& loaded_dir, const std::string& suffix) {
    std::vector<SubLibraryState> result;
    for (std::string_view soname : cudnn9_sublibraries()) {
        SubLibraryState state{std::string(soname), "", true};
        if (soname == "libcudnn_graph.so.9" || soname == "libcudnn_ops.so.9" || soname == "libcudnn_cnn.so.9")
            state.loaded_path = loaded_dir + "/" + state.soname + suffix;
        result.push_back(state);
    }
    return result;
}

SubLibraryState& find(std::vector<SubLibraryState>& list, std::string_view soname) {
    for (SubLibraryState& state : list)
        if (state.soname == soname) return state;
    throw std::logic_error("no such sub-library");
}

TEST(SubLibraries, lists_seven_cudnn9_sonames) {
    ASSERT_EQ(cudnn9_sublibraries().size(), 7u);
    EXPECT_EQ(cudnn9_sublibraries().front(), "libcudnn_graph.so.9");
    EXPECT_EQ(cudnn9_sublibraries().back(), "libcudnn_heuristic.so.9");
}

TEST(SubLibraries, passes_when_everything_comes_from_one_system_install) {
    const SubLibraryVerdict verdict =
        judge_sublibraries(system_dir + "/libcudnn.so.9.14.0", "9.14.0", states(system_dir, ".14.0"));
    EXPECT_TRUE(verdict.findings.empty()) << verdict.findings.front().message;
    ASSERT_EQ(verdict.evidence.size(), 7u);
    EXPECT_EQ(verdict.evidence[2].key, "libcudnn_cnn.so.9");
    EXPECT_EQ(verdict.evidence[2].value, system_dir + "/libcudnn_cnn.so.9.14.0 (9.14.0)");
    EXPECT_TRUE(contains(verdict.evidence[3].value, "not loaded")) << verdict.evidence[3].value;
}

TEST(SubLibraries, passes_when_a_pip_wheel_has_unversioned_file_names) {
    const SubLibraryVerdict verdict = judge_sublibraries(pip_dir + "/libcudnn.so.9", "9.19.0", states(pip_dir, ""));
    EXPECT_TRUE(verdict.findings.empty()) << verdict.findings.front().message;
}

TEST(SubLibraries, reports_missing_cnn_naming_it_and_the_main_library_when_absent) {
    std::vector<SubLibraryState> list = states(system_dir, ".14.0");
    SubLibraryState& cnn = find(list, "libcudnn_cnn.so.9");
    cnn.loaded_path.clear();
    cnn.exists_beside_main = false;
    const SubLibraryVerdict verdict = judge_sublibraries(system_dir + "/libcudnn.so.9.14.0", "9.14.0", list);
    ASSERT_EQ(verdict.findings.size(), 1u);
    const Finding& finding = verdict.findings.front();
    EXPECT_EQ(finding.code, "CC508");
    EXPECT_EQ(finding.status, Status::fail);
    EXPECT_TRUE(contains(finding.message, "libcudnn_cnn.so.9")) << finding.message;
    EXPECT_TRUE(contains(finding.message, system_dir + "/libcudnn.so.9.14.0")) << finding.message;
    EXPECT_FALSE(contains(finding.message, "libcudnn_ops.so.9")) << "only the missing one is named";
    EXPECT_TRUE(contains(finding.remediation, system_dir)) << finding.remediation;
}

TEST(SubLibraries, tolerates_an_unloaded_sublibrary_when_present_beside_the_main_library) {
    std::vector<SubLibraryState> list = states(system_dir, ".14.0");
    find(list, "libcudnn_cnn.so.9").loaded_path.clear();  // present on disk, just not needed yet
    EXPECT_TRUE(judge_sublibraries(system_dir + "/libcudnn.so.9.14.0", "9.14.0", list).findings.empty());
}

TEST(SubLibraries, reports_a_pip_and_system_mix_naming_both_paths_when_mixed) {
    // The pip wheel's shim first on LD_LIBRARY_PATH, its sub-libraries taken from the system.
    const SubLibraryVerdict verdict =
        judge_sublibraries(pip_dir + "/libcudnn.so.9", "9.19.0", states(system_dir, ".14.0"));
    ASSERT_EQ(verdict.findings.size(), 1u);
    const Finding& finding = verdict.findings.front();
    EXPECT_EQ(finding.code, "CC509");
    EXPECT_EQ(finding.status, Status::fail);
    EXPECT_TRUE(contains(finding.message, pip_dir + "/libcudnn.so.9")) << finding.message;
    EXPECT_TRUE(contains(finding.message, system_dir + "/libcudnn_cnn.so.9.14.0")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "pip wheel")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "system")) << finding.message;
    EXPECT_TRUE(contains(finding.remediation, system_dir)) << "names the directory to remove: " << finding.remediation;
}

TEST(SubLibraries, reports_a_version_mismatch_in_one_directory_when_file_versions_differ) {
    std::vector<SubLibraryState> list = states(system_dir, ".19.0");
    find(list, "libcudnn_ops.so.9").loaded_path = system_dir + "/libcudnn_ops.so.9.14.0";  // left behind by an upgrade
    const SubLibraryVerdict verdict = judge_sublibraries(system_dir + "/libcudnn.so.9.19.0", "9.19.0", list);
    ASSERT_EQ(verdict.findings.size(), 1u);
    EXPECT_EQ(verdict.findings.front().code, "CC509");
    EXPECT_TRUE(contains(verdict.findings.front().message, "libcudnn_ops.so.9.14.0"))
        << verdict.findings.front().message;
    EXPECT_TRUE(contains(verdict.findings.front().message, "9.19.0")) << verdict.findings.front().message;
    EXPECT_FALSE(contains(verdict.findings.front().message, "libcudnn_cnn")) << "cnn matches: not named";
}

TEST(SubLibraries, reports_both_codes_when_one_is_missing_and_another_mixed) {
    std::vector<SubLibraryState> list = states(system_dir, ".14.0");
    SubLibraryState& adv = find(list, "libcudnn_adv.so.9");
    adv.exists_beside_main = false;
    find(list, "libcudnn_graph.so.9").loaded_path = pip_dir + "/libcudnn_graph.so.9";
    const SubLibraryVerdict verdict = judge_sublibraries(system_dir + "/libcudnn.so.9.14.0", "9.14.0", list);
    ASSERT_EQ(verdict.findings.size(), 2u);
    EXPECT_EQ(verdict.findings[0].code, "CC508");
    EXPECT_EQ(verdict.findings[1].code, "CC509");
    EXPECT_TRUE(contains(verdict.findings[1].message, "pip wheel")) << verdict.findings[1].message;
}

// --- end to end -------------------------------------------------------------------------------

TEST(EndToEnd, cudnn_reports_a_broken_library_file_while_nvrtc_loads) {
    test::TempDir dir;
    const std::string broken = dir.write("lib/libcudnn.so.9", "not an ELF file\n");
    const std::string report_path = dir.path() + "/report.json";
    const test::BinaryRun run = test::run_cudacheck({"--only", "cudnn.conv,nvrtc.compile", "-o", report_path, "-q"},
                                                    {{"LD_LIBRARY_PATH", dir.path() + "/lib:" + fake_driver_dir}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const auto report = nlohmann::json::parse(test::read_text(report_path));

    const auto* cudnn = test::find_check(report, "cudnn.conv");
    ASSERT_NE(cudnn, nullptr);
    EXPECT_EQ((*cudnn)["status"], "fail");
    // Damaged, so never opened (the loader would die with SIGBUS): the file and why are named.
    EXPECT_EQ((*cudnn)["code"], "CC605");
    EXPECT_TRUE(contains(cudnn->dump(), broken)) << cudnn->dump();
    EXPECT_TRUE(contains(cudnn->dump(), "not an ELF file")) << cudnn->dump();

    const auto* nvrtc = test::find_check(report, "nvrtc.compile");
    ASSERT_NE(nvrtc, nullptr);
    const std::string soname = std::string(cuda_library::nvrtc.soname_for(CUDART_VERSION / 1000));
    if (!DynamicLibrary::open(soname).ok() && !fs::exists("/usr/local/cuda/lib64/" + soname))
        GTEST_SKIP() << soname << " is not installed here: nvrtc.compile cannot get past loading";
    EXPECT_NE((*nvrtc)["code"], "CC505") << (*nvrtc)["message"];
    // NVRTC loaded and resolved; the fake driver then makes the runtime's cudaSetDevice fail.
    EXPECT_EQ((*nvrtc)["status"], "fail");
    EXPECT_EQ((*nvrtc)["code"], "CC501");
    EXPECT_TRUE(contains((*nvrtc)["message"].get<std::string>(), "cudaSetDevice")) << (*nvrtc)["message"];
}

}  // namespace
}  // namespace cudacheck
