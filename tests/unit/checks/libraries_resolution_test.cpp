// libraries.resolution (checks/libraries_resolution.cpp): its verdicts on crafted trees, and here.
#include "support/check_judging.hpp"
#include "support/headlines.hpp"
#include "support/library_tree.hpp"
#include "support/test_support.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the sonames cudacheck opens
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace cudacheck {
namespace {

using test::contains;
using test::finding_with;
using test::Machine;
using test::system_directory;

std::string codes_of(const CheckResult& result) {
    std::string codes;
    for (const Finding& finding : result.findings) codes += finding.code + " ";
    return codes;
}

TEST(LibrariesResolutionCheck, passes_and_counts_when_one_consistent_install) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.system_cudnn("9.14.0");
    machine.cache(system_directory, {"libcudart.so.13"});
    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result);
    EXPECT_EQ(result.message, "9 of 9 libraries found resolve for C/C++ programs (9 ld.so.cache)");
    const std::string root = machine.root();
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(),
                        Evidence{"libcudnn.so.9", "9.14.0 system " + root +
                                                      "/usr/lib/x86_64-linux-gnu/libcudnn.so.9 -> " + root +
                                                      "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0 (ld.so.cache)"}),
              result.evidence.end());
}

TEST(LibrariesResolutionCheck, passes_and_names_several_copies_when_their_versions_agree) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    // CUDA 13 wheels share one directory, nvidia/cu13/lib, and carry no _cu13 suffix.
    machine.library("home/user/.local/lib/python3.12/site-packages/nvidia/cu13/lib", "libcudart.so.13");
    machine.tree().make_dir("home/user/.local/lib/python3.12/site-packages/nvidia_cuda_runtime-13.0.96.dist-info");
    machine.set("HOME", machine.root() + "/home/user");

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result);
    EXPECT_EQ(result.message,
              "1 of 1 libraries found resolve for C/C++ programs (1 ld.so.cache); 1 with several copies of one "
              "version");
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(),
                        Evidence{"several_copies", "cudart system + pip_wheel"}),
              result.evidence.end());
    const Evidence wheel{"libcudart.so.13",
                         "also 13.0.96 pip_wheel (nvidia-cuda-runtime) " + machine.root() +
                             "/home/user/.local/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13"};
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(), wheel), result.evidence.end());
}

// The passing headline stays a headline (util/headline.hpp) when the count by rule grows: three
// rules and libraries in several copies, as the H100 recording's 131 characters had it; the count by
// rule is then evidence.
TEST(LibrariesResolutionCheck, a_long_count_by_rule_moves_to_the_evidence) {
    Machine machine;
    machine.system_cudnn("9.14.0");
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.library("opt/cuda/lib", "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library("usr/lib", "libcufft.so.12.0.0.61", {"libcufft.so.12"});
    machine.set("LD_LIBRARY_PATH", machine.root() + "/opt/cuda/lib");
    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result) << result.message;
    EXPECT_LE(result.message.size(), 120U) << result.message;
    EXPECT_TRUE(contains(result.message, "libraries found resolve for C/C++ programs")) << result.message;
    const auto by_rule = std::find_if(result.evidence.begin(), result.evidence.end(),
                                      [](const Evidence& item) { return item.key == "resolved_by"; });
    ASSERT_NE(by_rule, result.evidence.end()) << result.message;
    EXPECT_TRUE(contains(by_rule->value, "1 LD_LIBRARY_PATH")) << by_rule->value;
    EXPECT_TRUE(contains(by_rule->value, "ld.so.cache")) << by_rule->value;
    EXPECT_TRUE(contains(by_rule->value, "default directories")) << by_rule->value;
}

// A virtual environment first on PATH, not activated (no VIRTUAL_ENV), as PyTorch's image on the GPU
// machine has it: bin/python3 links to the base interpreter, pyvenv.cfg marks the environment, and
// the wheels in its site-packages are found.
TEST(LibrariesResolutionCheck, finds_the_wheels_of_a_virtual_environment_first_on_path) {
    Machine machine;
    machine.library(system_directory, "libcublas.so.13.1.0.3", {"libcublas.so.13"});
    machine.cache(system_directory, {"libcublas.so.13"});
    (void)machine.tree().write("usr/bin/python3.12", "#!/bin/sh\n", 0755);
    machine.tree().make_dir("venv/bin");
    machine.tree().symlink(machine.root() + "/usr/bin/python3.12", "venv/bin/python3");
    (void)machine.tree().write("venv/pyvenv.cfg", "home = /usr/bin\n");
    machine.library("venv/lib/python3.12/site-packages/nvidia/cu13/lib", "libcublas.so.13");
    machine.set("PATH", machine.root() + "/venv/bin");

    const CheckResult result = machine.judge();
    const std::string wheel_copy =
        machine.root() + "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13";
    const bool listed = std::any_of(result.evidence.begin(), result.evidence.end(), [&](const Evidence& evidence) {
        return evidence.key == "libcublas.so.13" && evidence.value.find("pip_wheel") != std::string::npos &&
               evidence.value.find(wheel_copy) != std::string::npos;
    });
    EXPECT_TRUE(listed) << codes_of(result);
}

TEST(LibrariesResolutionCheck, says_so_when_nothing_is_installed) {
    const CheckResult result = Machine().judge();
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.message, "no CUDA library installed in the usual places");
}

// The GPU machine as it is: the system cuDNN 9.14 for C/C++ programs, the wheel's 9.19
// for PyTorch. Each consumer loads a consistent copy: both are listed, neither is warned about.
TEST(LibrariesResolutionCheck, lists_a_wheel_cudnn_beside_the_system_cudnn_without_a_warning) {
    Machine machine;
    machine.system_cudnn("9.14.0");
    const std::string wheel =
        machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result);
    const Evidence listed{"libcudnn.so.9", "also 9.19.0.56 pip_wheel (nvidia-cudnn-cu13) " + wheel + "/libcudnn.so.9"};
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(), listed), result.evidence.end());
    // A wheel for another CUDA major beside them is no warning either.
    machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu12-9.1.0.70.dist-info");
    EXPECT_EQ(machine.judge().status, Status::pass);
}

TEST(LibrariesResolutionCheck, warns_cc602_when_programs_load_an_older_copy_than_their_toolkits) {
    Machine machine;
    machine.library("usr/local/cuda-13.0/lib64", "libcublas.so.13.1.0.3", {"libcublas.so.13"});
    machine.library(system_directory, "libcublas.so.13.0.0.19", {"libcublas.so.13"});
    machine.cache(system_directory, {"libcublas.so.13"});

    const CheckResult result = machine.judge();
    const Finding* older = finding_with(result, "CC602");
    ASSERT_NE(older, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(test::account(result), "built with the toolkit in " + machine.root() +
                                                    "/usr/local/cuda-13.0 (cuBLAS 13.1.0.3) loads the older 13.0.0.19"))
        << test::account(result);
    EXPECT_TRUE(contains(older->remediation,
                         "export LD_LIBRARY_PATH=" + machine.root() + "/usr/local/cuda-13.0/lib64:$LD_LIBRARY_PATH"))
        << older->remediation;
    // The toolkit's own copy first: nothing to warn about.
    machine.set("LD_LIBRARY_PATH", machine.root() + "/usr/local/cuda-13.0/lib64");
    EXPECT_EQ(finding_with(machine.judge(), "CC602"), nullptr);
}

TEST(LibrariesResolutionCheck, fails_cc603_when_cudnn_main_from_wheel_and_sublibrary_from_system) {
    Machine machine;
    machine.cudnn(system_directory, "9.14.0");
    machine.cache(system_directory, {"libcudnn.so.9", "libcudnn_ops.so.9"});
    const std::string wheel =
        machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    std::filesystem::remove(wheel + "/libcudnn_ops.so.9");  // a wheel damaged by a partial uninstall
    machine.set("LD_LIBRARY_PATH", wheel);

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::fail);
    const Finding* mixed = finding_with(result, "CC603");
    ASSERT_NE(mixed, nullptr) << codes_of(result);
    EXPECT_EQ(mixed->status, Status::fail);
    EXPECT_TRUE(contains(test::account(result), "libcudnn.so.9 resolves to 9.19.0.56 pip_wheel " + wheel +
                                                    "/libcudnn.so.9 (LD_LIBRARY_PATH entry"))
        << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "libcudnn_ops.so.9 9.14.0 system")) << test::account(result);
    EXPECT_TRUE(contains(mixed->remediation, "Install all of cuDNN 9.19.0.56 in one place (" + wheel + ")"))
        << mixed->remediation;
    EXPECT_EQ(finding_with(result, "CC508"), nullptr);
}

TEST(LibrariesResolutionCheck, fails_cc508_when_cudnn_sublibrary_resolves_nowhere) {
    Machine machine;
    machine.library(system_directory, "libcudnn.so.9.14.0", {"libcudnn.so.9"});
    machine.cache(system_directory, {"libcudnn.so.9"});
    const CheckResult result = machine.judge();
    const Finding* missing = finding_with(result, "CC508");
    ASSERT_NE(missing, nullptr) << codes_of(result);
    EXPECT_EQ(missing->status, Status::fail);
    EXPECT_TRUE(contains(missing->message, "libcudnn_graph.so.9, libcudnn_ops.so.9")) << missing->message;
    EXPECT_TRUE(contains(missing->remediation, "same cuDNN 9.14.0")) << missing->remediation;
}

TEST(LibrariesResolutionCheck, warns_cc601_naming_directory_when_library_only_in_toolkit_off_path) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    const std::string toolkit =
        machine.library("usr/local/cuda-13.0/lib64", "libnvJitLink.so.13.0.88", {"libnvJitLink.so.13"});

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::warn);
    const Finding* off_path = finding_with(result, "CC601");
    ASSERT_NE(off_path, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(off_path->message, "libnvJitLink.so.13 (nvJitLink) is not on the loader's path"))
        << off_path->message;
    EXPECT_TRUE(contains(test::account(result), "13.0.88 toolkit " + toolkit + "/libnvJitLink.so.13"))
        << test::account(result);
    EXPECT_TRUE(contains(off_path->remediation, "`export LD_LIBRARY_PATH=" + toolkit + ":$LD_LIBRARY_PATH`"))
        << off_path->remediation;
    EXPECT_TRUE(contains(off_path->remediation, "echo " + toolkit + " | sudo tee /etc/ld.so.conf.d/"))
        << off_path->remediation;
    EXPECT_EQ(finding_with(result, "CC604"), nullptr) << "the directory to add is the fix, not a reinstall";
}

TEST(LibrariesResolutionCheck, warns_cc601_once_for_cudnn_when_only_its_wheel_has_it) {
    Machine machine;
    const std::string wheel =
        machine.cudnn_wheel("venv/lib/python3.12/site-packages", "nvidia_cudnn_cu13-9.19.0.56.dist-info");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");
    const CheckResult result = machine.judge();
    ASSERT_EQ(result.findings.size(), 1U) << codes_of(result) << "the sub-libraries go with libcudnn.so.9";
    EXPECT_EQ(result.findings[0].code, "CC601");
    EXPECT_TRUE(contains(result.findings[0].message,
                         "libcudnn.so.9 (cuDNN, with its sub-libraries) is not on the loader's path"));
    EXPECT_TRUE(
        contains(result.findings[0].remediation, "Python processes that preload the wheel nvidia-cudnn-cu13 find it"));
    EXPECT_TRUE(contains(result.findings[0].remediation, "export LD_LIBRARY_PATH=" + wheel + ":$LD_LIBRARY_PATH"));
}

TEST(LibrariesResolutionCheck, ignores_wheels_of_another_cuda_major_than_the_runtime) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.cache(system_directory, {"libcudart.so.13"});
    machine.library("venv/lib/python3.12/site-packages/nvidia/cublas/lib", "libcublas.so.12");
    machine.set("VIRTUAL_ENV", machine.root() + "/venv");
    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::pass) << codes_of(result) << "a CUDA 12 wheel serves its Python only";
}

TEST(LibrariesResolutionCheck, warns_cc604_when_cublas_12_resolves_with_cudart_13) {
    Machine machine;
    machine.library(system_directory, "libcudart.so.13.0.96", {"libcudart.so.13"});
    machine.library(system_directory, "libcublas.so.12.4.5.8", {"libcublas.so.12"});
    machine.cache(system_directory, {"libcudart.so.13", "libcublas.so.12"});

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::warn);
    ASSERT_EQ(result.findings.size(), 1U) << codes_of(result);
    const Finding& finding = result.findings[0];
    EXPECT_EQ(finding.code, "CC604");
    EXPECT_TRUE(contains(test::account(result), "cuBLAS resolves only as libcublas.so.12 (CUDA 12)"))
        << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "the runtime is CUDA 13 (libcudart.so.13)")) << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "fails to open libcublas.so.13")) << test::account(result);
    EXPECT_TRUE(contains(finding.remediation, "Install cuBLAS for CUDA 13")) << finding.remediation;
    EXPECT_TRUE(contains(finding.remediation, "`pip install nvidia-cublas`")) << finding.remediation;
}

TEST(LibrariesResolutionCheck, fails_cc211_when_stub_libcuda_is_first_on_the_path) {
    Machine machine;
    const std::string stubs = machine.library("usr/local/cuda-13.0/lib64/stubs", "libcuda.so", {"libcuda.so.1"});
    machine.library(system_directory, "libcuda.so.580.95.05", {"libcuda.so.1"});
    machine.cache(system_directory, {"libcuda.so.1"});
    machine.set("LD_LIBRARY_PATH", stubs);

    const CheckResult result = machine.judge();
    EXPECT_EQ(result.status, Status::fail);
    const Finding* stub = finding_with(result, "CC211");
    ASSERT_NE(stub, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(test::account(result), "libcuda.so.1 resolves to the toolkit's stub " + stubs +
                                                    "/libcuda.so.1 (LD_LIBRARY_PATH entry"));
    EXPECT_TRUE(contains(stub->remediation, "Remove " + stubs + " from LD_LIBRARY_PATH")) << stub->remediation;
    EXPECT_EQ(finding_with(result, "CC602"), nullptr) << "a stub is not a second version of the driver";
}

// --- on this machine ----------------------------------------------------------------------------

TEST(LibrariesResolutionCheck, runs_on_this_machine_within_its_time_budget) {
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "libraries.resolution", "--level", "quick", "--format", "json"});
    const nlohmann::json report = nlohmann::json::parse(run.output);
    const nlohmann::json* check = test::find_check(report, "libraries.resolution");
    ASSERT_NE(check, nullptr) << run.output;
    EXPECT_NE((*check)["status"], "error") << run.output;
    EXPECT_LT((*check)["duration_ms"].get<double>(), 100.0);
    bool cache_evidence = false;
    for (const nlohmann::json& evidence : (*check)["evidence"])
        cache_evidence = cache_evidence || evidence["key"] == "ld_so_cache";
    EXPECT_TRUE(cache_evidence);
}

TEST(LibrariesResolutionCheck, fails_cc605_when_the_copy_first_in_line_is_another_library_renamed) {
    // A real shared library whose SONAME is libcublas.so.<major>, put where programs look for cuFFT.
    Machine machine;
    const std::string directory = machine.library("opt/lib", "placeholder.so");
    const std::string soname(cuda_library::cufft.soname_for(CUDART_VERSION / 1000));
    std::filesystem::copy_file(CUDACHECK_CRASHING_CUBLAS, directory + "/" + soname);
    machine.set("LD_LIBRARY_PATH", directory);
    const CheckResult result = machine.judge();
    const Finding* renamed = finding_with(result, "CC605");
    ASSERT_NE(renamed, nullptr) << codes_of(result);
    EXPECT_TRUE(contains(renamed->message,
                         "its SONAME is libcublas.so." + std::to_string(CUDART_VERSION / 1000) + ", not " + soname))
        << renamed->message;
}

}  // namespace
}  // namespace cudacheck
