// cuda.memory: what its GPU part measures, and the pure judge of it (unit tests drive it without a
// GPU).
#pragma once

#include "engine/check.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace cudacheck {

// What the GPU part of cuda.memory found, filled as it goes: a GPU error, or a copy that came back
// wrong, leaves the later fields unset.
struct MemoryOutcome {
    std::size_t host_bytes = 0;  // each pinned host <-> device transfer
    int runs = 0;                // timed runs of each copy, after 1 warm-up
    std::optional<std::size_t> free_bytes;  // cudaMemGetInfo before the copies
    std::size_t total_bytes = 0;
    std::vector<float> host_to_device_ms;  // each timed run
    std::vector<float> device_to_host_ms;
    std::optional<bool> round_trip_intact;  // host -> device -> host gave back the bytes sent
    std::size_t device_bytes = 0;           // the device-to-device copy
    std::vector<float> device_to_device_ms;
    std::optional<std::uint64_t> device_wrong_words;  // 32-bit words of that copy that differ
    std::optional<double> theoretical_bandwidth_gbps;  // of the device's memory, when known
};

void judge_memory(const MemoryOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
