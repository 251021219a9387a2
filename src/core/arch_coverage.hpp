// Which GPUs a set of embedded code objects can run on (CUDA C++ Programming Guide, "Binary
// Compatibility" and "PTX Compatibility"; ../shared/cuda-facts.md §3): a cubin sm_XY runs on
// devices of the same major with minor >= Y; PTX compute_XY is JIT-compiled for any device of
// compute capability >= X.Y.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

struct EmbeddedTargets {
    std::vector<int> sass;  // 90 for sm_90
    std::vector<int> ptx;   // 120 for compute_120
};

// From CMAKE_CUDA_ARCHITECTURES syntax: "75-real;90-real;120-virtual", "90" (SASS and PTX), "native".
[[nodiscard]] EmbeddedTargets parse_cmake_architectures(std::string_view architectures);

enum class ImageKind { native, ptx_jit, none };
struct ImageVerdict {
    ImageKind kind = ImageKind::none;
    int target = 0;  // the sm_/compute_ number used
    [[nodiscard]] std::string describe() const;  // "runs natively (sm_90 SASS)" ...
};
[[nodiscard]] ImageVerdict kernel_image_for(const EmbeddedTargets& targets, int cc_major, int cc_minor);

}  // namespace cudacheck
