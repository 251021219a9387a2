// driver.nvml (checks/driver_nvml.cpp): NVML missing, a driver/library mismatch, NVML working.
#include "bind/dynamic_library.hpp"
#include "checks/checks.hpp"
#include "support/check_judging.hpp"
#include "support/headlines.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::bare_host;
using test::contains;
using test::h200;
using test::judge;
using test::loaded_module;

TEST(NvmlCheck, warns_when_library_missing) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libnvidia-ml-does-not-exist.so.1");
    const CheckResult result =
        judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC220");
    EXPECT_TRUE(contains(result.remediation, "utility"));
}

TEST(NvmlCheck, points_at_the_missing_driver_when_there_is_none) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libnvidia-ml-does-not-exist.so.1");
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result =
        judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, KernelModuleFacts{}, host, r); });
    EXPECT_EQ(result.code, "CC220");
    EXPECT_TRUE(contains(result.remediation, "--gpus all"));
}

TEST(NvmlCheck, fails_on_driver_library_version_mismatch) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libc.so.6");
    nvml.init_result = 18;
    nvml.init_error = "NVML_ERROR_LIB_RM_VERSION_MISMATCH (Driver/library version mismatch)";
    const CheckResult result =
        judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module("575.57.08"), bare_host(), r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC221");
    EXPECT_TRUE(contains(result.message, "575.57.08"));
}

TEST(NvmlCheck, passes_with_driver_version_and_gpu_count) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libc.so.6");
    nvml.init_result = 0;
    nvml.driver_version = "580.159.04";
    nvml.cuda_driver_version = 13000;
    nvml.devices = {h200()};
    const CheckResult result =
        judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.message, "NVML up: driver 580.159.04, CUDA 13.0, 1 GPU(s)");
}

TEST(NvmlCheck, recognises_the_toolkits_stub_and_names_the_drivers_copy) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libc.so.6");
    nvml.init_result = 9;
    nvml.init_error = "NVML_ERROR_DRIVER_NOT_LOADED";
    nvml.stub = true;
    nvml.stub_banner =
        "WARNING: You should always run with libnvidia-ml.so that is installed with your NVIDIA Display Driver.";
    const CheckResult result = judge("driver.nvml", [&](ResultBuilder& r) {
        judge_nvml(nvml, loaded_module(), bare_host(), r,
                   {{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"}, "/opt/build/stubs-link"});
    });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC223");
    EXPECT_TRUE(contains(test::account(result), "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"))
        << result.message;
    EXPECT_FALSE(contains(result.message, "WARNING")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "Take /opt/build/stubs-link off LD_LIBRARY_PATH"))
        << "the directory the loader took it from: " << result.remediation;
    const auto banner = std::find_if(result.evidence.begin(), result.evidence.end(),
                                     [](const auto& item) { return item.key == "stub_banner"; });
    ASSERT_NE(banner, result.evidence.end());
    EXPECT_TRUE(contains(banner->value, "installed with your NVIDIA Display Driver"));
}

TEST(NvmlCheck, a_step_that_failed_earlier_is_reported_not_retried) {
    NvmlFacts nvml;
    nvml.step_failure = actions::Failure{{actions::Kind::driver_call, "nvmlInit"},
                                         "did not finish within 20 s (--timeout) and its process was killed",
                                         true};
    nvml.failed_step = "nvmlInit";
    const CheckResult result =
        judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::timeout);
    EXPECT_EQ(result.code, "CC905");
    EXPECT_TRUE(contains(result.message, "nvmlInit did not finish within 20 s")) << result.message;
}

}  // namespace
}  // namespace cudacheck
