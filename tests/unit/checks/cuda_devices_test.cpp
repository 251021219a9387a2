// cuda.devices (checks/cuda_devices.cpp): the summary, hidden or missing GPUs, compute modes, use.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::h200;
using test::judge;
using test::loaded_module;

struct DevicesFixture {
    KernelModuleFacts kernel_module = loaded_module();
    VisibleDevicesSpec visible;
    NvmlFacts nvml;
    CheckResult run(const DriverFacts& driver, int runtime = 13000) {
        return judge("cuda.devices", [&](ResultBuilder& r) {
            judge_devices(listing_from_driver(driver), DevicesContext{kernel_module, visible, runtime, &nvml}, r);
        });
    }
};

TEST(DevicesCheck, summarises_identical_devices_and_derives_peaks) {
    DevicesFixture fixture;
    DriverFacts driver;
    driver.device_count = 1;
    DeviceInfo device = h200();
    device.theoretical_bandwidth_gbps = 4916.7;
    device.fp32_peak_tflops = 66.9;
    driver.devices = {device};
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "1 x NVIDIA H200 (CC 9.0 Hopper, 132 SMs, 140.4 GiB)"));
    ASSERT_EQ(result.metrics.size(), 2u);
    EXPECT_EQ(result.metrics[0].unit, "GB/s");
    EXPECT_DOUBLE_EQ(result.metrics[0].value, 4916.7);
}

TEST(DevicesCheck, shows_usable_memory_next_to_framebuffer_when_they_differ) {
    DevicesFixture fixture;
    DriverFacts driver;
    driver.device_count = 1;
    DeviceInfo device = h200();
    device.total_memory_bytes = 150109880320ULL;  // cuDeviceTotalMem on an H200
    device.framebuffer_bytes = 150754820096ULL;   // NVML / nvidia-smi: 143771 MiB
    device.nvml_index = 0;
    driver.devices = {device};
    const CheckResult result = fixture.run(driver);
    EXPECT_TRUE(contains(result.message, "139.8 GiB usable of 140.4 GiB"));
    EXPECT_TRUE(contains(result.evidence.back().value, "nvidia-smi index 0"));
}

TEST(DevicesCheck, fails_when_gpus_present_but_none_visible) {
    DevicesFixture fixture;
    fixture.visible = parse_cuda_visible_devices("5");
    DriverFacts driver;
    driver.device_count = 0;
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC410");
    EXPECT_TRUE(contains(result.message, "CUDA_VISIBLE_DEVICES='5'"));
}

TEST(DevicesCheck, fails_when_no_gpu_at_all) {
    DevicesFixture fixture;
    fixture.kernel_module = KernelModuleFacts{};
    DriverFacts driver;
    driver.device_count = 0;
    EXPECT_EQ(fixture.run(driver).code, "CC411");
}

TEST(DevicesCheck, fails_for_gpu_older_than_runtime_supports) {
    DevicesFixture fixture;
    DriverFacts driver;
    driver.device_count = 1;
    DeviceInfo pascal = h200();
    pascal.name = "Tesla P100-PCIE-16GB";
    pascal.cc_major = 6;
    driver.devices = {pascal};
    const CheckResult result = fixture.run(driver, 13000);
    EXPECT_EQ(result.code, "CC412");
    EXPECT_TRUE(contains(result.message, "6.0"));
    EXPECT_TRUE(contains(result.remediation, "CUDA 12.x"));
    EXPECT_EQ(fixture.run(driver, 12080).status, Status::pass) << "CUDA 12 still supports Pascal";
}

TEST(DevicesCheck, fails_for_prohibited_compute_mode) {
    DevicesFixture fixture;
    DriverFacts driver;
    driver.device_count = 1;
    DeviceInfo device = h200();
    device.compute_mode = "prohibited";
    driver.devices = {device};
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.code, "CC413");
    EXPECT_TRUE(contains(result.remediation, "-c DEFAULT"));
}

// One H200 (NVML index 0) in `compute_mode`, with NVML reporting `free_gib` free and `processes`.
CheckResult judge_h200_in_use(std::string compute_mode, double free_gib,
                              std::optional<std::vector<GpuProcess>> processes) {
    DevicesFixture fixture;
    DriverFacts driver;
    driver.device_count = 1;
    DeviceInfo device = h200();
    device.compute_mode = std::move(compute_mode);
    device.nvml_index = 0;
    driver.devices = {device};
    NvmlDeviceUsage usage;
    usage.free_bytes = static_cast<std::uint64_t>(free_gib * (1ULL << 30));
    usage.total_bytes = device.total_memory_bytes;
    usage.processes = std::move(processes);
    fixture.nvml.usage = {usage};
    return fixture.run(driver);
}

TEST(DevicesCheck, fails_when_exclusive_mode_gpu_is_held_by_another_process) {
    const CheckResult result =
        judge_h200_in_use("exclusive_process", 130.0, std::vector<GpuProcess>{{4242, 2ULL << 30, "python3"}});
    EXPECT_EQ(result.code, "CC416");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_TRUE(contains(result.message, "pid 4242 python3 (2.0 GiB)")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "kill 4242")) << result.remediation;
    EXPECT_TRUE(contains(result.remediation, "-c DEFAULT")) << result.remediation;
    EXPECT_EQ(judge_h200_in_use("exclusive_process", 139.0, std::vector<GpuProcess>{}).status, Status::pass)
        << "exclusive but idle";
}

TEST(DevicesCheck, warns_when_other_processes_leave_under_a_quarter_of_memory_free) {
    const CheckResult result = judge_h200_in_use("default", 10.0,
                                                 std::vector<GpuProcess>{{77, std::nullopt, ""},
                                                                         {4242, 120ULL << 30, "python3"},
                                                                         {5, 1ULL << 30, "a"},
                                                                         {6, 1ULL << 30, "b"}});
    EXPECT_EQ(result.code, "CC417");
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_TRUE(contains(result.message, "10.0 GiB free of 140.4 GiB")) << result.message;
    EXPECT_TRUE(contains(result.message, "held by pid 4242 python3 (120.0 GiB),"))
        << "largest first: " << result.message;
    EXPECT_TRUE(contains(result.message, "and 1 more")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "4242")) << result.remediation;
}

TEST(DevicesCheck, only_lists_other_processes_when_enough_memory_is_free_or_they_are_unknown) {
    const CheckResult shared =
        judge_h200_in_use("default", 100.0, std::vector<GpuProcess>{{4242, 40ULL << 30, "python3"}});
    EXPECT_EQ(shared.status, Status::pass);
    bool listed = false;
    for (const Evidence& evidence : shared.evidence)
        listed |= evidence.key == "device0_processes" && contains(evidence.value, "pid 4242");
    EXPECT_TRUE(listed);
    const CheckResult unknown = judge_h200_in_use("default", 1.0, std::nullopt);
    EXPECT_EQ(unknown.status, Status::pass) << "no process list: low free memory alone is not blamed on anyone";
    bool noted = false;
    for (const Evidence& evidence : unknown.evidence)
        noted |= evidence.key == "device0_processes" && contains(evidence.value, "unknown");
    EXPECT_TRUE(noted);
}

TEST(DevicesCheck, does_not_count_gpus_bound_to_other_drivers_or_blame_an_unset_variable) {
    DevicesFixture fixture;
    fixture.kernel_module.pci_devices.push_back({"0000:00:07.0", "vfio-pci"});
    DriverFacts driver;
    driver.device_count = 1;
    driver.devices = {h200()};
    EXPECT_FALSE(contains(fixture.run(driver).message, "of 2")) << "a vfio-pci GPU is not CUDA's";
    fixture.kernel_module.gpus.push_back({"0000:00:08.0", "NVIDIA H200", "GPU-other"});
    const CheckResult result = fixture.run(driver);
    EXPECT_TRUE(contains(result.message, "1 of 2 the driver has are not visible here"));
    EXPECT_FALSE(contains(result.message, "CUDA_VISIBLE_DEVICES"));
}

TEST(DevicesCheck, notes_devices_hidden_by_cuda_visible_devices) {
    DevicesFixture fixture;
    fixture.kernel_module.gpus.push_back({"0000:00:07.0", "NVIDIA H200", "GPU-other"});
    fixture.visible = parse_cuda_visible_devices("0");
    DriverFacts driver;
    driver.device_count = 1;
    driver.devices = {h200()};
    const CheckResult result = fixture.run(driver);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "1 of 2 present hidden"));
}

}  // namespace
}  // namespace cudacheck
