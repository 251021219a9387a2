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

// Which code the runtime picked for the add kernel on the current device (cudaFuncGetAttributes):
// binary_version is the SASS architecture (90 for sm_90), 0 when only PTX was JIT-compiled;
// ptx_version is the PTX architecture. A missing image is reported as error 209.
[[nodiscard]] KernelOutcome vector_add_image(int* binary_version, int* ptx_version);

}  // namespace cudacheck::kernels
