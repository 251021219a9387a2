// driver.kernel_log: what the NVIDIA driver wrote to the kernel log since boot, judged by NVIDIA's
// Xid catalog (cuda/xid_catalog.hpp) and, for each GPU, by what NVML says of it now.
#pragma once

#include "probes/kernel_log.hpp"
#include "report/catalog.hpp"
#include "report/result_builder.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// A GPU as NVML lists it now: what names it in the findings, and its recovery action.
struct KernelLogGpu {
    int nvml_index = 0;
    std::string uuid = {};        // "GPU-…"
    std::string pci_bus_id = {};  // NVML's "00000000:3B:00.0"
    // nvmlDeviceGpuRecoveryAction_t (nvml.h: NONE 0, GPU_RESET 1, NODE_REBOOT 2, DRAIN_P2P 3,
    // DRAIN_AND_RESET 4, RECOVER_IMEX_DOMAIN 5, BUS_RESET 6, SYSTEM_REBOOT 7); none when unknown.
    std::optional<int> recovery_action = {};
};

// Findings from the events: an application fault (Xid 13, 31, 43, …) as the named process's bug,
// the other Xids by the catalog's immediate resolution bucket, a GPU fallen off the bus, GSP
// timeouts, adapters that failed to initialise, NVSwitch SXids; events of one kind on one GPU as
// one finding with their count and first and last age; a GPU action NVML says is no longer pending
// as CC243. Skips with the reason when the log could not be read.
void judge_kernel_log(const KernelLogReading& log, const std::vector<KernelLogGpu>& gpus, ResultBuilder& result);

// The finding one event calls for from the kernel log alone, none for an event that is no finding
// (the rules tests/fixtures/kernel_log/README.md states for the corpus): the Xid by NVIDIA's catalog
// (an application fault whatever its bucket, then the immediate resolution bucket; Xid 154 by the
// recovery action it names), 79 and the NVRM lines of a GPU off the bus, 119/120 and the GSP lines,
// RmInitAdapter failures, SXids by their severity word. judge_kernel_log joins events of one code on
// one GPU and refines the code with NVML (CC243).
[[nodiscard]] std::optional<Code> kernel_log_event_code(const KernelLogEvent& event);

// "45 s", "3 min", "2 h", "4 d": an age as a person reads it.
[[nodiscard]] std::string format_age(double seconds);

}  // namespace cudacheck
