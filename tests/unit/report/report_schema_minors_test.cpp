// A report of every 1.x minor reads (report/report_json.cpp), from the golden report of
// each minor in tests/golden/reports (its README says where each came from).
#include "report/report_json.hpp"
#include "support/expected_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cudacheck {
namespace {

const std::string golden_reports = CUDACHECK_SOURCE_DIR "/tests/golden/reports/";

TEST(ReportSchemaMinors, every_golden_minor_reads) {
    for (const char* name :
         {"1.0.0-initial", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0", "1.8.0", "1.9.0"}) {
        const auto report = read_report_file(golden_reports + name + ".json");
        ASSERT_TRUE(report) << name << ": " << test::error_of(report);
        EXPECT_FALSE(report->checks.empty()) << name;
    }
}

// The device fields 1.0.0 gained while it was 1.0.0: absent, they read as the only source there
// was then (the driver API) and as unknown.
TEST(ReportSchemaMinors, a_device_of_the_first_1_0_0_reads_as_the_driver_api_s) {
    const auto initial = read_report_file(golden_reports + "1.0.0-initial.json");
    ASSERT_TRUE(initial) << test::error_of(initial);
    ASSERT_EQ(initial->devices.size(), 1u);
    EXPECT_EQ(initial->devices[0].source, "driver_api");
    EXPECT_FALSE(initial->devices[0].nvml_index);
    EXPECT_FALSE(initial->devices[0].framebuffer_bytes);
    EXPECT_EQ(initial->devices[0].name, "NVIDIA H200");

    const auto recorded = read_report_file(golden_reports + "1.0.0.json");
    ASSERT_TRUE(recorded) << test::error_of(recorded);
    ASSERT_EQ(recorded->devices.size(), 1u);
    EXPECT_FALSE(recorded->devices[0].nvml_index) << "recorded without one";
    // A present field is still held to its type.
    ordered_json device = to_json(recorded->devices[0]);
    device["source"] = 7;
    EXPECT_THROW((void)device_from_json(device), JsonShapeError);
    device.erase("source");
    device["nvml_index"] = "zero";
    EXPECT_THROW((void)device_from_json(device), JsonShapeError);
}

}  // namespace
}  // namespace cudacheck
