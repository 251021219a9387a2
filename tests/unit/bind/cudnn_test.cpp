// cuDNN's binding: its two version encodings (bind/cudnn.hpp).
#include "bind/cudnn.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

TEST(CudnnVersion, decodes_cudnn9_form_when_above_ten_thousand) {
    EXPECT_EQ(decode_cudnn_version(90300).text(), "9.3.0");
    EXPECT_EQ(decode_cudnn_version(91400).text(), "9.14.0");
    EXPECT_EQ(decode_cudnn_version(91902).text(), "9.19.2");
    EXPECT_EQ(decode_cudnn_version(91400).major, 9);
}

TEST(CudnnVersion, decodes_cudnn8_form_when_below_ten_thousand) {
    EXPECT_EQ(decode_cudnn_version(8005).text(), "8.0.5");
    EXPECT_EQ(decode_cudnn_version(8907).text(), "8.9.7");
    EXPECT_EQ(decode_cudnn_version(8907).major, 8);
}

}  // namespace
}  // namespace cudacheck
