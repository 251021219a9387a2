// CUDA facts (cuda/cuda_facts): versions, minimum drivers, architectures, error names, PTX ISAs.
#include "cuda/cuda_facts.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace {

using namespace cudacheck;

// ---------------------------------------------------------------------------------------------
// CUDA facts

TEST(CudaVersionValue, decodes_and_prints_when_12040) {
    const CudaVersion version = CudaVersion::from_encoded(12040);
    EXPECT_EQ(version.major, 12);
    EXPECT_EQ(version.minor, 4);
    EXPECT_EQ(version.to_string(), "12.4");
    EXPECT_EQ(version.encoded(), 12040);
}

TEST(CudaVersionValue, decodes_and_prints_when_13000) {
    EXPECT_EQ(CudaVersion::from_encoded(13000).to_string(), "13.0");
    EXPECT_EQ(CudaVersion::from_encoded(12090).to_string(), "12.9");
}

TEST(CudaVersionValue, orders_by_major_then_minor_when_compared) {
    EXPECT_LT((CudaVersion{12, 9}), (CudaVersion{13, 0}));
    EXPECT_LT((CudaVersion{12, 4}), (CudaVersion{12, 8}));
    EXPECT_EQ((CudaVersion{12, 4}), CudaVersion::from_encoded(12040));
}

// nvcc's release as it prints it; nothing that would overflow or is not two numbers (std::stoi
// threw on a 20-digit release from a hostile nvcc on PATH).
TEST(CudaVersionValue, parses_a_release_and_refuses_anything_else) {
    EXPECT_EQ(CudaVersion::parse("13.0"), (CudaVersion{13, 0}));
    EXPECT_EQ(CudaVersion::parse("12.10"), (CudaVersion{12, 10}));
    for (const char* bad :
         {"", "13", "13.", ".0", "13.0.1", "13.x", "x.0", "-1.0", "99999999999999999999.0", "13.99999999999999999999"})
        EXPECT_EQ(CudaVersion::parse(bad), std::nullopt) << bad;
}

TEST(MinimumDriver, gives_table_value_when_cuda_13_0) {
    const auto driver = minimum_driver_for({13, 0});
    ASSERT_TRUE(driver.has_value());
    EXPECT_EQ(*driver, "580.65.06");
}

TEST(MinimumDriver, gives_table_value_when_cuda_12_4_and_11_8) {
    EXPECT_EQ(minimum_driver_for({12, 4}).value_or(""), "550.54.14");
    EXPECT_EQ(minimum_driver_for({11, 8}).value_or(""), "520.61.05");
}

TEST(MinimumDriver, is_absent_when_cuda_12_7_never_released) { EXPECT_FALSE(minimum_driver_for({12, 7}).has_value()); }

TEST(FamilyMinimumDriver, gives_compatibility_floor_when_known_major) {
    EXPECT_EQ(family_minimum_driver(11).value_or(""), "450.80.02");
    EXPECT_EQ(family_minimum_driver(12).value_or(""), "525.60.13");
    EXPECT_EQ(family_minimum_driver(13).value_or(""), "580");
}

TEST(FamilyMinimumDriver, is_absent_when_unknown_major) {
    EXPECT_FALSE(family_minimum_driver(10).has_value());
    EXPECT_FALSE(family_minimum_driver(14).has_value());
}

TEST(ArchitectureName, names_known_compute_capabilities_when_in_table) {
    EXPECT_EQ(architecture_name(9, 0), "Hopper");
    EXPECT_EQ(architecture_name(8, 9), "Ada Lovelace");
    EXPECT_EQ(architecture_name(8, 6), "Ampere");
    EXPECT_EQ(architecture_name(8, 0), "Ampere");
    EXPECT_EQ(architecture_name(7, 5), "Turing");
    EXPECT_EQ(architecture_name(6, 1), "Pascal");
}

TEST(ArchitectureName, says_unknown_when_not_in_table) {
    EXPECT_EQ(architecture_name(2, 0), "unknown");
    EXPECT_EQ(architecture_name(99, 0), "unknown");
}

TEST(Fp32Lanes, gives_helper_cuda_values_when_known) {
    EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
    EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
    EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
    EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);
}

TEST(Fp32Lanes, is_absent_when_unknown) { EXPECT_FALSE(fp32_lanes_per_sm(2, 1).has_value()); }

TEST(MinimumComputeCapability, gives_7_5_when_cuda_13) {
    EXPECT_EQ(minimum_compute_capability(13), (std::pair{7, 5}));
    EXPECT_EQ(minimum_compute_capability(12), (std::pair{5, 0}));
    EXPECT_EQ(minimum_compute_capability(11), (std::pair{3, 5}));
}

TEST(MinimumComputeCapability, is_absent_when_unknown_major) {
    EXPECT_FALSE(minimum_compute_capability(9).has_value());
}

TEST(LastCudaMajor, gives_12_when_pascal_6_1) { EXPECT_EQ(last_cuda_major_supporting(6, 1), 12); }

TEST(LastCudaMajor, gives_11_when_kepler_3_7) { EXPECT_EQ(last_cuda_major_supporting(3, 7), 11); }

TEST(LastCudaMajor, gives_12_when_volta_7_0) { EXPECT_EQ(last_cuda_major_supporting(7, 0), 12); }

TEST(LastCudaMajor, is_absent_when_still_supported) {
    EXPECT_FALSE(last_cuda_major_supporting(9, 0).has_value());
    EXPECT_FALSE(last_cuda_major_supporting(7, 5).has_value());
}

TEST(PtxJit, needs_a_driver_of_at_least_the_ptx_cuda_version) {
    EXPECT_TRUE(driver_can_jit({13, 0}, {13, 0}));
    EXPECT_TRUE(driver_can_jit({12, 4}, {13, 0}));
    EXPECT_FALSE(driver_can_jit({13, 1}, {13, 0})) << "minor version compatibility does not cover PTX";
    EXPECT_FALSE(driver_can_jit({13, 0}, {12, 9}));
}

TEST(CudaFacts, knows_which_cuda_first_jit_compiles_a_ptx_isa) {
    EXPECT_EQ(minimum_cuda_for_ptx_isa(9, 0), (CudaVersion{13, 0}));
    EXPECT_EQ(minimum_cuda_for_ptx_isa(8, 6), (CudaVersion{12, 7}));
    EXPECT_EQ(minimum_cuda_for_ptx_isa(7, 8), (CudaVersion{11, 8}));
    EXPECT_FALSE(minimum_cuda_for_ptx_isa(9, 9).has_value());
}

}  // namespace
