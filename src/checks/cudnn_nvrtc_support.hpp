// The pure parts of cudnn.conv about the cuDNN library itself, separated so that unit tests drive
// them with crafted inputs: cuDNN version decoding, its sub-libraries, and what a failed status
// means. Defined in cudnn_conv.cpp. (The checks' judges are in cudnn_conv.hpp and nvrtc_compile.hpp,
// the float64 reference convolution in checks/reference/.)
#pragma once

#include "cudacheck/catalog.hpp"
#include "cudacheck/result.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::cudnn_nvrtc {

// --- cuDNN ----------------------------------------------------------------------------------

// cudnnGetVersion()/CUDNN_VERSION: cuDNN 9+ M*10000+m*100+p (90300 -> 9.3.0); cuDNN <= 8
// M*1000+m*100+p (8005 -> 8.0.5) (cudnn_version.h; ../shared/cuda-facts.md §1).
struct LibraryVersion {
    int major = 0, minor = 0, patch = 0;
    [[nodiscard]] std::string text() const;
};
[[nodiscard]] LibraryVersion decode_cudnn_version(std::size_t encoded);

// The seven sonames libcudnn.so.9 (a shim) loads its implementation from.
[[nodiscard]] std::span<const std::string_view> cudnn9_sublibraries();

// The finding a failed cuDNN status becomes: sub-library loading/version statuses are CC508 and
// CC509 (with what they mean); everything else is CC507.
[[nodiscard]] Code code_for_cudnn_status(int status);

}  // namespace cudacheck::cudnn_nvrtc
