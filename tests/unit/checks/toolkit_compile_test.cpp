// toolkit.compile: real compiler errors mapped to codes, the gencode flags, the extension script's
// result line, the judge against toolkit.build's prediction, and the whole check run by the binary
// on this machine: nvcc and g++ build the program, the run step skips without a GPU, and a gcc
// that reports version 16 is predicted and refused alike.
#include "checks/toolkit_compile.hpp"
#include "support/check_judging.hpp"
#include "support/fixtures.hpp"
#include "support/headlines.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::contains;

TEST(ToolkitCompile, real_compiler_errors_map_to_their_causes) {
    const CompileError gcc16 = classify_compile_error(test::fixture("nvcc/nvcc-13.0-error-gcc16.txt"));
    EXPECT_EQ(gcc16.code, Code::host_compiler_unsupported);
    EXPECT_TRUE(
        contains(gcc16.line, "error: #error -- unsupported GNU version! gcc versions later than 15 are not supported!"))
        << gcc16.line;
    EXPECT_FALSE(contains(gcc16.line, "In file included")) << "the first line that says what is wrong";
    const CompileError no_gcc = classify_compile_error(test::fixture("nvcc/nvcc-13.0-error-no-gcc.txt"));
    EXPECT_EQ(no_gcc.code, Code::host_compiler_missing);
    const CompileError arch = classify_compile_error(test::fixture("nvcc/nvcc-13.0-error-compute52.txt"));
    EXPECT_EQ(arch.code, Code::nvcc_arch_unsupported);
    EXPECT_EQ(arch.line, "nvcc fatal   : Unsupported gpu architecture 'compute_52'");
    EXPECT_EQ(classify_compile_error(test::fixture("nvcc/gcc-12-missing-cuda-runtime.txt")).code,
              Code::build_toolkit_incomplete);
    const CompileError other = classify_compile_error("probe.cu(3): error: identifier \"x\" is undefined\n");
    EXPECT_EQ(other.code, Code::compile_failed);
    EXPECT_EQ(other.line, "probe.cu(3): error: identifier \"x\" is undefined");
}

TEST(ToolkitCompile, gencode_gives_sass_per_gpu_and_ptx_for_the_newest) {
    DeviceInfo h200;
    h200.cc_major = 9;
    DeviceInfo l4;
    l4.cc_major = 8;
    l4.cc_minor = 9;
    EXPECT_EQ(gencode_for({h200, l4, h200}, {}),
              (std::vector<std::string>{"-gencode=arch=compute_89,code=sm_89", "-gencode=arch=compute_90,code=sm_90",
                                        "-gencode=arch=compute_90,code=compute_90"}));
    EXPECT_EQ(gencode_for({}, {"compute_80", "compute_75", "compute_90"}),
              (std::vector<std::string>{"-gencode=arch=compute_75,code=sm_75",
                                        "-gencode=arch=compute_75,code=compute_75"}))
        << "no GPU: the oldest nvcc lists";
}

TEST(ToolkitCompile, reads_the_extension_scripts_result_line) {
    const std::optional<ExtensionBuild> built = parse_extension_result(
        "Emitting ninja build file\nCUDACHECK_EXTENSION {\"stage\": \"done\", \"ran\": true, \"correct\": true, "
        "\"seconds\": 41.5}\n");
    ASSERT_TRUE(built.has_value());
    EXPECT_EQ(built->stage, "done");
    EXPECT_TRUE(built->ran && built->correct);
    EXPECT_DOUBLE_EQ(built->seconds, 41.5);
    const std::optional<ExtensionBuild> failed = parse_extension_result(
        "CUDACHECK_EXTENSION {\"stage\": \"build\", \"ran\": false, \"correct\": false, \"error\": \"RuntimeError: "
        "Ninja is required to load C++ "
        "extensions (pip install ninja to get it)\", \"seconds\": 3.0}");
    ASSERT_TRUE(failed.has_value());
    EXPECT_EQ(failed->stage, "build");
    EXPECT_TRUE(contains(failed->error, "Ninja is required"));
    // Without a GPU the script names the architecture it built for (PyTorch's builder needs one).
    const std::optional<ExtensionBuild> no_gpu = parse_extension_result(
        "CUDACHECK_EXTENSION {\"stage\": \"done\", \"ran\": false, \"correct\": false, \"arch_list\": \"7.5\", "
        "\"module_file\": \"/tmp/e/cudacheck_extension_probe.so\", \"seconds\": 20.0}");
    ASSERT_TRUE(no_gpu.has_value());
    EXPECT_EQ(no_gpu->arch_list, "7.5");
    EXPECT_EQ(no_gpu->module_file, "/tmp/e/cudacheck_extension_probe.so");
    EXPECT_TRUE(built->arch_list.empty()) << "not set when a GPU (or the user's TORCH_CUDA_ARCH_LIST) chose";
    EXPECT_FALSE(parse_extension_result("Traceback (most recent call last):\n").has_value());
    EXPECT_FALSE(parse_extension_result("CUDACHECK_EXTENSION {not json").has_value());
}

CompileOutcome compiled_and_ran() {
    CompileOutcome outcome;
    outcome.nvcc = "/usr/local/cuda/bin/nvcc";
    outcome.command = {outcome.nvcc, "-keep"};
    outcome.started = true;
    outcome.exit_status = 0;
    outcome.compile_ms = 1200;
    outcome.stages = {{"PTX", "probe.ptx", 1500},
                      {"cubin", "probe.sm_90.cubin", 4000},
                      {"fatbinary", "probe.fatbin", 6000},
                      {"executable", "probe", 900000}};
    outcome.embedded = EmbeddedTargets{{GpuArch{90}}, {GpuArch{90}}};
    DeviceInfo h200;
    h200.name = "NVIDIA H200";
    h200.cc_major = 9;
    outcome.devices = {h200};
    outcome.run = {true, "", true, false, 0, "device 0 ok 0\n"};
    return outcome;
}

CheckResult judged(const CompileOutcome& outcome, const BuildPrediction& prediction) {
    return test::judge("toolkit.compile", [&](ResultBuilder& builder) { judge_compile(outcome, prediction, builder); });
}

TEST(ToolkitCompile, a_build_that_works_as_predicted_passes_with_its_stages) {
    const CheckResult result = judged(compiled_and_ran(), {});
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "nvcc built it in 1.20 s; ran correctly on 1 GPU")) << result.message;
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(),
                        Evidence{"built", "PTX 1500 B, cubin 4000 B, fatbinary 6000 B"}),
              result.evidence.end());
    ASSERT_NE(test::metric(result, "cubin_bytes"), nullptr);
    EXPECT_EQ(test::metric(result, "cubin_bytes")->value, 4000);
}

TEST(ToolkitCompile, a_failed_build_quotes_nvcc_and_agrees_with_the_prediction) {
    CompileOutcome outcome = compiled_and_ran();
    outcome.exit_status = 1;
    outcome.output = test::fixture("nvcc/nvcc-13.0-error-gcc16.txt");
    BuildPrediction predicted;
    predicted.problems.push_back(
        BuildProblem{Code::host_compiler_unsupported, "x", "y", std::nullopt, true, true, true});
    const CheckResult agreed = judged(outcome, predicted);
    ASSERT_NE(test::finding_with(agreed, "CC307"), nullptr);
    EXPECT_TRUE(contains(test::account(agreed), "(toolkit.build predicted it: CC307)"));
    EXPECT_EQ(test::finding_with(agreed, "CC333"), nullptr);
    // Unpredicted: the prediction is wrong, and says so.
    const CheckResult surprised = judged(outcome, {});
    ASSERT_NE(test::finding_with(surprised, "CC333"), nullptr);
    EXPECT_TRUE(contains(test::account(surprised), "predicted that nvcc builds work, but nvcc failed"));
    // Predicted to fail, but built.
    const CheckResult built = judged(compiled_and_ran(), predicted);
    ASSERT_NE(test::finding_with(built, "CC333"), nullptr);
    EXPECT_TRUE(contains(test::account(built), "predicted that nvcc builds fail (CC307), but nvcc built the program"));
}

TEST(ToolkitCompile, the_program_failing_on_the_gpu_fails) {
    CompileOutcome outcome = compiled_and_ran();
    outcome.run.exit_status = 1;
    outcome.run.output =
        "device 0 error cudaErrorUnsupportedPtxVersion: the provided PTX was compiled with an unsupported toolchain.\n";
    const CheckResult result = judged(outcome, {});
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_TRUE(contains(test::account(result), "cudaErrorUnsupportedPtxVersion"));
}

TEST(ToolkitCompile, the_extension_outcome_is_held_to_the_prediction) {
    CompileOutcome outcome = compiled_and_ran();
    outcome.extension = ExtensionBuild{
        true,  "",    "/opt/torch/.venv: PyTorch",
        true,  false, "build",
        false, false, "RuntimeError: Ninja is required to load C++ extensions (pip install ninja to get it)",
        3.0,   ""};
    BuildPrediction ninja;
    ninja.problems.push_back(
        BuildProblem{Code::ninja_missing, "x", "y", std::string("/opt/torch/.venv: PyTorch"), false, true, false});
    const CheckResult agreed = judged(outcome, ninja);
    const Finding* failed = test::finding_with(agreed, "CC332");
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->subject, "/opt/torch/.venv: PyTorch");
    EXPECT_TRUE(contains(test::account(agreed), "Ninja is required to load C++ extensions"));
    EXPECT_TRUE(contains(test::account(agreed), "(toolkit.build predicted it: CC311)"));
    EXPECT_EQ(test::finding_with(agreed, "CC333"), nullptr);
    EXPECT_NE(test::finding_with(judged(outcome, {}), "CC333"), nullptr);
    // A failed ninja build: PyTorch's message starts with the command lines; the compiler's error is quoted.
    outcome.extension.error =
        "RuntimeError: Error building extension 'cudacheck_extension_probe': [1/3] /opt/cuda-12.2/bin/nvcc -MD -MF "
        "cuda.cuda.o.d "
        "-ccbin /opt/gcc/bin/gcc -c cuda.cu -o cuda.cuda.o\nFAILED: [code=127] cuda.cuda.o\n/bin/sh: 1: "
        "/opt/cuda-12.2/bin/nvcc: not found\n";
    const CheckResult ninja_failed = judged(outcome, ninja);
    EXPECT_TRUE(contains(test::account(ninja_failed),
                         "Error building extension: /bin/sh: 1: /opt/cuda-12.2/bin/nvcc: not found"))
        << test::account(ninja_failed);
    // Built, but its kernel found no image for the GPU: what TORCH_CUDA_ARCH_LIST=8.0 gives on an H200.
    outcome.extension.stage = "run";
    outcome.extension.error = "AcceleratorError: CUDA error: no kernel image is available for execution on the device";
    BuildPrediction arch;
    BuildProblem misses{Code::torch_arch_list_misses_gpu, "x", "y", std::string("/opt/torch/.venv: PyTorch")};
    misses.kernels_fail = true;
    arch.problems.push_back(misses);
    const CheckResult kernel = judged(outcome, arch);
    ASSERT_NE(test::finding_with(kernel, "CC332"), nullptr);
    EXPECT_TRUE(contains(test::account(kernel), "no kernel image is available"));
    EXPECT_TRUE(contains(test::account(kernel), "(toolkit.build predicted it: CC313)"));
    EXPECT_EQ(test::finding_with(kernel, "CC333"), nullptr);
    // Ran and correct while predicted to fail: a mismatch.
    outcome.extension.stage = "done";
    outcome.extension.ran = outcome.extension.correct = true;
    EXPECT_NE(test::finding_with(judged(outcome, arch), "CC333"), nullptr);
    EXPECT_EQ(judged(outcome, {}).status, Status::pass);
    // Built without a GPU for the architecture the script chose: imported, and the choice is evidence.
    outcome.extension.ran = outcome.extension.correct = false;
    outcome.extension.arch_list = "7.5";
    const CheckResult imported = judged(outcome, {});
    EXPECT_EQ(imported.status, Status::pass);
    EXPECT_TRUE(contains(imported.message, "PyTorch built and imported a one-kernel extension")) << imported.message;
    EXPECT_TRUE(contains(test::account(imported), "TORCH_CUDA_ARCH_LIST=7.5 for the build: no GPU is visible"))
        << test::account(imported);
    // What the probe compiled, and what it leaves out, is said in the report.
    EXPECT_NE(std::find_if(imported.evidence.begin(), imported.evidence.end(),
                           [](const Evidence& item) {
                               return item.key == "extension_sources" && contains(item.value, "torch/python.h") &&
                                      contains(item.value, "ATen/cuda/CUDAContext.h") &&
                                      contains(item.value, "not compiled: torch/extension.h's C++ frontend");
                           }),
              imported.evidence.end());
}

// No GPU and no TORCH_CUDA_ARCH_LIST: toolkit.build predicts that the user's extension builds stop
// with IndexError (CC318); the probe build names its own list (its evidence says which), so its
// success is no mismatch, while a probe that could not name one fails as predicted.
TEST(ToolkitCompile, the_probes_own_arch_list_is_not_held_to_the_no_gpu_prediction) {
    CompileOutcome outcome = compiled_and_ran();
    outcome.extension = ExtensionBuild{};
    outcome.extension.attempted = outcome.extension.started = true;
    outcome.extension.subject = "/opt/torch/.venv: PyTorch";
    outcome.extension.stage = "done";
    outcome.extension.seconds = 30.0;
    outcome.extension.module_file = "/tmp/x/cudacheck_extension_probe.so";
    outcome.extension.arch_list = "7.5";
    BuildPrediction no_gpu;
    no_gpu.problems.push_back(BuildProblem{Code::torch_arch_list_unset_without_gpu, "x", "y",
                                           std::string("/opt/torch/.venv: PyTorch"), false, true, true});
    const CheckResult built = judged(outcome, no_gpu);
    EXPECT_EQ(test::finding_with(built, "CC333"), nullptr) << test::account(built);
    EXPECT_EQ(built.status, Status::pass) << built.message;
    EXPECT_TRUE(contains(test::account(built), "TORCH_CUDA_ARCH_LIST=7.5 for the build")) << test::account(built);
    // The script found no architecture to name: PyTorch's own IndexError, which was predicted.
    outcome.extension.arch_list.clear();
    outcome.extension.stage = "build";
    outcome.extension.error = "IndexError: list index out of range";
    const CheckResult failed = judged(outcome, no_gpu);
    ASSERT_NE(test::finding_with(failed, "CC332"), nullptr);
    EXPECT_TRUE(contains(test::account(failed), "(toolkit.build predicted it: CC318)")) << test::account(failed);
    EXPECT_EQ(test::finding_with(failed, "CC333"), nullptr);
}

// The whole check, run by the binary, with this machine's nvcc and g++.
struct BinaryRunResult {
    nlohmann::json check;
    int exit_status = -1;
};
BinaryRunResult run_compile_check(const std::string& path_prefix) {
    test::TempDir dir;
    const std::string report = dir.path() + "/report.json";
    std::vector<std::pair<std::string, std::string>> environment = {{"CUDA_HOME", test::unset_marker},
                                                                    {"CUDA_PATH", test::unset_marker}};
    const char* path = std::getenv("PATH");
    environment.emplace_back("PATH", path_prefix + "/usr/local/cuda/bin:" + (path != nullptr ? path : "/usr/bin:/bin"));
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "full", "--only", "toolkit.build,toolkit.compile", "-o", report, "-q"},
                            environment);
    BinaryRunResult result;
    result.exit_status = run.exit_status;
    const nlohmann::json document = nlohmann::json::parse(test::read_text(report));
    for (const nlohmann::json& check : document.at("checks"))
        if (check.at("id") == "toolkit.compile") result.check = check;
    return result;
}

TEST(ToolkitCompile, nvcc_builds_here_and_the_run_step_says_why_it_skips) {
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    const BinaryRunResult run = run_compile_check("");
    ASSERT_FALSE(run.check.is_null());
    EXPECT_EQ(run.check.at("status"), "pass") << run.check.dump(1);
    const std::string evidence = run.check.at("evidence").dump();
    EXPECT_TRUE(contains(evidence, "PTX: ")) << evidence;
    EXPECT_TRUE(contains(evidence, ".cubin")) << evidence;
    EXPECT_TRUE(contains(evidence, "fatbinary: ")) << evidence;
    EXPECT_TRUE(contains(evidence, "SASS")) << "the executable's GPU code, read back";
    if (!std::filesystem::exists("/dev/nvidiactl")) {
        EXPECT_TRUE(contains(evidence, "not run: no GPU is visible")) << evidence;
    }
}

TEST(ToolkitCompile, a_gcc_newer_than_the_toolkit_allows_is_predicted_and_refused_alike) {
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc") || !std::filesystem::exists("/usr/bin/gcc"))
        GTEST_SKIP() << "no nvcc or gcc";
    // gcc and g++ that say they are 16 and make the compiler's own macros say so too.
    test::TempDir wrappers;
    const BinaryRunResult run = run_compile_check(test::write_gcc_wrappers(wrappers, "bin", 16) + ":");
    ASSERT_FALSE(run.check.is_null());
    const std::string findings = run.check.at("findings").dump();
    EXPECT_TRUE(contains(findings, "\"CC307\"")) << findings;
    // The quoted error and the prediction are the account behind the headline: evidence.
    const std::string evidence = run.check.at("evidence").dump();
    EXPECT_TRUE(contains(evidence, "unsupported GNU version! gcc versions later than")) << "nvcc's own error, quoted";
    EXPECT_TRUE(contains(evidence, "toolkit.build predicted it: CC307")) << evidence;
    EXPECT_FALSE(contains(findings, "\"CC333\"")) << "prediction and nvcc agree: " << findings;
}

// The real extension build, by a real CUDA build of PyTorch (CUDACHECK_TORCH_PYTHON names its
// interpreter; skipped without it, so that no test downloads PyTorch): label `torch` in
// tests/CMakeLists.txt, e.g. `CUDACHECK_TORCH_PYTHON=/work/venvs/torch/bin/python ctest -L torch`.
// Ground truth: PyTorch's own answers from that interpreter (its version, and the architectures it
// was built for, the oldest of which the script builds for when no GPU is visible).
TEST(ToolkitCompileAgainstRealTorch, pytorch_builds_and_imports_the_probe_extension) {
    const char* python = std::getenv("CUDACHECK_TORCH_PYTHON");
    if (python == nullptr || *python == '\0') GTEST_SKIP() << "CUDACHECK_TORCH_PYTHON is not set";
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no CUDA toolkit at /usr/local/cuda";
    // PyTorch's own answers: sys.prefix (the subject's), its GPU count, and the oldest architecture it
    // was built for, written as TORCH_CUDA_ARCH_LIST writes it (sm_75 -> 7.5).
    const sys::CommandResult asked =
        sys::run_command({python, "-c",
                          "import re, sys, torch; n, s = min((int(m.group(1)), m.group(2)) for m in "
                          "(re.fullmatch(r'sm_(\\d+)([a-z]?)', "
                          "a) for a in torch.cuda.get_arch_list()) if m); print(sys.prefix, torch.cuda.device_count(), "
                          "f'{n // 10}.{n % 10}{s}')"},
                         std::chrono::seconds(120));
    ASSERT_EQ(asked.exit_status, 0) << asked.output;
    const std::vector<std::string> answer =
        sys::split(sys::trim(sys::split(sys::trim(asked.output), '\n').back()), ' ');
    ASSERT_EQ(answer.size(), 3U) << asked.output;
    const bool gpu = answer[1] != "0";

    test::TempDir dir;
    const std::string report = dir.path() + "/report.json";
    const std::vector<std::string> environment =
        test::environment_with({{"CUDA_HOME", test::unset_marker},
                                {"CUDA_PATH", test::unset_marker},
                                {"TORCH_CUDA_ARCH_LIST", test::unset_marker},
                                {"PATH", fmt::format("{}:/usr/local/cuda/bin:/usr/bin:/bin",
                                                     std::filesystem::path(python).parent_path().string())}});
    const sys::CommandResult run =
        sys::run_command({CUDACHECK_BINARY, "--level", "full", "--only", "toolkit.build,toolkit.compile", "--python",
                          python, "-o", report, "-q"},
                         std::chrono::seconds(300), &environment);
    ASSERT_FALSE(run.timed_out) << run.output;
    nlohmann::json check;
    const nlohmann::json document = nlohmann::json::parse(test::read_text(report));
    for (const nlohmann::json& item : document.at("checks"))
        if (item.at("id") == "toolkit.compile") check = item;
    ASSERT_FALSE(check.is_null()) << run.output << test::read_text(report);
    const std::string message = check.at("message").get<std::string>();
    const std::string evidence = check.at("evidence").dump();
    // Built, imported (and run on a GPU when there is one), its module's GPU code read back: a module
    // without SASS or PTX would be CC334 and no pass.
    EXPECT_EQ(check.at("status"), "pass") << check.dump(1);
    EXPECT_TRUE(contains(message, gpu ? "PyTorch built and ran a one-kernel extension"
                                      : "PyTorch built and imported a one-kernel extension"))
        << message;
    EXPECT_TRUE(contains(evidence, fmt::format("\"{}: PyTorch\"", answer[0]))) << "the environment asked: " << evidence;
    const std::string arch_list = fmt::format("TORCH_CUDA_ARCH_LIST={} for the build", answer[2]);
    EXPECT_EQ(contains(evidence, arch_list), !gpu) << arch_list << " in " << evidence;
    ASSERT_NE(check.find("metrics"), check.end()) << check.dump(1);
    EXPECT_TRUE(contains(check.at("metrics").dump(), "extension_time")) << check.at("metrics").dump();
}

}  // namespace
}  // namespace cudacheck
