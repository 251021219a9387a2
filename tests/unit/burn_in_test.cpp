// gpu.stress and gpu.memtest without a GPU: the judging of throttling, rate drops, unstable and
// wrong products and memory mismatches from fixture outcomes; the memory patterns' arithmetic (the
// same function the kernels run); --duration's validation; and the binary end to end with the fake
// driver (skipped below --level full, failing cleanly where the runtime cannot start).
#include "checks/checks.hpp"
#include "checks/gpu_memtest.hpp"
#include "checks/gpu_stress.hpp"
#include "engine/registry.hpp"
#include "cli/run_command.hpp"
#include "kernels/memtest.cuh"
#include "support/test_support.hpp"

#include <bit>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>

namespace cudacheck {
namespace {

NvmlClockSample sample(double seconds, std::uint64_t reasons, unsigned int temperature = 60) {
    NvmlClockSample result;
    result.seconds = seconds;
    result.sm_clock_mhz = 1980;
    result.clocks_event_reasons = reasons;
    result.temperature_c = temperature;
    result.power_mw = 650000;
    return result;
}

gpu::Accuracy accuracy(double relative_error, std::size_t non_finite = 0) {
    gpu::Accuracy result;
    result.relative_error = relative_error;
    result.non_finite = non_finite;
    result.count = 128;
    return result;
}

StressOutcome healthy_stress() {
    StressOutcome outcome;
    outcome.work = "BF16 8192^3 GEMM (FP32 accumulation and output)";
    outcome.seconds = 20.1;
    outcome.results = 14000;
    outcome.words_per_result = 8192ull * 8192ull;
    outcome.reference = accuracy(3e-6);
    outcome.tolerance = 1e-3;
    outcome.tflops_per_second = {790, 785, 782, 780, 781, 779, 780, 778, 779, 780};
    outcome.samples = std::vector<NvmlClockSample>{};
    for (int i = 0; i < 40; ++i) outcome.samples->push_back(sample(i * 0.5, clocks_event::sw_power_cap));
    return outcome;
}

CheckResult judged(const StressOutcome& outcome) {
    ResultBuilder builder;
    judge_stress(outcome, builder);
    CheckResult result = std::move(builder).finish("gpu.stress", 0);
    test::expect_codes_declared(result);
    return result;
}

const Metric* metric(const CheckResult& result, std::string_view name) {
    for (const Metric& entry : result.metrics)
        if (entry.name == name) return &entry;
    return nullptr;
}

bool has_code(const CheckResult& result, Code code) {
    for (const Finding& finding : result.findings)
        if (finding.code == code_string(code)) return true;
    return false;
}

// --- gpu.stress judging ----------------------------------------------------------------------

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

TEST(StressJudging, slowdown_shares_count_heat_power_brake_and_hardware_slowdown_only) {
    std::vector<NvmlClockSample> samples{sample(0, clocks_event::sw_power_cap), sample(0.5, clocks_event::hw_thermal_slowdown | clocks_event::sw_power_cap),
                                         sample(1, clocks_event::hw_thermal_slowdown), sample(1.5, clocks_event::gpu_idle),
                                         sample(2, clocks_event::hw_power_brake_slowdown)};
    samples.push_back(NvmlClockSample{});  // a sample where NVML did not answer: not counted
    const std::vector<ReasonShare> shares = slowdown_shares(samples);
    ASSERT_EQ(shares.size(), 2u);
    EXPECT_EQ(shares[0].reason, clocks_event::hw_thermal_slowdown);
    EXPECT_EQ(shares[0].samples_with, 2u);
    EXPECT_EQ(shares[0].samples, 5u);
    EXPECT_EQ(shares[1].reason, clocks_event::hw_power_brake_slowdown);
    EXPECT_EQ(shares[1].samples_with, 1u);
    EXPECT_TRUE(slowdown_shares({sample(0, clocks_event::sw_power_cap | clocks_event::gpu_idle | clocks_event::applications_clocks_setting)}).empty());
}

TEST(StressJudging, warns_about_slowdowns_in_words_with_their_share_of_samples) {
    StressOutcome outcome = healthy_stress();
    for (std::size_t i = 0; i < 10; ++i) (*outcome.samples)[i] = sample(static_cast<double>(i) * 0.5, clocks_event::hw_slowdown, 91);
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
    for (const Evidence& evidence : result.evidence) said |= evidence.key == "nvml_samples" && evidence.value.find("NVML is not available") != std::string::npos;
    EXPECT_TRUE(said);
}

// --- gpu.memtest -------------------------------------------------------------------------------

using kernels::MemoryPattern;
using kernels::pattern_word;
using kernels::PatternSpec;

TEST(MemtestPatterns, walking_ones_set_exactly_one_bit_that_walks_with_index_and_rotation) {
    constexpr std::uint64_t base = 0x7f1200000000ULL;
    for (std::uint32_t rotation : {0u, 5u, 31u})
        for (std::uint64_t index = 0; index < 100; ++index) {
            const std::uint32_t ones = pattern_word({MemoryPattern::walking_ones, rotation, 0}, base, index);
            EXPECT_EQ(std::popcount(ones), 1);
            EXPECT_EQ(ones, 1u << ((index + rotation) % 32));
            EXPECT_EQ(pattern_word({MemoryPattern::walking_zeros, rotation, 0}, base, index), ~ones);
        }
    // Over the 32 rotations every word holds every bit once.
    std::uint32_t seen = 0;
    for (std::uint32_t rotation = 0; rotation < 32; ++rotation) seen |= pattern_word({MemoryPattern::walking_ones, rotation, 0}, base, 7);
    EXPECT_EQ(seen, 0xFFFFFFFFu);
}

TEST(MemtestPatterns, address_pattern_is_the_folded_address_and_unique_within_a_buffer) {
    constexpr std::uint64_t base = 0x7f1200000000ULL;
    const PatternSpec address{MemoryPattern::address, 0, 0};
    const std::uint64_t at_1000 = base + 4000;
    EXPECT_EQ(pattern_word(address, base, 1000), static_cast<std::uint32_t>(at_1000 ^ (at_1000 >> 32)));
    EXPECT_EQ(pattern_word({MemoryPattern::address_complement, 0, 0}, base, 1000), ~pattern_word(address, base, 1000));
    std::set<std::uint32_t> values;
    for (std::uint64_t index = 0; index < (1u << 20); ++index) values.insert(pattern_word(address, base, index));
    EXPECT_EQ(values.size(), 1u << 20) << "no two words of a 4 MiB buffer share a value";
}

TEST(MemtestPatterns, random_pattern_is_reproducible_seed_dependent_and_balanced) {
    const PatternSpec one{MemoryPattern::random, 0, 42};
    const PatternSpec other{MemoryPattern::random, 0, 43};
    std::uint64_t bits = 0;
    std::uint64_t same = 0;
    constexpr std::uint64_t words = 100000;
    for (std::uint64_t index = 0; index < words; ++index) {
        EXPECT_EQ(pattern_word(one, 0, index), pattern_word(one, 0x1000, index)) << "independent of the address";
        bits += static_cast<std::uint64_t>(std::popcount(pattern_word(one, 0, index)));
        same += pattern_word(one, 0, index) == pattern_word(other, 0, index);
    }
    // 3.2 million fair bits: mean 16 per word, standard error of the mean ~0.009.
    EXPECT_NEAR(static_cast<double>(bits) / words, 16.0, 0.06);
    EXPECT_LT(same, 20u) << "2.3 equal words expected by chance in 100000";
}

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
    for (int i = 0; i < 67; ++i) outcome.patterns_run.push_back(i < 3 ? "address" : "walking ones 1");
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
    EXPECT_DOUBLE_EQ(metric(result, "memtest_bandwidth")->value, 2.0 * static_cast<double>(outcome.bytes) * 67 / 2.5 / 1e9);
    EXPECT_DOUBLE_EQ(metric(result, "memtest_bytes")->value, static_cast<double>(64ull << 30));
    EXPECT_NE(result.message.find("64.0 GiB"), std::string::npos) << result.message;
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
    EXPECT_NE(result.message.find("offset 0x2000-0x2007 (2 word(s), bits 0x00000006 flipped, in walking ones 1)"), std::string::npos) << result.message;
    bool stopped = false;
    for (const Evidence& evidence : result.evidence) stopped |= evidence.key == "stopped" && evidence.value.find("10 of 67") != std::string::npos;
    EXPECT_TRUE(stopped);
}

// --- registration, levels and --duration -----------------------------------------------------

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

RunCommandOptions at_level(std::string level, double duration = 0, double timeout = 120, double run_timeout = 600) {
    RunCommandOptions options;
    options.level = std::move(level);
    options.duration_seconds = duration;
    options.timeout_seconds = timeout;
    options.run_timeout_seconds = run_timeout;
    return options;
}

TEST(DurationOption, accepted_at_full_level_below_the_time_limits) {
    EXPECT_FALSE(duration_error(at_level("full"), true).has_value());
    EXPECT_FALSE(duration_error(at_level("full", 60), true).has_value());
    EXPECT_FALSE(duration_error(at_level("standard"), true).has_value()) << "the default is not a choice the user made";
    EXPECT_FALSE(duration_error(at_level("full", 0, 5), false).has_value()) << "no time limit matters when neither check runs";
}

TEST(DurationOption, refused_below_full_level_and_at_or_above_the_time_limits) {
    const auto refused = [](const RunCommandOptions& options, std::string_view text) {
        const auto error = duration_error(options, true);
        ASSERT_TRUE(error.has_value());
        EXPECT_NE(error->find(text), std::string::npos) << *error;
    };
    refused(at_level("standard", 10), "--level full");
    refused(at_level("quick", 10), "--level full");
    refused(at_level("full", 120), "--timeout 120");
    refused(at_level("full", 150), "shorter than the per-check --timeout");
    refused(at_level("full", 0, 20), "--duration 20") ;  // the default against a short --timeout
    refused(at_level("full", 100, 300, 200), "--run-timeout 200");
}

// --- the binary, end to end --------------------------------------------------------------------

const std::string fake_driver_dir = std::filesystem::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// Once each, not once per GPU, whether or not another GPU check runs (cuda.kernel does here).
TEST(BurnInEndToEnd, skipped_once_below_full_level) {
    for (const char* only : {"gpu", "gpu,cuda.kernel"})
        for (const char* level : {"quick", "standard"}) {
            SCOPED_TRACE(std::string(only) + " at " + level);
            test::TempDir dir;
            const std::string path = dir.path() + "/report.json";
            const test::BinaryRun run = test::run_cudacheck({"--only", only, "--level", level, "-o", path, "-q"},
                                                            {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}});
            EXPECT_NE(run.exit_status, 2) << run.output;
            const auto report = nlohmann::json::parse(test::read_text(path));
            std::vector<std::string> skipped;
            for (const auto& check : report["checks"]) {
                if (check["id"] != "gpu.stress" && check["id"] != "gpu.memtest") continue;
                skipped.push_back(check["id"]);
                EXPECT_EQ(check["status"], "skip");
                EXPECT_TRUE(check["device"].is_null());
                EXPECT_EQ(check["skip_reason"], "runs at --level full and above");
            }
            EXPECT_EQ(skipped, (std::vector<std::string>{"gpu.stress", "gpu.memtest"})) << "in registry order";
        }
}

TEST(BurnInEndToEnd, fails_cleanly_and_at_once_where_the_runtime_cannot_start) {
    // The fake libcuda answers the driver API but not the runtime: both checks must fail with
    // CC501 on both devices long before their duration, never hang or crash.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run = test::run_cudacheck({"--only", "gpu", "--level", "full", "--duration", "60", "-o", path, "-q"},
                                                    {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_LT(run.wall_ms, 30000.0);
    const auto report = nlohmann::json::parse(test::read_text(path));
    int failed = 0;
    for (const auto& check : report["checks"]) {
        if (check["id"] != "gpu.stress" && check["id"] != "gpu.memtest") continue;
        ++failed;
        EXPECT_EQ(check["status"], "fail") << check["id"] << ": " << check["message"];
        EXPECT_NE(check["code"], "CC901") << check["message"];
    }
    EXPECT_EQ(failed, 4);
}

TEST(BurnInEndToEnd, bad_durations_are_usage_errors) {
    for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
             {"--level", "full", "--duration", "130"},
             {"--level", "full", "--duration", "30", "--timeout", "30"},
             {"--duration", "10"},
             {"--level", "full", "--duration", "0.5"},
             {"--level", "full", "--duration", "abc"}}) {
        const test::BinaryRun run = test::run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << arguments[arguments.size() - 1] << ": " << run.output;
        EXPECT_NE(run.output.find("--duration"), std::string::npos) << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
