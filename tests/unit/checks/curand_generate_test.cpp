// curand.generate's judge from hand-built outcomes: samples from a correct generator pass, a biased
// generator fails its moment tests, and two generators of one seed that disagree fail.
#include "checks/curand_generate.hpp"
#include "support/check_judging.hpp"
#include "support/headlines.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace cudacheck {
namespace {

constexpr std::size_t sample_count = std::size_t{1} << 16;

// A correct generator's uniform floats in (0, 1], as cuRAND documents them: 24 random bits, plus 1.
std::vector<float> uniform_samples() {
    std::mt19937_64 engine(20261201);
    std::vector<float> samples(sample_count);
    for (float& sample : samples) sample = static_cast<float>((engine() >> 40) + 1) / 16777216.0f;
    return samples;
}

std::vector<float> normal_samples() {
    std::mt19937_64 engine(20261202);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<float> samples(sample_count);
    for (float& sample : samples) sample = static_cast<float>(normal(engine));
    return samples;
}

RandomOutcome correct_generator() {
    RandomOutcome outcome;
    outcome.count = sample_count;
    outcome.count_text = "2^16";
    outcome.timed_runs = 3;
    outcome.uniform = uniform_statistics(uniform_samples());
    outcome.normal = normal_statistics(normal_samples());
    outcome.differ_same_seed = 0;
    outcome.differ_other_seed = sample_count - 1;  // one word in 65536 equal by chance
    outcome.uniform_ms = {0.5f, 0.25f, 0.5f};
    outcome.normal_ms = {1.0f, 1.0f, 2.0f};
    return outcome;
}

CheckResult judged(const RandomOutcome& outcome) { return test::judged("curand.generate", judge_random, outcome); }

TEST(JudgeRandom, passes_with_the_median_rates_when_the_samples_meet_their_distributions) {
    const CheckResult result = judged(correct_generator());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(result.findings.empty());
    EXPECT_NE(result.message.find("Philox, 2^16 uniform and normal floats"), std::string::npos) << result.message;
    EXPECT_NE(test::account(result).find("same seed identical"), std::string::npos) << test::account(result);
    ASSERT_GE(result.metrics.size(), 2u);
    EXPECT_EQ(result.metrics[0].name, "uniform_rate");
    EXPECT_DOUBLE_EQ(result.metrics[0].value, static_cast<double>(sample_count) / 0.5e-3 / 1e9);
    EXPECT_EQ(result.metrics[1].name, "normal_rate");
    EXPECT_DOUBLE_EQ(result.metrics[1].value, static_cast<double>(sample_count) / 1.0e-3 / 1e9);
}

TEST(JudgeRandom, fails_with_wrong_result_when_the_uniform_samples_are_biased) {
    RandomOutcome outcome = correct_generator();
    // Every sample in (0, 0.5]: inside cuRAND's range, so only the statistics can catch it.
    std::vector<float> biased = uniform_samples();
    for (float& sample : biased) sample *= 0.5f;
    outcome.uniform = uniform_statistics(biased);
    ASSERT_EQ(outcome.uniform.bad, 0u);
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_EQ(result.code, "CC504");
    EXPECT_NE(result.message.find("cuRAND uniform mean out of bounds"), std::string::npos) << result.message;
    // The normal samples were not touched: no finding names them.
    for (const Finding& finding : result.findings)
        EXPECT_EQ(finding.message.find("normal"), std::string::npos) << finding.message;
}

TEST(JudgeRandom, fails_when_two_generators_of_one_seed_differ) {
    RandomOutcome outcome = correct_generator();
    outcome.differ_same_seed = 12;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].message,
              "two generators with the same seed gave different output: 12 of 65536 words differ");
}

TEST(JudgeRandom, fails_when_another_seed_gives_the_same_stream) {
    RandomOutcome outcome = correct_generator();
    outcome.differ_other_seed = 0;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.code, code_string(Code::wrong_result));
    EXPECT_NE(result.message.find("gave nearly the same output: 65536 of 65536 words equal"), std::string::npos)
        << result.message;
}

}  // namespace
}  // namespace cudacheck
