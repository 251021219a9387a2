// The bindings of the driver's own libraries (bind/nvml, bind/cuda_driver): against the fake driver
// (tests/support/fake_libcuda.cpp, fake_nvml.cpp), and against copies of it that lack one export,
// as an older or damaged driver would. The probes open these libraries by soname, so what a
// missing export changes for them is seen end to end, through the binary.
#include "bind/cuda_driver.hpp"
#include "bind/dynamic_library.hpp"
#include "bind/nvml.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "support/test_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::contains;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();
const std::string fake_libcuda = fake_driver_dir + "/libcuda.so.1";
const std::string fake_nvml = fake_driver_dir + "/libnvidia-ml.so.1";

// A copy of the library `from` at `to` that no longer exports `symbol`: its name in the string
// tables is spelled with another first letter, so the loader's lookup by name finds nothing (the
// hash tables still point at it, and the name compared there differs). Everything else is intact.
void copy_without_export(const std::string& from, const std::string& to, const std::string& symbol) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 0u) << from;
    const std::string name = std::string(1, '\0') + symbol + std::string(1, '\0');
    std::size_t renamed = 0;
    for (std::size_t at = bytes.find(name); at != std::string::npos; at = bytes.find(name, at + name.size())) {
        bytes[at + 1] = bytes[at + 1] == 'x' ? 'y' : 'x';
        ++renamed;
    }
    ASSERT_GT(renamed, 0u) << symbol << " is not in " << from;
    std::ofstream(to, std::ios::binary) << bytes;
}

// A driver directory for LD_LIBRARY_PATH: the fake libcuda and NVML, one of them lacking `symbol`.
std::string driver_without(const test::TempDir& dir, const std::string& library, const std::string& symbol) {
    const std::string directory = dir.path() + "/driver";
    fs::create_directories(directory);
    for (const std::string& fake : {fake_libcuda, fake_nvml}) {
        const std::string to = directory + "/" + fs::path(fake).filename().string();
        if (fs::path(fake).filename() == library) copy_without_export(fake, to, symbol);
        else fs::copy_file(fake, to);
    }
    return directory;
}

nlohmann::json run_report(const test::TempDir& dir, const std::string& driver_directory,
                          std::vector<std::string> arguments) {
    const std::string path = dir.path() + "/report.json";
    arguments.insert(arguments.end(), {"-o", path, "-q"});
    const test::BinaryRun run = test::run_cudacheck(arguments, {{"LD_LIBRARY_PATH", driver_directory}});
    EXPECT_TRUE(fs::exists(path)) << run.output;
    if (!fs::exists(path)) return {};
    nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    return report;
}

// --- NVML ------------------------------------------------------------------------------------

TEST(NvmlBinding, binds_every_required_entry_point_of_the_fake_and_leaves_absent_optional_ones_empty) {
    const DynamicLibrary library = DynamicLibrary::open(fake_nvml);
    ASSERT_TRUE(library.ok()) << library.error();
    NvmlApi api;
    EXPECT_EQ(bind_symbols(library, nvml_symbols, api), std::vector<std::string>{});
    EXPECT_NE(api.init, nullptr);
    EXPECT_NE(api.device_get_memory_bus_width, nullptr);
    EXPECT_NE(api.device_get_compute_processes, nullptr) << "the _v3 name";
    EXPECT_NE(api.device_get_field_values, nullptr);
    EXPECT_NE(api.device_get_fabric_info_v, nullptr);
    EXPECT_NE(api.device_get_nvlink_error_counter, nullptr);
    EXPECT_NE(api.device_get_unrepairable_memory, nullptr) << "the _v1 name";
    EXPECT_NE(api.device_get_clock_info, nullptr) << "the SM clock of each timed section";
    // The fake, like a driver without these queries, lacks them.
    EXPECT_EQ(api.device_get_p2p_status, nullptr);
    EXPECT_EQ(api.device_get_nvlink_remote_pci, nullptr);
}

TEST(NvmlBinding, names_the_one_required_entry_point_a_library_lacks) {
    test::TempDir dir;
    const std::string copy = dir.path() + "/libnvidia-ml.so.1";
    copy_without_export(fake_nvml, copy, "nvmlSystemGetCudaDriverVersion_v2");
    const DynamicLibrary library = DynamicLibrary::open(copy);
    ASSERT_TRUE(library.ok()) << library.error();
    NvmlApi api;
    EXPECT_EQ(bind_symbols(library, nvml_symbols, api), std::vector<std::string>{"nvmlSystemGetCudaDriverVersion_v2"});
    EXPECT_EQ(api.system_get_cuda_driver_version, nullptr);
    EXPECT_NE(api.system_get_driver_version, nullptr) << "the rest is bound";
}

TEST(NvmlBinding, a_missing_required_entry_point_is_one_finding_of_driver_nvml_naming_it) {
    test::TempDir dir;
    const auto report = run_report(dir, driver_without(dir, "libnvidia-ml.so.1", "nvmlSystemGetCudaDriverVersion_v2"),
                                   {"--level", "quick", "--only", "driver.nvml"});
    const nlohmann::json* nvml = test::find_check(report, "driver.nvml");
    ASSERT_NE(nvml, nullptr) << report.dump(1);
    EXPECT_EQ((*nvml)["code"], "CC222") << nvml->dump();
    EXPECT_EQ((*nvml)["findings"].size(), 1u) << nvml->dump();
    // Named in the message or its evidence (the message is a headline; a list of symbols may go to evidence).
    EXPECT_TRUE(contains(nvml->dump(), "nvmlSystemGetCudaDriverVersion_v2")) << nvml->dump();
}

// NVML lists the devices at --level quick; without nvmlDeviceGetMemoryBusWidth (older drivers) the
// bus width and the bandwidth derived from it stay unknown, and the rest is as with the whole fake.
TEST(NvmlBinding, a_missing_optional_entry_point_leaves_only_its_fact_unknown) {
    test::TempDir whole_dir;
    test::TempDir older_dir;
    const auto whole =
        run_report(whole_dir, fake_driver_dir, {"--level", "quick", "--only", "driver.nvml,cuda.devices"});
    const auto older =
        run_report(older_dir, driver_without(older_dir, "libnvidia-ml.so.1", "nvmlDeviceGetMemoryBusWidth"),
                   {"--level", "quick", "--only", "driver.nvml,cuda.devices"});
    ASSERT_EQ(whole["devices"].size(), 1u) << whole.dump(1);
    ASSERT_EQ(older["devices"].size(), 1u) << older.dump(1);
    EXPECT_EQ(whole["devices"][0]["memory_bus_width_bits"], 6144);
    EXPECT_EQ(older["devices"][0]["memory_bus_width_bits"], 0);
    EXPECT_FALSE(whole["devices"][0]["theoretical_memory_bandwidth_gbps"].is_null());
    EXPECT_TRUE(older["devices"][0]["theoretical_memory_bandwidth_gbps"].is_null());
    for (const char* same : {"name", "uuid", "pci_bus_id", "compute_capability", "multiprocessors"})
        EXPECT_EQ(whole["devices"][0][same], older["devices"][0][same]) << same;
    for (const char* id : {"driver.nvml", "cuda.devices"})
        EXPECT_EQ((*test::find_check(whole, id))["status"], (*test::find_check(older, id))["status"]) << id;
}

// device.health asks every optional query it has; one the driver lacks leaves that field unknown.
TEST(NvmlBinding, health_leaves_the_field_of_an_absent_query_unknown) {
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open(fake_nvml);
    ASSERT_TRUE(nvml.library.ok()) << nvml.library.error();
    ASSERT_TRUE(bind_symbols(nvml.library, nvml_symbols, nvml.api).empty());
    nvml.init_result = nvml.api.init();
    ASSERT_TRUE(nvml.initialised());
    DeviceInfo gpu;
    gpu.nvml_index = 0;
    nvml.devices.push_back(gpu);

    const std::vector<NvmlDeviceHealth> whole = collect_nvml_health(nvml);
    ASSERT_EQ(whole.size(), 1u);
    EXPECT_EQ(whole[0].temperature_c, 34u);
    EXPECT_EQ(whole[0].power_mw, 72000u);

    nvml.api.device_get_temperature = nullptr;  // as bind_symbols leaves it for a driver without it
    const std::vector<NvmlDeviceHealth> older = collect_nvml_health(nvml);
    ASSERT_EQ(older.size(), 1u);
    EXPECT_FALSE(older[0].temperature_c.has_value());
    EXPECT_EQ(older[0].power_mw, 72000u) << "the other queries are still asked";
}

// A driver before r550 has only the unversioned fabric query: its state and status still count,
// with no health mask.
TEST(NvmlBinding, health_reads_the_fabric_through_the_unversioned_query_on_a_driver_before_r550) {
    test::TempDir dir;
    const std::string copy = dir.path() + "/libnvidia-ml.so.1";
    copy_without_export(fake_nvml, copy, "nvmlDeviceGetGpuFabricInfoV");
    NvmlFacts nvml;
    nvml.library = DynamicLibrary::open(copy);
    ASSERT_TRUE(nvml.library.ok()) << nvml.library.error();
    ASSERT_TRUE(bind_symbols(nvml.library, nvml_symbols, nvml.api).empty());
    EXPECT_EQ(nvml.api.device_get_fabric_info_v, nullptr);
    ASSERT_NE(nvml.api.device_get_fabric_info, nullptr);
    nvml.init_result = nvml.api.init();
    DeviceInfo gpu;
    gpu.nvml_index = 0;
    nvml.devices.push_back(gpu);
    ::setenv("FAKE_NVML_FABRIC", "2,0,0,0,0", 1);  // in progress
    const std::vector<NvmlDeviceHealth> health = collect_nvml_health(nvml);
    ::unsetenv("FAKE_NVML_FABRIC");
    ASSERT_EQ(health.size(), 1u);
    ASSERT_TRUE(health[0].fabric.has_value());
    EXPECT_EQ(health[0].fabric->state, nvml::NVML_GPU_FABRIC_STATE_IN_PROGRESS);
    EXPECT_FALSE(health[0].fabric->health_mask.has_value());
}

TEST(NvmlReturnName, names_known_codes_as_nvml_h_does_and_numbers_others) {
    EXPECT_EQ(nvml_return_name(nvml::NVML_SUCCESS), "NVML_SUCCESS");
    EXPECT_EQ(nvml_return_name(18), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
    EXPECT_EQ(nvml_return_name(9), "NVML_ERROR_DRIVER_NOT_LOADED");
    EXPECT_EQ(nvml_return_name(999), "NVML_ERROR_UNKNOWN");
    EXPECT_EQ(nvml_return_name(12345), "NVML_ERROR_12345");
}

// --- the CUDA driver API -----------------------------------------------------------------------

TEST(CudaDriverBinding, binds_every_required_entry_point_of_the_fake_and_leaves_absent_optional_ones_empty) {
    const DynamicLibrary library = DynamicLibrary::open(fake_libcuda);
    ASSERT_TRUE(library.ok()) << library.error();
    CudaDriverApi api;
    EXPECT_EQ(bind_symbols(library, cuda_driver_symbols, api), std::vector<std::string>{});
    EXPECT_NE(api.init, nullptr);
    EXPECT_NE(api.device_get_uuid, nullptr);
    // The fake has no context or module API: optional for describing the driver...
    EXPECT_EQ(api.primary_ctx_retain, nullptr);
    EXPECT_EQ(api.module_load_data, nullptr);
    // ...required for loading code, each named in table order.
    EXPECT_EQ(bind_symbols(library, cuda_module_symbols, api),
              (std::vector<std::string>{"cuModuleLoadData", "cuModuleGetFunction", "cuModuleUnload",
                                        "cuLaunchKernel"}));
    EXPECT_NE(api.get_error_name, nullptr);
}

TEST(CudaDriverBinding, names_the_one_required_entry_point_a_library_lacks) {
    test::TempDir dir;
    const std::string copy = dir.path() + "/libcuda.so.1";
    copy_without_export(fake_libcuda, copy, "cuDeviceTotalMem_v2");
    const DynamicLibrary library = DynamicLibrary::open(copy);
    ASSERT_TRUE(library.ok()) << library.error();
    CudaDriverApi api;
    EXPECT_EQ(bind_symbols(library, cuda_driver_symbols, api), std::vector<std::string>{"cuDeviceTotalMem_v2"});
}

TEST(CudaDriverBinding, a_missing_required_entry_point_is_one_finding_of_driver_libcuda_naming_it) {
    test::TempDir dir;
    const auto report =
        run_report(dir, driver_without(dir, "libcuda.so.1", "cuDeviceTotalMem_v2"), {"--only", "driver.libcuda"});
    const nlohmann::json* libcuda = test::find_check(report, "driver.libcuda");
    ASSERT_NE(libcuda, nullptr) << report.dump(1);
    EXPECT_EQ((*libcuda)["code"], "CC214") << libcuda->dump();
    EXPECT_EQ((*libcuda)["findings"].size(), 1u) << libcuda->dump();
    EXPECT_TRUE(contains(libcuda->dump(), "cuDeviceTotalMem_v2")) << libcuda->dump();
    EXPECT_FALSE(contains(libcuda->dump(), "cuDeviceGetName")) << "only the missing one is named";
}

// Without cuDeviceGetUuid_v2 the devices are described, their UUID unknown.
TEST(CudaDriverBinding, a_missing_optional_entry_point_leaves_only_its_fact_unknown) {
    test::TempDir whole_dir;
    test::TempDir older_dir;
    const auto whole = run_report(whole_dir, fake_driver_dir, {"--only", "driver.libcuda,cuda.devices"});
    const auto older = run_report(older_dir, driver_without(older_dir, "libcuda.so.1", "cuDeviceGetUuid_v2"),
                                  {"--only", "driver.libcuda,cuda.devices"});
    ASSERT_EQ(whole["devices"].size(), 1u) << whole.dump(1);
    ASSERT_EQ(older["devices"].size(), 1u) << older.dump(1);
    EXPECT_EQ(whole["devices"][0]["uuid"], "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
    EXPECT_TRUE(older["devices"][0]["uuid"].is_null()) << older["devices"][0].dump();
    for (const char* same : {"name", "pci_bus_id", "compute_capability", "multiprocessors", "source"})
        EXPECT_EQ(whole["devices"][0][same], older["devices"][0][same]) << same;
    for (const char* id : {"driver.libcuda", "cuda.devices"})
        EXPECT_EQ((*test::find_check(whole, id))["status"], (*test::find_check(older, id))["status"]) << id;
}

TEST(CuResultName, names_known_codes_as_cuda_h_does_and_numbers_others) {
    EXPECT_EQ(cu_result_name(CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(cu_result_name(100), "CUDA_ERROR_NO_DEVICE");
    EXPECT_EQ(cu_result_name(0), "CUDA_SUCCESS");
    EXPECT_EQ(cu_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
    EXPECT_EQ(cu_result_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
    EXPECT_EQ(cu_result_name(12345), "CUDA_ERROR_12345");
}

TEST(CudaDriverFailure, names_the_call_and_status_and_gives_the_fix_for_it) {
    const CudaDriverFailure failure(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "cuModuleLoadData",
                                    describe_status("CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
                                                    CUDA_ERROR_JIT_COMPILER_NOT_FOUND));
    EXPECT_STREQ(failure.what(), "cuModuleLoadData failed: CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)");
    EXPECT_EQ(failure.status(), CUDA_ERROR_JIT_COMPILER_NOT_FOUND);
    EXPECT_TRUE(contains(failure.remediation(), "libnvidia-ptxjitcompiler.so.1")) << failure.remediation();
    EXPECT_TRUE(contains(CudaDriver::remediation(CUDA_ERROR_LAUNCH_FAILED), "cuda.pairing"))
        << "a status with no fix of its own";
}

}  // namespace
}  // namespace cudacheck
