// The SM clock and temperature a GPU ran at while a check timed its work there, so that a figure
// explains itself: at --level full, cublas.gemm measured right after gpu.stress gave BF16 695
// TFLOP/s at an SM clock of 1470-1980 MHz and 45-61 C, against 800 a minute earlier on a cool
// GPU. The engine watches every timed section (util/timed_windows.hpp's SpanWatch) with
// watch_conditions, and adds describe_conditions' evidence to the check's result.
//
// A section is read every condition_sample_period while it runs and once as it ends, not as it
// opens: a GPU idle between two checks lowers its clock within milliseconds (an idle H100 reads
// 345 MHz), so a reading taken before the work begins would describe the idle GPU, not the work.
// The reading at the end comes right after the work's last event, with the GPU still at the clock
// it worked at.
#pragma once

#include "probes/nvml/nvml_health.hpp"
#include "report/result.hpp"
#include "util/timed_windows.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace cudacheck {

// What NVML read of one GPU during one timed section.
struct SectionConditions {
    int device = 0;              // CUDA ordinal
    std::int64_t start_us = 0;   // when the section opened (util/timed_windows.hpp's clock)
    std::vector<NvmlClockSample> samples;  // those with a clock or a temperature, in the order taken
};

inline constexpr std::chrono::milliseconds condition_sample_period{50};

// The sampler of a GPU, found when the watch's thread first needs it (NVML may still be opening:
// the section does not wait for it); nullptr or a sampler that is not ok() when NVML cannot read it.
using SamplerSource = std::function<std::shared_ptr<const NvmlClockSampler>()>;

// Watches GPU `device` from now until stop(), on a thread of its own: reads its SM clock and
// temperature every condition_sample_period and once after stop(). `done` gets what it read when
// the watch is destroyed (after joining the thread), also when it read nothing.
[[nodiscard]] std::unique_ptr<SpanWatch> watch_conditions(SamplerSource sampler, int device,
                                                          std::function<void(SectionConditions)> done);

// The evidence one check's sections give, per GPU that has samples (none without NVML):
//  sm_clock     "1980 MHz" when every reading was one value, else "1950 MHz median, 1470-1980 over
//               12 samples"; the number is that value or the median, in MHz
//  temperature  the same in C
//  timed_sections  with two sections or more: their count, and each one's median SM clock and
//               temperature in the order they were timed (up to 12 sections; beyond, the count)
// A per-device check (check_device set) has its own GPU's keys bare, as gpu.stress's are; another
// check's are prefixed with the GPU, as device.health's are ("gpu1_sm_clock").
[[nodiscard]] std::vector<Evidence> describe_conditions(std::vector<SectionConditions> sections,
                                                        std::optional<int> check_device);

}  // namespace cudacheck
