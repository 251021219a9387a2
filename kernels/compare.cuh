// Device-side verification of large buffers, so that gigabytes need not come back to the host.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace cudacheck::kernels {

// Counts the 32-bit words where a and b differ into *mismatches (a device pointer, zeroed here).
// Returns a cudaError_t value (0 on success); the count is valid after the stream synchronises.
[[nodiscard]] int count_mismatches(const std::uint32_t* a, const std::uint32_t* b, std::size_t words,
                                   unsigned long long* mismatches, CUstream_st* stream);

}  // namespace cudacheck::kernels
