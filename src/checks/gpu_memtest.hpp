// gpu.memtest (burn-in of each GPU's memory, --level full only): what its GPU part measures, and
// the pure judge of it (unit tests drive it without a GPU).
#pragma once

#include "engine/check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cudacheck {

// gpu.memtest: one mismatched word, where (byte offset in the tested buffer) and in which pattern.
struct MemtestMismatch {
    std::uint64_t offset = 0;
    std::uint32_t expected = 0;
    std::uint32_t actual = 0;
    std::string pattern;  // "walking ones 3", "random", ...
};
// Mismatches grouped into ranges of neighbouring words (4 bytes apart or the same word seen again
// in another pattern), in address order.
struct MismatchRange {
    std::uint64_t first_offset = 0;
    std::uint64_t last_offset = 0;
    std::size_t words = 0;            // distinct words recorded in the range
    std::uint32_t flipped_bits = 0;   // OR of expected ^ actual
    std::vector<std::string> patterns;  // distinct, in the order first seen
};
[[nodiscard]] std::vector<MismatchRange> group_mismatches(std::vector<MemtestMismatch> mismatches);
// The bytes gpu.memtest takes: half the free memory, at most memtest_max_bytes, whole MiB.
inline constexpr std::uint64_t memtest_max_bytes = std::uint64_t{64} << 30;
[[nodiscard]] std::uint64_t memtest_bytes(std::uint64_t free_bytes);
// One pattern of the run: its fill and verify kernels' GPU time, and the words that read back wrong.
struct MemtestPattern {
    std::string name;
    double gpu_seconds = 0;
    std::uint64_t mismatched_words = 0;
};
struct MemtestOutcome {
    std::uint64_t bytes = 0;            // tested
    std::uint64_t free_bytes = 0;       // free when the test began
    std::uint64_t device_address = 0;   // where the tested buffer starts
    std::vector<MemtestPattern> patterns_run;
    std::size_t patterns_planned = 0;
    double gpu_seconds = 0;             // fill and verify kernels, CUDA events
    std::uint64_t mismatched_words = 0;  // over every pattern
    std::vector<MemtestMismatch> recorded;  // the first few of each pattern
};
void judge_memtest(const MemtestOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
