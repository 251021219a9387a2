// cuda.p2p without a GPU: judging of peer access, copies and bandwidth against NVML's link facts,
// the link rates, and the skip of both multi-GPU checks with fewer than two GPUs.
#include "checks/cuda_p2p.hpp"
#include "checks/checks.hpp"
#include "checks/nccl_allreduce.hpp"
#include "engine/registry.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace cudacheck {
namespace {

NvmlPeerLink nvlink(int links) {
    NvmlPeerLink link;
    link.nvlink = true;
    link.active_nvlinks = links;
    link.p2p_read = true;
    link.pcie_path = PciePath::system;
    return link;
}

NvmlPeerLink pcie(unsigned int generation, unsigned int width, PciePath path, bool p2p_read) {
    NvmlPeerLink link;
    link.nvlink = false;
    link.pcie_generation = generation;
    link.pcie_width = width;
    link.pcie_path = path;
    link.p2p_read = p2p_read;
    return link;
}

PeerCopy copy(int source, int destination, bool access, double rate, std::optional<NvmlPeerLink> link,
              std::uint64_t wrong = 0) {
    PeerCopy result;
    result.source = source;
    result.destination = destination;
    result.can_access = access;
    result.bandwidth_gbps = rate;
    result.words = 1 << 20;
    result.wrong_words = wrong;
    result.link = std::move(link);
    return result;
}

CheckResult judged(const std::vector<PeerCopy>& copies) { return test::judged("cuda.p2p", judge_p2p, copies); }

TEST(LinkRate, counts_twenty_gigabytes_per_nvlink_and_pcie_lanes_by_generation) {
    EXPECT_DOUBLE_EQ(*link_rate_gbps(nvlink(18)), 360.0);
    EXPECT_NEAR(*link_rate_gbps(pcie(4, 16, PciePath::host_bridge, true)), 31.5, 0.01);
    EXPECT_NEAR(*link_rate_gbps(pcie(5, 8, PciePath::single_switch, true)), 31.5, 0.01);
    EXPECT_FALSE(link_rate_gbps(nvlink(0)).has_value());
    EXPECT_FALSE(link_rate_gbps(pcie(9, 16, PciePath::system, false)).has_value());
    EXPECT_FALSE(link_rate_gbps(NvmlPeerLink{}).has_value());
}

TEST(LinkRate, describes_nvlink_pcie_and_unknown_links) {
    EXPECT_EQ(describe_link(nvlink(4)), "NVLink (4 links)");
    EXPECT_EQ(describe_link(pcie(4, 16, PciePath::system, false)), "PCIe gen4 x16, SYS (across CPU sockets)");
    EXPECT_EQ(describe_link(std::nullopt), "unknown (NVML did not answer)");
}

TEST(JudgeP2p, passes_symmetric_access_with_verified_fast_copies) {
    const CheckResult result = judged({copy(0, 1, true, 370, nvlink(18)), copy(1, 0, true, 365, nvlink(18))});
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(result.message.find("every copy verified"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("NVLink (18 links)"), std::string::npos) << result.message;
    const auto minimum = std::find_if(result.metrics.begin(), result.metrics.end(),
                                      [](const Metric& m) { return m.name == "min_peer_bandwidth"; });
    ASSERT_NE(minimum, result.metrics.end());
    EXPECT_DOUBLE_EQ(minimum->value, 365.0);
}

TEST(JudgeP2p, fails_when_nvlinked_gpus_cannot_access_each_other) {
    const CheckResult result = judged({copy(0, 1, false, 20, nvlink(18)), copy(1, 0, false, 20, nvlink(18))});
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC512");
    EXPECT_NE(result.message.find("NVLink"), std::string::npos) << result.message;
}

TEST(JudgeP2p, no_access_across_sockets_without_p2p_support_is_not_a_finding) {
    const CheckResult result = judged({copy(0, 1, false, 12, pcie(4, 16, PciePath::system, false)),
                                       copy(1, 0, false, 12, pcie(4, 16, PciePath::system, false))});
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_NE(result.message.find("peer access on 0 of 2"), std::string::npos) << result.message;
}

TEST(JudgeP2p, fails_when_access_works_one_way_only) {
    const CheckResult result = judged({copy(0, 1, true, 25, std::nullopt), copy(1, 0, false, 10, std::nullopt)});
    EXPECT_EQ(result.code, "CC512");
    EXPECT_NE(result.message.find("one way"), std::string::npos) << result.message;
}

TEST(JudgeP2p, fails_when_a_copy_arrives_different) {
    const CheckResult result = judged({copy(0, 1, true, 370, nvlink(18), 3), copy(1, 0, true, 370, nvlink(18))});
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC513");
    EXPECT_NE(result.message.find("3 of 1048576"), std::string::npos) << result.message;
}

TEST(JudgeP2p, warns_only_far_below_the_link_rate) {
    // 360 GB/s floor for 18 NVLinks: 80 GB/s is under a quarter, 100 GB/s is not.
    const CheckResult slow = judged({copy(0, 1, true, 80, nvlink(18)), copy(1, 0, true, 100, nvlink(18))});
    EXPECT_EQ(slow.status, Status::warn);
    EXPECT_EQ(slow.code, "CC514");
    EXPECT_EQ(std::count_if(slow.findings.begin(), slow.findings.end(),
                            [](const Finding& f) { return f.code == "CC514"; }),
              1);
    // Unknown link: no expectation, no warning.
    EXPECT_EQ(judged({copy(0, 1, true, 1, std::nullopt), copy(1, 0, true, 1, std::nullopt)}).status, Status::pass);
}

TEST(MultiGpuChecks, skip_with_the_reason_when_fewer_than_two_gpus_are_selected) {
    test::CheckHarness harness;
    const Registry registry(builtin_checks());
    for (const std::vector<int>& devices : {std::vector<int>{}, std::vector<int>{3}}) {
        CheckContext context = harness.make(devices);
        ResultBuilder p2p;
        registry.find("cuda.p2p")->run(context, p2p);
        const CheckResult p2p_result = std::move(p2p).finish("cuda.p2p", std::nullopt);
        EXPECT_EQ(p2p_result.status, Status::skip);
        EXPECT_NE(p2p_result.skip_reason.find("needs 2 or more GPUs"), std::string::npos) << p2p_result.skip_reason;
        ResultBuilder nccl;
        run_nccl_allreduce(context, nccl, "libnccl.so.2");
        EXPECT_EQ(std::move(nccl).finish("nccl.allreduce", std::nullopt).status, Status::skip);
    }
    CheckContext one = harness.make({3});
    ResultBuilder builder;
    EXPECT_FALSE(require_two_devices(one, builder));
    EXPECT_NE(std::move(builder).finish("x.y", std::nullopt).skip_reason.find("device 3"), std::string::npos);
}

}  // namespace
}  // namespace cudacheck
