// device.health (checks/device_health.cpp): remaps, retired pages, ECC, slowdowns, PCIe link.
#include "checks/checks.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "support/check_judging.hpp"
#include "support/gpu_outcomes.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cudacheck
