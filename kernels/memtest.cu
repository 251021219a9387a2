#include "kernels/memtest.cuh"

#include <cuda_runtime.h>

namespace cudacheck::kernels {

namespace {

// Enough blocks to fill any current GPU several times over; each thread strides through the buffer.
constexpr unsigned int blocks = 4096;
constexpr unsigned int threads = 256;

__global__ void fill_kernel(std::uint32_t* data, std::size_t words, PatternSpec pattern) {
    const auto base = reinterpret_cast<std::uint64_t>(data);
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        data[i] = pattern_word(pattern, base, i);
}

__global__ void verify_kernel(const std::uint32_t* data, std::size_t words, PatternSpec pattern,
                              unsigned long long* mismatches, unsigned int* recorded, MemoryMismatch* records,
                              unsigned int max_records) {
    const auto base = reinterpret_cast<std::uint64_t>(data);
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::uint32_t expected = pattern_word(pattern, base, i);
        const std::uint32_t actual = data[i];
        if (actual == expected) continue;
        ++local;
        // Only while there is room: a GPU whose memory is wholly bad must not serialise on one atomic.
        if (*static_cast<volatile unsigned int*>(recorded) < max_records) {
            const unsigned int slot = atomicAdd(recorded, 1u);
            if (slot < max_records) records[slot] = MemoryMismatch{i, expected, actual};
        }
    }
    if (local != 0) atomicAdd(mismatches, local);
}

}  // namespace

int fill_pattern(std::uint32_t* data, std::size_t words, PatternSpec pattern, CUstream_st* stream) {
    fill_kernel<<<blocks, threads, 0, stream>>>(data, words, pattern);
    return static_cast<int>(cudaGetLastError());
}

int verify_pattern(const std::uint32_t* data, std::size_t words, PatternSpec pattern, unsigned long long* mismatches,
                   unsigned int* recorded, MemoryMismatch* records, unsigned int max_records, CUstream_st* stream) {
    if (cudaError_t error = cudaMemsetAsync(mismatches, 0, sizeof *mismatches, stream); error != cudaSuccess)
        return error;
    if (cudaError_t error = cudaMemsetAsync(recorded, 0, sizeof *recorded, stream); error != cudaSuccess) return error;
    verify_kernel<<<blocks, threads, 0, stream>>>(data, words, pattern, mismatches, recorded, records, max_records);
    return static_cast<int>(cudaGetLastError());
}

}  // namespace cudacheck::kernels
