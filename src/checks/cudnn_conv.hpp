// cudnn.conv: what its GPU part measures, and the pure judges of it and of the cuDNN install
// (unit tests drive them without a GPU).
#pragma once

#include "cudacheck/catalog.hpp"
#include "cudacheck/result.hpp"

#include <span>
#include <string_view>

#include <string>
#include <vector>

namespace cudacheck {

struct SubLibraryState {
    std::string soname;       // "libcudnn_cnn.so.9"
    std::string loaded_path;  // real path of the copy in this process; "" when not loaded
    bool exists_beside_main = false;  // a file of that name sits in libcudnn.so.9's directory
};

struct SubLibraryVerdict {
    std::vector<Evidence> evidence;  // one line per sub-library: where it came from
    std::vector<Finding> findings;   // CC508 (missing) and/or CC509 (mixed copies)
};

// Judges the sub-libraries against the main library: one missing (not loaded and not beside the
// main library) is CC508; one loaded from another directory, or whose file name carries a version
// other than `main_version` (the shim's cudnnGetVersion, "9.14.0"), is CC509 naming both paths.
[[nodiscard]] SubLibraryVerdict judge_sublibraries(const std::string& main_path, const std::string& main_version,
                                                   const std::vector<SubLibraryState>& states);

// Tolerance on the relative Frobenius error for a float32 convolution by algorithm family
// (cudnnConvolutionFwdAlgo_t value); see cudnn_conv.cpp for the reasoning.
[[nodiscard]] double convolution_tolerance(int algorithm);

namespace cudnn_nvrtc {

// The seven sonames libcudnn.so.9 (a shim) loads its implementation from.
[[nodiscard]] std::span<const std::string_view> cudnn9_sublibraries();

// The finding a failed cuDNN status becomes: sub-library loading/version statuses are CC508 and
// CC509 (with what they mean); everything else is CC507.
[[nodiscard]] Code code_for_cudnn_status(int status);

}  // namespace cudnn_nvrtc

}  // namespace cudacheck
