// The float64 reference convolution (checks/reference/convolution.hpp) on windows small enough to
// sum by hand.
#include "checks/reference/convolution.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cudacheck {
namespace {

using namespace reference;

TEST(ReferenceConvolution, sums_the_window_with_zero_padding_when_padded) {
    // 3x3 input 1..9, 3x3 filter of ones, padding 1: each output sums the in-bounds neighbours.
    const ConvShape shape{.n = 1, .c = 1, .h = 3, .w = 3, .k = 1, .r = 3, .s = 3, .pad = 1, .stride = 1};
    const std::vector<float> input{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<float> filter(9, 1.0f);
    const std::vector<double> output = reference_convolution(shape, input, filter);
    const std::vector<double> expected{
        1 + 2 + 4 + 5,         1 + 2 + 3 + 4 + 5 + 6, 2 + 3 + 5 + 6,         1 + 2 + 4 + 5 + 7 + 8, 45,
        2 + 3 + 5 + 6 + 8 + 9, 4 + 5 + 7 + 8,         4 + 5 + 6 + 7 + 8 + 9, 5 + 6 + 8 + 9};
    EXPECT_EQ(output, expected);
}

TEST(ReferenceConvolution, correlates_without_flipping_the_filter_when_strided) {
    // 4x4 input 0..15, filter [[1,0],[0,-1]], stride 2, no padding: out = in[y][x] - in[y+1][x+1].
    // Cross-correlation (cuDNN's CUDNN_CROSS_CORRELATION): a flipped filter would give +5 instead.
    const ConvShape shape{.n = 1, .c = 1, .h = 4, .w = 4, .k = 1, .r = 2, .s = 2, .pad = 0, .stride = 2};
    std::vector<float> input(16);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i);
    const std::vector<float> filter{1, 0, 0, -1};
    EXPECT_EQ(shape.out_h(), 2);
    EXPECT_EQ(shape.out_w(), 2);
    EXPECT_EQ(reference_convolution(shape, input, filter), (std::vector<double>{-5, -5, -5, -5}));
}

TEST(ReferenceConvolution, sums_channels_and_orders_output_as_nkpq_when_batched) {
    // N=2, C=2, 1x1 images, K=2 1x1 filters: out[n][k] = sum_c in[n][c] * f[k][c].
    const ConvShape shape{.n = 2, .c = 2, .h = 1, .w = 1, .k = 2, .r = 1, .s = 1, .pad = 0, .stride = 1};
    const std::vector<float> input{1, 2, 3, 4};      // n0: (1,2), n1: (3,4)
    const std::vector<float> filter{10, 100, -1, 1};  // k0: (10,100), k1: (-1,1)
    EXPECT_EQ(reference_convolution(shape, input, filter), (std::vector<double>{210, 1, 430, 1}));
    EXPECT_EQ(shape.output_count(), 4u);
    EXPECT_DOUBLE_EQ(shape.multiply_adds(), 8.0);
}

}  // namespace
}  // namespace cudacheck
