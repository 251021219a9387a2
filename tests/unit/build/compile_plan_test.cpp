// build/compile_plan: what toolkit.compile asks nvcc to build, from the build facts alone.
#include "build/compile_plan.hpp"

#include "support/test_support.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::contains;

DeviceInfo gpu(int ordinal, int major, int minor) {
    DeviceInfo device;
    device.ordinal = ordinal;
    device.cc_major = major;
    device.cc_minor = minor;
    return device;
}

BuildSetup setup_with_nvcc() {
    BuildSetup setup;
    setup.files.nvcc = "/nonexistent/cuda/bin/nvcc";
    setup.nvcc_architectures = {"compute_75", "compute_80", "compute_90", "compute_100"};
    setup.temporary = {"/tmp", "/tmp (TMPDIR unset)", ""};
    return setup;
}

TEST(CompilePlan, sass_for_each_gpu_and_ptx_for_the_newest) {
    const NvccBuildPlan plan = plan_nvcc_build(setup_with_nvcc(), {gpu(0, 9, 0), gpu(1, 8, 0), gpu(2, 9, 0)});
    EXPECT_EQ(plan.nvcc, "/nonexistent/cuda/bin/nvcc");
    EXPECT_TRUE(plan.not_run.empty()) << plan.not_run;
    const std::vector<std::string> flags{"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90",
                                         "-gencode=arch=compute_90,code=compute_90"};
    EXPECT_EQ(plan.gencode, flags);
    EXPECT_EQ(plan.sass, (std::vector<int>{80, 90}));
    EXPECT_EQ(plan.ptx, 90);
}

TEST(CompilePlan, without_a_gpu_the_oldest_architecture_nvcc_lists) {
    const NvccBuildPlan plan = plan_nvcc_build(setup_with_nvcc(), {});
    EXPECT_EQ(plan.sass, std::vector<int>{75});
    EXPECT_EQ(plan.ptx, 75);
    BuildSetup unknown = setup_with_nvcc();
    unknown.nvcc_architectures.clear();
    EXPECT_EQ(plan_nvcc_build(unknown, {}).sass, std::vector<int>{75}) << "sm_75 when nvcc lists none";
}

TEST(CompilePlan, nvcc_that_would_hang_is_not_run_and_the_reason_names_toolkit_builds_finding) {
    BuildSetup setup = setup_with_nvcc();
    setup.nvcc_timed_out = true;
    NvccBuildPlan plan = plan_nvcc_build(setup, {gpu(0, 9, 0)});
    EXPECT_EQ(plan.nvcc, setup.files.nvcc);
    EXPECT_TRUE(contains(plan.not_run, "CC306")) << plan.not_run;
    EXPECT_TRUE(plan.gencode.empty());

    setup = setup_with_nvcc();
    setup.nvcc_host_compiler.path = "/nonexistent/slow-gcc";
    setup.nvcc_host_compiler.unusable = "`/nonexistent/slow-gcc --version` did not finish within 10 s";
    plan = plan_nvcc_build(setup, {gpu(0, 9, 0)});
    EXPECT_TRUE(contains(plan.not_run, "CC336") && contains(plan.not_run, "/nonexistent/slow-gcc")) << plan.not_run;

    setup = setup_with_nvcc();
    setup.temporary = {"", "TMPDIR", "is empty"};
    plan = plan_nvcc_build(setup, {gpu(0, 9, 0)});
    EXPECT_TRUE(contains(plan.not_run, "CC335")) << plan.not_run;
}

TEST(CompilePlan, no_nvcc_is_nothing_to_run) {
    BuildSetup setup = setup_with_nvcc();
    setup.files.nvcc.clear();
    setup.nvcc_timed_out = true;
    const NvccBuildPlan plan = plan_nvcc_build(setup, {gpu(0, 9, 0)});
    EXPECT_TRUE(plan.nvcc.empty());
    EXPECT_TRUE(plan.not_run.empty()) << "no nvcc: toolkit.build says why, not a reason not to run it";
}

}  // namespace
}  // namespace cudacheck
