// cuda.kernel: what its GPU part measures, and the pure judge of it (unit tests drive it without a
// GPU).
#pragma once

#include "cuda/cuda_facts.hpp"
#include "engine/check.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cudacheck {

struct ComputeCapability {
    int major = 0;
    int minor = 0;
};

// What the GPU part of cuda.kernel found, filled as it goes: a GPU error that stops it leaves the
// later fields unset, and the judge reports what was measured before it.
struct KernelOutcome {
    std::optional<ComputeCapability> compute_capability;  // cudaGetDeviceProperties
    std::string embedded_architectures;  // CMAKE_CUDA_ARCHITECTURES of this build: "80;90-real"
    int runtime_cuda = 0;                // CUDART_VERSION, encoded: the CUDA release of cudacheck's own PTX
    std::optional<CudaVersion> driver;   // cudaDriverGetVersion
    int image_error = 0;  // why the vector add's image did not load: cudaErrorNoKernelImageForDevice or
                          // cudaErrorUnsupportedPtxVersion
    std::optional<int> binary_version;  // of the loaded image: SASS sm_XY (0: PTX JIT-compiled)...
    int ptx_version = 0;                // ...and its PTX version
    // The vector add, once run: sum[i] must be exactly a[i] + b[i].
    std::vector<float> a;
    std::vector<float> b;
    std::vector<float> sum;
};

// True when the driver cannot JIT-compile the only image cudacheck has for the GPU: the GPU part
// then does not launch.
[[nodiscard]] bool own_ptx_unusable(const KernelOutcome& outcome);

void judge_kernel(const KernelOutcome& outcome, ResultBuilder& result);

}  // namespace cudacheck
