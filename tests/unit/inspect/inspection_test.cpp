// Judging GPU code for a target (inspect/inspection.cpp): native SASS, PTX JIT, missing code.
#include "inspect/inspection.hpp"
#include "cuda/cuda_facts.hpp"
#include "support/crafted_gpu_code.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace cudacheck {
namespace {

using test::ByteVector;
using test::Entry;
using test::make_elf;
using test::make_fatbin;
using test::scan;

GpuCodeScan crafted(const std::vector<Entry>& entries) { return scan(make_fatbin(entries)); }

TEST(InspectJudge, runs_natively_when_sass_matches) {
    const auto verdict = judge_target(crafted({{2, 80}, {1, 80, 0x11, 16, {9, 0}}}),
                                      InspectTarget{8, 6, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.message, "runs natively (sm_80 SASS)");
}

TEST(InspectJudge, names_the_ptx_isa_and_the_driver_it_needs_for_jit) {
    const auto verdict = judge_target(crafted({{2, 80}, {1, 80, 0x11, 16, {9, 0}}}),
                                      InspectTarget{9, 0, 0, "NVIDIA H200"}, CudaVersion{13, 0});
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.image.kind, ImageKind::ptx_jit);
    EXPECT_EQ(verdict.ptx_needs_cuda, (CudaVersion{13, 0}));
    EXPECT_NE(verdict.message.find("PTX ISA 9.0 needs driver CUDA >= 13.0"), std::string::npos) << verdict.message;
}

TEST(InspectJudge, fails_with_cc511_when_the_driver_is_too_old_for_the_ptx) {
    const auto verdict =
        judge_target(crafted({{1, 80, 0x11, 16, {9, 0}}}), InspectTarget{9, 0, 0, "NVIDIA H200"}, CudaVersion{12, 8});
    EXPECT_EQ(verdict.status, Status::fail);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_EQ(verdict.finding->code, "CC511");
    EXPECT_NE(verdict.finding->remediation.find("580.65.06"), std::string::npos) << verdict.finding->remediation;
}

TEST(InspectJudge, fails_with_cc503_and_names_the_gencode_and_torch_fix) {
    const auto verdict =
        judge_target(crafted({{2, 75}, {2, 90, 0x100011}}), InspectTarget{8, 6, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::fail);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_EQ(verdict.finding->code, "CC503");
    EXPECT_NE(verdict.finding->message.find("SASS sm_75, sm_90a"), std::string::npos) << verdict.finding->message;
    EXPECT_NE(verdict.finding->remediation.find("-gencode arch=compute_86,code=sm_86"), std::string::npos);
    EXPECT_NE(verdict.finding->remediation.find("TORCH_CUDA_ARCH_LIST=\"8.6\""), std::string::npos);
    EXPECT_EQ(verdict.finding->remediation.find("toolkit"), std::string::npos)
        << "every current toolkit builds for 8.6";
}

TEST(InspectJudge, names_the_last_toolkit_for_an_architecture_current_ones_dropped) {
    const auto verdict = judge_target(crafted({{2, 75}}), InspectTarget{7, 0, std::nullopt, {}}, std::nullopt);
    ASSERT_TRUE(verdict.finding.has_value());
    EXPECT_NE(verdict.finding->remediation.find("with a CUDA 12.x toolkit, the last that builds for it"),
              std::string::npos)
        << verdict.finding->remediation;
}

TEST(InspectJudge, counts_fatbins_without_an_image_but_judges_the_file_as_a_whole) {
    ByteVector section = make_fatbin({{2, 80}});
    const ByteVector hopper_only = make_fatbin({{2, 90, 0x100011}});
    section.insert(section.end(), hopper_only.begin(), hopper_only.end());
    const auto verdict =
        judge_target(scan(make_elf(3, {{".nv_fatbin", section}})), InspectTarget{8, 0, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::pass);
    EXPECT_EQ(verdict.fatbins_without_image, 1u);
}

TEST(InspectJudge, skips_files_without_loadable_code) {
    const auto verdict = judge_target(scan(make_elf(3, {{".text", ByteVector(8, 0)}})),
                                      InspectTarget{9, 0, std::nullopt, {}}, std::nullopt);
    EXPECT_EQ(verdict.status, Status::skip);
    EXPECT_EQ(inspect_exit_code({InspectedFile{"x", {}, std::nullopt, {verdict}}}), 0);
}

}  // namespace
}  // namespace cudacheck
