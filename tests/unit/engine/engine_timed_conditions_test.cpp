// The SM clock and temperature during a check's timed sections, end to end: the test-only
// fault.timed times 200 ms on GPU 0 (without a GPU), the engine's watch reads the fake NVML
// (tests/support/fake_nvml.cpp: FAKE_NVML_SM_CLOCK and FAKE_NVML_TEMPERATURE answer one listed
// value per call, the last repeated) every 50 ms and as the section ends, and the result carries
// what it read. fault.timed is a host check, so the keys name the GPU ("gpu0_sm_clock").
#include "support/test_support.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>

namespace cudacheck {
namespace {

namespace fs = std::filesystem;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

nlohmann::json timed_check(const test::TempDir& dir, const std::vector<std::pair<std::string, std::string>>& nvml,
                           int& exit_status) {
    std::vector<std::pair<std::string, std::string>> environment{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                 {"FAKE_CUDA_DEVICE_COUNT", "1"}};
    environment.insert(environment.end(), nvml.begin(), nvml.end());
    const test::BinaryRun run = test::run_cudacheck({"--only", "fault.timed", "-o", dir.path() + "/report.json", "-q"},
                                                    environment, test::Build::with_faults);
    exit_status = run.exit_status;
    const auto report = nlohmann::json::parse(test::read_text(dir.path() + "/report.json"));
    const auto* check = test::find_check(report, "fault.timed");
    EXPECT_NE(check, nullptr) << report.dump(1);
    return check != nullptr ? *check : nlohmann::json();
}

const nlohmann::json* evidence(const nlohmann::json& check, const std::string& key) {
    for (const auto& item : check["evidence"])
        if (item["key"] == key) return &item;
    return nullptr;
}

// A GPU that warms up during the section: its first reading 1470 MHz, every later one 1980. 200 ms
// at one reading per 50 ms and one at the end is at least two readings (a loaded machine may
// delay some, never the one at the end), so the range is 1470-1980 and the median one of them or
// between.
TEST(EngineTimedConditions, a_timed_figure_carries_the_sm_clock_and_temperature_it_ran_at) {
    test::TempDir dir;
    int exit_status = -1;
    const nlohmann::json check =
        timed_check(dir, {{"FAKE_NVML_SM_CLOCK", "1470,1980"}, {"FAKE_NVML_TEMPERATURE", "45,61"}}, exit_status);
    EXPECT_EQ(exit_status, 0);
    EXPECT_EQ(check["status"], "pass") << check.dump(1);
    const nlohmann::json* clock = evidence(check, "gpu0_sm_clock");
    ASSERT_NE(clock, nullptr) << check.dump(1);
    const std::string text = (*clock)["value"].get<std::string>();
    EXPECT_TRUE(std::regex_match(text, std::regex(R"(\d+ MHz median, 1470-1980 over \d+ samples)"))) << text;
    EXPECT_EQ((*clock)["unit"], "MHz");
    EXPECT_GE((*clock)["number"].get<double>(), 1470.0);
    EXPECT_LE((*clock)["number"].get<double>(), 1980.0);
    // Another reader of the temperature (none today) could take the 45: the highest stays 61.
    const nlohmann::json* temperature = evidence(check, "gpu0_temperature");
    ASSERT_NE(temperature, nullptr) << check.dump(1);
    EXPECT_TRUE(std::regex_search((*temperature)["value"].get<std::string>(), std::regex(R"((^61 C$)|(-61 over))")))
        << (*temperature)["value"];
    EXPECT_EQ((*temperature)["unit"], "C");
    EXPECT_EQ(evidence(check, "gpu0_timed_sections"), nullptr) << "one section lists no sections";
}

// NVML that does not answer the clock (the fake without FAKE_NVML_SM_CLOCK): the temperature
// alone, the fake's constant 34 C as one figure.
TEST(EngineTimedConditions, a_field_nvml_does_not_answer_is_left_out) {
    test::TempDir dir;
    int exit_status = -1;
    const nlohmann::json check = timed_check(dir, {}, exit_status);
    EXPECT_EQ(exit_status, 0);
    EXPECT_EQ(evidence(check, "gpu0_sm_clock"), nullptr) << check.dump(1);
    const nlohmann::json* temperature = evidence(check, "gpu0_temperature");
    ASSERT_NE(temperature, nullptr) << check.dump(1);
    EXPECT_EQ((*temperature)["value"], "34 C");
    EXPECT_EQ((*temperature)["number"], 34.0);
}

// No NVML (nvmlInit answers a driver/library mismatch): no reading, and no error for it.
TEST(EngineTimedConditions, without_nvml_there_is_no_reading_and_no_error) {
    test::TempDir dir;
    int exit_status = -1;
    const nlohmann::json check =
        timed_check(dir, {{"FAKE_NVML_INIT_RESULT", "18"}, {"FAKE_NVML_SM_CLOCK", "1980"}}, exit_status);
    EXPECT_EQ(exit_status, 0);
    EXPECT_EQ(check["status"], "pass") << check.dump(1);
    EXPECT_EQ(evidence(check, "gpu0_sm_clock"), nullptr);
    EXPECT_EQ(evidence(check, "gpu0_temperature"), nullptr);
}

}  // namespace
}  // namespace cudacheck
