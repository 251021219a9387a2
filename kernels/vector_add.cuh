// The article's custom-kernel example, done properly: c = a + b on one device, with every CUDA
// error returned as a value (never thrown, never fatal). Host code includes this header only.
#pragma once

#include <cstddef>

namespace cudacheck::kernels {

struct KernelOutcome {
    int cuda_error = 0;              // cudaError_t value; 0 is success
    const char* error_name = "";     // cudaGetErrorName
    const char* failed_step = "";    // "cudaMalloc", "launch", ...
    [[nodiscard]] bool ok() const { return cuda_error == 0; }
};

// Copies a and b (n floats) to `device`, adds them there and copies the sum into c.
[[nodiscard]] KernelOutcome vector_add(int device, const float* a, const float* b, float* c, std::size_t n);

}  // namespace cudacheck::kernels
