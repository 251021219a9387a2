// GPU memory test patterns (gpu.memtest): each word's expected value depends only on the pattern,
// the word's index and the buffer's address, through a function compiled for the GPU and the host,
// so the verify kernel regenerates what the fill kernel wrote (nothing is copied back but the
// mismatches) and the unit tests check the same function on the CPU.
#pragma once

#include "kernels/random_fill.cuh"

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace cudacheck::kernels {

enum class MemoryPattern : std::uint32_t {
    walking_ones,        // 1 << ((index + rotation) % 32): neighbouring words carry neighbouring bits
    walking_zeros,       // the complement of walking_ones
    address,             // the word's own device address, folded to 32 bits: catches address decoding faults
    address_complement,  // its complement: every bit of every word is written 0 and 1 by the two
    random,              // splitmix64 of (seed, index): no structure a fault could reproduce by accident
};

struct PatternSpec {
    MemoryPattern kind = MemoryPattern::random;
    std::uint32_t rotation = 0;  // walking patterns
    std::uint64_t seed = 0;      // random
};

// The 32-bit value of word `index` of a buffer starting at device address `base`.
CUDACHECK_HOST_DEVICE inline std::uint32_t pattern_word(PatternSpec pattern, std::uint64_t base, std::uint64_t index) {
    switch (pattern.kind) {
        case MemoryPattern::walking_ones: return 1u << ((index + pattern.rotation) & 31u);
        case MemoryPattern::walking_zeros: return ~(1u << ((index + pattern.rotation) & 31u));
        case MemoryPattern::address:
        case MemoryPattern::address_complement: {
            const std::uint64_t address = base + index * 4u;
            const auto folded = static_cast<std::uint32_t>(address ^ (address >> 32));
            return pattern.kind == MemoryPattern::address ? folded : ~folded;
        }
        case MemoryPattern::random: break;
    }
    return static_cast<std::uint32_t>(mix64(pattern.seed * 0x100000001B3ULL ^ index) >> 16);
}

// A word that read back different from what was written.
struct MemoryMismatch {
    std::uint64_t index = 0;  // word index in the buffer
    std::uint32_t expected = 0;
    std::uint32_t actual = 0;
};

// Writes pattern_word(pattern, data, i) to each of `words` words. Returns a cudaError_t value.
[[nodiscard]] int fill_pattern(std::uint32_t* data, std::size_t words, PatternSpec pattern, CUstream_st* stream);

// Compares every word with the pattern: *mismatches (device, zeroed here) counts the words that
// differ; the first `max_records` of them (in no particular order) go to `records` (device), and
// *recorded (device, zeroed here) counts how many were offered (it may exceed max_records).
// Returns a cudaError_t value; the results are valid once the stream synchronises.
[[nodiscard]] int verify_pattern(const std::uint32_t* data, std::size_t words, PatternSpec pattern,
                                 unsigned long long* mismatches, unsigned int* recorded, MemoryMismatch* records,
                                 unsigned int max_records, CUstream_st* stream);

}  // namespace cudacheck::kernels
