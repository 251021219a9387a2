// cuda.memory's judge from hand-built outcomes: verified copies pass with their rates, a corrupted
// copy fails naming how much of it was wrong.
#include "checks/cuda_memory.hpp"
#include "support/check_judging.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

MemoryOutcome verified_copies() {
    MemoryOutcome outcome;
    outcome.host_bytes = 64 * mib;
    outcome.runs = 5;
    outcome.free_bytes = 100 * 1024 * mib;
    outcome.total_bytes = 140 * 1024 * mib;
    outcome.host_to_device_ms = {1.2f, 1.1f, 1.3f, 1.1f, 1.2f};
    outcome.device_to_host_ms = {1.4f, 1.5f, 1.4f, 1.4f, 1.6f};
    outcome.round_trip_intact = true;
    outcome.device_bytes = 1024 * mib;
    outcome.device_to_device_ms = {0.6f, 0.55f, 0.6f, 0.62f, 0.6f};
    outcome.device_wrong_words = 0;
    outcome.theoretical_bandwidth_gbps = 4800.0;
    return outcome;
}

CheckResult judged(const MemoryOutcome& outcome) { return test::judged("cuda.memory", judge_memory, outcome); }

TEST(JudgeMemory, passes_with_the_median_rates_when_every_copy_is_verified) {
    const CheckResult result = judged(verified_copies());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    ASSERT_EQ(result.metrics.size(), 5u);
    EXPECT_EQ(result.metrics[0].name, "device_to_device_bandwidth");
    // 2 GiB moved (read + write) in the median 0.6 ms.
    EXPECT_NEAR(result.metrics[0].value, 2.0 * 1024 * mib / 0.6e-3 / 1e9, 1.0);
    EXPECT_EQ(result.metrics[3].name, "device_to_device_fraction_of_theoretical");
    // The peak that share is of, as a figure of its own.
    EXPECT_EQ(result.metrics[4].name, "device_to_device_theoretical_bandwidth");
    EXPECT_DOUBLE_EQ(result.metrics[4].value, 4800.0);
    EXPECT_NE(result.message.find("of 4800 GB/s theoretical"), std::string::npos) << result.message;
}

TEST(JudgeMemory, fails_naming_the_wrong_words_when_the_device_copy_is_corrupted) {
    MemoryOutcome outcome = verified_copies();
    outcome.device_wrong_words = 12;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_NE(result.message.find("12 of 268435456 words differ"), std::string::npos) << result.message;
    EXPECT_TRUE(result.metrics.empty());
}

TEST(JudgeMemory, fails_when_the_host_round_trip_changed_the_data) {
    MemoryOutcome outcome = verified_copies();
    outcome.round_trip_intact = false;
    outcome.device_wrong_words.reset();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_NE(result.message.find("round trip of 64.0 MiB changed the data"), std::string::npos) << result.message;
}

TEST(JudgeMemory, keeps_only_the_memory_evidence_when_the_measurement_stopped_early) {
    MemoryOutcome outcome = verified_copies();
    outcome.round_trip_intact.reset();
    const CheckResult result = judged(outcome);
    ASSERT_EQ(result.evidence.size(), 1u);
    EXPECT_EQ(result.evidence[0].key, "memory");
    EXPECT_TRUE(result.metrics.empty());
}

}  // namespace
}  // namespace cudacheck
