// driver.nvml (checks/driver_nvml.cpp): NVML missing, a driver/library mismatch, NVML working.
#include "bind/dynamic_library.hpp"
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

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
    const CheckResult result = judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC220");
    EXPECT_TRUE(contains(result.remediation, "utility"));
}

TEST(NvmlCheck, points_at_the_missing_driver_when_there_is_none) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libnvidia-ml-does-not-exist.so.1");
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result = judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, KernelModuleFacts{}, host, r); });
    EXPECT_EQ(result.code, "CC220");
    EXPECT_TRUE(contains(result.remediation, "--gpus all"));
}

TEST(NvmlCheck, fails_on_driver_library_version_mismatch) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open("libc.so.6");
    nvml.init_result = 18;
    nvml.init_error = "NVML_ERROR_LIB_RM_VERSION_MISMATCH (Driver/library version mismatch)";
    const CheckResult result = judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module("575.57.08"), bare_host(), r); });
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
    const CheckResult result = judge("driver.nvml", [&](ResultBuilder& r) { judge_nvml(nvml, loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.message, "NVML up: driver 580.159.04, CUDA 13.0, 1 GPU(s)");
}

}  // namespace
}  // namespace cudacheck
