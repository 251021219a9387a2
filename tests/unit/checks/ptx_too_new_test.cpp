// add_ptx_too_new (checks/cuda_kernel.cpp): CC511 names both CUDA versions and the least driver.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;
using test::judge;

TEST(PtxJit, names_both_versions_and_the_minimum_driver_when_too_new) {
    const CheckResult result = judge("nvrtc.compile", [](ResultBuilder& builder) {
        add_ptx_too_new(builder, "the kernel NVRTC 12.4 compiled for compute_90", {12, 4}, {12, 2}, "use the NVRTC of the driver's CUDA version");
    });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC511");
    EXPECT_TRUE(contains(result.message, "CUDA 12.4")) << result.message;
    EXPECT_TRUE(contains(result.message, "(CUDA 12.2)")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "550.54.14")) << "CUDA 12.4's minimum driver: " << result.remediation;
    EXPECT_TRUE(contains(result.remediation, "use the NVRTC of the driver's CUDA version")) << result.remediation;
}

}  // namespace
}  // namespace cudacheck
