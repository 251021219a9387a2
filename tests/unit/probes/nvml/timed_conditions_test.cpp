// What the engine says of the SM clock and temperature during a check's timed sections
// (probes/nvml/timed_conditions.hpp): the evidence from given readings, and a watch's thread
// reading until the section ends.
#include "probes/nvml/timed_conditions.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cudacheck {
namespace {

NvmlClockSample reading(std::optional<unsigned int> mhz, std::optional<unsigned int> celsius) {
    NvmlClockSample sample;
    sample.sm_clock_mhz = mhz;
    sample.temperature_c = celsius;
    return sample;
}

SectionConditions section(int device, std::int64_t start_us, std::vector<NvmlClockSample> samples) {
    return SectionConditions{device, start_us, std::move(samples)};
}

const Evidence* find(const std::vector<Evidence>& evidence, const std::string& key) {
    for (const Evidence& item : evidence)
        if (item.key == key) return &item;
    return nullptr;
}

// One section at one clock and temperature: the figure itself, with its number, under the bare
// keys of a per-device check (as gpu.stress's "sm_clock" and "temperature").
TEST(TimedConditions, one_value_is_the_figure) {
    const std::vector<Evidence> evidence =
        describe_conditions({section(0, 10, {reading(1980, 45), reading(1980, 45)})}, 0);
    ASSERT_EQ(evidence.size(), 2u);
    EXPECT_EQ(evidence[0], (Evidence{"sm_clock", "1980 MHz", 1980.0, "MHz"}));
    EXPECT_EQ(evidence[1], (Evidence{"temperature", "45 C", 45.0, "C"}));
}

// The case: a GEMM timed on a GPU that a burn-in heated. The range shows, with the median
// (of 1470, 1700, 1980, 1980: 1840) as the number; the temperature's median of 45, 50, 58, 61 is
// 54, and so is its number.
TEST(TimedConditions, a_range_gives_its_median_and_extremes) {
    const std::vector<Evidence> evidence = describe_conditions({section(0, 10, {reading(1470, 61), reading(1700, 58)}),
                                                                section(0, 20, {reading(1980, 50), reading(1980, 45)})},
                                                               0);
    const Evidence* clock = find(evidence, "sm_clock");
    ASSERT_NE(clock, nullptr);
    EXPECT_EQ(*clock, (Evidence{"sm_clock", "1840 MHz median, 1470-1980 over 4 samples", 1840.0, "MHz"}));
    const Evidence* temperature = find(evidence, "temperature");
    ASSERT_NE(temperature, nullptr);
    EXPECT_EQ(*temperature, (Evidence{"temperature", "54 C median, 45-61 over 4 samples", 54.0, "C"}));
}

// Several sections (cublas.gemm times each precision in its own): each one's median, in the order
// they were timed, whatever order their watches ended in.
TEST(TimedConditions, several_sections_are_listed_in_timing_order) {
    const std::vector<Evidence> evidence = describe_conditions({section(0, 300, {reading(1470, 61)}),
                                                                section(0, 100, {reading(1980, 45), reading(1960, 47)}),
                                                                section(0, 200, {reading(1755, std::nullopt)})},
                                                               0);
    const Evidence* sections = find(evidence, "timed_sections");
    ASSERT_NE(sections, nullptr);
    EXPECT_EQ(sections->value,
              "3 timed sections, NVML read every 50 ms and at each end; median of each, in timing "
              "order: SM clock 1970, 1755, 1470 MHz, temperature 46, ?, 61 C");
    EXPECT_FALSE(sections->number);
}

// Beyond twelve sections (cufft.fft times each length), only their count.
TEST(TimedConditions, many_sections_are_counted) {
    std::vector<SectionConditions> many;
    for (int i = 0; i < 13; ++i) many.push_back(section(0, i, {reading(1980, 40)}));
    const std::vector<Evidence> evidence = describe_conditions(many, 0);
    const Evidence* sections = find(evidence, "timed_sections");
    ASSERT_NE(sections, nullptr);
    EXPECT_EQ(sections->value, "13 timed sections, NVML read every 50 ms and at each end");
}

// A host or multi-device check names each GPU in its keys, as device.health does ("gpu0_temperature");
// a per-device check's sections on another GPU would too.
TEST(TimedConditions, other_gpus_are_named_in_the_key) {
    const std::vector<Evidence> evidence =
        describe_conditions({section(1, 5, {reading(1410, 70)}), section(0, 5, {reading(1980, 40)})}, std::nullopt);
    std::vector<std::string> keys;
    for (const Evidence& item : evidence) keys.push_back(item.key);
    EXPECT_EQ(keys,
              (std::vector<std::string>{"gpu0_sm_clock", "gpu0_temperature", "gpu1_sm_clock", "gpu1_temperature"}));
    EXPECT_EQ(find(describe_conditions({section(1, 5, {reading(1410, 70)})}, 0), "gpu1_sm_clock")->value, "1410 MHz");
}

// Without a reading (no NVML, or a GPU NVML does not list) there is nothing to say; a field NVML
// does not answer is left out, not shown as 0.
TEST(TimedConditions, says_nothing_without_readings) {
    EXPECT_TRUE(describe_conditions({}, 0).empty());
    EXPECT_TRUE(describe_conditions({section(0, 1, {}), section(0, 2, {})}, 0).empty());
    const std::vector<Evidence> clock_only = describe_conditions({section(0, 1, {reading(1980, std::nullopt)})}, 0);
    ASSERT_EQ(clock_only.size(), 1u);
    EXPECT_EQ(clock_only[0].key, "sm_clock");
}

// A watch without NVML (the source finds no sampler) reads nothing and still reports its section,
// at once: the check's thread is not held.
TEST(TimedConditions, a_watch_without_nvml_reports_an_empty_section) {
    std::optional<SectionConditions> got;
    const auto start = std::chrono::steady_clock::now();
    {
        std::unique_ptr<SpanWatch> watch = watch_conditions([] { return std::shared_ptr<const NvmlClockSampler>(); }, 3,
                                                            [&](SectionConditions read) { got = std::move(read); });
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
        watch->stop();
    }
    ASSERT_TRUE(got);
    EXPECT_EQ(got->device, 3);
    EXPECT_TRUE(got->samples.empty());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace cudacheck
