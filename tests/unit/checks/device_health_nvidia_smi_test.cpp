// tests/support/compare_health_with_nvidia_smi.py, which the GPU test GpuBinary.device_health_equals_nvidia_smi
// runs against the real `nvidia-smi -q -x`: here against the fake NVML's report and an XML laid out
// as nvidia-smi's, made by the test, so that the script's reading of each fact is held before a GPU
// session relies on it.
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;
using test::contains;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// One GPU as the fake NVML describes it by default, in the elements of `nvidia-smi -q -x` the
// script reads (element names as driver 580's nvidia-smi writes them).
constexpr const char* fake_h200_xml = R"(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<driver_version>580.159.04</driver_version>
	<cuda_version>13.0</cuda_version>
	<attached_gpus>1</attached_gpus>
	<gpu id="00000000:01:00.0">
		<product_name>NVIDIA H200</product_name>
		<persistence_mode>Enabled</persistence_mode>
		<mig_mode>
			<current_mig>N/A</current_mig>
			<pending_mig>N/A</pending_mig>
		</mig_mode>
		<mig_devices>
			None
		</mig_devices>
		<uuid>GPU-00000000-0000-0000-0000-000000000000</uuid>
		<gpu_recovery_action>None</gpu_recovery_action>
		<pci>
			<pci_gpu_link_info>
				<pcie_gen>
					<max_link_gen>5</max_link_gen>
					<current_link_gen>5</current_link_gen>
				</pcie_gen>
				<link_widths>
					<max_link_width>16x</max_link_width>
					<current_link_width>16x</current_link_width>
				</link_widths>
			</pci_gpu_link_info>
			<replay_counter>0</replay_counter>
			<replay_rollover_counter>0</replay_rollover_counter>
		</pci>
		<compute_mode>Default</compute_mode>
		<ecc_mode>
			<current_ecc>Enabled</current_ecc>
			<pending_ecc>Enabled</pending_ecc>
		</ecc_mode>
		<ecc_errors>
			<volatile>
				<dram_correctable>0</dram_correctable>
				<dram_uncorrectable>0</dram_uncorrectable>
			</volatile>
			<aggregate>
				<dram_correctable>0</dram_correctable>
				<dram_uncorrectable>0</dram_uncorrectable>
			</aggregate>
		</ecc_errors>
		<remapped_rows>
			<remapped_row_corr>0</remapped_row_corr>
			<remapped_row_unc>0</remapped_row_unc>
			<remapped_row_pending>No</remapped_row_pending>
			<remapped_row_failure>No</remapped_row_failure>
		</remapped_rows>
		<temperature>
			<gpu_temp>34 C</gpu_temp>
		</temperature>
		<gpu_power_readings>
			<power_draw>72.00 W</power_draw>
			<current_power_limit>700.00 W</current_power_limit>
		</gpu_power_readings>
		<fabric>
			<state>N/A</state>
			<status>N/A</status>
			<cliqueId>N/A</cliqueId>
			<clusterUuid>N/A</clusterUuid>
			<health>
				<bandwidth>N/A</bandwidth>
				<route_recovery_in_progress>N/A</route_recovery_in_progress>
				<route_unhealthy>N/A</route_unhealthy>
				<access_timeout_recovery>N/A</access_timeout_recovery>
			</health>
		</fabric>
	</gpu>
</nvidia_smi_log>
)";

// `nvidia-smi nvlink -s` of that GPU with two links, the second inactive.
constexpr const char* fake_h200_nvlink =
    "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n\t Link 0: 26.562 GB/s\n\t Link 1: "
    "<inactive>\n";

// The script's verdict on device.health of the fake GPU run with `overrides`.
sys::CommandResult compare(const test::TempDir& dir, std::vector<std::pair<std::string, std::string>> overrides) {
    // The test's own values come last, and the last value of a name is the one set.
    overrides.insert(overrides.begin(), {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_NVML_NVLINK", "1,0"}});
    const std::string report = dir.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "--only", "device.health", "-o", report, "-q"}, overrides);
    EXPECT_FALSE(run.timed_out);
    return sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/compare_health_with_nvidia_smi.py",
                             dir.write("smi.xml", fake_h200_xml), report, dir.write("nvlink.txt", fake_h200_nvlink)},
                            std::chrono::seconds(60));
}

TEST(CompareHealthScript, agrees_with_nvidia_smi_on_every_fact_of_the_fake_gpu) {
    test::TempDir dir;
    const sys::CommandResult compared = compare(dir, {});
    EXPECT_EQ(compared.exit_status, 0) << compared.output;
    EXPECT_TRUE(contains(compared.output, "compared 1 GPU(s), 0 difference(s)")) << compared.output;
}

TEST(CompareHealthScript, names_each_new_fact_that_differs) {
    test::TempDir dir;
    const sys::CommandResult compared = compare(dir, {{"FAKE_NVML_RECOVERY_ACTION", "1"},
                                                      {"FAKE_NVML_PCIE_REPLAY", "5"},
                                                      {"FAKE_NVML_FABRIC", "1,0,0,0,0"},
                                                      {"FAKE_NVML_NVLINK", "1,1"},
                                                      {"FAKE_NVML_PERSISTENCE", "0"}});
    EXPECT_EQ(compared.exit_status, 1) << compared.output;
    for (const char* difference :
         {"recovery_action: nvidia-smi 'None', cudacheck 'Reset'", "pcie_replays: nvidia-smi '0', cudacheck '5'",
          "nvlink: nvidia-smi ('2', '1'), cudacheck ('2', '2')", "persistence: nvidia-smi 'on', cudacheck 'off'"})
        EXPECT_TRUE(contains(compared.output, difference)) << difference << "\n" << compared.output;
    EXPECT_TRUE(contains(compared.output, "fabric_state: nvidia-smi 'N/A', cudacheck 'Not Started'"))
        << compared.output;
    EXPECT_TRUE(contains(compared.output, "5 difference(s)")) << compared.output;
}

// --- two GPUs: each GPU's links and error counters (`nvidia-smi nvlink -s` and `-e`) ---------------

// The XML above with a second GPU: the same facts under the fake NVML's second UUID and PCI id.
std::string two_gpu_xml() {
    std::string xml = fake_h200_xml;
    const std::size_t begin = xml.find("\t<gpu id=");
    const std::size_t end = xml.find("</gpu>\n") + std::string("</gpu>\n").size();
    std::string second = xml.substr(begin, end - begin);
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"00000000:01:00.0", "00000000:02:00.0"},
          {"GPU-00000000-0000-0000-0000-000000000000", "GPU-00000000-0000-0000-0000-000000000001"}})
        second.replace(second.find(from), from.size(), to);
    xml.insert(end, second);
    xml.replace(xml.find("<attached_gpus>1<"), std::string("<attached_gpus>1<").size(), "<attached_gpus>2<");
    return xml;
}

// `nvidia-smi nvlink -s` of both: four links each, GPU 1's link 1 inactive.
constexpr const char* two_gpu_nvlink_status =
    "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n\t Link 0: 26.562 GB/s\n\t Link 1: "
    "26.562 GB/s\n\t Link 2: 26.562 GB/s\n\t Link 3: 26.562 GB/s\n"
    "GPU 1: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n\t Link 0: 26.562 GB/s\n\t Link 1: "
    "<inactive>\n\t Link 2: 26.562 GB/s\n\t Link 3: 26.562 GB/s\n";

// `nvidia-smi nvlink -e` of both, laid out as nvidia-smi prints it (three lines a link, a blank line
// between links): every counter 0 but GPU 0's link 2, with `link2` its replay, recovery and CRC lines.
std::string two_gpu_nvlink_errors(const std::string& link2) {
    std::string text;
    for (int gpu = 0; gpu < 2; ++gpu) {
        text += "GPU " + std::to_string(gpu) + ": NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-00000000000" +
                std::to_string(gpu) + ")\n";
        for (int link = 0; link < 4; ++link)
            text += gpu == 0 && link == 2
                        ? link2
                        : "\t Link " + std::to_string(link) + ": Replay Errors: 0\n\t Link " + std::to_string(link) +
                              ": Recovery Errors: 0\n\t Link " + std::to_string(link) + ": CRC Errors: 0\n\n";
    }
    return text;
}

// The script's verdict on device.health of two fake GPUs in `state` (FAKE_GPU_STATE), against the
// nvidia-smi outputs above.
sys::CommandResult compare_two(const test::TempDir& dir, const std::string& state, const std::string& link2) {
    const std::string report = dir.path() + "/report.json";
    const test::BinaryRun run = test::run_cudacheck({"--level", "quick", "--only", "device.health", "-o", report, "-q"},
                                                    {{"LD_LIBRARY_PATH", fake_driver_dir},
                                                     {"FAKE_CUDA_DEVICE_COUNT", "2"},
                                                     {"FAKE_GPU_STATE", dir.write("gpus.json", state)}});
    EXPECT_FALSE(run.timed_out);
    return sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/compare_health_with_nvidia_smi.py",
                             dir.write("smi.xml", two_gpu_xml()), report,
                             dir.write("nvlink-s.txt", two_gpu_nvlink_status),
                             dir.write("nvlink-e.txt", two_gpu_nvlink_errors(link2))},
                            std::chrono::seconds(60));
}

// GPU 0's link 2 with replay 3, recovery 0, CRC 7, as nvidia-smi prints them.
constexpr const char* link2_replay_3_crc_7 =
    "\t Link 2: Replay Errors: 3\n\t Link 2: Recovery Errors: 0\n\t Link 2: CRC Errors: 7\n\n";

TEST(CompareHealthScript, agrees_on_each_gpus_links_and_error_counters) {
    test::TempDir dir;
    // The fake's state is what the nvidia-smi outputs say: GPU 0's link 2 counted replay 3,
    // recovery 0, CRC flit 7 and CRC data 1 (nvidia-smi's one "CRC Errors" line is taken as the flit
    // count or the sum); GPU 1's link 1 inactive.
    const sys::CommandResult compared =
        compare_two(dir, R"({"devices": [{"FAKE_NVML_NVLINK": "1,1,1,1", "FAKE_NVML_NVLINK_ERRORS": "2:3,0,7,1"},
                                         {"FAKE_NVML_NVLINK": "1,0,1,1"}]})",
                    link2_replay_3_crc_7);
    EXPECT_EQ(compared.exit_status, 0) << compared.output;
    EXPECT_TRUE(contains(compared.output, "compared 2 GPU(s), 0 difference(s)")) << compared.output;
}

TEST(CompareHealthScript, names_the_gpu_and_link_whose_state_or_counters_differ) {
    test::TempDir dir;
    // Against the same nvidia-smi outputs (but GPU 0's link 2 with CRC 9): GPU 0's link 2 counts
    // replay 4 and CRC 7 + 1, GPU 1 has link 2 inactive instead of link 1 (as many links active, so
    // which one is compared) and a recovery error on link 3 that nvidia-smi does not show.
    const sys::CommandResult compared =
        compare_two(dir, R"({"devices": [{"FAKE_NVML_NVLINK": "1,1,1,1", "FAKE_NVML_NVLINK_ERRORS": "2:4,0,7,1"},
                             {"FAKE_NVML_NVLINK": "1,1,0,1", "FAKE_NVML_NVLINK_ERRORS": "3:0,1,0,0"}]})",
                    "\t Link 2: Replay Errors: 3\n\t Link 2: Recovery Errors: 0\n\t Link 2: CRC Errors: 9\n\n");
    EXPECT_EQ(compared.exit_status, 1) << compared.output;
    for (const char* difference :
         {"GPU-00000000-0000-0000-0000-000000000000 nvlink link 2 replay: nvidia-smi 3, cudacheck 4",
          "GPU-00000000-0000-0000-0000-000000000000 nvlink link 2 crc: nvidia-smi 9, cudacheck 7 or 8",
          "GPU-00000000-0000-0000-0000-000000000001 nvlink_inactive: nvidia-smi (1,), cudacheck (2,)",
          "GPU-00000000-0000-0000-0000-000000000001 nvlink link 3 recovery: nvidia-smi 0, cudacheck 1"})
        EXPECT_TRUE(contains(compared.output, difference)) << difference << "\n" << compared.output;
    EXPECT_TRUE(contains(compared.output, "compared 2 GPU(s), 4 difference(s)")) << compared.output;
}

// A GPU whose counters NVML does not answer (NVML_ERROR_NOT_SUPPORTED, as on Blackwell) while
// nvidia-smi prints them is a difference, not a silent pass.
TEST(CompareHealthScript, counters_nvml_does_not_answer_are_a_difference_where_nvidia_smi_shows_them) {
    test::TempDir dir;
    const sys::CommandResult compared =
        compare_two(dir, R"({"devices": [{"FAKE_NVML_NVLINK": "1,1,1,1", "FAKE_NVML_NVLINK_ERRORS": "unsupported"},
                                         {"FAKE_NVML_NVLINK": "1,0,1,1"}]})",
                    link2_replay_3_crc_7);
    EXPECT_EQ(compared.exit_status, 1) << compared.output;
    EXPECT_TRUE(contains(compared.output,
                         "GPU-00000000-0000-0000-0000-000000000000 nvlink_errors: nvidia-smi shows "
                         "counters of 4 link(s), cudacheck 'error counters N/A'"))
        << compared.output;
    EXPECT_TRUE(contains(compared.output, "1 difference(s)")) << compared.output;
}

}  // namespace
}  // namespace cudacheck
