// Each check's verdicts, driven with fixture facts: the code, the status and the key words of the
// remediation for every failure the check recognises.
#include "checks/checks.hpp"
#include "gpu/library_support.hpp"
#include "probes/driver_probe.hpp"
#include "support/test_support.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace cudacheck {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Runs a judge as check `check_id` does, and fails when it raised a code the check does not declare.
template <typename Judge>
CheckResult judge(std::string check_id, Judge&& run) {
    ResultBuilder builder;
    run(builder);
    CheckResult result = std::move(builder).finish(std::move(check_id), std::nullopt);
    test::expect_codes_declared(result);
    return result;
}

const Finding* finding_with(const CheckResult& result, std::string_view code) {
    for (const Finding& finding : result.findings)
        if (finding.code == code) return &finding;
    return nullptr;
}

HostInfo bare_host() {
    HostInfo host;
    host.os_pretty_name = "Ubuntu 24.04.3 LTS";
    host.kernel_release = "6.8.0-45-generic";
    host.architecture = "x86_64";
    host.libc_version = "glibc 2.39";
    return host;
}

KernelModuleFacts loaded_module(std::string version = "580.159.04") {
    KernelModuleFacts facts;
    facts.module = ModuleVersion{std::move(version), true, "x86_64"};
    facts.gpus.push_back({"0000:00:06.0", "NVIDIA H200", "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa"});
    facts.nodes = {{"/dev/nvidiactl", true, true, ""}, {"/dev/nvidia0", true, true, ""}, {"/dev/nvidia-uvm", true, true, ""}};
    facts.pci_devices.push_back({"0000:00:06.0", "nvidia"});
    return facts;
}

DeviceInfo h200(int ordinal = 0) {
    DeviceInfo device;
    device.ordinal = ordinal;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    device.cc_minor = 0;
    device.architecture = "Hopper";
    device.multiprocessors = 132;
    device.total_memory_bytes = 150754820096ULL;
    device.compute_mode = "default";
    device.pci_bus_id = "00000000:00:06.0";
    return device;
}

// --- host.os ---------------------------------------------------------------------------------

TEST(HostOsCheck, passes_and_names_container) {
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result = judge("host.os", [&](ResultBuilder& r) { judge_host_os(host, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "Ubuntu 24.04.3 LTS"));
    EXPECT_TRUE(contains(result.message, "docker container"));
}

TEST(HostOsCheck, fails_under_wsl1) {
    HostInfo host = bare_host();
    host.wsl = "WSL1";
    host.kernel_release = "4.4.0-19041-Microsoft";
    const CheckResult result = judge("host.os", [&](ResultBuilder& r) { judge_host_os(host, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC101");
    EXPECT_TRUE(contains(result.remediation, "wsl --set-version"));
}

// --- driver.kernel_module ------------------------------------------------------------------

TEST(KernelModuleCheck, passes_with_module_gpu_and_accessible_nodes) {
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(loaded_module(), bare_host(), r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "580.159.04"));
    EXPECT_TRUE(contains(result.message, "open"));
}

TEST(KernelModuleCheck, fails_without_module_with_container_hint_in_container) {
    KernelModuleFacts facts;
    HostInfo host = bare_host();
    host.container = "docker";
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC201");
    EXPECT_TRUE(contains(result.remediation, "--gpus all"));
}

TEST(KernelModuleCheck, passes_under_wsl2_with_dxg_and_no_module) {
    KernelModuleFacts facts;
    facts.dxg = DeviceNode{"/dev/dxg", true, true, ""};
    HostInfo host = bare_host();
    host.wsl = "WSL2";
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "/dev/dxg"));
    facts.dxg.reset();
    const CheckResult missing = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, host, r); });
    EXPECT_EQ(missing.code, "CC202");
    EXPECT_TRUE(contains(missing.remediation, "wsl --update"));
}

TEST(KernelModuleCheck, suggests_modprobe_when_gpu_present_but_module_absent) {
    KernelModuleFacts facts;
    facts.pci_devices.push_back({"0000:01:00.0", ""});
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC201");
    EXPECT_TRUE(contains(result.remediation, "modprobe nvidia"));
    EXPECT_TRUE(contains(result.message, "1 NVIDIA GPU(s) on the PCI bus"));
}

TEST(KernelModuleCheck, fails_when_nouveau_drives_the_gpu) {
    KernelModuleFacts facts;
    facts.pci_devices.push_back({"0000:01:00.0", "nouveau"});
    facts.nouveau_loaded = true;
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    ASSERT_NE(finding_with(result, "CC204"), nullptr);
    EXPECT_TRUE(contains(finding_with(result, "CC204")->remediation, "blacklist nouveau"));
    EXPECT_TRUE(contains(finding_with(result, "CC204")->message, "0000:01:00.0"));
}

TEST(KernelModuleCheck, fails_when_device_files_missing) {
    KernelModuleFacts facts = loaded_module();
    facts.nodes = {{"/dev/nvidiactl", false, false, ""}, {"/dev/nvidia-uvm", false, false, ""}};
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC202");
    EXPECT_TRUE(contains(result.message, "/dev/nvidiactl"));
    EXPECT_TRUE(contains(result.message, "/dev/nvidia<N>"));
    EXPECT_FALSE(contains(result.message, "nvidia-uvm")) << "nvidia-uvm is created on first use";
    EXPECT_TRUE(contains(result.remediation, "nvidia-modprobe"));
}

TEST(KernelModuleCheck, fails_when_device_files_not_openable) {
    KernelModuleFacts facts = loaded_module();
    facts.nodes[1] = {"/dev/nvidia0", true, false, "Permission denied"};
    const CheckResult result = judge("driver.kernel_module", [&](ResultBuilder& r) { judge_kernel_module(facts, bare_host(), r); });
    EXPECT_EQ(result.code, "CC203");
    EXPECT_TRUE(contains(result.message, "Permission denied"));
    EXPECT_TRUE(contains(result.remediation, "usermod"));
}

// --- driver.libcuda ------------------------------------------------------------------------

struct LibcudaFixture {
    KernelModuleFacts kernel_module = loaded_module();
    HostInfo host = bare_host();
    VisibleDevicesSpec visible;
    CheckResult run(const DriverFacts& driver) {
        return judge("driver.libcuda", [&](ResultBuilder& r) { judge_libcuda(driver, LibcudaContext{kernel_module, host, visible}, r); });
    }
};

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
    EXPECT_TRUE(contains(result.message, "names no existing GPU (3, GPU-ffff)"));
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

// --- driver.nvml ----------------------------------------------------------------------------

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

// --- cuda.pairing --------------------------------------------------------------------------

TEST(PairingCheck, skips_when_driver_version_unknown) {
    PairingFacts facts{0, "", false, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::skip);
    EXPECT_TRUE(contains(result.skip_reason, "cuDriverGetVersion"));
}

TEST(PairingCheck, native_when_driver_matches_runtime) {
    PairingFacts facts{13000, "580.159.04", false, 13000, NvccVersion{"13.0", "13.0.88"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "native"));
}

TEST(PairingCheck, minor_version_compatible_when_same_major_older_minor) {
    PairingFacts facts{13000, "580.65.06", false, 13010, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "minor-version compatible"));
}

TEST(PairingCheck, insufficient_driver_names_versions_and_minimum) {
    PairingFacts facts{12020, "535.104.05", false, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC401");
    EXPECT_TRUE(contains(result.message, "driver 535.104.05 supports CUDA <= 12.2"));
    EXPECT_TRUE(contains(result.message, "580.65.06"));
    EXPECT_TRUE(contains(result.remediation, "580.65.06"));
    EXPECT_TRUE(contains(result.remediation, "cuda-compat-13-0"));
}

TEST(PairingCheck, forward_compatibility_is_recognised) {
    PairingFacts facts{13000, "580.65.06", true, 13000, std::nullopt};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(contains(result.message, "forward compatibility"));
}

TEST(PairingCheck, warns_when_nvcc_major_newer_than_driver) {
    PairingFacts facts{12080, "570.86.15", false, 12080, NvccVersion{"13.0", "13.0.88"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC402");
    EXPECT_TRUE(contains(result.remediation, "580"));
}

TEST(PairingCheck, notes_newer_nvcc_minor_without_warning) {
    PairingFacts facts{13000, "580.65.06", false, 13000, NvccVersion{"13.1", "13.1.80"}};
    const CheckResult result = judge("cuda.pairing", [&](ResultBuilder& r) { judge_pairing(facts, r); });
    EXPECT_EQ(result.status, Status::pass);
    bool noted = false;
    for (const Evidence& evidence : result.evidence) noted |= evidence.key == "nvcc_note" && contains(evidence.value, "JIT");
    EXPECT_TRUE(noted);
}

// --- cuda.devices --------------------------------------------------------------------------

struct DevicesFixture {
    KernelModuleFacts kernel_module = loaded_module();
    VisibleDevicesSpec visible;
    NvmlFacts nvml;
    CheckResult run(const DriverFacts& driver, int runtime = 13000) {
        return judge("cuda.devices", [&](ResultBuilder& r) { judge_devices(listing_from_driver(driver), DevicesContext{kernel_module, visible, runtime, &nvml}, r); });
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
CheckResult judge_h200_in_use(std::string compute_mode, double free_gib, std::optional<std::vector<GpuProcess>> processes) {
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
    const CheckResult result = judge_h200_in_use("exclusive_process", 130.0, std::vector<GpuProcess>{{4242, 2ULL << 30, "python3"}});
    EXPECT_EQ(result.code, "CC416");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_TRUE(contains(result.message, "pid 4242 python3 (2.0 GiB)")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "kill 4242")) << result.remediation;
    EXPECT_TRUE(contains(result.remediation, "-c DEFAULT")) << result.remediation;
    EXPECT_EQ(judge_h200_in_use("exclusive_process", 139.0, std::vector<GpuProcess>{}).status, Status::pass) << "exclusive but idle";
}

TEST(DevicesCheck, warns_when_other_processes_leave_under_a_quarter_of_memory_free) {
    const CheckResult result = judge_h200_in_use(
        "default", 10.0, std::vector<GpuProcess>{{77, std::nullopt, ""}, {4242, 120ULL << 30, "python3"}, {5, 1ULL << 30, "a"}, {6, 1ULL << 30, "b"}});
    EXPECT_EQ(result.code, "CC417");
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_TRUE(contains(result.message, "10.0 GiB free of 140.4 GiB")) << result.message;
    EXPECT_TRUE(contains(result.message, "held by pid 4242 python3 (120.0 GiB),")) << "largest first: " << result.message;
    EXPECT_TRUE(contains(result.message, "and 1 more")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "4242")) << result.remediation;
}

TEST(DevicesCheck, only_lists_other_processes_when_enough_memory_is_free_or_they_are_unknown) {
    const CheckResult shared = judge_h200_in_use("default", 100.0, std::vector<GpuProcess>{{4242, 40ULL << 30, "python3"}});
    EXPECT_EQ(shared.status, Status::pass);
    bool listed = false;
    for (const Evidence& evidence : shared.evidence) listed |= evidence.key == "device0_processes" && contains(evidence.value, "pid 4242");
    EXPECT_TRUE(listed);
    const CheckResult unknown = judge_h200_in_use("default", 1.0, std::nullopt);
    EXPECT_EQ(unknown.status, Status::pass) << "no process list: low free memory alone is not blamed on anyone";
    bool noted = false;
    for (const Evidence& evidence : unknown.evidence) noted |= evidence.key == "device0_processes" && contains(evidence.value, "unknown");
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

// --- toolkit.nvcc --------------------------------------------------------------------------

TEST(ToolkitCheck, warns_with_directory_to_add_when_nvcc_not_on_path) {
    ToolkitFacts facts;
    facts.toolkits.push_back({"/usr/local/cuda-12.4", "12.4.1", "/usr/local/cuda-12.4/bin/nvcc", {"/usr/local/cuda-12.4"}});
    facts.used_nvcc = "/usr/local/cuda-12.4/bin/nvcc";
    facts.nvcc_version = NvccVersion{"12.4", "12.4.131"};
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC302");
    EXPECT_TRUE(contains(result.remediation, "export PATH=/usr/local/cuda-12.4/bin:$PATH"));
}

TEST(ToolkitCheck, warns_when_no_toolkit_anywhere) {
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(ToolkitFacts{}, r); });
    EXPECT_EQ(result.code, "CC301");
    EXPECT_EQ(result.status, Status::warn);
}

TEST(ToolkitCheck, warns_when_nvcc_does_not_run) {
    ToolkitFacts facts;
    facts.path_nvcc = facts.used_nvcc = "/opt/broken/bin/nvcc";
    facts.nvcc_failure = "exited with status 127";
    const CheckResult result = judge("toolkit.nvcc", [&](ResultBuilder& r) { judge_toolkits(facts, r); });
    EXPECT_EQ(result.code, "CC303");
    EXPECT_TRUE(contains(result.message, "status 127"));
}

// --- env.variables -------------------------------------------------------------------------

CheckResult judge_env(std::map<std::string, std::string, std::less<>> variables, const ToolkitFacts& toolkits = {}) {
    const Environment environment(std::move(variables));
    return judge("env.variables", [&](ResultBuilder& r) { judge_environment(environment, toolkits, r); });
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
    const CheckResult result = judge_env({{"CUBLAS_WORKSPACE_CONFIG", ":4096:8:16:8"}, {"CUDA_MODULE_LOADING", "EAGER"},
                                          {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_LAUNCH_BLOCKING", "0"}});
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
    const CheckResult result = judge_env({{"LD_LIBRARY_PATH", tree.path() + "/cuda/lib64:" + tree.path() + "/cuda/lib64/stubs:/nonexistent"}});
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

// ---------------------------------------------------------------------------------------------
// PTX JIT across CUDA versions (CC511)

TEST(PtxJit, needs_a_driver_of_at_least_the_ptx_cuda_version) {
    EXPECT_TRUE(driver_can_jit({13, 0}, {13, 0}));
    EXPECT_TRUE(driver_can_jit({12, 4}, {13, 0}));
    EXPECT_FALSE(driver_can_jit({13, 1}, {13, 0})) << "minor version compatibility does not cover PTX";
    EXPECT_FALSE(driver_can_jit({13, 0}, {12, 9}));
}

TEST(PtxJit, names_both_versions_and_the_minimum_driver_when_too_new) {
    const CheckResult result = judge("nvrtc.compile", [](ResultBuilder& builder) {
        add_ptx_too_new(builder, "the kernel NVRTC 12.4 compiled for compute_90", {12, 4}, {12, 2}, "use the NVRTC of the driver's CUDA version");
    });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC511");
    EXPECT_TRUE(contains(result.message, "CUDA 12.4")) << result.message;
    EXPECT_TRUE(contains(result.message, "(CUDA 12.2)")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "550.54.14")) << "CUDA 12.4's minimum driver: " << result.remediation;
    EXPECT_TRUE(contains(result.remediation, "use the NVRTC of the driver's CUDA version")) << result.remediation;
}

// ---------------------------------------------------------------------------------------------
// A library that cannot be loaded: what the copies elsewhere mean for the fix (CC505)

LibraryFacts cublas_copies(std::vector<LibraryCopy> copies) {
    LibraryFacts facts;
    LibraryLocation location;
    location.family = find_library_family("cuBLAS");
    location.copies = std::move(copies);
    facts.libraries.push_back(location);
    return facts;
}

TEST(LibraryCopies, names_the_directory_to_add_when_a_copy_of_the_soname_exists) {
    const LibraryFacts facts = cublas_copies(
        {{"libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", "", "12.4.5.8", "", LibraryOrigin::system},
         {"libcublas.so.13", "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublas.so.13", "", "13.1.0.3", "nvidia-cublas", LibraryOrigin::pip_wheel}});
    const gpu::CopiesAdvice advice = gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_EQ(advice.copies.size(), 2u);
    EXPECT_TRUE(contains(advice.remediation, "export LD_LIBRARY_PATH=/venv/lib/python3.12/site-packages/nvidia/cu13/lib:")) << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "ldconfig")) << advice.remediation;
}

TEST(LibraryCopies, asks_for_the_right_major_when_only_others_exist_and_ignores_other_libraries) {
    const LibraryFacts facts = cublas_copies({{"libcublas.so.12", "/usr/lib/x86_64-linux-gnu/libcublas.so.12", "", "12.4.5.8", "", LibraryOrigin::system}});
    const gpu::CopiesAdvice advice = gpu::advise_on_copies(facts, "cuBLAS", "libcublas.so.13", "the libcublas-13-0 package");
    EXPECT_TRUE(contains(advice.remediation, "Only libcublas.so.12")) << advice.remediation;
    EXPECT_TRUE(contains(advice.remediation, "install the libcublas-13-0 package")) << advice.remediation;
    const gpu::CopiesAdvice none = gpu::advise_on_copies(facts, "cuFFT", "libcufft.so.12", "the libcufft-13-0 package");
    EXPECT_TRUE(none.copies.empty());
    EXPECT_TRUE(none.remediation.empty());
}

// --- device.health ------------------------------------------------------------------------

// A healthy H200 as NVML describes it: ECC on without errors, no remaps, idle, link at maximum.
NvmlDeviceHealth healthy_h200() {
    NvmlDeviceHealth gpu;
    gpu.name = "NVIDIA H200";
    gpu.uuid = "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa";
    gpu.pci_bus_id = "00000000:00:06.0";
    gpu.ecc_current = gpu.ecc_pending = true;
    gpu.ecc_corrected_volatile = gpu.ecc_uncorrected_volatile = gpu.ecc_corrected_aggregate = gpu.ecc_uncorrected_aggregate = 0;
    gpu.remapped_rows_corrected = gpu.remapped_rows_uncorrected = 0;
    gpu.remap_pending = gpu.remap_failed = false;
    gpu.clocks_event_reasons = clocks_event::gpu_idle;
    gpu.temperature_c = 31;
    gpu.power_mw = 76000;
    gpu.power_limit_mw = 700000;
    gpu.pcie_generation = gpu.pcie_max_generation = 5;
    gpu.pcie_width = gpu.pcie_max_width = 16;
    gpu.persistence_mode = true;
    gpu.compute_mode = "default";
    gpu.mig_current = gpu.mig_pending = false;
    return gpu;
}

CheckResult judge_gpu(const NvmlDeviceHealth& gpu) {
    return judge("device.health", [&](ResultBuilder& r) { judge_health({gpu}, {h200()}, r); });
}

TEST(HealthCheck, passes_a_healthy_gpu_and_names_its_cuda_ordinal) {
    const CheckResult result = judge_gpu(healthy_h200());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "1 GPU(s) healthy")) << result.message;
    EXPECT_EQ(result.metrics.front().name, "gpu0.temperature");
    bool labelled = false;
    for (const Evidence& evidence : result.evidence) labelled |= evidence.key == "gpu0" && contains(evidence.value, "CUDA device 0");
    EXPECT_TRUE(labelled);
}

TEST(HealthCheck, fails_on_failed_or_pending_row_remaps_and_pending_retirement) {
    NvmlDeviceHealth failed = healthy_h200();
    failed.remap_failed = true;
    failed.remapped_rows_uncorrected = 8;
    EXPECT_EQ(judge_gpu(failed).code, "CC420");
    EXPECT_TRUE(contains(judge_gpu(failed).remediation, "RMA"));
    NvmlDeviceHealth pending = healthy_h200();
    pending.remap_pending = true;
    EXPECT_EQ(judge_gpu(pending).code, "CC421");
    EXPECT_TRUE(contains(judge_gpu(pending).remediation, "nvidia-smi -r -i 0"));
    NvmlDeviceHealth volta = healthy_h200();  // before Ampere: page retirement instead of remapping
    volta.remapped_rows_corrected.reset();
    volta.retired_pages_single_bit = 2;
    volta.retired_pages_double_bit = 1;
    volta.retirement_pending = true;
    EXPECT_EQ(judge_gpu(volta).code, "CC422");
}

TEST(HealthCheck, fails_at_dcgms_retired_page_limit_and_on_uncorrectable_ecc_errors) {
    NvmlDeviceHealth worn = healthy_h200();
    worn.retired_pages_single_bit = 62;
    worn.retired_pages_double_bit = 0;
    worn.retirement_pending = false;
    EXPECT_EQ(judge_gpu(worn).status, Status::pass) << "62 is below the limit";
    worn.retired_pages_double_bit = 1;
    EXPECT_EQ(judge_gpu(worn).code, "CC423");
    NvmlDeviceHealth ecc = healthy_h200();
    ecc.ecc_uncorrected_volatile = 3;
    ecc.ecc_uncorrected_aggregate = 5;
    const CheckResult result = judge_gpu(ecc);
    EXPECT_EQ(result.code, "CC424");
    EXPECT_TRUE(contains(result.message, "3 uncorrectable ECC error(s)")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "xid")) << result.remediation;
    NvmlDeviceHealth corrected_only = healthy_h200();
    corrected_only.ecc_corrected_volatile = 1000;
    EXPECT_EQ(judge_gpu(corrected_only).status, Status::pass) << "corrected errors are what ECC is for";
}

TEST(HealthCheck, warns_on_hardware_slowdown_and_decodes_the_reasons) {
    NvmlDeviceHealth hot = healthy_h200();
    hot.clocks_event_reasons = clocks_event::hw_thermal_slowdown | clocks_event::sw_power_cap;
    hot.temperature_c = 91;
    const CheckResult result = judge_gpu(hot);
    EXPECT_EQ(result.code, "CC425");
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_TRUE(contains(result.message, "HW thermal slowdown at 91 C")) << result.message;
    EXPECT_FALSE(contains(result.message, "SW power cap")) << "a power cap under load is normal";
    EXPECT_EQ(describe_clocks_event_reasons(0), "none");
    EXPECT_EQ(describe_clocks_event_reasons(0x1 | 0x200), "GPU idle, other (0x200)");
}

TEST(HealthCheck, warns_on_a_narrow_link_always_and_a_slow_one_only_when_busy) {
    NvmlDeviceHealth narrow = healthy_h200();
    narrow.pcie_width = 8;
    const CheckResult result = judge_gpu(narrow);
    EXPECT_EQ(result.code, "CC426");
    EXPECT_TRUE(contains(result.message, "gen 5 x8, below the maximum gen 5 x16")) << result.message;
    NvmlDeviceHealth idle_gen1 = healthy_h200();
    idle_gen1.pcie_generation = 1;
    EXPECT_EQ(judge_gpu(idle_gen1).status, Status::pass) << "idle GPUs drop the link generation to save power";
    idle_gen1.clocks_event_reasons = 0;
    EXPECT_EQ(judge_gpu(idle_gen1).code, "CC426");
}

TEST(HealthCheck, warns_when_persistence_mode_is_off) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.persistence_mode = false;
    const CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.code, "CC427");
    EXPECT_TRUE(contains(result.remediation, "nvidia-persistenced"));
}

}  // namespace
}  // namespace cudacheck
