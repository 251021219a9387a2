// The pure parts of cudnn.conv and nvrtc.compile, separated so that unit tests drive them with
// crafted inputs: the float64 reference convolution, the judgement of
// which cuDNN sub-libraries loaded from where, and the NVRTC target choice. Defined in
// cudnn_conv.cpp and nvrtc_compile.cpp (no build-file change needed).
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

// A 2-D forward convolution (cross-correlation, as cuDNN computes it) with NCHW input, KCRS
// filter and NKPQ output; square padding and stride, no dilation.
struct ConvShape {
    int n = 1, c = 1, h = 1, w = 1;  // input
    int k = 1, r = 1, s = 1;         // filter: output channels, height, width
    int pad = 0, stride = 1;
    [[nodiscard]] int out_h() const { return (h + 2 * pad - r) / stride + 1; }
    [[nodiscard]] int out_w() const { return (w + 2 * pad - s) / stride + 1; }
    [[nodiscard]] std::size_t input_count() const;
    [[nodiscard]] std::size_t filter_count() const;
    [[nodiscard]] std::size_t output_count() const;
    // Multiply-adds of the direct algorithm: N*K*P*Q*C*R*S.
    [[nodiscard]] double multiply_adds() const;
};

// Every output of the convolution, accumulated in float64 (exact products of floats, one rounding
// per addition at 53 bits): the reference the GPU's float32 result is measured against.
[[nodiscard]] std::vector<double> reference_convolution(const ConvShape& shape, std::span<const float> input, std::span<const float> filter);

// The seven sonames libcudnn.so.9 (a shim) loads its implementation from.
[[nodiscard]] std::span<const std::string_view> cudnn9_sublibraries();

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

// The finding a failed cuDNN status becomes: sub-library loading/version statuses are CC508 and
// CC509 (with what they mean); everything else is CC507.
[[nodiscard]] Code code_for_cudnn_status(int status);

// Tolerance on the relative Frobenius error for a float32 convolution by algorithm family
// (cudnnConvolutionFwdAlgo_t value); see cudnn_conv.cpp for the reasoning.
[[nodiscard]] double convolution_tolerance(int algorithm);

// --- NVRTC ----------------------------------------------------------------------------------

struct NvrtcTarget {
    bool possible = false;  // false: NVRTC supports no architecture this GPU can run
    bool cubin = false;     // true: SASS for exactly this GPU; false: PTX the driver JIT-compiles
    int architecture = 0;   // 90 for sm_90 / compute_90
    std::string option;     // "--gpu-architecture=sm_90"
    std::string verdict;    // one line for the evidence
};

// sm_XY (CUBIN) when NVRTC lists the device's XY; otherwise PTX for the newest listed
// architecture not above the device (PTX for compute_AB runs on any GPU of CC >= A.B through the
// driver's JIT); otherwise not possible (the GPU is older than every architecture NVRTC knows).
[[nodiscard]] NvrtcTarget choose_nvrtc_target(std::span<const int> supported_architectures, int major, int minor);

// "libnvrtc-builtins.so.13.0": the companion library NVRTC <major>.<minor> loads at compile time.
[[nodiscard]] std::string nvrtc_builtins_soname(int major, int minor);

// The first `max_lines` non-empty lines of a compiler log, joined with " | ".
[[nodiscard]] std::string first_log_lines(std::string_view log, std::size_t max_lines);

}  // namespace cudacheck::cudnn_nvrtc
