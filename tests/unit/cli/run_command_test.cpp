// The run subcommand (cli/run_command.cpp): its options; the binary end to end, fake driver too.
#include "cli/run_command.hpp"
#include "bind/dynamic_library.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::line_count;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// Runs with `-o report.json` and returns the parsed report (the file must be complete JSON).
nlohmann::json run_to_json(const test::TempDir& dir, std::vector<std::string> arguments,
                           const std::vector<std::pair<std::string, std::string>>& overrides, int expected_exit) {
    const std::string path = dir.path() + "/report.json";
    arguments.insert(arguments.end(), {"-o", path, "-q"});
    const test::BinaryRun run = run_cudacheck(arguments, overrides);
    EXPECT_EQ(run.exit_status, expected_exit) << run.output;
    EXPECT_EQ(run.output, "") << "-q prints nothing";
    nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    test::expect_codes_declared(report);
    return report;
}

// --- parse_device_list -----------------------------------------------------------------------

TEST(DeviceList, accepts_all_and_ordinal_lists) {
    EXPECT_EQ(parse_device_list("all").value_or(std::vector<int>{-1}), std::vector<int>{});
    EXPECT_EQ(parse_device_list("0,2").value_or(std::vector<int>{}), (std::vector<int>{0, 2}));
    EXPECT_EQ(parse_device_list("1,1").value_or(std::vector<int>{}), (std::vector<int>{1}));
}

TEST(DeviceList, rejects_malformed_values) {
    for (const char* bad : {"", "abc", "-1", "0,,1", "1.5", "0 ", "all,0"}) {
        const Expected<std::vector<int>> devices = parse_device_list(bad);
        EXPECT_FALSE(devices.has_value()) << bad;
        EXPECT_TRUE(contains(test::error_of(devices), "--devices")) << bad;
    }
}

// --- the machine as it is ------------------------------------------------------------------

TEST(EndToEnd, reports_missing_driver_on_a_machine_without_one) {
    if (DynamicLibrary::open("libcuda.so.1").ok())
        GTEST_SKIP() << "a CUDA driver is installed here: this test is for driver-less machines";
    test::TempDir dir;
    const test::BinaryRun timing = run_cudacheck({"--format", "json"}, {{"LD_LIBRARY_PATH", test::unset_marker}});
    EXPECT_LT(timing.wall_ms, 500.0) << "a driver-less diagnosis must be near-instant";
    const auto report = run_to_json(dir, {}, {{"LD_LIBRARY_PATH", test::unset_marker}}, 1);
    // One root cause, one finding: no kernel module here, and that is the one failure;
    // libcuda's own failure (CC210) is kept as evidence, and every check that needs the driver
    // says in one line what it needs.
    const auto* module = test::find_check(report, "driver.kernel_module");
    ASSERT_NE(module, nullptr);
    EXPECT_EQ((*module)["status"], "fail");
    EXPECT_EQ((*module)["code"], "CC201");
    EXPECT_TRUE(contains((*module)["remediation"].get<std::string>(), "NVIDIA"));
    // No other check that needs the driver has a finding of its own (host checks may, elsewhere).
    // driver.kernel_log needs no driver: it reads what the kernel logged (here, nothing of NVIDIA's).
    for (const auto& check : report["checks"]) {
        const std::string id = check["id"];
        if (id == "driver.kernel_module" ||
            !(id.starts_with("driver.") || id.starts_with("cuda.") || id.starts_with("device.")))
            continue;
        if (id == "driver.kernel_log") {
            EXPECT_TRUE(check["findings"].empty()) << check.dump();
            continue;
        }
        EXPECT_EQ(check["status"], "skip") << id;
    }
    EXPECT_EQ(report["checks"][0]["id"], "driver.kernel_module");
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    ASSERT_NE(libcuda, nullptr);
    EXPECT_EQ((*libcuda)["status"], "skip");
    EXPECT_TRUE(contains((*libcuda)["evidence"].dump(), "CC210")) << (*libcuda)["evidence"].dump();
    for (const char* dependent :
         {"driver.libcuda", "driver.nvml", "cuda.pairing", "cuda.devices", "cuda.kernel", "cublas.gemm"}) {
        const auto* check = test::find_check(report, dependent);
        ASSERT_NE(check, nullptr) << dependent;
        EXPECT_EQ((*check)["status"], "skip");
        EXPECT_EQ((*check)["skip_reason"], "needs driver.kernel_module, which ended with fail (CC201)") << dependent;
    }
    EXPECT_EQ(report["exit_code"], 1);
    EXPECT_EQ(report["summary"]["overall"], "fail");
    EXPECT_TRUE(report["devices"].empty());
}

// --- with the fake driver --------------------------------------------------------------------

TEST(EndToEnd, describes_devices_through_the_driver_api) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "driver.libcuda,cuda.pairing,cuda.devices"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}}, 0);
    EXPECT_EQ((*test::find_check(report, "driver.libcuda"))["status"], "pass");
    EXPECT_EQ((*test::find_check(report, "cuda.pairing"))["status"], "pass");
    const auto* devices = test::find_check(report, "cuda.devices");
    EXPECT_EQ((*devices)["status"], "pass");
    EXPECT_TRUE(contains((*devices)["message"].get<std::string>(), "2 x NVIDIA H200"));
    ASSERT_EQ(report["devices"].size(), 2u);
    EXPECT_EQ(report["devices"][1]["ordinal"], 1);
    EXPECT_EQ(report["devices"][1]["pci_bus_id"], "00000000:02:00.0");
    EXPECT_EQ(report["devices"][0]["multiprocessors"], 132);
    EXPECT_EQ(report["devices"][0]["compute_capability"], "9.0");
    EXPECT_EQ(report["devices"][0]["uuid"], "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
    EXPECT_EQ(report["versions"]["driver_cuda"], "13.0");
    EXPECT_EQ(report["devices"][0]["source"], "driver_api");
}

// The checks run with 2 hardware queues per context unless the user chose a number: cuInit sees
// it, and cuda.devices says which applies.
TEST(EndToEnd, checks_use_two_hardware_queues_unless_the_user_chose) {
    test::TempDir dir;
    const std::string seen = dir.path() + "/seen";
    for (const char* chosen : {static_cast<const char*>(nullptr), "8"}) {
        std::vector<std::pair<std::string, std::string>> overrides{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                   {"FAKE_CUDA_SEEN_FILE", seen}};
        overrides.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", chosen != nullptr ? chosen : test::unset_marker);
        const auto report = run_to_json(dir, {"--only", "cuda.devices"}, overrides, 0);
        const auto* devices = test::find_check(report, "cuda.devices");
        ASSERT_NE(devices, nullptr);
        EXPECT_EQ(test::read_text(seen), chosen != nullptr ? chosen : "2");
        std::string queues;
        for (const auto& evidence : (*devices)["evidence"])
            if (evidence["key"] == "hardware_queues") queues = evidence["value"].get<std::string>();
        EXPECT_TRUE(contains(queues, chosen != nullptr ? "8 per context (CUDA_DEVICE_MAX_CONNECTIONS)"
                                                       : "2 per context in cudacheck's checks"))
            << queues;
    }
}

TEST(EndToEnd, quick_level_lists_devices_through_nvml_without_initialising_cuda) {
    test::TempDir dir;
    // cuInit would fail here: if quick called it, driver.libcuda would fail.
    const auto report = run_to_json(
        dir, {"--level", "quick", "--only", "driver.libcuda,cuda"},
        {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_INIT_RESULT", "999"}, {"FAKE_CUDA_DEVICE_COUNT", "2"}}, 0);
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    EXPECT_EQ((*libcuda)["status"], "pass");
    EXPECT_TRUE(contains((*libcuda)["message"].get<std::string>(), "not initialised at --level quick"));
    const auto* devices = test::find_check(report, "cuda.devices");
    EXPECT_EQ((*devices)["status"], "pass");
    EXPECT_TRUE(contains((*devices)["message"].get<std::string>(), "via NVML"));
    ASSERT_EQ(report["devices"].size(), 2u);
    EXPECT_EQ(report["devices"][0]["source"], "nvml");
    EXPECT_EQ(report["devices"][0]["multiprocessors"], 132);
    EXPECT_EQ(report["devices"][1]["pci_bus_id"], "00000000:02:00.0");
    EXPECT_EQ(report["devices"][0]["memory_clock_khz"], 3201000);
}

// CUDA_VISIBLE_DEVICES applies at --level quick too: the report lists the GPU CUDA would show.
TEST(EndToEnd, quick_level_applies_cuda_visible_devices_to_nvml_list) {
    test::TempDir dir;
    const auto report = run_to_json(
        dir, {"--level", "quick", "--only", "driver.libcuda,cuda"},
        {{"LD_LIBRARY_PATH", fake_driver_dir}, {"CUDA_VISIBLE_DEVICES", "1"}, {"FAKE_CUDA_DEVICE_COUNT", "2"}}, 0);
    ASSERT_EQ(report["devices"].size(), 1u);
    EXPECT_EQ(report["devices"][0]["ordinal"], 0);
    EXPECT_EQ(report["devices"][0]["nvml_index"], 1);
    EXPECT_EQ(report["devices"][0]["pci_bus_id"], "00000000:02:00.0");
    const auto* devices = test::find_check(report, "cuda.devices");
    EXPECT_TRUE(contains((*devices)["message"].get<std::string>(), "1 x ")) << (*devices)["message"];
}

TEST(EndToEnd, quick_level_falls_back_to_the_driver_api_when_nvml_fails) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--level", "quick", "--only", "cuda.devices"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_NVML_INIT_RESULT", "18"}}, 0);
    const auto* devices = test::find_check(report, "cuda.devices");
    EXPECT_EQ((*devices)["status"], "pass");
    bool explained = false;
    for (const auto& evidence : (*devices)["evidence"])
        explained |= evidence["key"] == "nvml" &&
                     contains(evidence["value"].get<std::string>(), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
    EXPECT_TRUE(explained);
    ASSERT_EQ(report["devices"].size(), 1u);
    EXPECT_EQ(report["devices"][0]["source"], "driver_api");
}

TEST(EndToEnd, fails_pairing_for_a_driver_older_than_the_runtime) {
    test::TempDir dir;
    fs::copy_file(CUDACHECK_FAKE_DRIVER, dir.path() + "/libcuda.so.535.104.05");
    dir.symlink("libcuda.so.535.104.05", "libcuda.so.1");
    const auto report = run_to_json(dir, {"--only", "cuda.pairing"},
                                    {{"LD_LIBRARY_PATH", dir.path()}, {"FAKE_CUDA_DRIVER_VERSION", "12020"}}, 1);
    if (fs::exists("/proc/driver/nvidia/version")) {
        // A real kernel module is loaded (a GPU machine): a 535 library beside it is a version
        // mismatch, which driver.libcuda must catch first; the pairing then cannot be judged.
        EXPECT_EQ((*test::find_check(report, "driver.libcuda"))["code"], "CC213");
        EXPECT_EQ((*test::find_check(report, "cuda.pairing"))["status"], "skip");
        return;
    }
    const auto* pairing = test::find_check(report, "cuda.pairing");
    EXPECT_EQ((*pairing)["code"], "CC401");
    EXPECT_TRUE(contains((*pairing)["message"].get<std::string>(), "driver 535.104.05 supports CUDA <= 12.2"));
    EXPECT_TRUE(contains((*pairing)["remediation"].get<std::string>(), "580"));
    EXPECT_TRUE(contains((*test::find_check(report, "driver.libcuda"))["message"].get<std::string>(), "535.104.05"));
}

TEST(EndToEnd, takes_no_driver_version_from_a_libcuda_name_that_has_none) {
    // Jetson's libcuda.so.1 points to libcuda.so.1.1: "1.1" is no driver version.
    test::TempDir dir;
    fs::copy_file(CUDACHECK_FAKE_DRIVER, dir.path() + "/libcuda.so.1.1");
    dir.symlink("libcuda.so.1.1", "libcuda.so.1");
    const auto report = run_to_json(dir, {"--only", "driver.libcuda"}, {{"LD_LIBRARY_PATH", dir.path()}}, 0);
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    EXPECT_TRUE(contains((*libcuda)["message"].get<std::string>(), "version not in file name"));
    if (!fs::exists("/proc/driver/nvidia/version")) {
        EXPECT_TRUE(report["versions"]["driver"].is_null());
    }
}

TEST(EndToEnd, detects_a_stub_libcuda_first_on_the_path) {
    test::TempDir dir;
    dir.make_dir("cuda/lib64/stubs");
    fs::copy_file(CUDACHECK_FAKE_DRIVER, dir.path() + "/cuda/lib64/stubs/libcuda.so.1");
    const std::string stubs = dir.path() + "/cuda/lib64/stubs";
    const auto report = run_to_json(dir, {"--only", "driver.libcuda,env"},
                                    {{"LD_LIBRARY_PATH", stubs}, {"FAKE_CUDA_INIT_RESULT", "34"}}, 1);
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    EXPECT_EQ((*libcuda)["code"], "CC211");
    EXPECT_TRUE(contains((*libcuda)["remediation"].get<std::string>(), stubs));
    // env.variables may carry other warnings from the machine's own environment: look for CC112 among its findings.
    bool stub_warning = false;
    for (const auto& finding : (*test::find_check(report, "env.variables"))["findings"])
        stub_warning |= finding["code"] == "CC112" && contains(finding["message"].get<std::string>(), stubs);
    EXPECT_TRUE(stub_warning);
}

TEST(EndToEnd, reports_nvml_driver_library_mismatch) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "driver.nvml"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_NVML_INIT_RESULT", "18"}}, 1);
    const auto* nvml = test::find_check(report, "driver.nvml");
    EXPECT_EQ((*nvml)["code"], "CC221");
    EXPECT_TRUE(contains((*nvml)["message"].get<std::string>(), "NVML_ERROR_LIB_RM_VERSION_MISMATCH"));
    EXPECT_TRUE(contains((*nvml)["remediation"].get<std::string>(), "Reboot"));
}

TEST(EndToEnd, names_processes_that_hold_gpu_memory_through_nvml) {
    test::TempDir dir;
    const std::vector<std::pair<std::string, std::string>> held{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                {"FAKE_NVML_FREE_MIB", "4096"},
                                                                {"FAKE_NVML_PROCESSES", "4242:130000,77:-"}};
    const auto report = run_to_json(dir, {"--level", "quick", "--only", "cuda.devices"}, held, 0);
    const auto* devices = test::find_check(report, "cuda.devices");
    EXPECT_EQ((*devices)["code"], "CC417");
    EXPECT_TRUE(contains((*devices)["message"].get<std::string>(), "4.0 GiB free of 140.4 GiB: held by pid 4242"));

    // Exclusive Process mode, seen through the driver API at --level standard, with NVML's process list.
    auto exclusive = held;
    exclusive.emplace_back("FAKE_CUDA_COMPUTE_MODE", "3");
    const auto standard = run_to_json(dir, {"--only", "cuda.devices"}, exclusive, 1);
    const auto* busy = test::find_check(standard, "cuda.devices");
    EXPECT_EQ((*busy)["code"], "CC416");
    EXPECT_TRUE(contains((*busy)["remediation"].get<std::string>(), "kill 4242 77"));
}

TEST(EndToEnd, device_health_reads_every_field_through_nvml_at_quick_level) {
    test::TempDir dir;
    const auto healthy =
        run_to_json(dir, {"--level", "quick", "--only", "device.health"}, {{"LD_LIBRARY_PATH", fake_driver_dir}}, 0);
    EXPECT_EQ((*test::find_check(healthy, "device.health"))["status"], "pass");
    const auto sick = run_to_json(dir, {"--level", "quick", "--only", "device.health"},
                                  {{"LD_LIBRARY_PATH", fake_driver_dir},
                                   {"FAKE_NVML_REMAPPED", "0,2,1,0"},
                                   {"FAKE_NVML_ECC_ERRORS", "10,1,20,4"},
                                   {"FAKE_NVML_CLOCK_EVENTS", "0x8"},
                                   {"FAKE_NVML_PCIE", "4,5,8,16"},
                                   {"FAKE_NVML_PERSISTENCE", "0"},
                                   {"FAKE_CUDA_DEVICE_COUNT", "2"}},
                                  1);
    std::set<std::string> codes;
    for (const auto& finding : (*test::find_check(sick, "device.health"))["findings"])
        codes.insert(finding["code"].get<std::string>());
    // Every GPU reports each problem: remap pending, uncorrectable ECC, HW slowdown, narrow link, persistence off.
    EXPECT_EQ(codes, (std::set<std::string>{"CC421", "CC424", "CC425", "CC426", "CC427"}));
    EXPECT_EQ((*test::find_check(sick, "device.health"))["findings"].size(), 10u);
}

// One GPU healthy, the other not (FAKE_GPU_STATE): the findings name the sick GPU alone.
TEST(EndToEnd, device_health_blames_only_the_gpu_whose_state_is_bad) {
    test::TempDir dir;
    const std::string state =
        dir.write("gpus.json",
                  R"({"devices": [{}, {"FAKE_NVML_ECC_ERRORS": "0,3,0,3", "FAKE_NVML_CLOCK_EVENTS": "0x8"}]})");
    const auto report =
        run_to_json(dir, {"--level", "quick", "--only", "device.health"},
                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}, {"FAKE_GPU_STATE", state}},
                    1);
    const auto& findings = (*test::find_check(report, "device.health"))["findings"];
    std::set<std::string> codes;
    for (const auto& finding : findings) {
        codes.insert(finding["code"].get<std::string>());
        EXPECT_TRUE(contains(finding["message"].get<std::string>(), "GPU 1")) << finding["message"];
        EXPECT_FALSE(contains(finding["message"].get<std::string>(), "GPU 0")) << finding["message"];
    }
    EXPECT_EQ(codes, (std::set<std::string>{"CC424", "CC425"}));
}

// The driver's own account of each GPU, per GPU from FAKE_GPU_STATE: a recovery action, a fabric
// Fabric Manager has not registered, a lost GPU, NVLink errors, PCIe replays and MIG without
// devices, each finding naming its GPU and the step it asks for.
TEST(EndToEnd, device_health_reports_each_gpus_fault_with_its_gpu_and_remedy) {
    test::TempDir dir;
    const std::string state = dir.write("gpus.json", R"({"devices": [
        {"FAKE_NVML_NVLINK": "1,1,1,1", "FAKE_NVML_FABRIC": "3,0,2,0x1AA,1"},
        {"FAKE_NVML_RECOVERY_ACTION": 1},
        {"FAKE_NVML_FABRIC": "1,0,0,0,0"},
        {"FAKE_NVML_ANSWER": 15},
        {"FAKE_NVML_NVLINK": "1,1,0,1", "FAKE_NVML_NVLINK_ERRORS": "1:4,0,9,0", "FAKE_NVML_PCIE_REPLAY": 12},
        {"FAKE_NVML_MIG": 1, "FAKE_NVML_MIG_DEVICES": 0}]})");
    const auto report =
        run_to_json(dir, {"--level", "quick", "--only", "device.health"},
                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "6"}, {"FAKE_GPU_STATE", state}},
                    1);
    const auto* health = test::find_check(report, "device.health");
    ASSERT_NE(health, nullptr);
    std::set<std::string> seen;
    for (const auto& finding : (*health)["findings"])
        seen.insert((finding["gpu"].is_null() ? std::string("none") : finding["gpu"].get<std::string>().substr(36)) +
                    " " + finding["code"].get<std::string>() + " " + finding["remedy"].get<std::string>());
    // The fake's UUIDs end in the GPU's index (GPU-00000000-0000-0000-0000-00000000000N); the lost GPU
    // answered neither its UUID nor its PCI bus id.
    EXPECT_EQ(seen, (std::set<std::string>{"0001 CC250 reset_gpu", "0002 CC253 fix_config", "none CC251 reboot",
                                           "0004 CC255 investigate", "0004 CC256 investigate", "0004 CC257 investigate",
                                           "0005 CC415 fix_config"}));
    std::map<std::string, std::string> evidence;
    for (const auto& item : (*health)["evidence"]) evidence[item["key"]] = item["value"];
    EXPECT_EQ(evidence["gpu0_recovery_action"], "None");
    EXPECT_EQ(evidence["gpu1_recovery_action"], "Reset");
    EXPECT_EQ(evidence["gpu0_nvlink"], "4 links, 4 active; replay 0, recovery 0, CRC 0");
    EXPECT_EQ(evidence["gpu4_nvlink"], "4 links, 3 active (inactive: 2); replay 4, recovery 0, CRC 9");
    EXPECT_TRUE(contains(evidence["gpu0_fabric"], "state Completed, status Success, clique 2"))
        << evidence["gpu0_fabric"];
    EXPECT_EQ(evidence["gpu2_fabric"], "state Not Started, status N/A");
    EXPECT_EQ(evidence["gpu3_nvml_answer"], "NVML_ERROR_GPU_IS_LOST (nvmlDeviceGetHandleByIndex_v2)");
    EXPECT_EQ(evidence["gpu5_fabric"], "state N/A, status N/A");
}

// A reset-required answer and a MIG device in CUDA_VISIBLE_DEVICES that NVML does not list.
TEST(EndToEnd, device_health_reports_reset_required_and_an_unknown_visible_mig_device) {
    test::TempDir dir;
    const std::string state =
        dir.write("gpus.json",
                  R"({"devices": [{"FAKE_NVML_ANSWER": 16}, {"FAKE_NVML_MIG": 1, "FAKE_NVML_MIG_DEVICES": 1}]})");
    const auto report = run_to_json(dir, {"--level", "quick", "--only", "device.health"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir},
                                     {"FAKE_CUDA_DEVICE_COUNT", "2"},
                                     {"FAKE_GPU_STATE", state},
                                     {"CUDA_VISIBLE_DEVICES", "MIG-00000000-0000-0000-0001-000000000010,MIG-feed"}},
                                    1);
    std::set<std::string> codes;
    for (const auto& finding : (*test::find_check(report, "device.health"))["findings"]) {
        codes.insert(finding["code"].get<std::string>());
        if (finding["code"] == "CC262") {
            EXPECT_TRUE(contains(finding["message"].get<std::string>(), "names MIG-feed")) << finding["message"];
        }
        if (finding["code"] == "CC252") {
            EXPECT_EQ(finding["gpu"], "GPU-00000000-0000-0000-0000-000000000000");
        }
    }
    EXPECT_EQ(codes, (std::set<std::string>{"CC252", "CC262"})) << "GPU 1's MIG device 0 is listed";
}

TEST(EndToEnd, standard_level_adds_nvml_index_and_framebuffer_to_cuda_devices) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "cuda.devices"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}}, 0);
    ASSERT_EQ(report["devices"].size(), 2u);
    EXPECT_EQ(report["devices"][1]["source"], "driver_api");
    EXPECT_EQ(report["devices"][1]["nvml_index"], 1) << "matched by PCI bus id 00000000:02:00.0";
    EXPECT_EQ(report["devices"][1]["framebuffer_bytes"], 150754820096ULL);
}

TEST(EndToEnd, explains_no_device_by_mig_mode_without_instances) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "driver.libcuda"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir},
                                     {"FAKE_CUDA_INIT_RESULT", "100"},
                                     {"FAKE_NVML_MIG", "1"},
                                     {"FAKE_CUDA_DEVICE_COUNT", "2"}},
                                    1);
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    EXPECT_EQ((*libcuda)["code"], "CC415");
    EXPECT_TRUE(contains((*libcuda)["message"].get<std::string>(), "MIG mode is enabled on GPU(s) 0, 1"));
    EXPECT_TRUE(contains((*libcuda)["remediation"].get<std::string>(), "nvidia-smi mig"));
}

TEST(EndToEnd, reports_cuinit_failure_by_name) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "driver.libcuda"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_INIT_RESULT", "999"}}, 1);
    const auto* libcuda = test::find_check(report, "driver.libcuda");
    EXPECT_EQ((*libcuda)["code"], "CC212");
    EXPECT_TRUE(contains((*libcuda)["message"].get<std::string>(), "CUDA_ERROR_UNKNOWN"));
    EXPECT_TRUE(contains((*libcuda)["remediation"].get<std::string>(), "dmesg"));
}

TEST(EndToEnd, gpu_checks_fail_cleanly_when_the_runtime_cannot_use_the_driver) {
    // The fake libcuda answers the driver API probes but lacks what the CUDA runtime needs: every
    // GPU check on every device must become a failure naming the runtime's error, never a crash.
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "cuda.kernel,cuda.memory"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}}, 1);
    int failed = 0;
    for (const auto& check : report["checks"]) {
        if (check["device"].is_null()) continue;
        ++failed;
        EXPECT_EQ(check["status"], "fail");
        EXPECT_EQ(check["code"], "CC501");
        EXPECT_TRUE(contains(check["message"].get<std::string>(), "cudaSetDevice"));
        EXPECT_TRUE(contains(check["remediation"].get<std::string>(), "driver"));
    }
    EXPECT_EQ(failed, 4) << "two checks on each of two devices";
}

TEST(EndToEnd, only_env_never_initialises_the_driver) {
    test::TempDir dir;
    const auto report = run_to_json(dir, {"--only", "env"}, {{"LD_LIBRARY_PATH", fake_driver_dir}}, 0);
    EXPECT_EQ(report["checks"].size(), 1u);
    EXPECT_TRUE(report["devices"].empty());
    EXPECT_TRUE(report["versions"]["driver_cuda"].is_null());
}

TEST(EndToEnd, strict_turns_warnings_into_failure) {
    const std::vector<std::pair<std::string, std::string>> blocking{{"CUDA_LAUNCH_BLOCKING", "1"}};
    EXPECT_EQ(run_cudacheck({"--only", "env"}, blocking).exit_status, 0);
    const test::BinaryRun strict = run_cudacheck({"--only", "env", "--strict"}, blocking);
    EXPECT_EQ(strict.exit_status, 1);
    EXPECT_TRUE(contains(strict.output, "CC115"));
}

// `--only` naming a check by its id runs it at its level when --level is not given; a prefix or an
// explicit --level does not.
TEST(EndToEnd, only_naming_a_full_level_check_runs_it) {
    const auto skip_reason = [](const std::vector<std::string>& arguments) {
        test::TempDir dir;
        const std::string path = dir.path() + "/report.json";
        std::vector<std::string> all = arguments;
        for (const char* extra : {"-o", "", "-q"}) all.emplace_back(extra);
        all[all.size() - 2] = path;
        const test::BinaryRun run = test::run_cudacheck(all, {{"PATH", "/usr/bin:/bin"},
                                                              {"VIRTUAL_ENV", test::unset_marker},
                                                              {"CONDA_PREFIX", test::unset_marker}});
        EXPECT_NE(run.exit_status, 2) << run.output;
        const auto report = nlohmann::json::parse(test::read_text(path));
        const auto* check = test::find_check(report, "frameworks.run");
        return check == nullptr
                   ? std::string("absent")
                   : (*check)["skip_reason"].get<std::string>() + "/" + report["options"]["level"].get<std::string>();
    };
    const std::string named = skip_reason({"--only", "frameworks.run"});
    EXPECT_FALSE(contains(named, "runs at --level full")) << named;
    EXPECT_TRUE(named.ends_with("/full")) << "the report says the level it ran at: " << named;
    EXPECT_EQ(skip_reason({"--only", "frameworks"}), "runs at --level full and above/standard")
        << "a prefix selects a family, not one check";
    EXPECT_EQ(skip_reason({"--only", "frameworks.run", "--level", "standard"}),
              "runs at --level full and above/standard");
}

// --profile reaches the worker process (the job carries it), and --no-isolation judges alike.
TEST(EndToEnd, profile_changes_how_env_variables_judges) {
    const std::vector<std::pair<std::string, std::string>> blocking{{"CUDA_LAUNCH_BLOCKING", "1"},
                                                                    {"CUBLAS_WORKSPACE_CONFIG", test::unset_marker}};
    for (const std::vector<std::string>& isolation :
         {std::vector<std::string>{}, std::vector<std::string>{"--no-isolation"}}) {
        SCOPED_TRACE(isolation.empty() ? "supervised" : "--no-isolation");
        const auto with = [&](std::vector<std::string> arguments) {
            arguments.insert(arguments.begin(), {"--only", "env.variables", "--strict"});
            arguments.insert(arguments.end(), isolation.begin(), isolation.end());
            return run_cudacheck(arguments, blocking);
        };
        const test::BinaryRun dev = with({"--profile", "dev"});
        EXPECT_EQ(dev.exit_status, 0) << dev.output;
        const test::BinaryRun prod = with({"run", "--profile", "prod"});
        EXPECT_EQ(prod.exit_status, 1) << prod.output;
        EXPECT_TRUE(contains(prod.output, "CC115")) << prod.output;
        const test::BinaryRun ci = with({"--profile", "ci"});
        EXPECT_TRUE(contains(ci.output, "CC123")) << ci.output;
    }
    const test::BinaryRun bad = run_cudacheck({"--profile", "staging"});
    EXPECT_EQ(bad.exit_status, 2) << bad.output;
}

TEST(EndToEnd, device_ordinal_beyond_visible_count_is_a_usage_error) {
    const test::BinaryRun run = run_cudacheck({"--devices", "3"}, {{"LD_LIBRARY_PATH", fake_driver_dir}});
    EXPECT_EQ(run.exit_status, 2);
    EXPECT_TRUE(contains(run.output, "1 visible CUDA device"));
    EXPECT_EQ(line_count(run.output), 1u);
}

TEST(EndToEnd, output_file_is_complete_json_and_leaves_no_temporary_files) {
    test::TempDir dir;
    const test::BinaryRun run = run_cudacheck({"--only", "host", "-o", dir.path() + "/r.json"});
    EXPECT_EQ(run.exit_status, 0);
    EXPECT_TRUE(contains(run.output, "host.os")) << "the table still goes to stdout";
    EXPECT_TRUE(nlohmann::json::accept(test::read_text(dir.path() + "/r.json")));
    std::vector<std::string> entries;
    for (const auto& entry : fs::directory_iterator(dir.path())) entries.push_back(entry.path().filename().string());
    EXPECT_EQ(entries, std::vector<std::string>{"r.json"});
}

// Several -o files: one run, each file in the format of its extension, and nothing else left.
TEST(EndToEnd, writes_one_report_in_several_formats) {
    test::TempDir dir;
    const test::BinaryRun run = run_cudacheck({"--only", "host", "-q", "-o", dir.path() + "/r.json", "-o",
                                               dir.path() + "/r.prom", "-o", dir.path() + "/r.md"});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_EQ(run.output, "");
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/r.json"));
    EXPECT_TRUE(contains(test::read_text(dir.path() + "/r.prom"), "cudacheck_check_status{check=\"host.os\""));
    EXPECT_TRUE(contains(test::read_text(dir.path() + "/r.md"), report["timestamp_utc"].get<std::string>()))
        << "the same run in both";
    std::vector<std::string> entries;
    for (const auto& entry : fs::directory_iterator(dir.path())) entries.push_back(entry.path().filename().string());
    std::sort(entries.begin(), entries.end());
    EXPECT_EQ(entries, (std::vector<std::string>{"r.json", "r.md", "r.prom"}));
}

// CUDACHECK_TRACE=FILE: the process that runs the checks writes their timeline (Chrome trace format).
TEST(EndToEnd, writes_a_timeline_of_the_checks_when_asked) {
    test::TempDir dir;
    for (const bool isolated : {true, false}) {
        const std::string path = dir.path() + (isolated ? "/isolated.trace.json" : "/in-process.trace.json");
        std::vector<std::string> arguments{
            "--level", "quick", "--only", "host.os,env.variables,driver.nvml", "-q", "-o", dir.path() + "/r.json"};
        if (!isolated) arguments.push_back("--no-isolation");
        const test::BinaryRun run = run_cudacheck(arguments, {{"CUDACHECK_TRACE", path}});
        ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
        const auto trace = nlohmann::json::parse(test::read_text(path));
        std::set<std::string> threads;
        std::set<std::string> spans;
        int origins = 0;
        for (const auto& event : trace) {
            if (event.at("ph") == "M" && event.at("name") == "thread_name")
                threads.insert(event.at("args").at("name").get<std::string>());
            if (event.at("ph") == "M" && event.at("name") == "clock_origin")
                origins += event.at("args").at("monotonic_ms").get<double>() > 0.0;
            if (event.at("ph") == "X") {
                spans.insert(event.at("name").get<std::string>());
                EXPECT_GE(event.at("dur").get<double>(), 0.0);
            }
        }
        EXPECT_EQ(threads, (std::set<std::string>{"host.os", "env.variables", "driver.nvml"}));
        EXPECT_EQ(origins, 1);
        EXPECT_TRUE(spans.count("host.os") == 1 && spans.count("NVML: open, init, query every GPU") == 1)
            << trace.dump(1);
    }
}

// --- --duration and the burn-in checks ------------------------------------------------------

RunCommandOptions at_level(std::string level, double duration = 0, double timeout = 120, double run_timeout = 600) {
    RunCommandOptions options;
    options.level = std::move(level);
    options.duration_seconds = duration;
    options.timeout_seconds = timeout;
    options.run_timeout_seconds = run_timeout;
    return options;
}

TEST(DurationOption, accepted_at_full_level_below_the_time_limits) {
    EXPECT_EQ(test::error_of(check_durations(at_level("full"), true)), "");
    EXPECT_EQ(test::error_of(check_durations(at_level("full", 60), true)), "");
    EXPECT_EQ(test::error_of(check_durations(at_level("standard"), true)), "")
        << "the default is not a choice the user made";
    EXPECT_EQ(test::error_of(check_durations(at_level("full", 0, 5), false)), "")
        << "no time limit matters when neither check runs";
}

TEST(DurationOption, refused_below_full_level_and_at_or_above_the_time_limits) {
    const auto refused = [](const RunCommandOptions& options, std::string_view text) {
        const Expected<void> durations = check_durations(options, true);
        ASSERT_FALSE(durations.has_value());
        EXPECT_NE(durations.error().message.find(text), std::string::npos) << durations.error().message;
    };
    refused(at_level("standard", 10), "--level full");
    refused(at_level("quick", 10), "--level full");
    refused(at_level("full", 120), "--timeout 120");
    refused(at_level("full", 150), "shorter than the per-check --timeout");
    refused(at_level("full", 0, 20), "--duration 20");  // the default against a short --timeout
    refused(at_level("full", 100, 300, 200), "--run-timeout 200");
}

// Once each, not once per GPU, whether or not another GPU check runs (cuda.kernel does here).
TEST(BurnInEndToEnd, skipped_once_below_full_level) {
    for (const char* only : {"gpu", "gpu,cuda.kernel"})
        for (const char* level : {"quick", "standard"}) {
            SCOPED_TRACE(std::string(only) + " at " + level);
            test::TempDir dir;
            const std::string path = dir.path() + "/report.json";
            const test::BinaryRun run =
                test::run_cudacheck({"--only", only, "--level", level, "-o", path, "-q"},
                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}});
            EXPECT_NE(run.exit_status, 2) << run.output;
            const auto report = nlohmann::json::parse(test::read_text(path));
            std::vector<std::string> skipped;
            for (const auto& check : report["checks"]) {
                if (check["id"] != "gpu.stress" && check["id"] != "gpu.memtest") continue;
                skipped.push_back(check["id"]);
                EXPECT_EQ(check["status"], "skip");
                EXPECT_TRUE(check["device"].is_null());
                EXPECT_EQ(check["skip_reason"], "runs at --level full and above");
            }
            EXPECT_EQ(skipped, (std::vector<std::string>{"gpu.stress", "gpu.memtest"})) << "in registry order";
        }
}

TEST(BurnInEndToEnd, fails_cleanly_and_at_once_where_the_runtime_cannot_start) {
    // The fake libcuda answers the driver API but not the runtime: both checks must fail with
    // CC501 on both devices long before their duration, never hang or crash.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "gpu", "--level", "full", "--duration", "60", "-o", path, "-q"},
                            {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_LT(run.wall_ms, 30000.0);
    const auto report = nlohmann::json::parse(test::read_text(path));
    int failed = 0;
    for (const auto& check : report["checks"]) {
        if (check["id"] != "gpu.stress" && check["id"] != "gpu.memtest") continue;
        ++failed;
        EXPECT_EQ(check["status"], "fail") << check["id"] << ": " << check["message"];
        EXPECT_NE(check["code"], "CC901") << check["message"];
    }
    EXPECT_EQ(failed, 4);
}

TEST(BurnInEndToEnd, bad_durations_are_usage_errors) {
    for (const std::vector<std::string>& arguments :
         std::vector<std::vector<std::string>>{{"--level", "full", "--duration", "130"},
                                               {"--level", "full", "--duration", "30", "--timeout", "30"},
                                               {"--duration", "10"},
                                               {"--level", "full", "--duration", "0.5"},
                                               {"--level", "full", "--duration", "abc"}}) {
        const test::BinaryRun run = test::run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << arguments[arguments.size() - 1] << ": " << run.output;
        EXPECT_NE(run.output.find("--duration"), std::string::npos) << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
