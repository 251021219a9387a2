// driver.libcuda (checks/driver_libcuda.cpp): loading it, cuInit errors, stubs, WSL2, mismatches.
#include "bind/dynamic_library.hpp"
#include "checks/checks.hpp"
#include "support/check_judging.hpp"
#include "support/headlines.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::bare_host;
using test::contains;
using test::judge;
using test::loaded_module;

struct LibcudaFixture {
    KernelModuleFacts kernel_module = loaded_module();
    HostInfo host = bare_host();
    VisibleDevicesSpec visible;
    ProcessLimits limits;
    CheckResult run(const DriverFacts& driver) {
        return judge("driver.libcuda", [&](ResultBuilder& r) {
            judge_libcuda(driver, LibcudaContext{kernel_module, host, visible, nullptr, &limits}, r);
        });
    }
};

TEST(LibcudaCheck, a_cuinit_that_hung_earlier_is_reported_not_retried) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.step_failure = actions::Failure{{actions::Kind::driver_call, "cuInit"},
                                           "did not finish within 20 s (--timeout) and its process was killed",
                                           true};
    driver.failed_step = "cuInit";
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::timeout);
    EXPECT_EQ(result.code, "CC905");
    EXPECT_EQ(result.message,
              "cuInit did not finish within 20 s (--timeout) and its process was killed earlier in this run, so it was "
              "not tried again");
}

TEST(LibcudaCheck, names_an_address_space_limit_behind_cuinits_out_of_memory) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.init_result = 2;
    driver.init_error_name = "CUDA_ERROR_OUT_OF_MEMORY";
    EXPECT_EQ(fixture.run(driver).code, "CC212") << "without a limit, cuInit's own error";
    fixture.limits.address_space.soft = 4000000ULL << 10;
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC130");
    EXPECT_TRUE(contains(test::account(result), "4000000 KiB")) << test::account(result);
    EXPECT_TRUE(contains(result.remediation, "ulimit -v unlimited")) << result.remediation;
}

TEST(LibcudaCheck, fails_when_library_cannot_be_loaded) {
    LibcudaFixture fixture;
    fixture.kernel_module = KernelModuleFacts{};
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libcudacheck-does-not-exist.so.1");
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC210");
    EXPECT_TRUE(contains(result.message, "cannot open shared object file"));
    EXPECT_TRUE(contains(result.remediation, "Install the NVIDIA driver"));
}

TEST(LibcudaCheck, names_the_package_when_module_loaded_but_library_missing) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libcudacheck-does-not-exist.so.1");
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC210");
    EXPECT_TRUE(contains(result.remediation, "libnvidia-compute-580"));
}

TEST(LibcudaCheck, explains_no_device_caused_by_cuda_visible_devices) {
    LibcudaFixture fixture;
    fixture.visible = parse_cuda_visible_devices("");
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");  // any loadable library stands in
    driver.init_result = 100;
    driver.init_error_name = "CUDA_ERROR_NO_DEVICE";
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC410");
    EXPECT_TRUE(contains(result.message, "CUDA_VISIBLE_DEVICES=''"));
    EXPECT_TRUE(contains(result.remediation, "Unset CUDA_VISIBLE_DEVICES"));
}

TEST(LibcudaCheck, names_cuda_visible_devices_entries_that_match_no_gpu) {
    LibcudaFixture fixture;  // one GPU: GPU-2a36941f-...
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.init_result = 100;
    driver.init_error_name = "CUDA_ERROR_NO_DEVICE";
    fixture.visible = parse_cuda_visible_devices("3,GPU-ffff");
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC410");
    EXPECT_TRUE(contains(test::account(result), "GPU-ffff")) << test::account(result);
    EXPECT_TRUE(contains(result.remediation, "nvidia-smi -L"));
    fixture.visible = parse_cuda_visible_devices("GPU-2a36");  // a valid prefix: not this diagnosis
    EXPECT_EQ(fixture.run(driver).code, "CC212");
}

TEST(LibcudaCheck, reports_cuinit_error_name_and_specific_fix) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.init_result = 304;
    driver.init_error_name = "CUDA_ERROR_OPERATING_SYSTEM";
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC212");
    EXPECT_TRUE(contains(result.message, "CUDA_ERROR_OPERATING_SYSTEM"));
    EXPECT_TRUE(contains(result.remediation, "nvidia-uvm"));
}

TEST(LibcudaCheck, detects_stub_by_error_34) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.init_result = 34;
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC211");
    EXPECT_TRUE(contains(result.remediation, "LD_LIBRARY_PATH"));
}

TEST(LibcudaCheck, fails_under_wsl2_unless_libcuda_comes_from_the_windows_driver) {
    LibcudaFixture fixture;
    fixture.host.wsl = "WSL2";
    fixture.kernel_module = KernelModuleFacts{};
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");  // a Linux library, as a distro's libcuda would be
    driver.init_result = 0;
    driver.driver_version = 13000;
    const CheckResult linux_copy = fixture.run(driver);
    EXPECT_EQ(linux_copy.code, "CC215");
    EXPECT_TRUE(contains(linux_copy.remediation, "ldconfig"));

    test::TempDir tree;
    std::filesystem::create_directories(tree.path() + "/usr/lib/wsl/lib");
    std::filesystem::copy_file(CUDACHECK_FAKE_DRIVER, tree.path() + "/usr/lib/wsl/lib/libcuda.so.1");
    driver.library = DynamicLibrary::open(tree.path() + "/usr/lib/wsl/lib/libcuda.so.1");
    ASSERT_TRUE(driver.library.ok()) << driver.library.error();
    EXPECT_EQ(fixture.run(driver).status, Status::pass);
}

TEST(LibcudaCheck, fails_on_library_and_module_version_mismatch) {
    LibcudaFixture fixture;
    fixture.kernel_module = loaded_module("575.51.03");
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.library_file_version = "580.95.05";
    driver.init_result = 0;
    driver.driver_version = 13000;
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC213");
    EXPECT_TRUE(contains(result.message, "580.95.05"));
    EXPECT_TRUE(contains(result.message, "575.51.03"));
    EXPECT_TRUE(contains(result.remediation, "Reboot"));
}

TEST(LibcudaCheck, passes_with_version_and_path) {
    LibcudaFixture fixture;
    DriverFacts driver;
    driver.library = DynamicLibrary::open("libc.so.6");
    driver.library_file_version = "580.159.04";
    driver.init_result = 0;
    driver.driver_version = 13000;
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "580.159.04 (CUDA 13.0)"));
    EXPECT_TRUE(contains(result.message, "libc.so.6"));
}

}  // namespace
}  // namespace cudacheck
