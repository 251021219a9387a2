// host.limits (checks/host_limits.cpp): each limit CUDA work runs into is its own finding, and
// nothing is said when none is set; the address-space finding also explains cuInit's
// CUDA_ERROR_OUT_OF_MEMORY for driver.libcuda.
#include "checks/checks.hpp"
#include "support/check_judging.hpp"
#include "support/headlines.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::bare_host;
using test::contains;
using test::judge;

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

CheckResult judged(const ProcessLimits& limits) {
    return judge("host.limits", [&](ResultBuilder& r) { judge_limits(limits, bare_host(), r); });
}

bool has_code(const CheckResult& result, std::string_view code) {
    return std::any_of(result.findings.begin(), result.findings.end(),
                       [&](const Finding& finding) { return finding.code == code; });
}

TEST(HostLimitsCheck, passes_when_nothing_is_limited) {
    const CheckResult result = judged(ProcessLimits{});
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(result.findings.empty());
}

TEST(HostLimitsCheck, a_small_address_space_limit_fails_and_a_large_one_warns) {
    ProcessLimits limits;
    limits.address_space.soft = 4000000ULL << 10;  // ulimit -v 4000000
    CheckResult result = judged(limits);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC130");
    EXPECT_TRUE(contains(result.message, "4000000 KiB")) << result.message;
    EXPECT_TRUE(contains(result.remediation, "ulimit -v unlimited")) << result.remediation;

    limits.address_space.soft = 64 * gib;
    result = judged(limits);
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, "CC130");
}

TEST(HostLimitsCheck, each_other_limit_has_its_own_code) {
    ProcessLimits limits;
    limits.open_files = {256, 4096};
    limits.file_size.soft = 1 << 20;
    const CheckResult result = judged(limits);
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_TRUE(has_code(result, "CC131"));
    EXPECT_TRUE(has_code(result, "CC134"));
    EXPECT_FALSE(has_code(result, "CC130"));
    limits.open_files = {1024, 4096};
    EXPECT_FALSE(has_code(judged(limits), "CC131")) << "1024 is enough";
}

TEST(HostLimitsCheck, a_small_locked_memory_limit_matters_only_with_rdma_and_without_cap_ipc_lock) {
    ProcessLimits limits;
    limits.locked_memory.soft = 64 << 10;
    EXPECT_FALSE(has_code(judged(limits), "CC132")) << "CUDA's own pinned memory is not charged to it";
    limits.rdma_devices = {"mlx5_0"};
    const CheckResult result = judged(limits);
    EXPECT_TRUE(has_code(result, "CC132"));
    EXPECT_TRUE(contains(test::account(result), "mlx5_0")) << test::account(result);
    limits.may_lock_past_limit = true;
    EXPECT_FALSE(has_code(judged(limits), "CC132"));
}

TEST(HostLimitsCheck, a_cgroup_with_little_memory_left_warns) {
    ProcessLimits limits;
    limits.cgroup_memory = CgroupMemory{"/job_42", 6 * gib, 3 * gib, 2};
    CheckResult result = judged(limits);
    EXPECT_TRUE(has_code(result, "CC133"));
    EXPECT_TRUE(contains(test::account(result), "/job_42")) << test::account(result);
    limits.cgroup_memory = CgroupMemory{"/job_42", 64 * gib, 3 * gib, 2};
    result = judged(limits);
    EXPECT_FALSE(has_code(result, "CC133"));
}

TEST(HostLimitsCheck, explains_cuinits_out_of_memory_by_the_limit_set) {
    ProcessLimits limits;
    ResultBuilder none;
    EXPECT_FALSE(explain_out_of_memory_init(limits, none));
    limits.data.soft = 2 * gib;
    ResultBuilder data;
    ASSERT_TRUE(explain_out_of_memory_init(limits, data));
    EXPECT_TRUE(contains(std::move(data).finish("driver.libcuda", std::nullopt).message, "ulimit -d"));
    limits.address_space.soft = 4 * gib;
    ResultBuilder both;
    ASSERT_TRUE(explain_out_of_memory_init(limits, both));
    const CheckResult result = std::move(both).finish("driver.libcuda", std::nullopt);
    EXPECT_EQ(result.code, "CC130");
    EXPECT_TRUE(contains(result.message, "ulimit -v")) << "the address-space limit comes first: " << result.message;
}

}  // namespace
}  // namespace cudacheck
