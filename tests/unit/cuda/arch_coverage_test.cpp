// GPU architectures (cuda/arch_coverage.cpp): their names, what runs where, CMake's spelling.
#include "cuda/arch_coverage.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cudacheck {
namespace {

TEST(GpuArch, parses_the_forms_users_type) {
    EXPECT_EQ(parse_gpu_arch("sm_90"), (GpuArch{90, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("90"), (GpuArch{90, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("8.6"), (GpuArch{86, ArchVariant::generic}));
    EXPECT_EQ(parse_gpu_arch("compute_100f"), (GpuArch{100, ArchVariant::family}));
    EXPECT_EQ(parse_gpu_arch("12.0a"), (GpuArch{120, ArchVariant::arch_specific}));
    for (const char* bad : {"", "sm_", "9.10", "abc", "sm_90x", "-90", "9.", "7"})
        EXPECT_FALSE(parse_gpu_arch(bad).has_value()) << bad;
}

TEST(GpuArch, names_sass_and_virtual_targets_with_their_variant) {
    EXPECT_EQ((GpuArch{90, ArchVariant::arch_specific}).sass_name(), "sm_90a");
    EXPECT_EQ((GpuArch{103, ArchVariant::family}).virtual_name(), "compute_103f");
    EXPECT_EQ((GpuArch{120, ArchVariant::generic}).major(), 12);
}

TEST(ArchCoverage, sass_runs_on_the_same_major_with_a_newer_minor) {
    EXPECT_TRUE(sass_runs_on({80, ArchVariant::generic}, 8, 6));
    EXPECT_FALSE(sass_runs_on({86, ArchVariant::generic}, 8, 0));
    EXPECT_FALSE(sass_runs_on({80, ArchVariant::generic}, 9, 0));
}

TEST(ArchCoverage, arch_specific_targets_run_only_on_their_exact_capability) {
    EXPECT_TRUE(sass_runs_on({100, ArchVariant::arch_specific}, 10, 0));
    EXPECT_FALSE(sass_runs_on({100, ArchVariant::arch_specific}, 10, 3));
    EXPECT_FALSE(ptx_compiles_for({90, ArchVariant::arch_specific}, 10, 0));
    EXPECT_TRUE(ptx_compiles_for({90, ArchVariant::arch_specific}, 9, 0));
}

TEST(ArchCoverage, family_targets_run_within_their_major_only) {
    EXPECT_TRUE(sass_runs_on({100, ArchVariant::family}, 10, 3));
    EXPECT_TRUE(ptx_compiles_for({100, ArchVariant::family}, 10, 3));
    EXPECT_FALSE(ptx_compiles_for({100, ArchVariant::family}, 12, 0));
    EXPECT_TRUE(ptx_compiles_for({100, ArchVariant::generic}, 12, 0));
}

TEST(ArchCoverage, prefers_sass_then_the_newest_ptx) {
    const EmbeddedTargets targets{{{75, ArchVariant::generic}, {90, ArchVariant::arch_specific}},
                                  {{80, ArchVariant::generic}, {86, ArchVariant::generic}}};
    EXPECT_EQ(kernel_image_for(targets, 9, 0).describe(), "runs natively (sm_90a SASS)");
    EXPECT_EQ(kernel_image_for(targets, 8, 9).describe(),
              "runs through PTX JIT (compute_86; the first launch compiles)");
    EXPECT_EQ(kernel_image_for(targets, 7, 0).kind, ImageKind::none);
}

TEST(ArchCoverage, reads_variants_in_cmake_architectures) {
    const EmbeddedTargets targets = parse_cmake_architectures("75-real;90a-real;100f;120-virtual;native");
    EXPECT_EQ(targets.sass, (std::vector<GpuArch>{{75, ArchVariant::generic},
                                                  {90, ArchVariant::arch_specific},
                                                  {100, ArchVariant::family}}));
    EXPECT_EQ(targets.ptx, (std::vector<GpuArch>{{100, ArchVariant::family}, {120, ArchVariant::generic}}));
}

}  // namespace
}  // namespace cudacheck
