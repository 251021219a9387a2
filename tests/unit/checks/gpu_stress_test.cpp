// gpu.stress (checks/gpu_stress.cpp) on hand-built outcomes; how both burn-in checks register.
#include "checks/gpu_stress.hpp"
#include "engine/registry.hpp"
#include "support/check_judging.hpp"
#include "support/gpu_outcomes.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using test::healthy_stress;
using test::metric;

gpu::Accuracy accuracy(double relative_error, std::size_t non_finite = 0) {
    gpu::Accuracy result;
    result.relative_error = relative_error;
    result.non_finite = non_finite;
    result.count = 128;
    return result;
}

CheckResult judged(const StressOutcome& outcome) {
    ResultBuilder builder;
    judge_stress(outcome, builder);
    CheckResult result = std::move(builder).finish("gpu.stress", 0);
    test::expect_codes_declared(result);
    return result;
}

bool has_code(const CheckResult& result, Code code) {
    for (const Finding& finding : result.findings)
        if (finding.code == code_string(code)) return true;
    return false;
}

TEST(StressJudging, passes_a_steady_gpu_at_its_power_cap_with_rates_and_conditions) {
    const CheckResult result = judged(healthy_stress());
    EXPECT_EQ(result.status, Status::pass) << result.message;
    EXPECT_TRUE(result.findings.empty());
    ASSERT_NE(metric(result, "stress_tflops_median"), nullptr);
    EXPECT_DOUBLE_EQ(metric(result, "stress_tflops_median")->value, 780.0);
    EXPECT_DOUBLE_EQ(metric(result, "stress_tflops_min")->value, 778.0);
    EXPECT_DOUBLE_EQ(metric(result, "stress_tflops_max")->value, 790.0);
    EXPECT_EQ(result.metrics.front().name, "stress_tflops_median") << "the table shows the first metric";
    EXPECT_NE(result.message.find("14000 products bit-identical"), std::string::npos) << result.message;
    bool reasons = false;
    for (const Evidence& evidence : result.evidence)
        if (evidence.key == "clocks_event_reasons") reasons = evidence.value == "SW power cap 100%";
    EXPECT_TRUE(reasons) << "normal reasons are shown, not judged";
}

// The seconds as numbers (schema 1.6.0): a row a second with the rate and NVML's readings of that
// second (mean clock and power, hottest temperature, the reasons seen), and every raw sample; a
// second without a reading is a gap, not a zero.
TEST(StressJudging, series_hold_each_second_and_each_nvml_sample) {
    StressOutcome outcome = healthy_stress();
    (*outcome.samples)[2] = test::clock_sample(1.0, clocks_event::sw_thermal_slowdown, 71);  // second 1: 60 and 71 C
    (*outcome.samples)[3].power_mw = 610000;                                       // second 1: 650 and 610 W
    for (NvmlClockSample& reading : *outcome.samples)
        if (reading.seconds >= 9)
            reading.temperature_c.reset(), reading.sm_clock_mhz.reset();  // NVML stopped answering
    const CheckResult result = judged(outcome);
    ASSERT_EQ(result.series.size(), 2u);
    const Series& per_second = result.series[0];
    EXPECT_EQ(per_second.name, "per_second");
    EXPECT_EQ(per_second.rows(), 10u);
    EXPECT_EQ(per_second.column("tflops")->values[0], 790.0);
    EXPECT_EQ(per_second.column("tflops")->unit, "TFLOP/s");
    EXPECT_EQ(per_second.column("temperature")->values[1], 71.0) << "the hottest of the second";
    EXPECT_EQ(per_second.column("power")->values[1], 630.0) << "the mean of the second";
    EXPECT_EQ(per_second.column("clocks_event_reasons")->values[1],
              static_cast<double>(clocks_event::sw_power_cap | clocks_event::sw_thermal_slowdown));
    EXPECT_EQ(per_second.column("sm_clock")->values[9], std::nullopt);
    EXPECT_EQ(per_second.column("power")->values[9], 650.0);
    const Series& samples = result.series[1];
    EXPECT_EQ(samples.name, "nvml_samples");
    EXPECT_EQ(samples.rows(), 40u);
    EXPECT_EQ(samples.column("time")->values[3], 1.5);
    EXPECT_EQ(samples.column("power")->values[3], 610.0) << "milliwatts to watts";
    EXPECT_EQ(samples.column("temperature")->values[39], std::nullopt);
    // Without NVML: the rate alone, no sample series.
    outcome.samples.reset();
    const CheckResult unsampled = judged(outcome);
    ASSERT_EQ(unsampled.series.size(), 1u);
    EXPECT_EQ(unsampled.series[0].columns.size(), 2u);
}

TEST(StressJudging, slowdown_shares_count_heat_power_brake_and_hardware_slowdown_only) {
    std::vector<NvmlClockSample> samples{test::clock_sample(0, clocks_event::sw_power_cap),
                                         test::clock_sample(0.5, clocks_event::hw_thermal_slowdown |
                                                                     clocks_event::sw_power_cap),
                                         test::clock_sample(1, clocks_event::hw_thermal_slowdown),
                                         test::clock_sample(1.5, clocks_event::gpu_idle),
                                         test::clock_sample(2, clocks_event::hw_power_brake_slowdown)};
    samples.push_back(NvmlClockSample{});  // a sample where NVML did not answer: not counted
    const std::vector<ReasonShare> shares = slowdown_shares(samples);
    ASSERT_EQ(shares.size(), 2u);
    EXPECT_EQ(shares[0].reason, clocks_event::hw_thermal_slowdown);
    EXPECT_EQ(shares[0].samples_with, 2u);
    EXPECT_EQ(shares[0].samples, 5u);
    EXPECT_EQ(shares[1].reason, clocks_event::hw_power_brake_slowdown);
    EXPECT_EQ(shares[1].samples_with, 1u);
    EXPECT_TRUE(slowdown_shares({test::clock_sample(0, clocks_event::sw_power_cap | clocks_event::gpu_idle |
                                                           clocks_event::applications_clocks_setting)})
                    .empty());
}

TEST(StressJudging, warns_about_slowdowns_in_words_with_their_share_of_samples) {
    StressOutcome outcome = healthy_stress();
    for (std::size_t i = 0; i < 10; ++i)
        (*outcome.samples)[i] = test::clock_sample(static_cast<double>(i) * 0.5, clocks_event::hw_slowdown, 91);
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::warn);
    EXPECT_EQ(result.code, code_string(Code::gpu_throttled_under_load));
    EXPECT_NE(result.message.find("HW slowdown (10 of 40 samples, 25%)"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("91 C"), std::string::npos) << result.message;
}

TEST(StressJudging, rate_drop_compares_the_last_third_with_the_first) {
    EXPECT_FALSE(rate_drop({}).has_value());
    EXPECT_FALSE(rate_drop({800, 700}).has_value());
    EXPECT_NEAR(*rate_drop({800, 600, 400}), 0.5, 1e-12);
    EXPECT_NEAR(*rate_drop({800, 800, 790, 810, 600, 600}), 0.25, 1e-12);
    EXPECT_NEAR(*rate_drop({700, 700, 800, 800, 800, 800}), -1.0 / 7.0, 1e-12) << "a rising rate is a negative drop";
    EXPECT_NEAR(*rate_drop(healthy_stress().tflops_per_second), 1.0 - 779.0 / 785.0, 1e-12);
}

TEST(StressJudging, warns_when_the_rate_falls_beyond_the_limit_only) {
    StressOutcome outcome = healthy_stress();
    const auto with_late_rate = [&](double late) {
        outcome.tflops_per_second = {800, 800, 800, 800, 800, 800, late, late, late};
        return judged(outcome);
    };
    const double just_inside = 800 * (1 - stress_rate_drop_limit) + 1;
    const double just_outside = 800 * (1 - stress_rate_drop_limit) - 1;
    EXPECT_FALSE(has_code(with_late_rate(just_inside), Code::gpu_rate_dropped));
    const CheckResult dropped = with_late_rate(just_outside);
    EXPECT_TRUE(has_code(dropped, Code::gpu_rate_dropped));
    EXPECT_EQ(dropped.status, Status::warn);
    EXPECT_NE(dropped.message.find("median 800 TFLOP/s in the first 3 s"), std::string::npos) << dropped.message;
}

// On a GPU another process used meanwhile, a falling rate is that process's doing: not
// judged, and the evidence says why.
TEST(StressJudging, does_not_judge_the_rate_of_a_shared_gpu) {
    StressOutcome outcome = healthy_stress();
    outcome.tflops_per_second = {790, 790, 790, 500, 480, 470, 300, 290, 280};
    EXPECT_TRUE(has_code(judged(outcome), Code::gpu_rate_dropped));
    outcome.shared_with = "pid 477 python3 (SM 99%)";
    const CheckResult result = judged(outcome);
    EXPECT_FALSE(has_code(result, Code::gpu_rate_dropped));
    EXPECT_EQ(result.status, Status::pass) << "the engine adds the shared GPU's warning (CC907), not the judge";
    bool said = false;
    for (const Evidence& evidence : result.evidence)
        said |= evidence.key == "rate_not_judged" && evidence.value.find("pid 477 python3") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(StressJudging, fails_when_a_product_differs_from_the_first) {
    StressOutcome outcome = healthy_stress();
    outcome.differing_results = 3;
    outcome.differing_words = 30;
    outcome.first_difference_seconds = 12.3;
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, code_string(Code::gpu_results_unstable));
    EXPECT_NE(result.message.find("3 of 14000 products"), std::string::npos) << result.message;
    EXPECT_NE(result.message.find("12.3 s"), std::string::npos) << result.message;
}

TEST(StressJudging, fails_a_first_product_that_misses_the_reference_or_is_not_finite) {
    StressOutcome outcome = healthy_stress();
    outcome.reference = accuracy(2e-3);
    EXPECT_EQ(judged(outcome).code, code_string(Code::wrong_result));
    outcome.reference = accuracy(0.0, 1);
    EXPECT_EQ(judged(outcome).status, Status::fail) << "NaN never passes";
}

TEST(StressJudging, says_when_nvml_could_not_sample) {
    StressOutcome outcome = healthy_stress();
    outcome.samples.reset();
    const CheckResult result = judged(outcome);
    EXPECT_EQ(result.status, Status::pass);
    bool said = false;
    for (const Evidence& evidence : result.evidence)
        said |= evidence.key == "nvml_samples" && evidence.value.find("NVML is not available") != std::string::npos;
    EXPECT_TRUE(said);
}

TEST(BurnIn, both_checks_run_per_device_at_full_level_only_after_cuda_devices) {
    const Registry registry(builtin_checks());
    for (const char* id : {"gpu.stress", "gpu.memtest"}) {
        SCOPED_TRACE(id);
        const Check* check = registry.find(id);
        ASSERT_NE(check, nullptr);
        EXPECT_EQ(check->info().min_level, Level::full);
        EXPECT_EQ(check->info().scope, Scope::device);
        EXPECT_EQ(check->info().depends_on, std::vector<std::string>{"cuda.devices"});
    }
}

}  // namespace
}  // namespace cudacheck
