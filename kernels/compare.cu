#include "kernels/compare.cuh"

#include <cuda_runtime.h>

namespace cudacheck::kernels {

namespace {

__global__ void mismatch_kernel(const std::uint32_t* a, const std::uint32_t* b, std::size_t words,
                                unsigned long long* mismatches) {
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        local += a[i] != b[i];
    if (local != 0) atomicAdd(mismatches, local);
}

}  // namespace

int count_mismatches(const std::uint32_t* a, const std::uint32_t* b, std::size_t words, unsigned long long* mismatches,
                     CUstream_st* stream) {
    if (cudaError_t error = cudaMemsetAsync(mismatches, 0, sizeof *mismatches, stream); error != cudaSuccess)
        return error;
    mismatch_kernel<<<1024, 256, 0, stream>>>(a, b, words, mismatches);
    return static_cast<int>(cudaGetLastError());
}

}  // namespace cudacheck::kernels
