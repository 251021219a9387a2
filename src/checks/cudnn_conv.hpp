// cudnn.conv: what its GPU part measures, and the pure judges of it and of the cuDNN install
// (unit tests drive them without a GPU).
#pragma once

#include "checks/reference/convolution.hpp"
#include "engine/check.hpp"
#include "gpu/library_support.hpp"
#include "report/catalog.hpp"
#include "report/result.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
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

// What the GPU part of the convolution found, filled as it goes: a cuDNN or GPU error that stops it
// leaves the later fields unset, and the judge reports what was measured before it.
struct ConvolutionOutcome {
    reference::ConvShape shape;
    std::optional<std::array<int, 4>> output_dims;  // N, K, P, Q as cudnnGetConvolution2dForwardOutputDim gives them
    // The forward algorithm (cudnnConvolutionFwdAlgo_t), why it was taken, and its workspace.
    std::optional<int> algorithm;
    std::string chosen_by;  // "heuristics (rank 1 of 8)"
    std::size_t workspace_bytes = 0;
    std::optional<gpu::Accuracy> accuracy;  // every output against the float64 reference
    int timed_runs = 0;
    std::vector<float> times_ms;  // each timed run; only a correct convolution is timed
};

// The random input and filter of `shape`, recomputed on the host exactly as the GPU fills them
// (kernels::uniform_value of fixed seeds).
struct ConvolutionInputs {
    std::vector<float> input;   // NCHW
    std::vector<float> filter;  // KCRS
};
[[nodiscard]] ConvolutionInputs seeded_convolution_inputs(const reference::ConvShape& shape);

// `output` (NKPQ) against the float64 convolution of the seeded inputs, element by element; a
// missing element counts as non-finite.
[[nodiscard]] gpu::Accuracy convolution_accuracy(const reference::ConvShape& shape, std::span<const float> output);

void judge_convolution(const ConvolutionOutcome& outcome, ResultBuilder& result);

namespace cudnn_nvrtc {

// The finding a failed cuDNN status becomes: sub-library loading/version statuses are CC508 and
// CC509 (with what they mean); everything else is CC507.
[[nodiscard]] Code code_for_cudnn_status(int status);

}  // namespace cudnn_nvrtc

}  // namespace cudacheck
