// gpu::allocate_pinned (gpu/cuda_runtime.cpp) where no driver serves it: a CudaError that names the
// allocation, as cudaMallocHost's failure always did, and nothing left mapped. On a machine with a
// GPU, tests/gpu/gpu_test.cpp (GpuPinnedMemory) checks the memory itself.
#include "gpu/cuda_runtime.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <fstream>
#include <string>

namespace cudacheck {
namespace {

// The process's virtual size in kB (/proc/self/status VmSize).
long virtual_kilobytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0) return std::stol(line.substr(7));
    return -1;
}

TEST(PinnedMemory, without_a_driver_is_a_cuda_error_naming_the_allocation_and_maps_nothing) {
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
        GTEST_SKIP() << "a CUDA device is usable here (tests/gpu covers it)";
    const long before = virtual_kilobytes();
    try {
        const gpu::PinnedBlock block = gpu::allocate_pinned(std::size_t{64} << 20);
        gpu::free_pinned(block);
        FAIL() << "pinned memory without a usable driver";
    } catch (const gpu::CudaError& error) {
        EXPECT_EQ(error.call(), "cudaMallocHost(64.0 MiB)");
        EXPECT_NE(error.error(), cudaSuccess);
    }
    EXPECT_LT(virtual_kilobytes() - before, 32 * 1024) << "the 64 MiB mapping was left behind";
}

}  // namespace
}  // namespace cudacheck
