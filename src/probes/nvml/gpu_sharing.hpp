// Whether another process used a GPU while a check timed its work there: on a shared
// node or a workstation with a training job, a GEMM rate a third of the GPU's own is the other
// job's doing, not a slow GPU. NVML answers who holds a context (its compute and graphics process
// lists) and who kept the SMs busy when (nvmlDeviceGetProcessUtilization, samples stamped with the
// wall clock); the engine asks as each timed section of a check ends (util/timed_windows.hpp).
//
// Measured on the H200 machine (docs/examples/h200/issue21/sharing-facts.json): NVML lists every
// process with a context and the pids are this PID namespace's; per-process utilization has
// samples only for processes that used the SMs (a process that only holds a context has none), and
// answers NVML_ERROR_NOT_FOUND when there are none at all.
#pragma once

#include "probes/nvml/nvml_probe.hpp"
#include "report/report_query.hpp"  // describe_sharing
#include "report/result.hpp"
#include "util/timed_windows.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One of nvmlDeviceGetProcessUtilization's samples.
struct ProcessUtilizationSample {
    unsigned int pid = 0;
    std::int64_t timestamp_us = 0;  // CPU time stamp, microseconds since the epoch
    unsigned int sm_percent = 0;
};

// What NVML says of one GPU's processes: every process with a context (cudacheck's own included),
// and the per-process utilization samples since a moment.
struct SharingSnapshot {
    std::optional<std::vector<GpuProcess>> processes;              // nullopt: NVML cannot list them
    std::optional<std::vector<ProcessUtilizationSample>> samples;  // nullopt: no per-process utilization here
};

// NVML samples a process's utilization over a period that ends at the sample's time stamp (a sixth
// of a second to a second, by GPU), and keeps only each process's last sample: a sample up to this
// long after a window covers it, and one this long before it, taken before a window shorter than
// the period began, is the nearest there is. "Around the window", then: within a second of it.
inline constexpr std::int64_t utilization_sample_period_us = 1'000'000;

// Who else used GPU `device` around `spans` (those of other devices are ignored): nullopt when no
// one did, or when NVML cannot tell. `own_pids` are cudacheck's processes (the one timing, and
// its supervisor). With per-process utilization: the other pids that used the SMs in a window;
// if NVML's pids are not this PID namespace's (none of cudacheck's own is listed although it
// holds a context), two or more busy pids in a window mean another process besides cudacheck.
// Without it: the other processes NVML lists, busy or not.
[[nodiscard]] std::optional<GpuSharing> judge_sharing(int device, const SharingSnapshot& snapshot,
                                                      const std::vector<TimedSpan>& spans,
                                                      const std::vector<unsigned int>& own_pids);

// Reads SharingSnapshots through the run's NVML (opened by the NVML probe).
class GpuSharingProbe {
public:
    explicit GpuSharingProbe(const NvmlFacts& nvml);
    GpuSharingProbe(const GpuSharingProbe&) = delete;
    GpuSharingProbe& operator=(const GpuSharingProbe&) = delete;
    GpuSharingProbe(GpuSharingProbe&&) noexcept;
    ~GpuSharingProbe();
    // False when NVML is not up: nothing can be told.
    [[nodiscard]] bool ok() const;
    // The GPU of `pci_bus_id` (NVML numbers GPUs in PCI order, CUDA fastest first); samples since
    // `since_us`. Empty when NVML does not list the GPU.
    [[nodiscard]] SharingSnapshot snapshot(std::string_view pci_bus_id, std::int64_t since_us) const;

private:
    struct Api;
    std::unique_ptr<Api> api_;
    std::vector<DeviceInfo> devices_;
};

}  // namespace cudacheck
