#include "support/spin.cuh"

#include <cuda_runtime.h>

namespace cudacheck::kernels {

namespace {

// Never written: the volatile read keeps the loop (and the kernel) alive.
__device__ volatile int spin_release = 0;

__global__ void spin_kernel() {
    while (spin_release == 0) {}
}

}  // namespace

int launch_spin_forever(CUstream_st* stream) {
    spin_kernel<<<1, 1, 0, stream>>>();
    return static_cast<int>(cudaGetLastError());
}

}  // namespace cudacheck::kernels
