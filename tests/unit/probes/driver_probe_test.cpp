// The driver probe's pure helpers (probes/driver_probe): versions, UUIDs, PCI bus ids, device rates.
#include "support/fixtures.hpp"

#include "probes/driver_probe.hpp"
#include "probes/kernel_module_probe.hpp"
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace cudacheck;
using cudacheck::test::fixture;

// ---------------------------------------------------------------------------------------------
// Driver probe helpers

TEST(LibraryVersion, reads_driver_version_when_versioned_file_name) {
    EXPECT_EQ(library_version_from_path("/usr/local/nvidia/lib64/libcuda.so.580.159.04", "libcuda.so."), "580.159.04");
    EXPECT_EQ(library_version_from_path("/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05", "libcuda.so."),
              "535.104.05");
}

TEST(LibraryVersion, returns_empty_when_soname_major_only) {
    EXPECT_EQ(library_version_from_path("libcuda.so.1", "libcuda.so."), "");
    EXPECT_EQ(library_version_from_path("/usr/lib64/libcuda.so.1", "libcuda.so."), "");
}

TEST(LibraryVersion, returns_empty_when_unversioned_name) {
    EXPECT_EQ(library_version_from_path("/x/libcuda.so", "libcuda.so."), "");
}

TEST(LibraryVersion, returns_empty_when_other_library) {
    EXPECT_EQ(library_version_from_path("/usr/lib/libnvidia-ml.so.580.159.04", "libcuda.so."), "");
}

TEST(GpuUuid, formats_like_proc_information_when_h200_bytes) {
    const unsigned char bytes[16] = {0x2a, 0x36, 0x94, 0x1f, 0xb4, 0x1a, 0xb6, 0x0b,
                                     0x00, 0x06, 0x61, 0xeb, 0xcd, 0x2e, 0xc0, 0xaa};
    const std::string uuid = format_gpu_uuid(bytes);
    EXPECT_EQ(uuid, "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa");
    // The driver API and /proc spell the same GPU the same way.
    EXPECT_EQ(uuid, parse_gpu_information(fixture("proc/gpus-information-h200.txt")).uuid);
}

TEST(GpuUuid, pads_with_zeros_when_bytes_zero) {
    const unsigned char bytes[16] = {};
    EXPECT_EQ(format_gpu_uuid(bytes), "GPU-00000000-0000-0000-0000-000000000000");
}

DeviceInfo h200() {
    DeviceInfo device;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    device.cc_minor = 0;
    device.multiprocessors = 132;
    device.sm_clock_khz = 1980000;
    device.memory_clock_khz = 3201000;
    device.memory_bus_width_bits = 6144;
    return device;
}

TEST(PciBusId, normalizes_driver_api_and_sysfs_forms_to_nvidia_smi_form) {
    EXPECT_EQ(normalize_pci_bus_id("0000:00:06.0"), "00000000:00:06.0");
    EXPECT_EQ(normalize_pci_bus_id("0000:1a:00.0"), "00000000:1A:00.0");
    EXPECT_EQ(normalize_pci_bus_id("00000000:3B:00.0"), "00000000:3B:00.0");
    EXPECT_EQ(normalize_pci_bus_id("not a bus id"), "not a bus id");
}

TEST(DeviceRates, derives_bandwidth_and_fp32_peak_when_h200) {
    DeviceInfo device = h200();
    derive_device_rates(device);
    ASSERT_TRUE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_NEAR(*device.theoretical_bandwidth_gbps, 4916.736, 1e-6);  // 2 * 3.201 GHz * 768 bytes
    ASSERT_TRUE(device.fp32_peak_tflops.has_value());
    EXPECT_NEAR(*device.fp32_peak_tflops, 66.90816, 1e-9);  // 132 SMs * 128 lanes * 2 FLOP * 1.98 GHz
}

TEST(DeviceRates, gives_no_fp32_peak_when_compute_capability_unknown) {
    DeviceInfo device = h200();
    device.cc_major = 2;
    device.cc_minor = 0;
    derive_device_rates(device);
    EXPECT_FALSE(device.fp32_peak_tflops.has_value());
    ASSERT_TRUE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_NEAR(*device.theoretical_bandwidth_gbps, 4916.736, 1e-6);
}

TEST(DeviceRates, gives_no_bandwidth_when_memory_clock_zero) {
    DeviceInfo device = h200();
    device.memory_clock_khz = 0;
    derive_device_rates(device);
    EXPECT_FALSE(device.theoretical_bandwidth_gbps.has_value());
    EXPECT_TRUE(device.fp32_peak_tflops.has_value());
}

}  // namespace
