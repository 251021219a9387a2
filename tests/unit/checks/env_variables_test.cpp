// env.variables (checks/env_variables.cpp): each risky variable, CUDA_HOME, stubs on the path.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace cudacheck {
namespace {

using test::contains;
using test::finding_with;
using test::judge;

CheckResult judge_env(std::map<std::string, std::string, std::less<>> variables, const ToolkitFacts& toolkits = {},
                      Profile profile = Profile::none) {
    const Environment environment(std::move(variables));
    return judge("env.variables", [&](ResultBuilder& r) { judge_environment(environment, toolkits, profile, r); });
}

TEST(EnvCheck, passes_for_plain_environment) {
    const CheckResult result = judge_env({{"PATH", "/usr/bin:/bin"}, {"HOME", "/root"}});
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(result.findings.empty());
}

TEST(EnvCheck, warns_for_each_risky_setting) {
    const CheckResult result = judge_env({{"CUDA_LAUNCH_BLOCKING", "1"},
                                          {"CUBLAS_WORKSPACE_CONFIG", "4096:8"},
                                          {"CUDA_INJECTION64_PATH", "/opt/tool/libinject.so"},
                                          {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "1"},
                                          {"CUDA_CACHE_DISABLE", "1"},
                                          {"CUDA_MODULE_LOADING", "lazy-ish"},
                                          {"CUDA_DEVICE_ORDER", "BUS"},
                                          {"CUDA_PROFILE", "1"}});
    EXPECT_EQ(result.status, Status::warn);
    for (const char* code : {"CC115", "CC116", "CC117", "CC118", "CC119", "CC120", "CC121", "CC122"})
        EXPECT_NE(finding_with(result, code), nullptr) << code;
}

TEST(EnvCheck, accepts_valid_workspace_config_and_module_loading) {
    const CheckResult result = judge_env({{"CUBLAS_WORKSPACE_CONFIG", ":4096:8:16:8"},
                                          {"CUDA_MODULE_LOADING", "EAGER"},
                                          {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                          {"CUDA_LAUNCH_BLOCKING", "0"}});
    EXPECT_EQ(result.status, Status::pass);
}

TEST(EnvCheck, warns_on_empty_and_invalid_cuda_visible_devices) {
    EXPECT_EQ(judge_env({{"CUDA_VISIBLE_DEVICES", ""}}).code, "CC113");
    EXPECT_EQ(judge_env({{"CUDA_VISIBLE_DEVICES", "-1"}}).code, "CC113");
    const CheckResult partial = judge_env({{"CUDA_VISIBLE_DEVICES", "0,x,1"}});
    EXPECT_EQ(partial.code, "CC114");
    EXPECT_TRUE(contains(partial.message, "only the 1 device(s) before it"));
    EXPECT_EQ(judge_env({{"CUDA_VISIBLE_DEVICES", "0,1"}}).status, Status::pass);
}

TEST(EnvCheck, warns_when_cuda_home_missing_or_differs_from_nvcc) {
    test::TempDir tree;
    const std::string old_toolkit = tree.make_dir("cuda-11.8");
    tree.write("cuda-11.8/version.json", R"({"cuda": {"version": "11.8.0"}})");
    tree.write("cuda-13.0/bin/nvcc", "#!/bin/sh\n", 0755);
    EXPECT_EQ(judge_env({{"CUDA_HOME", tree.path() + "/nope"}}).code, "CC110");

    ToolkitFacts toolkits;
    toolkits.path_nvcc = tree.path() + "/cuda-13.0/bin/nvcc";
    toolkits.path_nvcc_root = tree.path() + "/cuda-13.0";
    toolkits.toolkits.push_back({old_toolkit, "11.8.0", "", {"CUDA_HOME"}});
    const CheckResult result = judge_env({{"CUDA_HOME", old_toolkit}}, toolkits);
    EXPECT_EQ(result.code, "CC111");
    EXPECT_TRUE(contains(result.message, "11.8.0"));
    EXPECT_TRUE(contains(result.remediation, "cuda-13.0"));

    // A wrapper script /usr/local/bin/nvcc that runs the CUDA_HOME toolkit's nvcc agrees with it.
    toolkits.path_nvcc = tree.path() + "/bin/nvcc";
    toolkits.path_nvcc_root = old_toolkit;
    EXPECT_EQ(judge_env({{"CUDA_HOME", old_toolkit}}, toolkits).status, Status::pass);
}

TEST(EnvCheck, warns_when_stub_directory_on_ld_library_path) {
    test::TempDir tree;
    tree.write("cuda/lib64/stubs/libcuda.so", "");
    tree.write("cuda/lib64/libcudart.so.13", "");
    const CheckResult result =
        judge_env({{"LD_LIBRARY_PATH", tree.path() + "/cuda/lib64:" + tree.path() + "/cuda/lib64/stubs:/nonexistent"}});
    EXPECT_EQ(result.code, "CC112");
    EXPECT_TRUE(contains(result.remediation, "/cuda/lib64/stubs"));
    bool listed_runtime = false;
    bool listed_absent = false;
    for (const Evidence& evidence : result.evidence) {
        listed_runtime |= evidence.key == "LD_LIBRARY_PATH" && contains(evidence.value, "libcudart.so.13");
        listed_absent |= evidence.key == "LD_LIBRARY_PATH" && contains(evidence.value, "/nonexistent (absent)");
    }
    EXPECT_TRUE(listed_runtime);
    EXPECT_TRUE(listed_absent);
}

// --profile: CUDA_LAUNCH_BLOCKING=1 is right while debugging and a warning otherwise.
TEST(EnvCheck, launch_blocking_is_right_under_dev_only) {
    const std::map<std::string, std::string, std::less<>> blocking{{"PATH", "/usr/bin"}, {"CUDA_LAUNCH_BLOCKING", "1"}};
    const CheckResult dev = judge_env(blocking, {}, Profile::dev);
    EXPECT_EQ(dev.status, Status::pass);
    EXPECT_EQ(finding_with(dev, "CC115"), nullptr);
    const auto said = std::find_if(dev.evidence.begin(), dev.evidence.end(),
                                   [](const Evidence& e) { return e.key == "CUDA_LAUNCH_BLOCKING_profile"; });
    ASSERT_NE(said, dev.evidence.end());
    EXPECT_TRUE(contains(said->value, "right under --profile dev"));
    for (const Profile profile : {Profile::none, Profile::prod, Profile::ci}) {
        const CheckResult other = judge_env(blocking, {}, profile);
        EXPECT_EQ(other.status, Status::warn) << to_string(profile);
        EXPECT_NE(finding_with(other, "CC115"), nullptr) << to_string(profile);
    }
}

// Under ci an unset CUBLAS_WORKSPACE_CONFIG is CC123; set (validly) it passes; set wrongly it is CC116 alone.
TEST(EnvCheck, ci_wants_deterministic_cublas) {
    const CheckResult unset = judge_env({{"PATH", "/usr/bin"}}, {}, Profile::ci);
    EXPECT_EQ(unset.status, Status::warn);
    EXPECT_EQ(unset.code, "CC123");
    EXPECT_TRUE(contains(unset.message, "CUBLAS_WORKSPACE_CONFIG is unset"));
    EXPECT_EQ(test::expect_codes_declared(unset), 1u);
    EXPECT_EQ(judge_env({{"PATH", "/usr/bin"}, {"CUBLAS_WORKSPACE_CONFIG", ":4096:8"}}, {}, Profile::ci).status,
              Status::pass);
    const CheckResult invalid = judge_env({{"CUBLAS_WORKSPACE_CONFIG", "4096:8"}}, {}, Profile::ci);
    EXPECT_NE(finding_with(invalid, "CC116"), nullptr);
    EXPECT_EQ(finding_with(invalid, "CC123"), nullptr);
    for (const Profile profile : {Profile::none, Profile::dev, Profile::prod})
        EXPECT_EQ(judge_env({{"PATH", "/usr/bin"}}, {}, profile).status, Status::pass) << to_string(profile);
}

// The variables a build reads (nvcc's, CMake's) are evidence, not findings: toolkit.build judges them.
TEST(EnvCheck, build_variables_are_named_in_the_evidence) {
    const CheckResult result = judge_env({{"CUDACXX", "/usr/local/cuda-12.4/bin/nvcc"},
                                          {"CUDAHOSTCXX", "g++-12"},
                                          {"CUDAARCHS", "90"},
                                          {"NVCC_CCBIN", "g++-13"}});
    EXPECT_EQ(result.status, Status::pass);
    std::map<std::string, std::string> evidence;
    for (const Evidence& item : result.evidence) evidence[item.key] = item.value;
    EXPECT_EQ(evidence["CUDACXX"], "/usr/local/cuda-12.4/bin/nvcc");
    EXPECT_EQ(evidence["CUDAHOSTCXX"], "g++-12");
    EXPECT_EQ(evidence["CUDAARCHS"], "90");
    EXPECT_EQ(evidence["NVCC_CCBIN"], "g++-13");
    EXPECT_FALSE(evidence.contains("NVCC_APPEND_FLAGS")) << "unset variables are not listed";
}

}  // namespace
}  // namespace cudacheck
