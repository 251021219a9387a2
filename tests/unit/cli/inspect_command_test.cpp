// `cudacheck inspect` end to end (cli/inspect_command.cpp): fixtures, --arch, fake GPUs, bad input.
#include "bind/dynamic_library.hpp"
#include "support/test_support.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string fixtures = CUDACHECK_GPU_CODE_FIXTURES;
const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

nlohmann::json inspect_json(std::vector<std::string> arguments, int expected_exit,
                            const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
    arguments.insert(arguments.begin(), {"inspect", "--format", "json"});
    const test::BinaryRun run = run_cudacheck(arguments, overrides);
    EXPECT_EQ(run.exit_status, expected_exit) << run.output;
    return nlohmann::json::parse(run.output);
}

TEST(InspectCli, lists_code_objects_and_judges_each_arch) {
    const auto report = inspect_json({"--arch", "sm_75,9.0", "--arch", "86", fixtures + "/multi.o"}, 1);
    EXPECT_EQ(report["document"], "inspect");
    ASSERT_EQ(report["targets"].size(), 3u);
    const auto& file = report["files"][0];
    EXPECT_EQ(file["type"], "object file");
    ASSERT_EQ(file["code_objects"].size(), 5u);
    EXPECT_EQ(file["code_objects"][1]["arch"], "sm_90a");
    EXPECT_EQ(file["code_objects"][1]["variant"], "a");
    EXPECT_EQ(file["code_objects"][4]["kind"], "ptx");
    EXPECT_EQ(file["code_objects"][4]["compression"], "zstd");
    EXPECT_EQ(file["code_objects"][4]["ptx_isa"], "9.0");
    EXPECT_EQ(file["verdicts"][0]["image"], "native");
    EXPECT_EQ(file["verdicts"][1]["uses"], "sm_90a");
    EXPECT_EQ(file["verdicts"][2]["status"], "fail");
    EXPECT_EQ(file["verdicts"][2]["code"], "CC503");
    EXPECT_TRUE(contains(file["verdicts"][2]["remediation"].get<std::string>(), "TORCH_CUDA_ARCH_LIST"));
    EXPECT_EQ(report["exit_code"], 1);
}

TEST(InspectCli, exits_0_when_every_file_runs_on_every_arch) {
    const auto report =
        inspect_json({"--arch", "sm_80", fixtures + "/uncompressed.fatbin", fixtures + "/rdc-linked"}, 0);
    for (const auto& file : report["files"]) EXPECT_EQ(file["verdicts"][0]["status"], "pass") << file["path"];
}

TEST(InspectCli, prints_a_table_with_verdicts_and_fixes) {
    const test::BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_61,sm_120", fixtures + "/multi.o"});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_TRUE(contains(run.output, "SASS    sm_90a")) << run.output;
    EXPECT_TRUE(contains(run.output, "PASS  sm_120 (--arch)")) << run.output;
    EXPECT_TRUE(contains(run.output, "runs through PTX JIT (compute_120")) << run.output;
    EXPECT_TRUE(contains(run.output, "fix: Rebuild with code for compute capability 6.1")) << run.output;
    EXPECT_TRUE(contains(run.output, "[CC503]")) << run.output;
}

TEST(InspectCli, exits_2_with_one_line_naming_an_unrecognised_or_missing_file) {
    test::TempDir dir;
    const std::string script = dir.write("run.sh", "#!/bin/sh\necho hi\n");
    const std::string empty = dir.write("empty.so", "");
    for (const auto& [path, code] :
         {std::pair{script, "CC802"}, {empty, "CC802"}, {dir.path() + "/missing.so", "CC801"}, {dir.path(), "CC801"}}) {
        const test::BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_90", "--format", "json", path});
        EXPECT_EQ(run.exit_status, 2) << run.output;
        EXPECT_TRUE(contains(run.output, "cudacheck: " + path + ": ")) << run.output;
        EXPECT_TRUE(contains(run.output, std::string("[") + code + "]")) << run.output;
    }
}

TEST(InspectCli, exits_2_for_a_truncated_file_and_still_lists_what_it_read) {
    test::TempDir dir;
    const std::string whole = test::read_text(fixtures + "/multi.o");
    const std::string cut = dir.write("cut.o", whole.substr(0, whole.size() / 2));
    const test::BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_75", cut});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "cudacheck: " + cut + ": ")) << run.output;
}

TEST(InspectCli, rejects_a_malformed_arch) {
    const test::BinaryRun run = run_cudacheck({"inspect", "--arch", "sm_9x", fixtures + "/multi.o"});
    EXPECT_EQ(run.exit_status, 2);
    EXPECT_TRUE(contains(run.output, "--arch 'sm_9x'")) << run.output;
}

TEST(InspectCli, lists_without_verdict_when_there_is_no_gpu_and_no_arch) {
    if (DynamicLibrary::open("libcuda.so.1").ok())
        GTEST_SKIP() << "a CUDA driver is installed here: this test is for driver-less machines";
    const auto report = inspect_json({fixtures + "/multi.o"}, 0, {{"LD_LIBRARY_PATH", test::unset_marker}});
    EXPECT_TRUE(report["targets"].empty());
    EXPECT_TRUE(contains(report["note"].get<std::string>(), "no GPU found"));
    EXPECT_EQ(report["files"][0]["code_objects"].size(), 5u);
}

TEST(InspectCli, judges_for_the_gpus_the_worker_finds) {
    const std::vector<std::pair<std::string, std::string>> turing{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                  {"FAKE_CUDA_CC", "7.5"},
                                                                  {"FAKE_CUDA_DEVICE_NAME", "Tesla T4"}};
    const auto report = inspect_json({fixtures + "/multi.o"}, 0, turing);
    ASSERT_EQ(report["targets"].size(), 1u);
    EXPECT_EQ(report["targets"][0]["device"], 0);
    EXPECT_EQ(report["targets"][0]["name"], "Tesla T4");
    EXPECT_EQ(report["files"][0]["verdicts"][0]["uses"], "sm_75");
    const auto ampere =
        inspect_json({fixtures + "/multi.o"}, 1, {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_CC", "8.6"}});
    EXPECT_EQ(ampere["files"][0]["verdicts"][0]["code"], "CC503");
}

TEST(InspectCli, fails_with_cc511_when_the_driver_is_too_old_for_the_only_ptx) {
    const auto report = inspect_json({fixtures + "/compute_89.ptx"}, 1,
                                     {{"LD_LIBRARY_PATH", fake_driver_dir},
                                      {"FAKE_CUDA_CC", "8.9"},
                                      {"FAKE_CUDA_DRIVER_VERSION", "12080"}});
    EXPECT_EQ(report["driver_cuda"], "12.8");
    EXPECT_EQ(report["files"][0]["verdicts"][0]["code"], "CC511");
    EXPECT_EQ(report["files"][0]["verdicts"][0]["requires_driver_cuda"], "13.0");
}

}  // namespace
}  // namespace cudacheck
