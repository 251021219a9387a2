// toolkit.build's judge on hand-built build setups: every verdict, each with the exact fix, and
// the prediction toolkit.compile holds real builds to.
#include "checks/toolkit_build.hpp"
#include "cli/env_command.hpp"
#include "support/check_judging.hpp"
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
using test::finding_with;

constexpr const char* root = "/usr/local/cuda-13.0";

HostCompiler compiler(std::string name, int major, std::string source = "PATH") {
    return HostCompiler{
        name, std::move(source), "/usr/bin/" + name, "", HostCompilerVersion{HostCompilerKind::gcc, major, 1, 0}, {}};
}

// Ubuntu with the CUDA 13.0 toolkit on PATH, g++ 13 (accepted) and g++-16 (rejected), ninja.
struct Machine {
    BuildSetup setup;
    ToolkitFacts toolkits;
    std::vector<TorchBuildTarget> torch;
    std::vector<DeviceInfo> devices;
    std::optional<std::string> arch_list;

    Machine() {
        setup.choice = {root, std::string("nvcc on PATH (") + root + "/bin/nvcc)"};
        setup.choice_exists = true;
        setup.files =
            DevelopmentFiles{std::string(root) + "/bin/nvcc", "h", "h", std::string(root) + "/lib64", "so", "a", {}};
        setup.nvcc_version = NvccVersion{"13.0", "13.0.88"};
        setup.nvcc_architectures = {"compute_75",  "compute_80",  "compute_86",  "compute_87",
                                    "compute_88",  "compute_89",  "compute_90",  "compute_100",
                                    "compute_110", "compute_103", "compute_120", "compute_121"};
        setup.compilers = {compiler("g++", 13), compiler("g++-16", 16)};
        setup.nvcc_host_compiler =
            HostCompilerPick{"gcc",          "nvcc's default (gcc on PATH)",
                             "/usr/bin/gcc", HostCompilerVersion{HostCompilerKind::gcc, 13, 3, 0},
                             "gcc 13.3.0",   ""};
        setup.torch_cxx =
            HostCompilerPick{"c++", "c++ on PATH (PyTorch's default)", "/usr/bin/c++", std::nullopt, "", ""};
        ToolkitCompilerLimits limits;
        limits.root = root;
        limits.version = "13.0.88";
        limits.host_config = std::string(root) + "/include/crt/host_config.h";
        limits.gcc_newest = 15;
        limits.clang_newest = 20;
        limits.compilers = {{true, "", ""},
                            {false, "-- unsupported GNU version! gcc versions later than 15 are not supported!", ""}};
        limits.nvcc_pick = {true, "", ""};
        setup.toolkits = {limits};
        setup.ninja = "/usr/bin/ninja";
        setup.ninja_version = "1.11.1";
        DeviceInfo h200;
        h200.ordinal = 0;
        h200.name = "NVIDIA H200";
        h200.cc_major = 9;
        h200.cc_minor = 0;
        devices = {h200};
    }

    Machine& with_torch(std::string cuda = "13.0") {
        TorchBuildTarget target;
        target.subject = "/opt/torch/.venv: PyTorch";
        target.prefix = "/opt/torch/.venv";
        target.interpreter = "/opt/torch/.venv/bin/python3";
        target.version = "2.11.0+cu" + cuda.substr(0, cuda.find('.')) + cuda.substr(cuda.find('.') + 1);
        target.cuda = std::move(cuda);
        target.arch_tables = TorchArchTables{{{"Hopper", "9.0+PTX"}, {"Ampere", "8.0;8.6+PTX"}},
                                             {"7.5", "8.0", "8.6", "8.9", "9.0", "9.0a", "10.0", "12.0"}};
        target.gpu_targets = {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"};
        torch = {target};
        return *this;
    }

    // cmake on PATH, and CMake's search finds the toolkit's nvcc on PATH (no CMake variable set).
    Machine& with_cmake() {
        CMakeCudaSetup& cmake = setup.cmake;
        cmake.cmake = "/usr/bin/cmake";
        cmake.compiler = {"nvcc", "nvcc on PATH", std::string(root) + "/bin/nvcc", ""};
        cmake.toolkit_root = root;
        cmake.toolkit = 0;
        cmake.same_toolkit = true;
        cmake.files = setup.files;
        cmake.nvcc = NvccAnswers{setup.nvcc_version, "", setup.nvcc_architectures};
        return *this;
    }

    [[nodiscard]] BuildJudgeInput input() const { return BuildJudgeInput{setup, toolkits, torch, devices, arch_list}; }
    [[nodiscard]] CheckResult judged() const {
        return test::judge("toolkit.build", [&](ResultBuilder& builder) { judge_build(input(), builder); });
    }
};

TEST(ToolkitBuild, a_ready_machine_passes_and_says_what_builds_take) {
    const CheckResult result = Machine().with_torch().judged();
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "builds take /usr/local/cuda-13.0 (nvcc 13.0.88)")) << result.message;
    EXPECT_TRUE(contains(result.message, "gcc 13.3.0 accepted"));
    EXPECT_TRUE(contains(result.message, "PyTorch extensions ready"));
    const BuildPrediction prediction = predict_builds(Machine().with_torch().input());
    ASSERT_EQ(prediction.torch_arch_flags.size(), 1U);
    EXPECT_EQ(prediction.torch_arch_flags.front().second,
              (std::vector<std::string>{"-gencode=arch=compute_90,code=compute_90",
                                        "-gencode=arch=compute_90,code=sm_90"}))
        << "the visible H200, +PTX on the last, as cpp_extension does";
}

TEST(ToolkitBuild, no_toolkit_at_all_skips) {
    Machine machine;
    machine.setup.choice = {};
    machine.setup.choice_exists = false;
    machine.setup.toolkits.clear();
    const CheckResult result = machine.judged();
    EXPECT_EQ(result.status, Status::skip);
    EXPECT_TRUE(contains(result.skip_reason, "no CUDA toolkit is installed"));
}

TEST(ToolkitBuild, an_installed_toolkit_builds_do_not_find) {
    Machine machine;
    machine.setup.choice = {};
    machine.setup.choice_exists = false;
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC305");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(contains(test::account(result), "CUDA_HOME environment variable is not set"));
    EXPECT_EQ(finding->remediation,
              "Point builds at it: `export CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-13.0/bin:$PATH`.");
    EXPECT_TRUE(predict_builds(machine.input()).problems.front().stops_nvcc);
}

TEST(ToolkitBuild, cuda_home_naming_a_missing_toolkit_says_to_unset_it_when_that_finds_one) {
    Machine machine;
    machine.setup.choice = {"/opt/cuda-12.2", "CUDA_HOME"};
    machine.setup.choice_exists = false;
    machine.setup.choice_without_variables = {"/usr/local/cuda", "/usr/local/cuda"};
    machine.setup.choice_without_variables_exists = true;
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC305");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(
        contains(test::account(result), "CUDA_HOME=/opt/cuda-12.2 does not exist: builds run /opt/cuda-12.2/bin/nvcc"));
    EXPECT_TRUE(contains(finding->remediation,
                         "`unset CUDA_HOME CUDA_PATH` (builds then take /usr/local/cuda by /usr/local/cuda)"));
    machine.setup.choice_without_variables_exists = false;
    const CheckResult no_fallback = machine.judged();
    EXPECT_TRUE(contains(finding_with(no_fallback, "CC305")->remediation,
                         "export CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-13.0/bin:$PATH"));
}

TEST(ToolkitBuild, missing_development_files_are_named_with_their_packages) {
    Machine machine;
    machine.setup.files.cudart_shared.clear();
    machine.setup.files.missing = {std::string(root) + "/lib64/libcudart.so"};
    machine.with_torch();
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC306");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result),
                         "lacks /usr/local/cuda-13.0/lib64/libcudart.so (`-lcudart`, which PyTorch extensions link"));
    EXPECT_TRUE(contains(finding->remediation, "`sudo apt install cuda-nvcc-13-0 cuda-cudart-dev-13-0`"));
    const BuildProblem& problem = predict_builds(machine.input()).problems.front();
    EXPECT_FALSE(problem.stops_nvcc) << "nvcc links the static runtime by default";
    EXPECT_TRUE(problem.stops_torch_jit);
}

TEST(ToolkitBuild, a_rejected_host_compiler_gets_an_accepted_one_named) {
    Machine machine;
    machine.setup.nvcc_host_compiler =
        HostCompilerPick{"g++-16",           "NVCC_CCBIN",
                         "/usr/bin/g++-16",  HostCompilerVersion{HostCompilerKind::gcc, 16, 1, 0},
                         "g++ (GCC) 16.1.0", ""};
    machine.setup.toolkits.front().nvcc_pick = {
        false, "-- unsupported GNU version! gcc versions later than 15 are not supported!", ""};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC307");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result), "nvcc 13.0 rejects /usr/bin/g++-16 (gcc 16.1.0, NVCC_CCBIN)"));
    EXPECT_TRUE(contains(test::account(result),
                         "\"#error -- unsupported GNU version! gcc versions later than 15 are not supported!\""));
    EXPECT_TRUE(contains(finding->remediation, "`export NVCC_CCBIN=g++` (gcc 13.1.0)")) << finding->remediation;
    // None installed that it accepts: install the newest it does, from its own header.
    machine.setup.toolkits.front().compilers = {{false, "x", ""}, {false, "x", ""}};
    EXPECT_TRUE(contains(finding_with(machine.judged(), "CC307")->remediation, "`sudo apt install g++-15`"));
}

TEST(ToolkitBuild, pytorchs_cc_is_judged_as_its_ccbin) {
    Machine machine;
    machine.with_torch();
    machine.setup.torch_host_compiler = HostCompilerPick{"gcc-16",
                                                         "CC (PyTorch extension builds pass -ccbin $CC)",
                                                         "/usr/bin/gcc-16",
                                                         HostCompilerVersion{HostCompilerKind::gcc, 16, 1, 0},
                                                         "",
                                                         ""};
    machine.setup.toolkits.front().torch_pick = {
        false, "-- unsupported GNU version! gcc versions later than 15 are not supported!", ""};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC307");
    ASSERT_NE(finding, nullptr);
    EXPECT_EQ(finding->subject, "/opt/torch/.venv: PyTorch");
    EXPECT_TRUE(contains(finding->remediation, "`export CC=gcc CXX=g++`")) << finding->remediation;
    const BuildProblem& problem = predict_builds(machine.input()).problems.front();
    EXPECT_FALSE(problem.stops_nvcc) << "a plain nvcc build does not read CC";
    EXPECT_TRUE(problem.stops_torch_jit);
    EXPECT_TRUE(contains(predict_builds(machine.input()).summary, "PyTorch extensions would fail"));
}

TEST(ToolkitBuild, no_host_compiler_at_all) {
    Machine machine;
    machine.setup.nvcc_host_compiler =
        HostCompilerPick{"gcc", "nvcc's default (gcc on PATH)", "", std::nullopt, "", "gcc is not on PATH"};
    const CheckResult judged_finding = machine.judged();
    const Finding* finding = finding_with(judged_finding, "CC308");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(judged_finding),
                         "nvcc would run gcc (nvcc's default (gcc on PATH)), which gcc is not on PATH"));
    EXPECT_TRUE(contains(finding->remediation, "`sudo apt install g++`"));
}

TEST(ToolkitBuild, cuda_major_mismatch_stops_setup_builds_and_names_the_matching_toolkit) {
    Machine machine;
    machine.with_torch();
    machine.setup.nvcc_version = NvccVersion{"12.8", "12.8.93"};
    ToolkitCompilerLimits thirteen;
    thirteen.root = "/usr/local/cuda-13.0";
    thirteen.version = "13.0.2";
    machine.setup.toolkits.front().root = "/usr/local/cuda-12.8";
    machine.setup.toolkits.front().version = "12.8.93";
    machine.setup.toolkits.push_back(thirteen);
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC309");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result),
                         "\"The detected CUDA version (12.8) mismatches the version that was used to compile PyTorch "
                         "(13.0)\""));
    EXPECT_TRUE(
        contains(finding->remediation, "`export CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-13.0/bin:$PATH`"));
    const BuildPrediction prediction = predict_builds(machine.input());
    const auto problem = std::find_if(prediction.problems.begin(), prediction.problems.end(),
                                      [](const BuildProblem& p) { return p.code == Code::build_cuda_major_mismatch; });
    EXPECT_TRUE(problem->stops_torch_setup);
    EXPECT_FALSE(problem->stops_torch_jit) << "load_inline does not compare versions";
}

TEST(ToolkitBuild, cuda_minor_mismatch_warns) {
    Machine machine;
    machine.with_torch("13.1");
    const CheckResult judged_finding = machine.judged();
    const Finding* finding = finding_with(judged_finding, "CC310");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(
        contains(test::account(judged_finding), "\"The detected CUDA version (13.0) has a minor version mismatch"));
    EXPECT_EQ(finding->remediation, "Usually nothing to do.");
}

TEST(ToolkitBuild, no_ninja_points_at_the_environments_own_or_pip) {
    Machine machine;
    machine.with_torch();
    machine.setup.ninja.clear();
    const CheckResult judged_finding = machine.judged();
    const Finding* finding = finding_with(judged_finding, "CC311");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(judged_finding),
                         "\"Ninja is required to load C++ extensions (pip install ninja to get it)\""));
    EXPECT_TRUE(contains(finding->remediation, "`/opt/torch/.venv/bin/python3 -m pip install ninja`"));
    machine.torch.front().ninja_in_environment = true;
    EXPECT_EQ(finding_with(machine.judged(), "CC311")->remediation,
              "The environment has it: activate it, or `export PATH=/opt/torch/.venv/bin:$PATH`.");
    machine.torch.clear();
    EXPECT_EQ(finding_with(machine.judged(), "CC311"), nullptr) << "without PyTorch ninja is nobody's concern";
}

TEST(ToolkitBuild, torch_arch_list_entries_torch_rejects) {
    Machine machine;
    machine.with_torch();
    machine.arch_list = "8.7a";
    const CheckResult judged_finding = machine.judged();
    const Finding* finding = finding_with(judged_finding, "CC312");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(judged_finding), "\"Unknown CUDA arch (8.7a) or GPU not supported\""));
    EXPECT_TRUE(contains(finding->remediation, "`export TORCH_CUDA_ARCH_LIST=\"9.0\"`"));
}

TEST(ToolkitBuild, torch_arch_list_without_this_gpu) {
    Machine machine;
    machine.with_torch();
    machine.arch_list = "8.0";
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC313");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(
        contains(test::account(result), "TORCH_CUDA_ARCH_LIST=\"8.0\" builds no code for GPU 0 (NVIDIA H200, sm_90)"));
    EXPECT_TRUE(contains(test::account(result), "no kernel image is available for execution on the device"));
    EXPECT_TRUE(contains(finding->remediation, "`export TORCH_CUDA_ARCH_LIST=\"9.0\"`"));
    EXPECT_TRUE(predict_builds(machine.input()).problems.front().kernels_fail);
    // PTX of an older architecture runs on it (JIT): no finding.
    machine.arch_list = "8.0+PTX";
    EXPECT_EQ(finding_with(machine.judged(), "CC313"), nullptr);
    // Named architectures expand as torch expands them.
    machine.arch_list = "Hopper";
    EXPECT_EQ(machine.judged().status, Status::pass);
}

TEST(ToolkitBuild, an_architecture_nvcc_does_not_know) {
    Machine machine;
    machine.setup.nvcc_version = NvccVersion{"12.6", "12.6.85"};
    machine.setup.nvcc_architectures = {"compute_50", "compute_75", "compute_80", "compute_90"};
    machine.devices.front().name = "NVIDIA GeForce RTX 5090";
    machine.devices.front().cc_major = 12;
    machine.devices.front().cc_minor = 0;
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC314");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result),
                         "nvcc 12.6.85 does not compile for GPU 0 (NVIDIA GeForce RTX 5090, compute capability 12.0)"));
    EXPECT_TRUE(contains(test::account(result), "\"nvcc fatal : Unsupported gpu architecture 'compute_120'\""));
    EXPECT_TRUE(contains(finding->remediation, "CUDA 12.8 or newer compiles for it"));
    // An entry of TORCH_CUDA_ARCH_LIST it does not know.
    Machine listed;
    listed.with_torch();
    listed.setup.nvcc_architectures = {"compute_75", "compute_80", "compute_90"};
    listed.arch_list = "9.0;12.0";
    const CheckResult judged_entry = listed.judged();
    const Finding* entry = finding_with(judged_entry, "CC314");
    ASSERT_NE(entry, nullptr);
    EXPECT_TRUE(contains(test::account(judged_entry), "gives compute_120, which nvcc 13.0.88 does not compile for"));
    EXPECT_EQ(entry->subject, "/opt/torch/.venv: PyTorch");
}

// --- A CMake project with CUDA enabled: CMake's own variables ---

constexpr const char* gcc16_error = "-- unsupported GNU version! gcc versions later than 15 are not supported!";

std::string evidence_value(const BuildPrediction& prediction, std::string_view key) {
    for (const Evidence& item : prediction.evidence)
        if (item.key == key) return item.value;
    return {};
}

// The machine with cmake, and CUDAARCHS set to `value`.
Machine with_cudaarchs(std::string value) {
    Machine machine;
    machine.with_cmake();
    machine.setup.cmake.architectures = std::move(value);
    return machine;
}

const BuildProblem* problem_with(const BuildPrediction& prediction, Code code) {
    for (const BuildProblem& problem : prediction.problems)
        if (problem.code == code) return &problem;
    return nullptr;
}

TEST(ToolkitBuild, a_cmake_project_with_nothing_set_takes_nvccs_default_architecture_and_passes) {
    Machine machine;
    machine.with_cmake();
    const CheckResult result = machine.judged();
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "gcc 13.3.0 accepted; CMake projects ready")) << result.message;
    const BuildPrediction prediction = predict_builds(machine.input());
    EXPECT_EQ(evidence_value(prediction, "cmake_nvcc"),
              "/usr/local/cuda-13.0/bin/nvcc (by nvcc on PATH; CUDACXX unset), toolkit /usr/local/cuda-13.0");
    EXPECT_EQ(evidence_value(prediction, "cmake_architectures"),
              "CMAKE_CUDA_ARCHITECTURES=75 (nvcc 13.0.88's default; CUDAARCHS unset)");
    EXPECT_TRUE(contains(evidence_value(prediction, "cmake_gpu_code"), "GPU 0 (NVIDIA H200, sm_90): "))
        << "the H200 JIT-compiles compute_75";
    EXPECT_EQ(evidence_value(prediction, "cmake_project"), "configure and build would succeed");
    // Neither cmake nor a CMake variable: nothing said about CMake.
    EXPECT_FALSE(contains(Machine().judged().message, "CMake"));
}

TEST(ToolkitBuild, cudahostcxx_naming_a_compiler_nvcc_rejects_fails_cmake_only) {
    Machine machine;
    machine.with_cmake();
    machine.setup.cmake.host_compiler = HostCompilerPick{"clang++-21",
                                                         "CUDAHOSTCXX",
                                                         "/usr/bin/clang++-21",
                                                         HostCompilerVersion{HostCompilerKind::clang, 21, 1, 0},
                                                         "",
                                                         ""};
    machine.setup.toolkits.front().cmake_pick = {
        false, "-- unsupported clang version! clang version must be less than 21 and greater than 3", ""};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC307");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(contains(test::account(result), "nvcc 13.0 rejects /usr/bin/clang++-21 (clang 21.1.0, CUDAHOSTCXX)"))
        << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "CMake's configure with it"));
    EXPECT_TRUE(
        contains(finding->remediation, "`export CUDAHOSTCXX=g++` (gcc 13.1.0) and configure a new build directory"))
        << finding->remediation;
    EXPECT_TRUE(contains(finding->remediation, "`-DCMAKE_CUDA_HOST_COMPILER=g++`"));
    const BuildPrediction prediction = predict_builds(machine.input());
    ASSERT_EQ(prediction.problems.size(), 1U);
    EXPECT_TRUE(prediction.problems.front().stops_cmake);
    EXPECT_FALSE(prediction.problems.front().stops_nvcc) << "a plain nvcc command does not read CUDAHOSTCXX";
    EXPECT_TRUE(contains(prediction.summary, "gcc 13.3.0 accepted; CMake projects would fail")) << prediction.summary;
}

TEST(ToolkitBuild, cudahostcxx_naming_nothing_stops_cmakes_configure) {
    Machine machine;
    machine.with_cmake();
    machine.setup.cmake.host_compiler = HostCompilerPick{"/opt/gcc-12/bin/g++",
                                                         "CUDAHOSTCXX",
                                                         "",
                                                         std::nullopt,
                                                         "",
                                                         "/opt/gcc-12/bin/g++ does not exist or is not executable"};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC308");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result), "\"Could not find compiler set in environment variable CUDAHOSTCXX\""))
        << test::account(result);
    EXPECT_TRUE(contains(finding->remediation, "Point CUDAHOSTCXX at an installed compiler, or unset it."));
    // CMake checks that the file exists even when NVCC_APPEND_FLAGS' -ccbin would override it.
    machine.setup.nvcc_flags.ccbin = "/usr/bin/g++";
    machine.setup.nvcc_flags.ccbin_variable = "NVCC_APPEND_FLAGS";
    EXPECT_NE(finding_with(machine.judged(), "CC308"), nullptr);
}

TEST(ToolkitBuild, a_host_compiler_cmake_shares_with_nvcc_is_one_finding_that_stops_both) {
    Machine machine;
    machine.with_cmake();
    machine.setup.nvcc_host_compiler = HostCompilerPick{
        "g++-16", "NVCC_CCBIN", "/usr/bin/g++-16", HostCompilerVersion{HostCompilerKind::gcc, 16, 1, 0}, "", ""};
    machine.setup.toolkits.front().nvcc_pick = {false, gcc16_error, ""};
    BuildPrediction prediction = predict_builds(machine.input());
    ASSERT_EQ(prediction.problems.size(), 1U) << "one cause, one finding";
    EXPECT_TRUE(prediction.problems.front().stops_nvcc);
    EXPECT_TRUE(prediction.problems.front().stops_cmake);
    // CUDAHOSTCXX (-ccbin= on CMake's command line) beats NVCC_CCBIN: CMake builds.
    machine.setup.cmake.host_compiler =
        HostCompilerPick{"g++", "CUDAHOSTCXX", "/usr/bin/g++", HostCompilerVersion{HostCompilerKind::gcc, 13, 1, 0}, "",
                         ""};
    machine.setup.toolkits.front().cmake_pick = {true, "", ""};
    prediction = predict_builds(machine.input());
    ASSERT_EQ(prediction.problems.size(), 1U);
    EXPECT_FALSE(prediction.problems.front().stops_cmake);
    EXPECT_TRUE(contains(prediction.summary, "CMake projects ready"));
    // A -ccbin in NVCC_APPEND_FLAGS comes after CMake's and wins over CUDAHOSTCXX; one in NVCC_PREPEND_FLAGS does not.
    machine.setup.nvcc_flags.ccbin = "g++-16";
    machine.setup.nvcc_flags.ccbin_variable = "NVCC_APPEND_FLAGS";
    machine.setup.nvcc_host_compiler.rule = "-ccbin in NVCC_APPEND_FLAGS";
    prediction = predict_builds(machine.input());
    EXPECT_TRUE(prediction.problems.front().stops_cmake);
    EXPECT_TRUE(contains(evidence_value(prediction, "cmake_host_compiler"), "CUDAHOSTCXX=g++ is not what runs"))
        << evidence_value(prediction, "cmake_host_compiler");
    machine.setup.nvcc_flags.ccbin_variable = "NVCC_PREPEND_FLAGS";
    machine.setup.nvcc_host_compiler.rule = "-ccbin in NVCC_PREPEND_FLAGS";
    EXPECT_FALSE(predict_builds(machine.input()).problems.front().stops_cmake);
}

TEST(ToolkitBuild, cudacxx_naming_a_missing_nvcc_says_what_cmake_finds_without_it) {
    Machine machine;
    machine.with_cmake();
    machine.setup.cmake.compiler = {"/opt/cuda-12.2/bin/nvcc", "CUDACXX", "",
                                    "CUDACXX=/opt/cuda-12.2/bin/nvcc does not exist"};
    machine.setup.cmake.compiler_without_cudacxx = {"nvcc", "nvcc on PATH", std::string(root) + "/bin/nvcc", ""};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC305");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_EQ(finding->message, "CUDACXX=/opt/cuda-12.2/bin/nvcc does not exist");
    EXPECT_TRUE(contains(test::account(result),
                         "CUDACXX=/opt/cuda-12.2/bin/nvcc does not exist: CMake stops with \"Could not find compiler "
                         "set in environment variable CUDACXX\""))
        << test::account(result);
    EXPECT_TRUE(contains(finding->remediation,
                         "`unset CUDACXX` (CMake then takes /usr/local/cuda-13.0/bin/nvcc by nvcc on PATH)"))
        << finding->remediation;
    const BuildPrediction prediction = predict_builds(machine.input());
    ASSERT_EQ(prediction.problems.size(), 1U);
    EXPECT_TRUE(prediction.problems.front().stops_cmake);
    EXPECT_FALSE(prediction.problems.front().stops_nvcc);
}

TEST(ToolkitBuild, cmake_not_finding_nvcc_says_it_does_not_look_in_usr_local_cuda) {
    Machine machine;
    machine.with_cmake();
    machine.setup.cmake.compiler = {"nvcc", "", "", "CUDACXX is unset and no nvcc is on PATH or in $CUDA_PATH/bin"};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC305");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result), "unlike PyTorch it does not look in /usr/local/cuda"))
        << test::account(result);
    EXPECT_EQ(finding->remediation,
              "Name it: `export CUDACXX=/usr/local/cuda-13.0/bin/nvcc` (or put /usr/local/cuda-13.0/bin on PATH).");
}

TEST(ToolkitBuild, cudaarchs_nvcc_does_not_compile_for_stops_cmake_with_nvccs_error) {
    Machine machine = with_cudaarchs("50;90");
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC314");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(contains(test::account(result),
                         "CUDAARCHS=\"50;90\" asks for compute_50, which nvcc 13.0.88 does not compile for"))
        << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "\"nvcc fatal : Unsupported gpu architecture 'compute_50'\""));
    EXPECT_TRUE(contains(finding->remediation, "`export CUDAARCHS=\"90\"` (the GPUs here)")) << finding->remediation;
    EXPECT_TRUE(contains(finding->remediation, "CUDA 12 is the last that compiles for it"));
    EXPECT_EQ(predict_builds(machine.input()).problems.size(), 1U) << "50 once, though it asks for SASS and PTX";
    // Without a GPU, the fix is nvcc's default.
    machine.devices.clear();
    EXPECT_TRUE(contains(finding_with(machine.judged(), "CC314")->remediation, "`unset CUDAARCHS` (nvcc's default)"));
}

TEST(ToolkitBuild, cudaarchs_in_a_form_cmake_refuses_gets_cmakes_spelling) {
    Machine machine = with_cudaarchs("sm_90;8.6+PTX");
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC315");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(contains(test::account(result), "is not one of the following")) << test::account(result);
    EXPECT_TRUE(contains(finding->remediation, "`export CUDAARCHS=\"90;86\"`")) << finding->remediation;
    machine.setup.cmake.architectures = "90;hopper";
    EXPECT_TRUE(contains(finding_with(machine.judged(), "CC315")->remediation,
                         "`export CUDAARCHS=\"90\"` for compute capability 9.0"));
    for (const char* accepted : {"90", "75;90a-real;120-virtual", "all", "all-major", "100f"}) {
        machine.setup.cmake.architectures = accepted;
        EXPECT_EQ(finding_with(machine.judged(), "CC315"), nullptr) << accepted;
    }
}

TEST(ToolkitBuild, cudaarchs_native_needs_a_visible_gpu) {
    Machine machine = with_cudaarchs("native");
    const CheckResult with_gpu = machine.judged();
    EXPECT_EQ(with_gpu.status, Status::pass) << with_gpu.message;
    EXPECT_TRUE(contains(evidence_value(predict_builds(machine.input()), "cmake_gpu_code"), "sm_90"));
    machine.devices.clear();
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC317");
    ASSERT_NE(finding, nullptr);
    EXPECT_TRUE(
        contains(test::account(result), "\"CUDA_ARCHITECTURES is set to \"native\", but no GPU was detected.\""));
    EXPECT_TRUE(predict_builds(machine.input()).problems.front().stops_cmake);
}

TEST(ToolkitBuild, cudaarchs_without_code_for_the_gpu_builds_but_its_kernels_fail) {
    Machine machine = with_cudaarchs("80-real");
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC316");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(contains(test::account(result), "CUDAARCHS=\"80-real\" builds no code for GPU 0 (NVIDIA H200, sm_90)"))
        << test::account(result);
    EXPECT_TRUE(contains(finding->remediation, "`export CUDAARCHS=\"90\"`"));
    const BuildProblem* problem = problem_with(predict_builds(machine.input()), Code::cmake_architectures_miss_gpu);
    ASSERT_NE(problem, nullptr);
    EXPECT_TRUE(problem->kernels_fail);
    EXPECT_FALSE(problem->stops_cmake) << "the project builds";
    // 80 has compute_80 PTX, which the H200 compiles; all-major has sm_90.
    for (const char* covering : {"80", "all-major", "all"}) {
        machine.setup.cmake.architectures = covering;
        EXPECT_EQ(finding_with(machine.judged(), "CC316"), nullptr) << covering;
    }
}

TEST(ToolkitBuild, a_cmake_toolkit_other_than_the_build_toolkit_is_judged_on_its_own) {
    Machine machine;
    machine.with_cmake();
    ToolkitCompilerLimits twelve;
    twelve.root = "/usr/local/cuda-12.4";
    twelve.version = "12.4.131";
    twelve.host_config = "/usr/local/cuda-12.4/include/crt/host_config.h";
    twelve.gcc_newest = 13;
    twelve.compilers = {{true, "", ""}, {false, "x", ""}};
    twelve.nvcc_pick = {false, "-- unsupported GNU version! gcc versions later than 13 are not supported!", ""};
    machine.setup.toolkits.push_back(twelve);
    machine.setup.nvcc_host_compiler.version = HostCompilerVersion{HostCompilerKind::gcc, 14, 1, 0};
    CMakeCudaSetup& cmake = machine.setup.cmake;
    cmake.compiler = {"/usr/local/cuda-12.4/bin/nvcc", "CUDACXX", "/usr/local/cuda-12.4/bin/nvcc", ""};
    cmake.toolkit_root = twelve.root;
    cmake.toolkit = 1;
    cmake.same_toolkit = false;
    cmake.files =
        DevelopmentFiles{"/usr/local/cuda-12.4/bin/nvcc", "h", "h", "/usr/local/cuda-12.4/lib64", "so", "a", {}};
    cmake.nvcc =
        NvccAnswers{NvccVersion{"12.4", "12.4.131"}, "", {"compute_50", "compute_75", "compute_80", "compute_90"}};
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC307");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_TRUE(
        contains(test::account(result), "nvcc 12.4 rejects /usr/bin/gcc (gcc 14.1.0, nvcc's default (gcc on PATH))"))
        << test::account(result);
    EXPECT_TRUE(contains(finding->remediation, "`export CUDAHOSTCXX=g++`")) << finding->remediation;
    const BuildPrediction prediction = predict_builds(machine.input());
    EXPECT_EQ(evidence_value(prediction, "cmake_architectures"),
              "CMAKE_CUDA_ARCHITECTURES=52 (nvcc 12.4.131's default; CUDAARCHS unset)");
    ASSERT_EQ(prediction.problems.size(), 1U);
    EXPECT_FALSE(prediction.problems.front().stops_nvcc) << "nvcc 13.0 takes it";
    EXPECT_TRUE(prediction.problems.front().stops_cmake);
    // Its files: CMake links the static runtime.
    cmake.files.cudart_static.clear();
    EXPECT_TRUE(contains(finding_with(machine.judged(), "CC306")->message,
                         "the toolkit CMake takes (/usr/local/cuda-12.4, by CUDACXX) lacks lib64/libcudart_static.a"));
}

// --- PyTorch's builds where no GPU is visible ---

TEST(ToolkitBuild, no_gpu_and_no_torch_arch_list_stops_pytorchs_extension_builds) {
    // torch.utils.cpp_extension._get_cuda_arch_flags: without TORCH_CUDA_ARCH_LIST the list is the
    // visible GPUs, and `arch_list[-1] += '+PTX'` on an empty one raises IndexError.
    Machine machine;
    machine.with_torch();
    machine.devices.clear();
    const CheckResult result = machine.judged();
    EXPECT_EQ(result.status, Status::warn) << result.message;
    const Finding* finding = finding_with(result, "CC318");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_EQ(finding->subject, "/opt/torch/.venv: PyTorch");
    EXPECT_TRUE(contains(test::account(result), "\"IndexError: list index out of range\"")) << test::account(result);
    EXPECT_TRUE(contains(finding->remediation, "`export TORCH_CUDA_ARCH_LIST=\"9.0\"` for an H100/H200"))
        << finding->remediation;
    EXPECT_TRUE(contains(finding->remediation, "PyTorch 2.11.0+cu130 accepts 7.5 8.0 8.6 8.9 9.0 10.0 12.0"))
        << "this torch's own supported list, without the arch-specific 9.0a: " << finding->remediation;
    const BuildProblem* problem =
        problem_with(predict_builds(machine.input()), Code::torch_arch_list_unset_without_gpu);
    ASSERT_NE(problem, nullptr);
    EXPECT_FALSE(problem->stops_nvcc) << "a plain nvcc build takes nvcc's default architecture";
    EXPECT_TRUE(problem->stops_torch_jit);
    EXPECT_TRUE(problem->stops_torch_setup);
    // An empty value is unset to torch (`if not _arch_list`).
    machine.arch_list = "";
    EXPECT_NE(finding_with(machine.judged(), "CC318"), nullptr);
    // A list, or a GPU to build for: no finding.
    machine.arch_list = "9.0";
    EXPECT_EQ(machine.judged().status, Status::pass);
    machine.arch_list.reset();
    machine.devices = Machine().devices;
    EXPECT_EQ(finding_with(machine.judged(), "CC318"), nullptr);
    // Without PyTorch nothing reads TORCH_CUDA_ARCH_LIST.
    Machine bare;
    bare.devices.clear();
    EXPECT_EQ(finding_with(bare.judged(), "CC318"), nullptr);
}

TEST(ToolkitBuild, a_torch_whose_builder_has_no_empty_list_statement_is_not_judged) {
    Machine machine;
    machine.with_torch();
    machine.devices.clear();
    machine.torch.front().default_arch_list.raises_without_gpu = false;  // its cpp_extension.py was read
    const CheckResult result = machine.judged();
    EXPECT_EQ(finding_with(result, "CC318"), nullptr);
    EXPECT_TRUE(contains(test::account(result), "has no `arch_list[-1] += '+PTX'`, not judged"))
        << test::account(result);
    // Read and present: the finding, without the note that the file was not read.
    machine.torch.front().default_arch_list.raises_without_gpu = true;
    const CheckResult read = machine.judged();
    ASSERT_NE(finding_with(read, "CC318"), nullptr);
    EXPECT_FALSE(contains(test::account(read), "was not read"));
}

TEST(ToolkitBuild, torch_arch_list_native_is_the_visible_gpus_where_torch_knows_the_word) {
    Machine machine;
    machine.with_torch();
    machine.arch_list = "native";
    machine.torch.front().default_arch_list.accepts_native = true;  // torch 2.15: `_arch_list == "native"`
    const BuildPrediction prediction = predict_builds(machine.input());
    EXPECT_EQ(problem_with(prediction, Code::torch_arch_list_invalid), nullptr);
    ASSERT_EQ(prediction.torch_arch_flags.size(), 1U);
    EXPECT_EQ(prediction.torch_arch_flags.front().second,
              (std::vector<std::string>{"-gencode=arch=compute_90,code=compute_90",
                                        "-gencode=arch=compute_90,code=sm_90"}));
    machine.devices.clear();
    const CheckResult none = machine.judged();
    ASSERT_NE(finding_with(none, "CC318"), nullptr);
    EXPECT_TRUE(contains(test::account(none), "TORCH_CUDA_ARCH_LIST=native")) << test::account(none);
    // A torch without the word rejects it as any unknown entry.
    machine.torch.front().default_arch_list.accepts_native = false;
    EXPECT_NE(finding_with(machine.judged(), "CC312"), nullptr);
}

TEST(ToolkitBuild, library_headers_pytorch_includes_missing_stop_its_builds_only) {
    Machine machine;
    machine.setup.missing_torch_headers = {std::string(root) + "/include/cusparse.h",
                                           std::string(root) + "/include/cusolverDn.h"};
    EXPECT_EQ(machine.judged().status, Status::pass) << "nvcc and CMake builds do not include them";
    machine.with_torch();
    const CheckResult result = machine.judged();
    const Finding* finding = finding_with(result, "CC306");
    ASSERT_NE(finding, nullptr) << result.message;
    EXPECT_EQ(finding->subject, "/opt/torch/.venv: PyTorch");
    EXPECT_TRUE(contains(test::account(result),
                         "lacks /usr/local/cuda-13.0/include/cusparse.h, "
                         "/usr/local/cuda-13.0/include/cusolverDn.h, which PyTorch "
                         "2.11.0+cu130's ATen/cuda/CUDAContext.h includes"))
        << test::account(result);
    EXPECT_TRUE(contains(test::account(result), "\"fatal error: cusparse.h: No such file or directory\""));
    EXPECT_TRUE(contains(finding->remediation,
                         "`sudo apt install libcublas-dev-13-0 libcusparse-dev-13-0 libcusolver-dev-13-0`"))
        << finding->remediation;
    const BuildProblem* problem = problem_with(predict_builds(machine.input()), Code::build_toolkit_incomplete);
    ASSERT_NE(problem, nullptr);
    EXPECT_FALSE(problem->stops_nvcc);
    EXPECT_FALSE(problem->stops_cmake);
    EXPECT_TRUE(problem->stops_torch_jit);
    EXPECT_TRUE(problem->stops_torch_setup);
}

// PyTorch's real builder (torch.utils.cpp_extension.load) on a one-kernel .cu, where no GPU is
// visible to it (CUDA_VISIBLE_DEVICES="" hides any), held to toolkit.build's prediction made from
// the same facts: this machine's build setup, the installed torch's own cpp_extension.py, no
// devices. Ground truth: what the builder does, with TORCH_CUDA_ARCH_LIST unset, "native" and "9.0".
// Label torch (tests/CMakeLists.txt); skipped unless CUDACHECK_TORCH_PYTHON names a CUDA build's
// interpreter, e.g. `CUDACHECK_TORCH_PYTHON=/work/venvs/torch/bin/python ctest -L torch`.
// argv[2], where given, is the kernel file's text instead of the one-kernel default.
constexpr std::string_view builder_script = R"PY(
import json, os, sys
import torch
from torch.utils.cpp_extension import load
directory = sys.argv[1]
source = os.path.join(directory, "kernel.cu")
with open(source, "w") as out:
    out.write(sys.argv[2] if len(sys.argv) > 2 else
              "__global__ void twice(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
              "if (i < n) x[i] *= 2.0f; }\n")
result = {"devices": torch.cuda.device_count(), "built": False, "error": ""}
try:
    load(name="cudacheck_arch_probe", sources=[source], build_directory=directory, is_python_module=False,
         verbose=False)
    result["built"] = True
except BaseException as error:  # what the user sees: the exception type and its words
    result["error"] = f"{type(error).__name__}: {error}"
print(json.dumps(result))
)PY";

// The PyTorch CUDACHECK_TORCH_PYTHON names, as toolkit.build describes it; "" in `why` when it is
// one to build against, else why not (the test skips).
struct RealTorch {
    std::string python, bin;  // the interpreter, and its directory (ninja is there)
    TorchBuildTarget target;
};
RealTorch real_torch(std::string& why) {
    RealTorch torch;
    const char* python = std::getenv("CUDACHECK_TORCH_PYTHON");
    if (python == nullptr || *python == '\0') {
        why = "CUDACHECK_TORCH_PYTHON is not set";
        return torch;
    }
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) {
        why = "no CUDA toolkit at /usr/local/cuda";
        return torch;
    }
    torch.python = python;
    torch.bin = std::filesystem::path(python).parent_path().string();
    const sys::CommandResult asked = sys::run_command({python, "-c",
                                                       "import torch, os; print(os.path.dirname(torch.__file__), "
                                                       "torch.__version__, torch.version.cuda)"},
                                                      std::chrono::seconds(120));
    const std::vector<std::string> answer =
        sys::split(sys::trim(sys::split(sys::trim(asked.output), '\n').back()), ' ');
    if (asked.exit_status != 0 || answer.size() != 3) {
        ADD_FAILURE() << "import torch: " << asked.output;
        why = "import torch failed";
        return torch;
    }
    if (answer[2] == "None") {
        why = "not a CUDA build of PyTorch";
        return torch;
    }
    torch.target = TorchBuildTarget{.subject = "real: PyTorch", .version = answer[1], .cuda = answer[2]};
    InstalledTorchArchTables tables = read_installed_torch_arch_tables({answer[0] + "/version.py"});
    if (!tables.tables) {
        ADD_FAILURE() << tables.problem;
        why = "no arch tables";
        return torch;
    }
    torch.target.arch_tables = tables.tables;
    torch.target.default_arch_list = tables.default_list;
    return torch;
}

TEST(ToolkitBuildAgainstRealTorch, no_gpu_builds_fail_with_index_error_exactly_as_predicted) {
    std::string why;
    const RealTorch real = real_torch(why);
    if (!why.empty()) GTEST_SKIP() << why;
    const std::string& python = real.python;
    const std::string& bin = real.bin;

    // The prediction, from the facts toolkit.build gathers, for the environment the builder runs in.
    TorchBuildTarget torch = real.target;
    const auto predicted = [&](const std::optional<std::string>& arch_list) {
        Environment environment = Environment::from_process();
        environment.unset("CUDA_HOME");
        environment.unset("CUDA_PATH");
        environment.set("PATH", bin + ":/usr/local/cuda/bin:/usr/bin:/bin");
        const ToolkitFacts toolkits = collect_toolkits(environment);
        const BuildSetup setup = collect_build_setup(environment, toolkits);
        const BuildPrediction prediction = predict_builds(BuildJudgeInput{setup, toolkits, {torch}, {}, arch_list});
        EXPECT_EQ(problem_with(prediction, Code::build_toolkit_missing), nullptr) << "builds find /usr/local/cuda";
        return problem_with(prediction, Code::torch_arch_list_unset_without_gpu) != nullptr;
    };
    // The builder, with `arch_list` (nullopt: unset).
    const auto build = [&](const std::optional<std::string>& arch_list) {
        test::TempDir dir;
        const std::vector<std::string> environment =
            test::environment_with({{"CUDA_HOME", test::unset_marker},
                                    {"CUDA_PATH", test::unset_marker},
                                    {"CUDA_VISIBLE_DEVICES", ""},
                                    {"TORCH_EXTENSIONS_DIR", dir.path()},
                                    {"TORCH_CUDA_ARCH_LIST", arch_list.value_or(test::unset_marker)},
                                    {"PATH", bin + ":/usr/local/cuda/bin:/usr/bin:/bin"}});
        const sys::CommandResult run = sys::run_command({python, "-c", std::string(builder_script), dir.path()},
                                                        std::chrono::seconds(300), &environment);
        EXPECT_FALSE(run.timed_out) << run.output;
        const std::string line(sys::trim(sys::split(sys::trim(run.output), '\n').back()));
        const nlohmann::json result = nlohmann::json::parse(line, nullptr, false);
        EXPECT_FALSE(result.is_discarded()) << run.output;
        EXPECT_EQ(result.value("devices", -1), 0) << "CUDA_VISIBLE_DEVICES=\"\" hides every GPU";
        return result;
    };
    for (const std::optional<std::string>& arch_list :
         {std::optional<std::string>{}, std::optional<std::string>{"native"}, std::optional<std::string>{"9.0"}}) {
        SCOPED_TRACE(arch_list.value_or("TORCH_CUDA_ARCH_LIST unset"));
        const nlohmann::json result = build(arch_list);
        const bool index_error = contains(result.value("error", std::string()), "IndexError: list index out of range");
        EXPECT_EQ(predicted(arch_list), index_error) << result.dump();
        EXPECT_EQ(result.value("built", false), !index_error) << "the other outcome is a build: " << result.dump();
    }

    // What `cudacheck env` sets without a GPU (build/environment_plan): the architectures this torch
    // carries SASS for (torch._C._cuda_getArchFlags(), get_arch_list's source, which needs no GPU),
    // those its cpp_extension.py accepts and /usr/local/cuda's nvcc compiles for. The builder takes it.
    const sys::CommandResult flags =
        sys::run_command({python, "-c", "import torch; print(torch._C._cuda_getArchFlags())"},
                         std::chrono::seconds(120));
    ASSERT_EQ(flags.exit_status, 0) << flags.output;
    for (const std::string& target : sys::split(sys::trim(sys::split(sys::trim(flags.output), '\n').back()), ' '))
        if (target.starts_with("sm_")) torch.gpu_targets.push_back(target);
    ASSERT_FALSE(torch.gpu_targets.empty()) << flags.output;
    Environment shell = Environment::from_process();
    shell.unset("TORCH_CUDA_ARCH_LIST");
    shell.set("PATH", bin + ":/usr/local/cuda/bin:/usr/bin:/bin");
    const ToolkitFacts toolkits = collect_toolkits(shell);
    const BuildSetup setup = collect_build_setup(shell, toolkits);
    const std::vector<TorchBuildTarget> torches{torch};
    const EnvScript script =
        plan_environment(EnvInputs{setup, torches, {}, std::nullopt, LoaderSearch{}}, shell, Profile::none);
    std::optional<std::string> planned;
    for (const ShellLine& line : script.lines)
        if (line.kind == ShellLine::Kind::set && line.name == "TORCH_CUDA_ARCH_LIST") planned = line.values.front();
    ASSERT_TRUE(planned.has_value()) << "cudacheck env sets it where the builder would stop";
    SCOPED_TRACE("TORCH_CUDA_ARCH_LIST=" + *planned + " (cudacheck env)");
    EXPECT_FALSE(predicted(planned));
    const nlohmann::json result = build(planned);
    EXPECT_TRUE(result.value("built", false)) << result.dump();
}

// The toolkit at `from` again at `to`, without the file whose real path is `left_out` ("" for
// none): directories made anew, also those behind a symlink (targets/x86_64-linux/include ->
// ../../include), so that the file is absent on every path into the copy; files are symlinks to
// the originals, but those of the top bin/, hard links (else copies): nvcc takes its toolkit from
// its own location (nvcc.profile's _HERE_), which must be the copy's.
void mirror_toolkit(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::filesystem::path& left_out, bool link_files = false, int depth = 0) {
    namespace fs = std::filesystem;
    fs::create_directories(to);
    for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
        std::error_code error;
        const fs::path real = fs::canonical(entry.path(), error);
        if (error) continue;  // a dangling link
        const fs::path target = to / entry.path().filename();
        if (fs::is_directory(real)) {
            if (depth < 12)
                mirror_toolkit(real, target, left_out, depth == 0 && entry.path().filename() == "bin", depth + 1);
        } else if (real != left_out) {
            if (link_files) fs::create_hard_link(real, target, error);
            if (link_files && error) fs::copy_file(real, target);
            if (!link_files) fs::create_symlink(real, target);
        }
    }
}

// CC306 held to the real builder: a toolkit without cusparse.h (as the pip nvidia-cuda-nvcc
// wheel's, or a partial package install) stops a PyTorch extension that includes
// ATen/cuda/CUDAContext.h, unless the host compiler finds the header in its own directories. Three
// builds with PyTorch's builder (CUDA_HOME a copy of /usr/local/cuda, no GPU,
// TORCH_CUDA_ARCH_LIST=9.0): the copy without cusparse.h; the same with CC a gcc whose sysroot has
// no /usr/local/include (where this machine's image links the toolkit's headers); the whole copy.
// Each time toolkit.build's prediction from the same facts says whether the build stops, and
// where it stops the builder says "cusparse.h: No such file or directory".
TEST(ToolkitBuildAgainstRealTorch, a_toolkit_without_a_header_cudacontext_includes_stops_the_build_as_predicted) {
    std::string why;
    const RealTorch real = real_torch(why);
    if (!why.empty()) GTEST_SKIP() << why;
    const std::filesystem::path toolkit = std::filesystem::canonical("/usr/local/cuda");
    if (!std::filesystem::exists(toolkit / "include/cusparse.h")) GTEST_SKIP() << "/usr/local/cuda has no cusparse.h";
    if (!std::filesystem::exists("/usr/bin/gcc")) GTEST_SKIP() << "no /usr/bin/gcc";
    const std::string kernel =
        "#include <ATen/cuda/CUDAContext.h>\n"
        "__global__ void twice(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= "
        "2.0f; }\n"
        "void launch(float* x, int n) { twice<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x, n); "
        "}\n";
    test::TempDir sysroot;  // /usr/include and the libraries, no /usr/local/include
    for (const char* part : {"usr/include", "usr/lib", "lib", "lib64"}) {
        std::filesystem::create_directories(std::filesystem::path(sysroot.path() + "/" + part).parent_path());
        std::filesystem::create_directory_symlink(std::string("/") + part, sysroot.path() + "/" + part);
    }
    const std::string gcc =
        sysroot.write("bin/gcc", "#!/bin/sh\nexec /usr/bin/gcc --sysroot=" + sysroot.path() + " \"$@\"\n", 0755);

    struct Case {
        const char* name;
        bool without;
        std::string cc;  // "" for CC unset
    };
    std::size_t stopped = 0;
    for (const Case& build :
         {Case{"without cusparse.h", true, ""}, Case{"without cusparse.h, CC without /usr/local/include", true, gcc},
          Case{"whole", false, ""}}) {
        SCOPED_TRACE(build.name);
        test::TempDir dir;
        const std::string copy = dir.path() + "/cuda";
        mirror_toolkit(toolkit, copy,
                       build.without ? std::filesystem::canonical(toolkit / "include/cusparse.h")
                                     : std::filesystem::path());
        ASSERT_EQ(std::filesystem::exists(copy + "/include/cusparse.h"), !build.without);
        const std::string path = real.bin + ":" + copy + "/bin:/usr/bin:/bin";

        Environment environment = Environment::from_process();
        for (const char* variable : {"CUDA_PATH", "CUDA_INC_PATH", "CPATH", "CPLUS_INCLUDE_PATH", "CC", "CXX"})
            environment.unset(variable);
        environment.set("CUDA_HOME", copy);
        environment.set("PATH", path);
        if (!build.cc.empty()) environment.set("CC", build.cc);
        const ToolkitFacts toolkits = collect_toolkits(environment);
        const BuildSetup setup = collect_build_setup(environment, toolkits);
        ASSERT_EQ(setup.choice.root, copy) << "the build takes CUDA_HOME";
        const BuildPrediction prediction =
            predict_builds(BuildJudgeInput{setup, toolkits, {real.target}, {}, std::string("9.0")});
        const BuildProblem* incomplete = problem_with(prediction, Code::build_toolkit_incomplete);
        const bool predicted_stop = incomplete != nullptr && incomplete->stops_torch_jit;
        if (!build.without) EXPECT_FALSE(predicted_stop);
        if (!build.cc.empty() && !std::filesystem::exists("/usr/include/cusparse.h")) EXPECT_TRUE(predicted_stop);

        const std::vector<std::string> child =
            test::environment_with({{"CUDA_HOME", copy},
                                    {"CUDA_PATH", test::unset_marker},
                                    {"CUDA_INC_PATH", test::unset_marker},
                                    {"CPATH", test::unset_marker},
                                    {"CPLUS_INCLUDE_PATH", test::unset_marker},
                                    {"CC", build.cc.empty() ? test::unset_marker : build.cc},
                                    {"CXX", test::unset_marker},
                                    {"CUDA_VISIBLE_DEVICES", ""},
                                    {"TORCH_EXTENSIONS_DIR", dir.path()},
                                    {"TORCH_CUDA_ARCH_LIST", "9.0"},
                                    {"PATH", path}});
        const sys::CommandResult run =
            sys::run_command({real.python, "-c", std::string(builder_script), dir.path(), kernel},
                             std::chrono::seconds(600), &child);
        ASSERT_FALSE(run.timed_out) << run.output;
        const nlohmann::json result =
            nlohmann::json::parse(std::string(sys::trim(sys::split(sys::trim(run.output), '\n').back())), nullptr,
                                  false);
        ASSERT_FALSE(result.is_discarded()) << run.output;
        EXPECT_EQ(result.value("built", false), !predicted_stop) << result.dump();
        if (predicted_stop) {
            ++stopped;
            EXPECT_TRUE(contains(result.value("error", std::string()), "cusparse.h: No such file or directory"))
                << result.dump();
        }
    }
    EXPECT_GT(stopped, 0U) << "no build here took the path where the header is missing";
}

// The headers toolkit.build looks for on PyTorch's behalf (probes/build/build_toolkit.hpp) are
// the CUDA library headers the installed torch's ATen/cuda/CUDAContextLight.h includes
// unconditionally (cudss.h only under USE_CUDSS, which extension builds do not define; hipsolver
// is ROCm's; cuda_runtime_api.h is cudart's, looked for as cuda_runtime.h).
TEST(ToolkitBuildAgainstRealTorch, the_library_headers_are_those_cudacontext_includes) {
    const char* python = std::getenv("CUDACHECK_TORCH_PYTHON");
    if (python == nullptr || *python == '\0') GTEST_SKIP() << "CUDACHECK_TORCH_PYTHON is not set";
    const sys::CommandResult asked =
        sys::run_command({python, "-c", "import torch, os; print(os.path.dirname(torch.__file__))"},
                         std::chrono::seconds(120));
    ASSERT_EQ(asked.exit_status, 0) << asked.output;
    const std::string torch(sys::trim(sys::split(sys::trim(asked.output), '\n').back()));
    const std::optional<std::string> light = sys::read_file(torch + "/include/ATen/cuda/CUDAContextLight.h", 1 << 20);
    if (!light) GTEST_SKIP() << "no ATen/cuda/CUDAContextLight.h: not a CUDA build's headers";
    std::vector<std::string> included;
    for (const std::string& line : sys::split(*light, '\n')) {
        const std::string text(sys::trim(line));
        if (!text.starts_with("#include <cu") || !text.ends_with(".h>")) continue;
        const std::string header = text.substr(10, text.size() - 11);
        if (header != "cuda_runtime_api.h" && header != "cudss.h") included.push_back(header);
    }
    EXPECT_EQ(included,
              std::vector<std::string>(std::begin(torch_cuda_library_headers), std::end(torch_cuda_library_headers)));
}

}  // namespace
}  // namespace cudacheck
