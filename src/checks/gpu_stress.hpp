// gpu.stress (burn-in of each GPU, --level full only, for RunOptions::stress_seconds): what its GPU
// part measures, and the pure judge of it (unit tests drive it without a GPU).
#pragma once

#include "engine/check.hpp"
#include "gpu/library_support.hpp"
#include "probes/nvml/nvml_health.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

// What gpu.stress measured on one GPU.
struct StressOutcome {
    std::string work;                  // "BF16 8192^3 GEMM (FP32 output)"
    double seconds = 0;                // time spent in the stress loop
    std::uint64_t results = 0;         // products computed in the loop, each compared with the first
    std::uint64_t words_per_result = 0;
    std::uint64_t differing_results = 0;  // products not bit-identical to the first
    std::uint64_t differing_words = 0;    // over all of them
    std::optional<double> first_difference_seconds;  // when the first differing product ended
    gpu::Accuracy reference;           // the first product's sampled entries against float64
    double tolerance = 0;
    std::vector<double> tflops_per_second;  // one bucket per second of the loop
    std::optional<std::vector<NvmlClockSample>> samples;  // nullopt: NVML could not sample this GPU
    // Other processes that used the GPU during the stress (NVML, as the engine tells it): the rate
    // is then theirs to share and is not judged.
    std::string shared_with;
};
// The clocks-event reasons gpu.stress warns about (hardware slowdown, thermal, power brake: not
// the SW power cap a GPU at full load normally sits at), and how often each was seen.
struct ReasonShare {
    std::uint64_t reason = 0;  // one clocks_event bit
    std::size_t samples_with = 0;
    std::size_t samples = 0;  // samples that answered the query
};
[[nodiscard]] std::vector<ReasonShare> slowdown_shares(const std::vector<NvmlClockSample>& samples);
// The fall of the rate over the run: 1 - median(last third of the buckets) / median(first third);
// nullopt with fewer than 3 buckets. Positive when the rate fell.
[[nodiscard]] std::optional<double> rate_drop(const std::vector<double>& tflops_per_second);
inline constexpr double stress_rate_drop_limit = 0.15;  // warn above a 15% fall (CC518)
void judge_stress(const StressOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
