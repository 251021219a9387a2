// gpu.memtest (checks/gpu_memtest.cpp): its share of free memory, mismatch ranges and verdicts.
#include "checks/gpu_memtest.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::metric;

TEST(MemtestJudging, takes_half_the_free_memory_capped_and_in_whole_mebibytes) {
    constexpr std::uint64_t mib = 1ull << 20;
    EXPECT_EQ(memtest_bytes(8ull << 30), 4ull << 30);
    EXPECT_EQ(memtest_bytes(140ull << 30), memtest_max_bytes);
    EXPECT_EQ(memtest_bytes(3 * mib + 12345) % mib, 0u);
    EXPECT_EQ(memtest_bytes(3 * mib + 12345), mib);
    EXPECT_EQ(memtest_bytes(0), 0u);
}

TEST(MemtestJudging, groups_mismatches_into_ranges_of_neighbouring_words) {
    const std::vector<MemtestMismatch> found{
        {0x1008, 0x1, 0x0, "walking ones 0"}, {0x1000, 0xF0, 0xF1, "random"}, {0x1004, 0x2, 0x0, "walking ones 0"},
        {0x1000, 0x4, 0x5, "address"},        {0x9000, 0xFF, 0x7F, "random"},
    };
    const std::vector<MismatchRange> ranges = group_mismatches(found);
    ASSERT_EQ(ranges.size(), 2u);
    EXPECT_EQ(ranges[0].first_offset, 0x1000u);
    EXPECT_EQ(ranges[0].last_offset, 0x1008u);
    EXPECT_EQ(ranges[0].words, 3u) << "the word at 0x1000 seen twice counts once";
    EXPECT_EQ(ranges[0].flipped_bits, 0x1u | 0x2u);
    EXPECT_EQ(ranges[0].patterns, (std::vector<std::string>{"random", "address", "walking ones 0"}));
    EXPECT_EQ(ranges[1].first_offset, 0x9000u);
    EXPECT_EQ(ranges[1].words, 1u);
    EXPECT_EQ(ranges[1].flipped_bits, 0x80u);
}

MemtestOutcome clean_memtest() {
    MemtestOutcome outcome;
    outcome.bytes = 64ull << 30;
    outcome.free_bytes = 139ull << 30;
    outcome.device_address = 0x7f0000000000ULL;
    outcome.patterns_planned = 67;
    for (int i = 0; i < 67; ++i) outcome.patterns_run.push_back({i < 3 ? "address" : "walking ones 1", 2.5 / 67, 0});
    outcome.gpu_seconds = 2.5;
    return outcome;
}

TEST(MemtestJudging, passes_clean_memory_with_bytes_and_bandwidth) {
    ResultBuilder builder;
    const MemtestOutcome outcome = clean_memtest();
    judge_memtest(outcome, builder);
    const CheckResult result = std::move(builder).finish("gpu.memtest", 0);
    test::expect_codes_declared(result);
    EXPECT_EQ(result.status, Status::pass) << result.message;
    ASSERT_NE(metric(result, "memtest_bandwidth"), nullptr);
    EXPECT_DOUBLE_EQ(metric(result, "memtest_bandwidth")->value,
                     2.0 * static_cast<double>(outcome.bytes) * 67 / 2.5 / 1e9);
    EXPECT_DOUBLE_EQ(metric(result, "memtest_bytes")->value, static_cast<double>(64ull << 30));
    EXPECT_NE(result.message.find("64.0 GiB"), std::string::npos) << result.message;
    // Per pattern as numbers (schema 1.6.0): named rows, bytes written and read, GB/s, mismatches.
    ASSERT_EQ(result.series.size(), 1u);
    const Series& patterns = result.series[0];
    EXPECT_EQ(patterns.name, "per_pattern");
    EXPECT_EQ(patterns.rows(), 67u);
    EXPECT_EQ(patterns.labels.front(), "address");
    EXPECT_EQ(patterns.column("bytes")->values[0], 2.0 * static_cast<double>(outcome.bytes));
    EXPECT_DOUBLE_EQ(*patterns.column("bandwidth")->values[0],
                     2.0 * static_cast<double>(outcome.bytes) / (2.5 / 67) / 1e9);
    EXPECT_EQ(patterns.column("mismatched_words")->values[5], 0.0);
}

TEST(MemtestJudging, fails_with_the_mismatched_ranges_and_says_when_time_ran_out) {
    MemtestOutcome outcome = clean_memtest();
    outcome.patterns_run.resize(10);
    outcome.mismatched_words = 5;
    outcome.recorded = {{0x2000, 0x1, 0x3, "walking ones 1"}, {0x2004, 0x2, 0x6, "walking ones 1"}};
    ResultBuilder builder;
    judge_memtest(outcome, builder);
    const CheckResult result = std::move(builder).finish("gpu.memtest", 0);
    test::expect_codes_declared(result);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::gpu_memory_pattern_mismatch));
    EXPECT_NE(result.message.find("5 word read(s)"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("offset 0x2000-0x2007 (2 word(s), bits 0x00000006 flipped, in walking ones 1)"),
              std::string::npos)
        << result.message;
    bool stopped = false;
    for (const Evidence& evidence : result.evidence)
        stopped |= evidence.key == "stopped" && evidence.value.find("10 of 67") != std::string::npos;
    EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace cudacheck
