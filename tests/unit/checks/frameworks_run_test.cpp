// frameworks.run: its scripts run by a real interpreter (this machine's has no framework, so each
// reports the import error through the same line), the line's parser, and the judge on the
// outcomes the GPU machine produced (docs/examples/h200/frameworks/issue17).
#include "checks/frameworks_run.hpp"
#include "support/check_judging.hpp"
#include "support/expected_support.hpp"
#include "support/headlines.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace cudacheck {
namespace {

using test::finding_with;

const std::string wheel_cudnn = "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9";

FrameworkFacts torch_prediction() {
    FrameworkFacts torch;
    torch.build.framework = "PyTorch";
    torch.build.version = "2.11.0+cu130";
    torch.build.cuda = "13.0";
    torch.build.cuda_major = 13;
    torch.build.accelerator = Accelerator::cuda;
    FrameworkLibrary cudnn{.family = "cuDNN", .version = "9.19.0.56", .origin = LibraryOrigin::pip_wheel};
    cudnn.object.soname = "libcudnn.so.9";
    cudnn.object.resolution =
        Resolution{"libcudnn.so.9", "preloaded by torch (_preload_cuda_deps)", wheel_cudnn, wheel_cudnn};
    torch.libraries.push_back(cudnn);
    torch.gpu_code = GpuCodeSummary{.path = "libtorch_cuda.so"};
    for (int number : {75, 80, 86, 90, 100, 120})
        torch.gpu_code->targets.sass.push_back({number, ArchVariant::generic});
    return torch;
}

// What torch said on the GPU machine (full.json there).
FrameworkSelfReport torch_said() {
    FrameworkSelfReport report;
    report.ok = true;
    report.version = "2.11.0+cu130";
    report.cuda = "13.0";
    report.cudnn = "9.19.0";
    report.arch_list = {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
    report.devices = {"NVIDIA H200"};
    report.checks = {"matmul", "conv2d (cuDNN)"};
    return report;
}

CheckResult judged(const FrameworkFacts& framework, const FrameworkRunOutcome& outcome) {
    return test::judge("frameworks.run", [&](ResultBuilder& result) {
        judge_framework_run("/opt/torch/.venv: PyTorch", framework, outcome, result);
    });
}

FrameworkRunOutcome reported(FrameworkSelfReport report) {
    return FrameworkRunOutcome{.started = true, .report = std::move(report), .seconds = 9.0};
}

TEST(FrameworksRun, each_script_runs_in_a_real_interpreter_and_reports_through_its_line) {
    for (const auto& [framework, module] : {std::pair{"PyTorch", "torch"}, {"JAX", "jax"}, {"CuPy", "cupy"}}) {
        const std::string script = framework_probe_script(framework);
        ASSERT_FALSE(script.empty()) << framework;
        const sys::CommandResult run =
            sys::run_command({CUDACHECK_CLIENT_PYTHON, "-c", script}, std::chrono::seconds(60));
        ASSERT_TRUE(run.started) << run.error;
        EXPECT_EQ(run.exit_status, 0) << run.output;
        const Expected<FrameworkSelfReport> report = parse_self_report(run.output);
        ASSERT_TRUE(report.has_value()) << test::error_of(report) << "\n" << run.output;
        // Where the interpreter lacks the framework (CI), the import fails inside the script's own
        // try; where it has it (the GPU machine's venv), the framework reports its own version.
        const bool installed =
            sys::run_command({CUDACHECK_CLIENT_PYTHON, "-c", std::string("import ") + module}, std::chrono::seconds(60))
                .exit_status == 0;
        if (installed) {
            EXPECT_FALSE(report->version.empty()) << framework << ": " << run.output;
        } else {
            EXPECT_FALSE(report->ok) << framework;
            EXPECT_NE(report->error.find("ModuleNotFoundError"), std::string::npos) << report->error;
        }
    }
    EXPECT_TRUE(framework_probe_script("TensorFlow").empty());
}

TEST(FrameworksRun, the_report_line_is_found_after_other_output_and_garbage_is_no_report) {
    const auto report = parse_self_report(
        "a warning\nCUDACHECK_SELF_REPORT {\"ok\": true, \"version\": \"14.2.0\", \"cuda\": \"13.2\", "
        "\"mapped\": [\"/x/libnvrtc.so.13\"], \"checks\": [\"reduction\"]}\ntrailing\n");
    ASSERT_TRUE(report.has_value()) << test::error_of(report);
    EXPECT_TRUE(report->ok);
    EXPECT_EQ(report->cuda, "13.2");
    EXPECT_EQ(report->mapped, std::vector<std::string>{"/x/libnvrtc.so.13"});
    const std::string error = test::error_of(parse_self_report("Segmentation fault\n"));
    EXPECT_NE(error.find("no report line"), std::string::npos) << error;
    EXPECT_FALSE(parse_self_report("CUDACHECK_SELF_REPORT {\"ok\": tr").has_value());
    EXPECT_FALSE(parse_self_report("CUDACHECK_SELF_REPORT [1, 2]").has_value());
}

TEST(FrameworksRun, agreement_passes) {
    const CheckResult result = judged(torch_prediction(), reported(torch_said()));
    EXPECT_EQ(result.status, Status::pass) << result.message;
    ASSERT_FALSE(result.evidence.empty());
    EXPECT_NE(result.evidence.front().value.find("CUDA 13.0, cuDNN 9.19.0"), std::string::npos)
        << result.evidence.front().value;
}

TEST(FrameworksRun, a_framework_whose_own_test_fails_or_hangs_fails_with_its_words) {
    FrameworkSelfReport refused = torch_said();
    refused.ok = false;
    refused.checks = {"matmul"};
    refused.error =
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 19, 0) but found runtime "
        "version (9, 14, 0).";
    const CheckResult failed = judged(torch_prediction(), reported(refused));
    const Finding* finding = finding_with(failed, "CC630");
    ASSERT_NE(finding, nullptr);
    EXPECT_NE(finding->message.find("failed its own GPU test after [matmul]"), std::string::npos) << finding->message;
    EXPECT_NE(test::account(failed).find("error: RuntimeError: cuDNN version incompatibility"), std::string::npos)
        << test::account(failed);
    EXPECT_EQ(finding->subject, "/opt/torch/.venv: PyTorch");
    const CheckResult hung =
        judged(torch_prediction(), FrameworkRunOutcome{.started = true, .timed_out = true, .seconds = 90.0});
    ASSERT_NE(finding_with(hung, "CC630"), nullptr);
    EXPECT_NE(finding_with(hung, "CC630")->message.find("did not finish in 90 s"), std::string::npos);
    const CheckResult died =
        judged(torch_prediction(),
               FrameworkRunOutcome{.started = true, .exit_status = 139, .output_tail = "Segmentation fault"});
    EXPECT_NE(finding_with(died, "CC630")->message.find("exited with status 139 before reporting"), std::string::npos);
    EXPECT_NE(test::account(died).find("output: Segmentation fault"), std::string::npos) << test::account(died);
}

TEST(FrameworksRun, a_prediction_the_framework_contradicts_is_a_finding) {
    // The first call on the GPU machine: a partial sm_89 counted as a target (now partial).
    FrameworkFacts with_partial = torch_prediction();
    with_partial.gpu_code->targets.sass.push_back({89, ArchVariant::generic});
    const CheckResult partial = judged(with_partial, reported(torch_said()));
    const Finding* arch = finding_with(partial, "CC631");
    ASSERT_NE(arch, nullptr);
    EXPECT_NE(test::account(partial).find("carries SASS [sm_100 sm_120 sm_75 sm_80 sm_86 sm_89 sm_90]"),
              std::string::npos)
        << test::account(partial);
    // Another CUDA, and a library mapped from elsewhere.
    FrameworkSelfReport other = torch_said();
    other.cuda = "12.8";
    other.mapped = {"/lib/x86_64-linux-gnu/libcudnn.so.9.14.0"};
    other.cudnn = "9.14.0";
    const CheckResult contradicted = judged(torch_prediction(), reported(other));
    const Finding* mismatch = finding_with(contradicted, "CC631");
    ASSERT_NE(mismatch, nullptr);
    EXPECT_NE(mismatch->message.find("did not do what its files predicted (3 differences)"), std::string::npos)
        << mismatch->message;
    const std::string account = test::account(contradicted);
    EXPECT_NE(account.find("torch.version.cuda is 12.8"), std::string::npos) << account;
    EXPECT_NE(account.find("it reports cuDNN 9.14.0, predicted 9.19.0.56"), std::string::npos) << account;
    EXPECT_NE(account.find("it mapped /lib/x86_64-linux-gnu/libcudnn.so.9.14.0 where " + wheel_cudnn +
                           " was predicted"),
              std::string::npos)
        << account;
}

TEST(FrameworksRun, a_mixed_cudnn_reporting_its_parts_version_is_as_predicted) {
    // With the system cuDNN first on LD_LIBRARY_PATH, cudnnGetVersion answered 9.14 from the parts.
    FrameworkFacts mixed = torch_prediction();
    FrameworkLibrary graph{.family = "cuDNN graph", .version = "9.14.0", .origin = LibraryOrigin::system};
    graph.object.soname = "libcudnn_graph.so.9";
    graph.object.resolution =
        Resolution{"libcudnn_graph.so.9", "LD_LIBRARY_PATH entry /lib/x86_64-linux-gnu",
                   "/lib/x86_64-linux-gnu/libcudnn_graph.so.9", "/lib/x86_64-linux-gnu/libcudnn_graph.so.9"};
    mixed.libraries.push_back(graph);
    FrameworkSelfReport said = torch_said();
    said.cudnn = "9.14.0";
    EXPECT_EQ(finding_with(judged(mixed, reported(said)), "CC631"), nullptr);
}

}  // namespace
}  // namespace cudacheck
