// device.health (checks/device_health.cpp): remaps, retired pages, ECC, slowdowns, PCIe link; the
// driver's recovery action, lost and reset-required GPUs, fabric, NVLink, PCIe replays, MIG,
// persistence and unrepairable memory, each finding with its remedy and its GPU.
#include "checks/checks.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "support/check_judging.hpp"
#include "support/gpu_outcomes.hpp"
#include "util/headline.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::h200;
using test::healthy_h200;
using test::judge;

CheckResult judge_gpu(const NvmlDeviceHealth& gpu) {
    return judge("device.health", [&](ResultBuilder& r) { judge_health({gpu}, {h200()}, r); });
}

TEST(HealthCheck, passes_a_healthy_gpu_and_names_its_cuda_ordinal) {
    const CheckResult result = judge_gpu(healthy_h200());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(contains(result.message, "1 GPU(s) healthy")) << result.message;
    EXPECT_EQ(result.metrics.front().name, "gpu0.temperature");
    bool labelled = false;
    for (const Evidence& evidence : result.evidence)
        labelled |= evidence.key == "gpu0" && contains(evidence.value, "CUDA device 0");
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

// --- the driver's account of faults -----------------------------------------------------------

// The one finding of `result` (a copy: results are often temporaries), or an empty one.
Finding only_finding(const CheckResult& result) {
    EXPECT_EQ(result.findings.size(), 1u) << result.message;
    return result.findings.empty() ? Finding{} : result.findings.front();
}

std::string evidence_of(const CheckResult& result, std::string_view key) {
    for (const Evidence& evidence : result.evidence)
        if (evidence.key == key) return evidence.value;
    return "(no " + std::string(key) + ")";
}

TEST(HealthCheck, passes_recovery_action_none_and_shows_it_as_nvidia_smi_does) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.recovery_action = nvml::NVML_GPU_RECOVERY_ACTION_NONE;
    const CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_EQ(evidence_of(result, "gpu0_recovery_action"), "None");
    EXPECT_EQ(evidence_of(result, "gpu0_fabric"), "state N/A, status N/A") << "an H200 without NVSwitch";
}

TEST(HealthCheck, fails_each_recovery_action_with_the_step_it_names) {
    struct Expected {
        int action;
        const char* shown;
        Remedy remedy;
        const char* remediation;
    };
    const Expected cases[] = {
        {nvml::NVML_GPU_RECOVERY_ACTION_GPU_RESET, "Reset", Remedy::reset_gpu,
         "Reset GPU 0 when no process uses it: `sudo nvidia-smi -r -i 0`"},
        {nvml::NVML_GPU_RECOVERY_ACTION_NODE_REBOOT, "Reboot", Remedy::reboot, "reboot it"},
        {nvml::NVML_GPU_RECOVERY_ACTION_DRAIN_P2P, "Drain P2P", Remedy::drain_p2p, "peer-to-peer"},
        {nvml::NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET, "Drain and Reset", Remedy::reset_gpu,
         "peer-to-peer (NVLink) traffic on the node's GPUs, then reset GPU 0"},
        {nvml::NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN, "Recover IMEX Domain", Remedy::fix_config, "IMEX"},
        {nvml::NVML_GPU_RECOVERY_ACTION_BUS_RESET, "Bus Reset", Remedy::bus_reset, "secondary bus reset"},
        {nvml::NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT, "System Reboot", Remedy::reboot, "reboot it"},
        {42, "unknown (42)", Remedy::investigate, "nvidia-smi -q -i 0"},
    };
    for (const Expected& expected : cases) {
        NvmlDeviceHealth gpu = healthy_h200();
        gpu.recovery_action = expected.action;
        const CheckResult result = judge_gpu(gpu);
        EXPECT_EQ(result.status, Status::fail) << expected.shown;
        const Finding& finding = only_finding(result);
        EXPECT_EQ(finding.code, "CC250") << expected.shown;
        EXPECT_EQ(finding.remedy, expected.remedy) << expected.shown;
        EXPECT_TRUE(contains(finding.remediation, expected.remediation)) << finding.remediation;
        EXPECT_TRUE(contains(finding.message, std::string("recovery action is ") + expected.shown)) << finding.message;
        EXPECT_EQ(finding.gpu, gpu.uuid);
        EXPECT_EQ(evidence_of(result, "gpu0_recovery_action"), expected.shown);
    }
}

TEST(HealthCheck, a_lost_gpu_is_cc251_and_nothing_else_of_it_is_judged) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.lost_by = "nvmlDeviceGetHandleByIndex_v2";
    gpu.remap_pending = true;  // stale: a lost GPU answers nothing
    const CheckResult result = judge_gpu(gpu);
    const Finding& finding = only_finding(result);
    EXPECT_EQ(finding.code, "CC251");
    EXPECT_EQ(finding.remedy, Remedy::reboot);
    EXPECT_TRUE(contains(finding.message, "NVML_ERROR_GPU_IS_LOST (nvmlDeviceGetHandleByIndex_v2)")) << finding.message;
    EXPECT_TRUE(contains(finding.remediation, "Xid 79"));
    EXPECT_EQ(finding.gpu, gpu.uuid);
    EXPECT_TRUE(result.metrics.empty()) << "no reading of a lost GPU";
    NvmlDeviceHealth unnamed = gpu;
    unnamed.uuid.clear();
    EXPECT_EQ(only_finding(judge_gpu(unnamed)).gpu, "00000000:00:06.0") << "the PCI bus id when the UUID is unknown";
}

TEST(HealthCheck, a_reset_required_answer_is_cc252_with_the_reset_command) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.reset_required_by = "nvmlDeviceGetEccMode";
    const Finding& finding = only_finding(judge_gpu(gpu));
    EXPECT_EQ(finding.code, "CC252");
    EXPECT_EQ(finding.remedy, Remedy::reset_gpu);
    EXPECT_TRUE(contains(finding.remediation, "`sudo nvidia-smi -r -i 0`")) << finding.remediation;
    EXPECT_TRUE(contains(finding.message, "NVML_ERROR_RESET_REQUIRED (nvmlDeviceGetEccMode)")) << finding.message;
}

NvmlFabricHealth fabric(int state, int status = nvml::NVML_SUCCESS, unsigned int mask = 0,
                        std::optional<int> summary = std::nullopt) {
    NvmlFabricHealth result;
    result.state = state;
    result.status = status;
    result.clique_id = 2;
    result.cluster_uuid = "dc6e40c4-d722-4357-9ba6-5291dd461278";
    result.health_mask = mask;
    result.health_summary = summary;
    return result;
}

// Health mask fields as nvml.h packs them: two bits each from bit 0 (bandwidth), 2 (route
// recovery), 4 (route unhealthy), 6 (access timeout recovery); 4 bits at 8 (configuration).
constexpr unsigned int healthy_mask = 0x2 | (0x2 << 2) | (0x2 << 4) | (0x2 << 6) | (0x1 << 8);

TEST(HealthCheck, fails_a_fabric_not_registered_naming_error_802) {
    for (int state : {nvml::NVML_GPU_FABRIC_STATE_NOT_STARTED, nvml::NVML_GPU_FABRIC_STATE_IN_PROGRESS}) {
        NvmlDeviceHealth gpu = healthy_h200();
        gpu.fabric = fabric(state);
        const Finding& finding = only_finding(judge_gpu(gpu));
        EXPECT_EQ(finding.code, "CC253");
        EXPECT_EQ(finding.remedy, Remedy::fix_config);
        EXPECT_TRUE(contains(finding.message, "CUDA answers 802")) << finding.message;
        EXPECT_TRUE(contains(finding.remediation, "cudaErrorSystemNotReady (802, \"system not yet initialized\")"))
            << finding.remediation;
        EXPECT_TRUE(contains(finding.remediation, "nvidia-fabricmanager")) << finding.remediation;
    }
    NvmlDeviceHealth refused = healthy_h200();
    refused.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_ERROR_INSUFFICIENT_RESOURCES);
    const Finding& finding = only_finding(judge_gpu(refused));
    EXPECT_EQ(finding.code, "CC253");
    EXPECT_TRUE(contains(finding.message, "registration failed: NVML_ERROR_INSUFFICIENT_RESOURCES")) << finding.message;
    NvmlDeviceHealth registered = healthy_h200();
    registered.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_SUCCESS, healthy_mask,
                               nvml::NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY);
    const CheckResult result = judge_gpu(registered);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_EQ(evidence_of(result, "gpu0_fabric"),
              "state Completed, status Success, clique 2, cluster dc6e40c4-d722-4357-9ba6-5291dd461278; health "
              "summary Healthy, bandwidth full, route recovery in progress no, route unhealthy no, access timeout "
              "recovery no, incorrect configuration none");
    NvmlDeviceHealth unsupported = healthy_h200();
    unsupported.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, nvml::NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(judge_gpu(unsupported).status, Status::pass) << "a GPU without a fabric has nothing to register";
}

TEST(HealthCheck, warns_on_each_unhealthy_fabric_fact_and_calls_a_configuration_a_setting) {
    const std::pair<unsigned int, const char*> bits[] = {
        {0x1, "bandwidth degraded"},
        {0x1 << 2, "route recovery in progress"},
        {0x1 << 4, "route unhealthy"},
        {0x1 << 6, "access timeout recovery in progress"},
    };
    for (const auto& [bit, words] : bits) {
        NvmlDeviceHealth gpu = healthy_h200();
        gpu.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_SUCCESS,
                            (healthy_mask & ~(0x3U << std::countr_zero(bit))) | bit);
        const CheckResult result = judge_gpu(gpu);
        EXPECT_EQ(result.status, Status::warn) << words;
        const Finding& finding = only_finding(result);
        EXPECT_EQ(finding.code, "CC254");
        EXPECT_EQ(finding.remedy, Remedy::drain_p2p) << words;
        EXPECT_TRUE(contains(finding.message, words)) << finding.message;
    }
    NvmlDeviceHealth misconfigured = healthy_h200();
    misconfigured.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_SUCCESS,
                                  (healthy_mask & ~(0xFU << 8)) | (5U << 8));  // INSUFFICIENT_NVLINKS
    const Finding& finding = only_finding(judge_gpu(misconfigured));
    EXPECT_EQ(finding.code, "CC254");
    EXPECT_EQ(finding.remedy, Remedy::fix_config);
    EXPECT_TRUE(contains(finding.message, "incorrect configuration: insufficient NVLinks")) << finding.message;
    NvmlDeviceHealth summary = healthy_h200();
    summary.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_SUCCESS, healthy_mask,
                            nvml::NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY);
    EXPECT_TRUE(contains(only_finding(judge_gpu(summary)).message, "health summary Unhealthy"));
}

std::vector<NvmlLinkHealth> links(unsigned int count, unsigned int active) {
    std::vector<NvmlLinkHealth> result;
    for (unsigned int link = 0; link < count; ++link) {
        NvmlLinkHealth entry{.link = link, .active = link < active};
        if (entry.active) entry.replay = entry.recovery = entry.crc_flit = entry.crc_data = 0;
        result.push_back(entry);
    }
    return result;
}

TEST(HealthCheck, shows_nvlink_as_nvidia_smi_counts_it_and_warns_on_a_link_down) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.nvlinks = links(18, 18);
    CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_EQ(evidence_of(result, "gpu0_nvlink"), "18 links, 18 active; replay 0, recovery 0, CRC 0");
    gpu.nvlinks = links(18, 16);
    result = judge_gpu(gpu);
    const Finding& finding = only_finding(result);
    EXPECT_EQ(finding.code, "CC255");
    EXPECT_EQ(finding.remedy, Remedy::investigate);
    EXPECT_TRUE(contains(finding.message, "2 of 18 NVLink links inactive (link 16 and 17)")) << finding.message;
    EXPECT_EQ(evidence_of(result, "gpu0_nvlink"),
              "18 links, 16 active (inactive: 16, 17); replay 0, recovery 0, CRC 0");
    NvmlDeviceHealth unbridged = healthy_h200();  // no NVLink peer at all: nothing to judge
    unbridged.nvlinks = links(18, 0);
    EXPECT_EQ(judge_gpu(unbridged).status, Status::pass);
    unbridged.fabric = fabric(nvml::NVML_GPU_FABRIC_STATE_COMPLETED, nvml::NVML_SUCCESS, healthy_mask);
    EXPECT_EQ(only_finding(judge_gpu(unbridged)).code, "CC255") << "on an NVSwitch fabric every link should be up";
}

TEST(HealthCheck, warns_on_nvlink_error_counters_with_the_counts_of_each_link) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.nvlinks = links(18, 18);
    gpu.nvlinks[3].replay = 12;
    gpu.nvlinks[3].crc_flit = 30;
    gpu.nvlinks[3].crc_data = 10;
    gpu.nvlinks[7].recovery = 1;
    const CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::warn);
    const Finding& finding = only_finding(result);
    EXPECT_EQ(finding.code, "CC256");
    EXPECT_TRUE(contains(finding.message, "NVLink errors on 2 link(s)")) << finding.message;
    EXPECT_TRUE(contains(finding.message, "link 3: replay 12, recovery 0, CRC 40")) << finding.message;
    EXPECT_EQ(evidence_of(result, "gpu0_nvlink"), "18 links, 18 active; replay 12, recovery 1, CRC 40");
    EXPECT_EQ(evidence_of(result, "gpu0_nvlink_errors"),
              "link 3: replay 12, recovery 0, CRC flit 30, CRC data 10; link 7: replay 0, recovery 1, CRC flit 0, CRC "
              "data 0");
    NvmlDeviceHealth blackwell = healthy_h200();  // counters not supported
    blackwell.nvlinks = links(18, 18);
    for (NvmlLinkHealth& link : blackwell.nvlinks) link.replay = link.recovery = link.crc_flit = link.crc_data = {};
    EXPECT_EQ(evidence_of(judge_gpu(blackwell), "gpu0_nvlink"), "18 links, 18 active; error counters N/A");
}

TEST(HealthCheck, warns_on_pcie_replays_and_shows_the_counter) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.pcie_replay_count = 0;
    CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(evidence_of(result, "gpu0_pcie"), "gen 5 of 5, x16 of x16; replays 0");
    gpu.pcie_replay_count = 25;
    result = judge_gpu(gpu);
    const Finding& finding = only_finding(result);
    EXPECT_EQ(finding.code, "CC257");
    EXPECT_TRUE(contains(finding.message, "replayed 25 packet(s)")) << finding.message;
    EXPECT_TRUE(contains(finding.remediation, "8 replays a minute")) << finding.remediation;
}

TEST(HealthCheck, fails_mig_without_devices_and_warns_on_a_pending_mig_change) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.mig_current = gpu.mig_pending = true;
    gpu.mig_devices = 0;
    Finding finding = only_finding(judge_gpu(gpu));
    EXPECT_EQ(finding.code, "CC415");
    EXPECT_EQ(finding.gpu, gpu.uuid);
    EXPECT_TRUE(contains(finding.remediation, "nvidia-smi mig -i 0 -cgi")) << finding.remediation;
    gpu.mig_devices = 2;
    EXPECT_EQ(judge_gpu(gpu).status, Status::pass);
    NvmlDeviceHealth pending = healthy_h200();
    pending.mig_pending = true;  // enabled, waiting for a reset
    finding = only_finding(judge_gpu(pending));
    EXPECT_EQ(finding.code, "CC259");
    EXPECT_EQ(finding.remedy, Remedy::reset_gpu);
    EXPECT_TRUE(contains(finding.message, "from off to on at the next GPU reset")) << finding.message;
}

TEST(HealthCheck, warns_on_legacy_persistence_only_when_the_daemon_is_known_not_to_run) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.persistenced_running = false;
    CheckResult result = judge_gpu(gpu);
    const Finding& finding = only_finding(result);
    EXPECT_EQ(finding.code, "CC260");
    EXPECT_EQ(finding.remedy, Remedy::fix_config);
    EXPECT_TRUE(contains(finding.remediation, "nvidia-persistenced")) << finding.remediation;
    EXPECT_EQ(evidence_of(result, "nvidia_persistenced"), "not running");
    gpu.persistenced_running = true;
    result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(evidence_of(result, "nvidia_persistenced"), "running");
    gpu.persistenced_running.reset();
    result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass) << "a container cannot see the host's daemon";
    EXPECT_EQ(evidence_of(result, "nvidia_persistenced"), "not visible from this container");
}

TEST(HealthCheck, fails_unrepairable_memory_as_a_service_case) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.memory_unrepairable = false;
    CheckResult result = judge_gpu(gpu);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(evidence_of(result, "gpu0_unrepairable_memory"), "no");
    gpu.memory_unrepairable = true;
    const Finding& finding = only_finding(judge_gpu(gpu));
    EXPECT_EQ(finding.code, "CC261");
    EXPECT_EQ(finding.remedy, Remedy::service);
    EXPECT_TRUE(contains(finding.remediation, "RMA"));
}

CheckResult judge_visible(const std::vector<NvmlDeviceHealth>& gpus, const std::string& visible) {
    return judge("device.health", [&](ResultBuilder& r) { judge_health(gpus, {h200()}, r, visible); });
}

TEST(HealthCheck, fails_a_visible_mig_device_that_nvml_does_not_list_or_with_mig_off) {
    const CheckResult off = judge_visible({healthy_h200()}, "MIG-3b3c6b2a-1d2e-5f11-9a8b-0c1d2e3f4a5b");
    const Finding& finding = only_finding(off);
    EXPECT_EQ(finding.code, "CC262");
    EXPECT_TRUE(contains(finding.message, "MIG is off on every GPU")) << finding.message;
    NvmlDeviceHealth mig = healthy_h200();
    mig.mig_current = mig.mig_pending = true;
    mig.mig_devices = 1;
    mig.mig_device_uuids = {"MIG-3b3c6b2a-1d2e-5f11-9a8b-0c1d2e3f4a5b"};
    EXPECT_EQ(judge_visible({mig}, "MIG-3b3c6b2a-1d2e-5f11-9a8b-0c1d2e3f4a5b").status, Status::pass);
    EXPECT_EQ(judge_visible({mig}, "MIG-3b3c6b2a").status, Status::pass) << "a unique prefix, as CUDA allows";
    EXPECT_EQ(judge_visible({mig}, "MIG-GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa/1/0").status, Status::pass)
        << "the older form names the GPU";
    const CheckResult unknown = judge_visible({mig}, "0,MIG-ffffffff");
    EXPECT_EQ(only_finding(unknown).code, "CC262");
    EXPECT_TRUE(contains(unknown.findings.front().message, "names MIG-ffffffff, a MIG device NVML does not list"))
        << unknown.findings.front().message;
    EXPECT_TRUE(contains(unknown.findings.front().remediation, "(MIG-3b3c6b2a-1d2e-5f11-9a8b-0c1d2e3f4a5b)"))
        << unknown.findings.front().remediation;
    EXPECT_EQ(judge_visible({mig}, "0,1").status, Status::pass) << "no MIG entry";
}

TEST(HealthCheck, every_finding_of_a_gpu_names_it) {
    NvmlDeviceHealth gpu = healthy_h200();
    gpu.recovery_action = nvml::NVML_GPU_RECOVERY_ACTION_GPU_RESET;
    gpu.remap_pending = true;
    gpu.ecc_uncorrected_volatile = 1;
    gpu.clocks_event_reasons = clocks_event::hw_slowdown;
    gpu.pcie_width = 8;
    gpu.pcie_replay_count = 3;
    gpu.persistence_mode = false;
    const CheckResult result = judge_gpu(gpu);
    EXPECT_GE(result.findings.size(), 7u);
    for (const Finding& finding : result.findings) {
        EXPECT_EQ(finding.gpu, gpu.uuid) << finding.code;
        EXPECT_LE(finding.message.size(), sys::max_headline) << finding.message;
    }
}

}  // namespace
}  // namespace cudacheck
