// The float64 reference a GPU convolution is measured against (cudnn.conv).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace cudacheck::reference {

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
[[nodiscard]] std::vector<double> reference_convolution(const ConvShape& shape, std::span<const float> input,
                                                        std::span<const float> filter);

}  // namespace cudacheck::reference
