// Evidence figures given by the checks, not read back out of the evidence text: the number and unit
// each judge gives equal what reports carried when they were parsed from the text (the values below
// were recorded from that parser over these same fixtures), and text alone carries none.
#include "checks/checks.hpp"
#include "checks/gpu_stress.hpp"
#include "probes/nvml/nvml_health.hpp"
#include "support/check_judging.hpp"
#include "support/gpu_outcomes.hpp"
#include "util/units.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

const Evidence* evidence_of(const CheckResult& result, std::string_view key) {
    for (const Evidence& item : result.evidence)
        if (item.key == key) return &item;
    return nullptr;
}

// What the reports held for `key`: its text, and the number and unit (none: nullopt and "").
void expect_evidence(const CheckResult& result, std::string_view key, std::string_view text,
                     std::optional<double> number, std::string_view unit) {
    const Evidence* item = evidence_of(result, key);
    ASSERT_NE(item, nullptr) << key;
    EXPECT_EQ(item->value, text) << key;
    EXPECT_EQ(item->number, number) << key << ": " << item->value;
    EXPECT_EQ(item->unit, unit) << key << ": " << item->value;
}

using test::healthy_h200;
using test::healthy_stress;

TEST(EvidenceFigures, device_health_gives_the_temperature_and_power_as_reports_had_them) {
    NvmlDeviceHealth gpu = healthy_h200();
    CheckResult result =
        test::judge("device.health", [&](ResultBuilder& r) { judge_health({gpu}, {test::h200()}, r); });
    expect_evidence(result, "gpu0_temperature", "31 C", 31.0, "C");
    expect_evidence(result, "gpu0_power", "76 W of 700 W enforced limit", 76.0, "W");
    gpu.temperature_c = 91;
    result = test::judge("device.health", [&](ResultBuilder& r) { judge_health({gpu}, {test::h200()}, r); });
    expect_evidence(result, "gpu0_temperature", "91 C", 91.0, "C");
    expect_evidence(result, "gpu0_pcie", "gen 5 of 5, x16 of x16", std::nullopt, "");
}

TEST(EvidenceFigures, gpu_stress_gives_a_figure_where_every_sample_had_one_value) {
    StressOutcome outcome = healthy_stress();
    CheckResult result = test::judged("gpu.stress", judge_stress, outcome);
    expect_evidence(result, "sm_clock", "1980 MHz", 1980.0, "MHz");
    expect_evidence(result, "temperature", "60 C", 60.0, "C");
    expect_evidence(result, "power", "650 W", 650.0, "W");
    // A range is no one figure; 650.5 W is shown, and given, rounded half to even as "{:.0f}" rounds.
    (*outcome.samples)[3].temperature_c = 71;
    for (NvmlClockSample& reading : *outcome.samples) reading.power_mw = 650500;
    result = test::judged("gpu.stress", judge_stress, outcome);
    expect_evidence(result, "temperature", "60-71 C", std::nullopt, "");
    expect_evidence(result, "power", "650 W", 650.0, "W");
    for (NvmlClockSample& reading : *outcome.samples) reading.sm_clock_mhz.reset();
    result = test::judged("gpu.stress", judge_stress, outcome);
    expect_evidence(result, "sm_clock", "?", std::nullopt, "");
}

TEST(EvidenceFigures, host_limits_and_host_os_give_byte_counts_in_the_unit_their_text_shows) {
    const auto judged = [](const ProcessLimits& limits, const HostInfo& host) {
        return test::judge("host.limits", [&](ResultBuilder& r) { judge_limits(limits, host, r); });
    };
    ProcessLimits limits;
    limits.stack.soft = limits.stack.hard = 32 << 10;
    limits.locked_memory.soft = limits.locked_memory.hard = 64 << 10;
    CheckResult result = judged(limits, test::bare_host());
    expect_evidence(result, "stack", "32.0 KiB", 32.0, "KiB");
    expect_evidence(result, "locked_memory", "64.0 KiB", 64.0, "KiB");
    limits.locked_memory.soft = limits.locked_memory.hard = 8 << 20;
    limits.stack.hard.reset();
    limits.file_size.soft = limits.file_size.hard = 512;
    result = judged(limits, test::bare_host());
    expect_evidence(result, "locked_memory", "8.0 MiB", 8.0, "MiB");
    expect_evidence(result, "stack", "32.0 KiB (hard limit unlimited)", std::nullopt, "");
    expect_evidence(result, "file_size", "512 B", std::nullopt, "");  // reports never had a figure in B

    HostInfo host = test::bare_host();
    host.memory_bytes = 25'232'932'864;  // 23.5 GiB, as this machine's run reported it
    result = test::judge("host.os", [&](ResultBuilder& r) { judge_host_os(host, r); });
    expect_evidence(result, "memory", "23.5 GiB", 23.5, "GiB");
}

// The figure of a byte count is the number its text shows, in every unit and at every tie: what
// reading "<number> <unit>" back from format_bytes gave, which is how reports got it before.
TEST(EvidenceFigures, a_byte_count_is_the_number_its_text_shows) {
    std::vector<std::uint64_t> counts{
        0, 1, 1023, 1024, 1025, 1536, 1587, 1638, (std::uint64_t{1} << 40) * 3 / 2, std::uint64_t{1} << 52};
    for (std::uint64_t unit : {std::uint64_t{1} << 10, std::uint64_t{1} << 20, std::uint64_t{1} << 30})
        for (std::uint64_t tenths = 10; tenths < 10240; tenths += 7) {
            counts.push_back(unit * tenths / 10);
            counts.push_back(unit * tenths / 20);  // halves of tenths: the ties, rounded to even
            counts.push_back(unit * tenths / 20 + 1);
        }
    ResultBuilder builder;
    for (std::uint64_t bytes : counts) builder.evidence_bytes("bytes", bytes);
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    ASSERT_EQ(result.evidence.size(), counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const Evidence& item = result.evidence[i];
        ASSERT_EQ(item.value, format_bytes(counts[i]));
        const std::size_t space = item.value.find(' ');
        const std::string_view unit = std::string_view(item.value).substr(space + 1);
        if (unit == "B") {
            EXPECT_FALSE(item.number) << item.value;
            continue;
        }
        double shown = 0;
        std::from_chars(item.value.data(), item.value.data() + space, shown);
        EXPECT_EQ(item.number, shown) << counts[i] << " bytes: " << item.value;
        EXPECT_EQ(item.unit, unit) << item.value;
    }
}

// Text that looks like a figure carries none: what a number means is the check's to say.
TEST(EvidenceFigures, text_alone_carries_no_number) {
    ResultBuilder builder;
    for (const char* text : {"61 C", "139.3 GiB", "4262 GB/s", "12 %", "5 s", "0 bytes"})
        builder.evidence("looks_like_a_figure", text);
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    ASSERT_EQ(result.evidence.size(), 6u);
    for (const Evidence& item : result.evidence) {
        EXPECT_FALSE(item.number) << item.value;
        EXPECT_EQ(item.unit, "") << item.value;
    }
}

}  // namespace
}  // namespace cudacheck
