// Unit tests for cudnn.conv and nvrtc.compile: the pure parts (reference convolution, version
// decoding, sub-library judgement, NVRTC target choice) with crafted inputs, and the binary end to
// end with a broken libcudnn.so.9 and the fake driver (the GPU parts run on the GPU machine).
#include "checks/cudnn_conv.hpp"
#include "bind/cudnn.hpp"
#include "checks/nvrtc_compile.hpp"
#include "checks/reference/convolution.hpp"
#include "bind/dynamic_library.hpp"
#include "probes/cuda_libraries.hpp"
#include "support/test_support.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION
#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using namespace cudnn_nvrtc;
using namespace reference;
namespace fs = std::filesystem;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// --- reference convolution --------------------------------------------------------------------

TEST(ReferenceConvolution, sums_the_window_with_zero_padding_when_padded) {
    // 3x3 input 1..9, 3x3 filter of ones, padding 1: each output sums the in-bounds neighbours.
    const ConvShape shape{.n = 1, .c = 1, .h = 3, .w = 3, .k = 1, .r = 3, .s = 3, .pad = 1, .stride = 1};
    const std::vector<float> input{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<float> filter(9, 1.0f);
    const std::vector<double> output = reference_convolution(shape, input, filter);
    const std::vector<double> expected{1 + 2 + 4 + 5,     1 + 2 + 3 + 4 + 5 + 6,         2 + 3 + 5 + 6,
                                       1 + 2 + 4 + 5 + 7 + 8, 45,                        2 + 3 + 5 + 6 + 8 + 9,
                                       4 + 5 + 7 + 8,     4 + 5 + 6 + 7 + 8 + 9,         5 + 6 + 8 + 9};
    EXPECT_EQ(output, expected);
}

TEST(ReferenceConvolution, correlates_without_flipping_the_filter_when_strided) {
    // 4x4 input 0..15, filter [[1,0],[0,-1]], stride 2, no padding: out = in[y][x] - in[y+1][x+1].
    // Cross-correlation (cuDNN's CUDNN_CROSS_CORRELATION): a flipped filter would give +5 instead.
    const ConvShape shape{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 2, .s = 2, .pad = 0, .stride = 2};
    std::vector<float> input(16);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i);
    const std::vector<float> filter{1, 0, 0, -1};
    EXPECT_EQ(shape.out_h(), 2);
    EXPECT_EQ(shape.out_w(), 2);
    EXPECT_EQ(reference_convolution(shape, input, filter), (std::vector<double>{-5, -5, -5, -5}));
}

TEST(ReferenceConvolution, sums_channels_and_orders_output_as_nkpq_when_batched) {
    // N=2, C=2, 1x1 images, K=2 1x1 filters: out[n][k] = sum_c in[n][c] * f[k][c].
    const ConvShape shape{.n = 2, .c = 2, .h = 1, .w = 1, .k = 2, .r = 1, .s = 1, .pad = 0, .stride = 1};
    const std::vector<float> input{1, 2, 3, 4};      // n0: (1,2), n1: (3,4)
    const std::vector<float> filter{10, 100, -1, 1};  // k0: (10,100), k1: (-1,1)
    EXPECT_EQ(reference_convolution(shape, input, filter), (std::vector<double>{210, 1, 430, 1}));
    EXPECT_EQ(shape.output_count(), 4u);
    EXPECT_DOUBLE_EQ(shape.multiply_adds(), 8.0);
}

TEST(ConvolutionTolerance, is_wider_for_transform_algorithms_and_below_tf32_error_when_compared) {
    const double gemm = convolution_tolerance(0);      // IMPLICIT_GEMM
    const double winograd = convolution_tolerance(6);  // WINOGRAD
    EXPECT_EQ(gemm, 1e-5);
    EXPECT_GT(winograd, gemm);
    EXPECT_LT(winograd, 5e-4) << "TF32's unit roundoff must still fail";
}

// --- versions ---------------------------------------------------------------------------------

TEST(CudnnVersion, decodes_cudnn9_form_when_above_ten_thousand) {
    EXPECT_EQ(decode_cudnn_version(90300).text(), "9.3.0");
    EXPECT_EQ(decode_cudnn_version(91400).text(), "9.14.0");
    EXPECT_EQ(decode_cudnn_version(91902).text(), "9.19.2");
    EXPECT_EQ(decode_cudnn_version(91400).major, 9);
}

TEST(CudnnVersion, decodes_cudnn8_form_when_below_ten_thousand) {
    EXPECT_EQ(decode_cudnn_version(8005).text(), "8.0.5");
    EXPECT_EQ(decode_cudnn_version(8907).text(), "8.9.7");
    EXPECT_EQ(decode_cudnn_version(8907).major, 8);
}

TEST(CudnnStatus, maps_sublibrary_statuses_to_their_codes_when_failed) {
    EXPECT_EQ(code_for_cudnn_status(1008), Code::cudnn_sublibrary_missing);  // SUBLIBRARY_LOADING_FAILED
    EXPECT_EQ(code_for_cudnn_status(3009), Code::cudnn_sublibrary_missing);  // NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE
    EXPECT_EQ(code_for_cudnn_status(1002), Code::cudnn_version_mismatch);    // SUBLIBRARY_VERSION_MISMATCH
    EXPECT_EQ(code_for_cudnn_status(5000), Code::library_call_failed);       // EXECUTION_FAILED
    EXPECT_EQ(code_for_cudnn_status(2000), Code::library_call_failed);       // BAD_PARAM
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
    const SubLibraryVerdict verdict = judge_sublibraries(system_dir + "/libcudnn.so.9.14.0", "9.14.0", states(system_dir, ".14.0"));
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
    const SubLibraryVerdict verdict = judge_sublibraries(pip_dir + "/libcudnn.so.9", "9.19.0", states(system_dir, ".14.0"));
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
    EXPECT_TRUE(contains(verdict.findings.front().message, "libcudnn_ops.so.9.14.0")) << verdict.findings.front().message;
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

// --- NVRTC ------------------------------------------------------------------------------------

const std::vector<int> nvrtc13_architectures{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};

TEST(NvrtcTarget, chooses_cubin_for_the_exact_architecture_when_listed) {
    const NvrtcTarget target = choose_nvrtc_target(nvrtc13_architectures, 9, 0);
    EXPECT_TRUE(target.possible);
    EXPECT_TRUE(target.cubin);
    EXPECT_EQ(target.option, "--gpu-architecture=sm_90");
    EXPECT_TRUE(contains(target.verdict, "CUBIN")) << target.verdict;
}

TEST(NvrtcTarget, falls_back_to_ptx_of_the_newest_older_architecture_when_not_listed) {
    const NvrtcTarget target = choose_nvrtc_target(std::vector<int>{75, 80, 86, 90}, 8, 9);
    EXPECT_TRUE(target.possible);
    EXPECT_FALSE(target.cubin);
    EXPECT_EQ(target.architecture, 86);
    EXPECT_EQ(target.option, "--gpu-architecture=compute_86");
    EXPECT_TRUE(contains(target.verdict, "JIT")) << target.verdict;
}

TEST(NvrtcTarget, is_impossible_when_the_gpu_is_older_than_every_listed_architecture) {
    const NvrtcTarget target = choose_nvrtc_target(nvrtc13_architectures, 7, 0);
    EXPECT_FALSE(target.possible);
    EXPECT_TRUE(target.option.empty());
    EXPECT_TRUE(contains(target.verdict, "sm_75")) << target.verdict;
    EXPECT_FALSE(choose_nvrtc_target(std::vector<int>{}, 9, 0).possible);
}

TEST(NvrtcSupport, names_the_builtins_library_and_trims_the_log) {
    EXPECT_EQ(nvrtc_builtins_soname(13, 0), "libnvrtc-builtins.so.13.0");
    EXPECT_EQ(first_log_lines("\na.cu(3): error: x\n\n  b\nc\nd\n", 2), "a.cu(3): error: x | b | ...");
    EXPECT_EQ(first_log_lines("only\n", 3), "only");
    EXPECT_EQ(first_log_lines("", 3), "");
}

// --- DynamicLibrary::find_loaded --------------------------------------------------------------

TEST(DynamicLibraryFindLoaded, finds_a_library_by_soname_only_when_already_loaded) {
    const DynamicLibrary libc = DynamicLibrary::find_loaded("libc.so.6");  // every process has it
    ASSERT_TRUE(libc.ok()) << libc.error();
    EXPECT_TRUE(contains(libc.loaded_path(), "libc")) << libc.loaded_path();
    EXPECT_EQ(libc.loaded_path().front(), '/');
    const DynamicLibrary absent = DynamicLibrary::find_loaded("libcudacheck-never-loaded.so.1");
    EXPECT_FALSE(absent.ok());
    EXPECT_TRUE(absent.loaded_path().empty());
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
    EXPECT_EQ((*cudnn)["code"], "CC505");
    EXPECT_TRUE(contains((*cudnn)["message"].get<std::string>(), broken)) << (*cudnn)["message"];

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
