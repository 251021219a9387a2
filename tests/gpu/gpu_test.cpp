// GPU tests (label "gpu"): run on a machine with a CUDA device, skipped elsewhere. They check
// cudacheck's driver-API view of each device against the CUDA runtime's own, run the tool's
// kernels built for the configured architectures, and run the binary end to end.
#include "engine/registry.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/memtest.cuh"
#include "kernels/vector_add.cuh"
#include "probes/driver_probe.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

int usable_devices() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

#define REQUIRE_GPU() \
    if (usable_devices() == 0) GTEST_SKIP() << "no usable CUDA device here"

int runtime_attribute(cudaDeviceAttr attribute, int device) {
    int value = -1;
    EXPECT_EQ(cudaDeviceGetAttribute(&value, attribute, device), cudaSuccess);
    return value;
}

TEST(GpuDriverApi, device_facts_equal_runtime_properties) {
    REQUIRE_GPU();
    const DriverFacts driver = collect_driver();
    ASSERT_TRUE(driver.initialised()) << driver.init_error_name;
    ASSERT_EQ(driver.device_count, usable_devices());
    EXPECT_TRUE(driver.device_errors.empty());
    for (const DeviceInfo& device : driver.devices) {
        SCOPED_TRACE(device.ordinal);
        cudaDeviceProp properties{};
        ASSERT_EQ(cudaGetDeviceProperties(&properties, device.ordinal), cudaSuccess);
        EXPECT_EQ(device.name, properties.name);
        EXPECT_EQ(device.cc_major, properties.major);
        EXPECT_EQ(device.cc_minor, properties.minor);
        EXPECT_EQ(device.multiprocessors, properties.multiProcessorCount);
        EXPECT_EQ(device.total_memory_bytes, properties.totalGlobalMem);
        EXPECT_EQ(device.l2_cache_bytes, properties.l2CacheSize);
        EXPECT_EQ(device.memory_bus_width_bits, properties.memoryBusWidth);
        EXPECT_EQ(device.ecc_enabled, properties.ECCEnabled != 0);
        EXPECT_EQ(device.pci_bus_id, fmt::format("{:08X}:{:02X}:{:02X}.0", properties.pciDomainID, properties.pciBusID,
                                                 properties.pciDeviceID));
        EXPECT_EQ(device.sm_clock_khz, runtime_attribute(cudaDevAttrClockRate, device.ordinal));
        EXPECT_EQ(device.memory_clock_khz, runtime_attribute(cudaDevAttrMemoryClockRate, device.ordinal));
        unsigned char uuid[16];
        for (int i = 0; i < 16; ++i) uuid[i] = static_cast<unsigned char>(properties.uuid.bytes[i]);
        EXPECT_EQ(device.uuid, format_gpu_uuid(uuid));
        EXPECT_NE(device.architecture, "unknown");
        EXPECT_TRUE(device.theoretical_bandwidth_gbps.has_value());
    }
}

// Pinned host memory (gpu::allocate_pinned): this process's pages, registered with the driver, that
// the CUDA runtime sees as page-locked host memory and copies through intact.
TEST(GpuPinnedMemory, is_registered_page_locked_host_memory_that_round_trips) {
    REQUIRE_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    const std::size_t bytes = (std::size_t{1} << 20) + 12;  // not a whole number of pages
    const gpu::PinnedBlock block = gpu::allocate_pinned(bytes);
    ASSERT_NE(block.data, nullptr);
    const long page = sysconf(_SC_PAGESIZE);
    EXPECT_EQ(block.mapped, ((bytes + page - 1) / page) * page) << "registered pages, not cudaMallocHost's";
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, block.data), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeHost);  // page-locked; pageable memory is cudaMemoryTypeUnregistered
    gpu::free_pinned(block);

    gpu::PinnedArray<std::uint32_t> source(bytes / 4);
    gpu::PinnedArray<std::uint32_t> back(bytes / 4);
    std::mt19937 generator(7);
    for (std::size_t i = 0; i < source.size(); ++i) source.data()[i] = generator();
    gpu::DeviceArray<std::uint32_t> device(source.size());
    ASSERT_EQ(cudaMemcpy(device.data(), source.data(), source.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(back.data(), device.data(), back.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(std::memcmp(source.data(), back.data(), source.bytes()), 0);
}

TEST(GpuKernels, vector_add_matches_cpu_exactly_on_every_device) {
    REQUIRE_GPU();
    // Not a multiple of the block size, so the tail is covered; random data, poisoned output.
    const std::size_t n = (1u << 22) + 7;
    std::mt19937 generator(20261130);
    std::uniform_real_distribution<float> values(-1e3f, 1e3f);
    std::vector<float> a(n), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = values(generator);
        b[i] = values(generator);
    }
    for (int device = 0; device < usable_devices(); ++device) {
        SCOPED_TRACE(device);
        const kernels::KernelOutcome outcome = kernels::vector_add(device, a.data(), b.data(), c.data(), n);
        ASSERT_TRUE(outcome.ok()) << outcome.failed_step << ": " << outcome.error_name;
        std::size_t wrong = 0;
        // One IEEE single-precision addition on each side: the results must be bit-identical.
        for (std::size_t i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
        EXPECT_EQ(wrong, 0u);
    }
}

TEST(GpuBinary, reports_every_visible_device_with_passing_driver_checks) {
    REQUIRE_GPU();
    test::TempDir dir;
    const test::BinaryRun run = test::run_cudacheck({"--level", "quick", "-o", dir.path() + "/report.json", "-q"});
    EXPECT_FALSE(run.timed_out);
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    for (const char* id : {"driver.kernel_module", "driver.libcuda", "cuda.pairing", "cuda.devices"}) {
        const auto* check = test::find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["status"], "pass") << id << ": " << (*check)["message"];
    }
    ASSERT_EQ(report["devices"].size(), static_cast<std::size_t>(usable_devices()));
    for (int device = 0; device < usable_devices(); ++device) {
        cudaDeviceProp properties{};
        ASSERT_EQ(cudaGetDeviceProperties(&properties, device), cudaSuccess);
        EXPECT_EQ(report["devices"][device]["name"], properties.name);
    }
    EXPECT_EQ(report["exit_code"], run.exit_status);
}

// The facts nvidia-smi shows must be the facts cudacheck reports (same machine, same moment).
TEST(GpuBinary, device_facts_equal_nvidia_smi) {
    REQUIRE_GPU();
    const std::string smi_path =
        sys::find_in_path("nvidia-smi", std::getenv("PATH") != nullptr ? std::getenv("PATH") : "");
    if (smi_path.empty()) GTEST_SKIP() << "nvidia-smi is not installed here";
    const sys::CommandResult query = sys::run_command(
        {smi_path, "--query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total,clocks.max.sm,clocks.max.memory",
         "--format=csv,noheader,nounits"},
        std::chrono::seconds(30));
    ASSERT_EQ(query.exit_status, 0) << query.output;
    test::TempDir dir;
    (void)test::run_cudacheck({"--only", "cuda.devices,driver", "-o", dir.path() + "/report.json", "-q"});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    std::size_t compared = 0;
    for (const std::string& line : sys::split(sys::trim(query.output), '\n')) {
        std::vector<std::string> fields;
        for (const std::string& field : sys::split(line, ',')) fields.emplace_back(sys::trim(field));
        ASSERT_EQ(fields.size(), 8u) << line;
        const auto device = std::find_if(report["devices"].begin(), report["devices"].end(),
                                         [&](const nlohmann::json& d) { return d["uuid"] == fields[2]; });
        if (device == report["devices"].end()) continue;  // hidden from CUDA by CUDA_VISIBLE_DEVICES
        ++compared;
        EXPECT_EQ((*device)["nvml_index"], std::stoi(fields[0]));
        EXPECT_EQ((*device)["name"], fields[1]);
        EXPECT_EQ((*device)["pci_bus_id"], fields[3]);
        EXPECT_EQ(report["versions"]["driver"], fields[4]);
        EXPECT_EQ((*device)["framebuffer_bytes"].get<std::uint64_t>() / (1024 * 1024), std::stoull(fields[5]));
        EXPECT_EQ((*device)["sm_clock_khz"].get<int>() / 1000, std::stoi(fields[6]));
        EXPECT_EQ((*device)["memory_clock_khz"].get<int>() / 1000, std::stoi(fields[7]));
    }
    EXPECT_EQ(compared, report["devices"].size());
}

// device.health reads the same NVML counters and states as nvidia-smi: ECC mode and error counts,
// remapped rows, PCIe link and replays, persistence, compute and MIG modes and MIG devices, the
// recovery action, the fabric state, power limit and temperature must agree for every GPU, and the
// NVLink links with `nvidia-smi nvlink -s` (tests/support/compare_health_with_nvidia_smi.py).
TEST(GpuBinary, device_health_equals_nvidia_smi) {
    REQUIRE_GPU();
    const std::string smi_path =
        sys::find_in_path("nvidia-smi", std::getenv("PATH") != nullptr ? std::getenv("PATH") : "");
    if (smi_path.empty()) GTEST_SKIP() << "nvidia-smi is not installed here";
    test::TempDir dir;
    const sys::CommandResult xml = sys::run_command({smi_path, "-q", "-x"}, std::chrono::seconds(30));
    ASSERT_EQ(xml.exit_status, 0) << xml.output;
    const std::string xml_path = dir.write("nvidia-smi.xml", xml.output);
    // A GPU without NVLink answers with an error and no link lines: then nothing is compared for it.
    const sys::CommandResult links = sys::run_command({smi_path, "nvlink", "-s"}, std::chrono::seconds(30));
    const std::string links_path = dir.write("nvlink-s.txt", links.output);
    const test::BinaryRun run = test::run_cudacheck(
        {"--level", "quick", "--only", "device.health", "-v", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_FALSE(run.timed_out);
    const sys::CommandResult compared =
        sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/compare_health_with_nvidia_smi.py",
                          xml_path, dir.path() + "/report.json", links_path},
                         std::chrono::seconds(60));
    EXPECT_EQ(compared.exit_status, 0) << compared.output;
}

// The per-device checks of a default run (--level standard), from the registry: a new one is tested
// here without an edit.
std::vector<std::string> standard_device_check_ids() {
    std::vector<std::string> ids;
    for (const auto& check : builtin_checks())
        if (check->info().scope == Scope::device && check->info().min_level == Level::standard)
            ids.push_back(check->info().id);
    return ids;
}

// Runs without a GPU: an empty list would instantiate no GpuCheck test and hide every GPU check.
TEST(GpuCheckIds, are_the_per_device_checks_of_a_standard_run) {
    const std::vector<std::string> ids = standard_device_check_ids();
    EXPECT_NE(std::find(ids.begin(), ids.end(), "cuda.kernel"), ids.end());
    EXPECT_EQ(std::find(ids.begin(), ids.end(), "gpu.stress"), ids.end()) << "--level full only";
    EXPECT_EQ(std::find(ids.begin(), ids.end(), "cuda.p2p"), ids.end()) << "over all GPUs, not per device";
}

// Every GPU check passes on a healthy GPU, with no finding, on every visible device.
class GpuCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuCheck, passes_on_every_device) {
    REQUIRE_GPU();
    test::TempDir dir;
    const test::BinaryRun run = test::run_cudacheck({"--only", GetParam(), "-o", dir.path() + "/report.json", "-q"});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    int results = 0;
    for (const auto& check : report["checks"]) {
        if (check["id"] != GetParam()) continue;
        ++results;
        EXPECT_EQ(check["status"], "pass")
            << check["device"] << ": " << check["message"] << " / " << check["remediation"];
        EXPECT_TRUE(check["findings"].empty());
        EXPECT_FALSE(check["device"].is_null());
    }
    EXPECT_EQ(results, usable_devices());
    EXPECT_EQ(run.exit_status, 0) << run.output;
}

INSTANTIATE_TEST_SUITE_P(AllGpuChecks, GpuCheck, ::testing::ValuesIn(standard_device_check_ids()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                             std::string name = param_info.param;
                             std::replace(name.begin(), name.end(), '.', '_');
                             return name;
                         });

// A library the loader finds but cannot load (here: a file that is not ELF first on LD_LIBRARY_PATH)
// fails its own check with CC605 naming the file (it is never opened: the loader would die with
// SIGBUS), and every other GPU check still passes.
struct BrokenCase {
    const char* soname;
    const char* broken_check;
    const char* checks;  // the broken one and others that do not need the library
};
void PrintTo(const BrokenCase& broken, std::ostream* out) { *out << broken.soname; }
class BrokenLibrary : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenLibrary, fails_its_check_and_leaves_the_rest_intact) {
    REQUIRE_GPU();
    const auto [soname, broken_check, checks] = GetParam();
    test::TempDir dir;
    const std::string fake = dir.write(std::string("lib/") + soname, "not a shared object\n");
    const char* path = std::getenv("LD_LIBRARY_PATH");
    const std::string library_path =
        dir.path() + "/lib" + (path != nullptr && *path != '\0' ? std::string(":") + path : "");
    const test::BinaryRun run = test::run_cudacheck({"--only", checks, "-o", dir.path() + "/report.json", "-q"},
                                                    {{"LD_LIBRARY_PATH", library_path}});
    EXPECT_EQ(run.exit_status, 1);
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    for (const auto& check : report["checks"]) {
        if (check["device"].is_null()) continue;
        if (check["id"] == broken_check) {
            EXPECT_EQ(check["status"], "fail");
            EXPECT_EQ(check["code"], "CC605");
            EXPECT_NE(check["message"].get<std::string>().find(fake), std::string::npos) << check["message"];
        } else {
            EXPECT_EQ(check["status"], "pass") << check["id"] << ": " << check["message"];
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    CudnnAndCublas, BrokenLibrary,
                         // cuDNN itself loads cuBLAS, so the cuBLAS case leaves cuDNN out.
    ::testing::Values(BrokenCase{"libcudnn.so.9", "cudnn.conv", "cuda.kernel,cublas.gemm,cudnn.conv,curand.generate"},
                      BrokenCase{"libcublas.so.13", "cublas.gemm",
                                 "cuda.kernel,cublas.gemm,curand.generate,cufft.fft"}),
    [](const auto& info) {
        return std::string(info.param.broken_check).substr(0, std::string(info.param.broken_check).find('.'));
    });

}  // namespace
}  // namespace cudacheck

namespace cudacheck {
namespace {

// A kernel that never returns (test-only fault.gpu_spin, holding the device alone) becomes
// `timeout`; the supervisor kills its process, and the checks queued behind it on the same GPU run
// in a fresh process and pass.
TEST(GpuSupervisor, spinning_kernel_times_out_and_the_gpu_serves_the_next_checks) {
    REQUIRE_GPU();
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run = test::run_cudacheck({"--only", "cuda.devices,fault.gpu_spin,cuda.kernel,cuda.memory",
                                                     "--devices", "0", "--timeout", "5", "-o", path, "-q"},
                                                    {}, test::Build::with_faults);
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_LT(run.wall_ms, 30000.0);
    const auto report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    const auto* spin = test::find_check(report, "fault.gpu_spin");
    ASSERT_NE(spin, nullptr);
    EXPECT_EQ((*spin)["status"], "timeout") << (*spin)["message"];
    EXPECT_EQ((*spin)["code"], "CC903");
    for (const char* id : {"cuda.kernel", "cuda.memory"}) {
        const auto* check = test::find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["status"], "pass") << id << ": " << (*check)["message"];
    }
}

}  // namespace
}  // namespace cudacheck

namespace cudacheck {
namespace {

#define REQUIRE_TWO_GPUS() \
    if (usable_devices() < 2) GTEST_SKIP() << "needs 2 or more CUDA devices; " << usable_devices() << " here"

// cuda.p2p on the real GPUs: one result over all of them, peer access symmetric, every copy
// verified (a corrupted one fails the check), a bandwidth for every ordered pair; on NVLinked GPUs,
// access everywhere.
TEST(GpuMultiDevice, p2p_matrix_is_symmetric_and_every_copy_verified) {
    REQUIRE_TWO_GPUS();
    test::TempDir dir;
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "cuda.p2p", "-v", "-o", dir.path() + "/report.json", "-q"});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    const auto* check = test::find_check(report, "cuda.p2p");
    ASSERT_NE(check, nullptr);
    EXPECT_TRUE((*check)["device"].is_null());
    EXPECT_NE((*check)["status"], "fail") << (*check)["message"] << " / " << (*check)["remediation"];
    EXPECT_NE((*check)["status"], "skip") << (*check)["skip_reason"];
    for (const auto& finding : (*check)["findings"]) EXPECT_NE(finding["code"], "CC513") << finding["message"];
    std::map<std::pair<int, int>, bool> access;
    bool all_nvlink = true;
    for (const auto& item : (*check)["evidence"]) {
        const std::string key = item["key"];
        const std::string value = item["value"];
        if (key == "peer_access")
            for (const std::string& entry : sys::split(value, ',')) {
                int source = -1, destination = -1;
                char answer[8] = {};
                ASSERT_EQ(std::sscanf(std::string(sys::trim(entry)).c_str(), "%d -> %d %7s", &source, &destination,
                                      answer),
                          3)
                    << entry;
                access[{source, destination}] = std::string(answer) == "yes";
            }
        if (key.rfind("link ", 0) == 0 && value.rfind("NVLink", 0) != 0) all_nvlink = false;
    }
    const int n = usable_devices();
    ASSERT_EQ(access.size(), static_cast<std::size_t>(n * (n - 1)));
    for (const auto& [pair, yes] : access) {
        EXPECT_EQ(yes, access.at({pair.second, pair.first})) << pair.first << " -> " << pair.second;
        int runtime = 0;
        ASSERT_EQ(cudaDeviceCanAccessPeer(&runtime, pair.first, pair.second), cudaSuccess);
        EXPECT_EQ(yes, runtime != 0) << pair.first << " -> " << pair.second;
        if (all_nvlink) EXPECT_TRUE(yes) << pair.first << " -> " << pair.second << " is NVLinked";
    }
    int rates = 0;
    for (const auto& metric : (*check)["metrics"])
        if (metric["name"].get<std::string>().rfind("peer_bandwidth_", 0) == 0) {
            ++rates;
            EXPECT_GT(metric["value"].get<double>(), 0.0) << metric["name"];
        }
    EXPECT_EQ(rates, n * (n - 1));
    EXPECT_NE(run.exit_status, 2) << run.output;
}

// nccl.allreduce at --level full: the sum is right on every GPU, bandwidth positive, NCCL named;
// skipped (not failed) where libnccl.so.2 is missing.
TEST(GpuMultiDevice, nccl_allreduce_sum_is_correct_on_every_gpu) {
    REQUIRE_TWO_GPUS();
    test::TempDir dir;
    const test::BinaryRun run = test::run_cudacheck(
        {"--only", "nccl.allreduce", "--level", "full", "-v", "-o", dir.path() + "/report.json", "-q"});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    const auto* check = test::find_check(report, "nccl.allreduce");
    ASSERT_NE(check, nullptr);
    if ((*check)["status"] == "skip" &&
        (*check)["skip_reason"].get<std::string>().find("NCCL is not installed") != std::string::npos)
        GTEST_SKIP() << (*check)["skip_reason"];
    EXPECT_EQ((*check)["status"], "pass") << (*check)["message"] << " / " << (*check)["remediation"];
    EXPECT_TRUE((*check)["findings"].empty());
    EXPECT_NE((*check)["message"].get<std::string>().find("correct on every GPU"), std::string::npos)
        << (*check)["message"];
    bool bus = false;
    for (const auto& metric : (*check)["metrics"])
        if (metric["name"] == "bus_bandwidth") {
            bus = true;
            EXPECT_GT(metric["value"].get<double>(), 0.0);
        }
    EXPECT_TRUE(bus);
    bool nvls_off = false;
    for (const auto& item : (*check)["evidence"]) nvls_off |= item["key"] == "NCCL_NVLS_ENABLE";
    EXPECT_TRUE(nvls_off);
    EXPECT_EQ(run.exit_status, 0) << run.output;
}

// The default run with both new checks through --no-isolation: same results, no deadlock.
TEST(GpuMultiDevice, p2p_runs_without_isolation_alongside_per_device_checks) {
    REQUIRE_TWO_GPUS();
    test::TempDir dir;
    const test::BinaryRun run = test::run_cudacheck(
        {"--only", "cuda.p2p,cuda.memory,cuda.kernel", "--no-isolation", "-o", dir.path() + "/report.json", "-q"});
    EXPECT_FALSE(run.timed_out);
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    const auto* check = test::find_check(report, "cuda.p2p");
    ASSERT_NE(check, nullptr);
    EXPECT_EQ((*check)["status"], "pass") << (*check)["message"];
    EXPECT_EQ(run.exit_status, 0) << run.output;
}

}  // namespace
}  // namespace cudacheck

// --- gpu.stress and gpu.memtest (--level full) ------------------------------------------------

namespace cudacheck {
namespace {

double metric_of(const nlohmann::json& check, std::string_view name) {
    for (const auto& metric : check["metrics"])
        if (metric["name"] == name) return metric["value"].get<double>();
    return std::nan("");
}

std::string evidence_of(const nlohmann::json& check, std::string_view key) {
    for (const auto& item : check["evidence"])
        if (item["key"] == key) return item["value"].get<std::string>();
    return {};
}

// A column of one of the check's series (schema 1.6.0), or null JSON when it is missing.
nlohmann::json series_column(const nlohmann::json& check, std::string_view series, std::string_view column) {
    for (const auto& table : check["series"])
        if (table["name"] == series)
            for (const auto& entry : table["columns"])
                if (entry["name"] == column) return entry["values"];
    return nullptr;
}

// Runs one burn-in check at --level full on every GPU; returns each device's result.
std::vector<nlohmann::json> burn_in_results(const char* id, const char* duration, test::BinaryRun& run) {
    test::TempDir dir;
    run = test::run_cudacheck(
        {"--only", id, "--level", "full", "--duration", duration, "-v", "-o", dir.path() + "/report.json", "-q"});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    std::vector<nlohmann::json> results;
    for (const auto& check : report["checks"])
        if (check["id"] == id) results.push_back(check);
    return results;
}

// A short stress on every GPU: it passes, every product identical to the first, a positive rate in
// every second of the run, and it ends at its duration (plus set-up), not before.
TEST(GpuBurnIn, stress_runs_its_duration_with_identical_products_on_every_device) {
    REQUIRE_GPU();
    test::BinaryRun run;
    const std::vector<nlohmann::json> results = burn_in_results("gpu.stress", "3", run);
    for (const auto& check : results) {
        SCOPED_TRACE(check["device"].dump());
        EXPECT_EQ(check["status"], "pass") << check["message"] << " / " << check["remediation"];
        for (const auto& finding : check["findings"])
            EXPECT_TRUE(finding["code"] != "CC516" && finding["code"] != "CC504") << finding["message"];
        EXPECT_GT(metric_of(check, "stress_tflops_min"), 0.0);
        EXPECT_GE(metric_of(check, "stress_tflops_max"), metric_of(check, "stress_tflops_median"));
        EXPECT_GT(metric_of(check, "stress_products"), 0.0);
        EXPECT_LT(metric_of(check, "stress_reference_relative_error"), 1e-3);
        EXPECT_NE(evidence_of(check, "products").find(", 0 differed from the first"), std::string::npos)
            << evidence_of(check, "products");
        EXPECT_GE(sys::split(evidence_of(check, "tflops_per_second"), ' ').size(), 3u)
            << evidence_of(check, "tflops_per_second");
        // NVML sampled the GPU it stressed: its clock and power while the products ran.
        EXPECT_NE(evidence_of(check, "nvml_samples").find("every 500 ms"), std::string::npos)
            << evidence_of(check, "nvml_samples");
        EXPECT_NE(evidence_of(check, "sm_clock").find("MHz"), std::string::npos) << evidence_of(check, "sm_clock");
        EXPECT_NE(evidence_of(check, "power").find(" W"), std::string::npos) << evidence_of(check, "power");
        EXPECT_GE(check["duration_ms"].get<double>(), 3000.0);
        EXPECT_LT(check["duration_ms"].get<double>(), 3000.0 + 30000.0);
        // The same seconds as numbers: one row a second, NVML's clock, temperature and power beside
        // the rate, and its raw samples every 500 ms (about 2 a second).
        const nlohmann::json rates = series_column(check, "per_second", "tflops");
        ASSERT_TRUE(rates.is_array()) << check["series"].dump();
        EXPECT_EQ(rates.size(), sys::split(evidence_of(check, "tflops_per_second"), ' ').size());
        for (const auto& rate : rates) EXPECT_TRUE(rate.is_number() && rate.get<double>() > 0) << rates.dump();
        for (const char* column : {"sm_clock", "temperature", "power"}) {
            const nlohmann::json values = series_column(check, "per_second", column);
            ASSERT_TRUE(values.is_array() && values.size() == rates.size()) << column;
            for (const auto& value : values)
                EXPECT_TRUE(value.is_number() && value.get<double>() > 0) << column << ": " << values.dump();
        }
        const nlohmann::json sample_times = series_column(check, "nvml_samples", "time");
        ASSERT_TRUE(sample_times.is_array());
        EXPECT_GE(sample_times.size(), 5u) << sample_times.dump();
        EXPECT_EQ(series_column(check, "nvml_samples", "power").size(), sample_times.size());
    }
    EXPECT_EQ(results.size(), static_cast<std::size_t>(usable_devices()));
    EXPECT_EQ(run.exit_status, 0) << run.output;
}

TEST(GpuBurnIn, memtest_verifies_half_the_free_memory_on_every_device) {
    REQUIRE_GPU();
    test::BinaryRun run;
    const std::vector<nlohmann::json> results = burn_in_results("gpu.memtest", "10", run);
    for (const auto& check : results) {
        SCOPED_TRACE(check["device"].dump());
        EXPECT_EQ(check["status"], "pass") << check["message"] << " / " << check["remediation"];
        cudaDeviceProp properties{};
        ASSERT_EQ(cudaGetDeviceProperties(&properties, check["device"].get<int>()), cudaSuccess);
        EXPECT_GT(metric_of(check, "memtest_bytes"), 0.0);
        EXPECT_LE(metric_of(check, "memtest_bytes"), static_cast<double>(properties.totalGlobalMem) / 2);
        EXPECT_GT(metric_of(check, "memtest_bandwidth"), 0.0);
        EXPECT_GE(metric_of(check, "memtest_patterns"), 1.0);
        // Per pattern as numbers (schema 1.6.0): one row each, bytes moved, a positive rate, no mismatch.
        const nlohmann::json rates = series_column(check, "per_pattern", "bandwidth");
        ASSERT_TRUE(rates.is_array()) << check["series"].dump();
        EXPECT_EQ(static_cast<double>(rates.size()), metric_of(check, "memtest_patterns"));
        for (const auto& rate : rates) EXPECT_TRUE(rate.is_number() && rate.get<double>() > 0) << rates.dump();
        for (const auto& words : series_column(check, "per_pattern", "mismatched_words")) EXPECT_EQ(words, 0);
        for (const auto& bytes : series_column(check, "per_pattern", "bytes"))
            EXPECT_EQ(bytes.get<double>(), 2 * metric_of(check, "memtest_bytes"));
    }
    EXPECT_EQ(results.size(), static_cast<std::size_t>(usable_devices()));
    EXPECT_EQ(run.exit_status, 0) << run.output;
}

// frameworks.run's GPU work runs in the frameworks' own processes; it holds the GPUs' shared locks
// meanwhile, so that gpu.memtest's timed patterns never run beside it (before, on the H200, one
// pattern ran at 86 GB/s while PyTorch's matmul did, the others at 2800). The run's trace shows
// the two spans apart. Skipped where no CUDA framework is installed.
TEST(GpuBurnIn, memtest_never_runs_beside_the_framework_processes) {
    REQUIRE_GPU();
    test::TempDir dir;
    const std::string trace_path = dir.path() + "/trace.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "frameworks.run,gpu.memtest", "--level", "full", "--duration", "5", "--devices",
                             "0", "-o", dir.path() + "/report.json", "-q"},
                            {{"CUDACHECK_TRACE", trace_path}});
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    const auto* frameworks = test::find_check(report, "frameworks.run");
    ASSERT_NE(frameworks, nullptr);
    if ((*frameworks)["status"] == "skip") GTEST_SKIP() << (*frameworks)["skip_reason"];
    EXPECT_EQ(run.exit_status, 0) << run.output;
    std::vector<std::pair<double, double>> framework_spans, timed_spans;
    for (const auto& event : nlohmann::json::parse(test::read_text(trace_path))) {
        if (event.at("ph") != "X") continue;
        const double start = event.at("ts").get<double>(), end = start + event.at("dur").get<double>();
        if (event.at("name") == "framework processes on the GPU") framework_spans.emplace_back(start, end);
        if (event.at("name") == "timed alone on the GPU") timed_spans.emplace_back(start, end);
    }
    ASSERT_EQ(framework_spans.size(), 1u);
    ASSERT_FALSE(timed_spans.empty());
    for (const auto& [start, end] : timed_spans)
        EXPECT_TRUE(end <= framework_spans[0].first || start >= framework_spans[0].second)
            << "timed " << start << "-" << end << " us, frameworks " << framework_spans[0].first << "-"
            << framework_spans[0].second;
}

// The kernels themselves: every word as the host computes it, and a planted fault found where it is.
TEST(GpuBurnIn, memtest_kernels_write_the_host_pattern_and_find_planted_faults) {
    REQUIRE_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    const std::size_t words = (1u << 20) + 3;
    std::uint32_t* data = nullptr;
    unsigned long long* mismatches = nullptr;
    unsigned int* recorded = nullptr;
    kernels::MemoryMismatch* records = nullptr;
    ASSERT_EQ(cudaMalloc(&data, words * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&mismatches, sizeof *mismatches), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&recorded, sizeof *recorded), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&records, 4 * sizeof *records), cudaSuccess);
    const auto base = reinterpret_cast<std::uint64_t>(data);
    std::vector<std::uint32_t> back(words);
    for (const kernels::PatternSpec pattern : {kernels::PatternSpec{kernels::MemoryPattern::address, 0, 0},
                                               kernels::PatternSpec{kernels::MemoryPattern::address_complement, 0, 0},
                                               kernels::PatternSpec{kernels::MemoryPattern::random, 0, 99},
                                               kernels::PatternSpec{kernels::MemoryPattern::walking_ones, 7, 0},
                                               kernels::PatternSpec{kernels::MemoryPattern::walking_zeros, 30, 0}}) {
        SCOPED_TRACE(static_cast<int>(pattern.kind));
        ASSERT_EQ(kernels::fill_pattern(data, words, pattern, nullptr), 0);
        ASSERT_EQ(cudaMemcpy(back.data(), data, words * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < words; ++i) wrong += back[i] != kernels::pattern_word(pattern, base, i);
        EXPECT_EQ(wrong, 0u);
        // Two planted faults: one bit flipped in the middle, the last word replaced.
        const std::uint32_t flipped = back[12345] ^ 0x10u;
        const std::uint32_t replaced = ~back[words - 1];
        ASSERT_EQ(cudaMemcpy(data + 12345, &flipped, 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(data + words - 1, &replaced, 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(kernels::verify_pattern(data, words, pattern, mismatches, recorded, records, 4, nullptr), 0);
        unsigned long long count = 0;
        unsigned int kept = 0;
        kernels::MemoryMismatch found[4];
        ASSERT_EQ(cudaMemcpy(&count, mismatches, sizeof count, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(&kept, recorded, sizeof kept, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(found, records, sizeof found, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(count, 2u);
        ASSERT_EQ(kept, 2u);
        std::map<std::uint64_t, kernels::MemoryMismatch> by_index{{found[0].index, found[0]},
                                                                  {found[1].index, found[1]}};
        ASSERT_EQ(by_index.count(12345), 1u);
        ASSERT_EQ(by_index.count(words - 1), 1u);
        EXPECT_EQ(by_index[12345].expected, back[12345]);
        EXPECT_EQ(by_index[12345].actual, flipped);
        EXPECT_EQ(by_index[words - 1].actual, replaced);
    }
    cudaFree(records);
    cudaFree(recorded);
    cudaFree(mismatches);
    cudaFree(data);
}

// The whole --level full run, new checks included, within the bound docs/checks.md states:
// 2 x --duration + 30 s.
TEST(GpuBurnIn, full_run_stays_within_its_documented_bound) {
    REQUIRE_GPU();
    test::TempDir dir;
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "full", "--duration", "5", "-o", dir.path() + "/report.json", "-q"});
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, (2 * 5 + 30) * 1000.0);
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    test::expect_codes_declared(report);
    for (const char* id : {"gpu.stress", "gpu.memtest"}) {
        const auto* check = test::find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_NE((*check)["status"], "skip") << id;
        EXPECT_NE((*check)["status"], "timeout") << id;
    }
}

// Ctrl-C (SIGINT to the whole foreground process group, as a terminal sends it) or SIGTERM (to the
// process, as a scheduler sends it) in the middle of a long stress: the run ends within seconds,
// with the documented exit code and a whole report in which the stress is skipped as interrupted.
class GpuBurnInInterrupt : public ::testing::TestWithParam<int> {};

TEST_P(GpuBurnInInterrupt, ends_a_long_stress_promptly_with_a_whole_report) {
    REQUIRE_GPU();
    const int signal = GetParam();
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const pid_t pid =
        test::start_cudacheck({"--only", "gpu.stress", "--level", "full", "--duration", "60", "-o", path, "-q"});
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::seconds(8));  // start-up done, the stress under way
    const auto sent = std::chrono::steady_clock::now();
    ASSERT_EQ(signal == SIGINT ? ::kill(-pid, SIGINT) : ::kill(pid, SIGTERM), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count(), 5.0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    const auto report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    const auto* stress = test::find_check(report, "gpu.stress");
    ASSERT_NE(stress, nullptr);
    EXPECT_EQ((*stress)["status"], "skip");
    EXPECT_NE((*stress)["skip_reason"].get<std::string>().find(signal == SIGINT ? "interrupted (SIGINT)"
                                                                                : "interrupted (SIGTERM)"),
              std::string::npos)
        << (*stress)["skip_reason"];
}

// A neighbour busy on the GPU: another cudacheck running gpu.stress in the background,
// a process of its own, keeps the SMs busy while a second one times cuBLAS GEMMs. The second names
// the first (its pid, "cudacheck", its SM use) in a CC907 warning on each figure it timed, flags
// them in JSON, and calls nothing slow; alone on the GPU, the same run says nothing of the kind.
TEST(GpuSharedDevice, a_neighbour_busy_on_the_gpu_is_named_and_nothing_is_called_slow) {
    REQUIRE_GPU();
    test::TempDir dir;
    const auto gemm_run = [&](const std::string& name) {
        const test::BinaryRun run = test::run_cudacheck(
            {"--only", "cublas.gemm,cuda.memory", "--devices", "0", "-o", dir.path() + "/" + name, "-q"});
        const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/" + name));
        test::expect_codes_declared(report);
        return std::pair{run, report};
    };
    const auto [alone_run, alone] = gemm_run("alone.json");
    EXPECT_EQ(alone_run.exit_status, 0) << alone_run.output;
    for (const auto& check : alone["checks"]) EXPECT_TRUE(check["shared_gpu"].empty()) << check["id"];

    const pid_t neighbour = test::start_cudacheck({"--only", "gpu.stress", "--level", "full", "--duration", "30",
                                                   "--devices", "0", "-o", dir.path() + "/neighbour.json", "-q"});
    ASSERT_GT(neighbour, 0);
    std::this_thread::sleep_for(std::chrono::seconds(6));  // its stress under way
    const auto [shared_run, shared] = gemm_run("shared.json");
    ::kill(-neighbour, SIGINT);
    int status = 0;
    (void)::waitpid(neighbour, &status, 0);
    EXPECT_EQ(shared_run.exit_status, 0) << "warnings only: " << shared_run.output;
    for (const char* id : {"cublas.gemm", "cuda.memory"}) {
        const auto* check = test::find_check(shared, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["status"], "warn") << id << ": " << (*check)["message"];
        EXPECT_EQ((*check)["code"], "CC907") << id;
        ASSERT_EQ((*check)["shared_gpu"].size(), 1u) << check->dump(1);
        bool named = false;
        for (const auto& process : (*check)["shared_gpu"][0]["processes"])
            named |= process["name"] == "cudacheck" && process["sm_percent"].get<double>() > 0;
        EXPECT_TRUE(named) << (*check)["shared_gpu"].dump(1);
        for (const auto& finding : (*check)["findings"]) EXPECT_EQ(finding["code"], "CC907") << finding["message"];
    }
}

INSTANTIATE_TEST_SUITE_P(CtrlCAndSigterm, GpuBurnInInterrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                             return param.param == SIGINT ? std::string("ctrl_c") : std::string("sigterm");
                         });

// Where CUDA works the node's services are in order: driver.node_services and host.container must
// not fail (a failure would be a false alarm), and on this machine nvidia-uvm is loaded.
TEST(GpuEndToEnd, node_services_and_container_do_not_fail_where_cuda_works) {
    REQUIRE_GPU();
    test::TempDir dir;
    (void)test::run_cudacheck(
        {"--level", "quick", "--only", "driver.node_services,host.container", "-o", dir.path() + "/report.json", "-q"});
    const nlohmann::json report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    for (const char* id : {"driver.node_services", "host.container"}) {
        const auto* check = test::find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_NE((*check)["status"], "fail") << id << ": " << check->dump();
    }
    const auto* node = test::find_check(report, "driver.node_services");
    if ((*node)["status"] != "skip") {
        EXPECT_TRUE(test::contains((*node)["message"].get<std::string>(), "nvidia-uvm loaded")) << node->dump();
    }
}

}  // namespace
}  // namespace cudacheck
