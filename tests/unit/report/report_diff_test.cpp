// Comparing two reports (report/report_diff.cpp), and `cudacheck diff`'s exit codes and errors.
#include "report/report_diff.hpp"
#include "report/report_json.hpp"
#include "report/report_query.hpp"
#include "support/example_reports.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::example_report;
using test::example_with_resolution;
using test::find_metric;
using test::find_result;
using test::resolution_result;
using test::run_cudacheck;
using test::source_dir;

TEST(Diff, finds_nothing_between_a_report_and_itself) {
    const Report report = example_report("h200/cudacheck.json");
    EXPECT_TRUE(diff_reports(report, report, 10.0).differences.empty());
}

TEST(Diff, names_versions_devices_statuses_libraries_and_moved_figures) {
    Report before = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    Report after = before;
    after.versions.driver = "590.44.01";
    after.devices.front().ecc_enabled = false;
    find_result(after, "cufft.fft")->status = Status::fail;
    find_result(after, "cufft.fft")->code = "CC507";
    find_metric(after, "cublas.gemm", "gemm_bf16_8192")->value *= 0.8;     // -20%: beyond 10%
    find_metric(after, "cublas.gemm", "gemm_fp16_8192")->value *= 0.95;    // -5%: within
    find_metric(after, "cublas.gemm", "sgemm_relative_error")->value *= 3;  // an error ratio, not a figure
    *find_result(after, "libraries.resolution") = resolution_result("9.12.0.46");
    after.libraries = test::resolution_section("9.12.0.46");
    const ReportDiff diff = diff_reports(before, after, 10.0);
    std::vector<std::string> subjects;
    for (const Difference& difference : diff.differences)
        subjects.push_back(difference.kind + " " + difference.subject);
    EXPECT_EQ(subjects, (std::vector<std::string>{"version driver", "library libcudnn.so.9", "device device 0 ECC",
                                                  "status cufft.fft[0]", "metric cublas.gemm[0] gemm_bf16_8192"}));
    EXPECT_NEAR(*diff.differences.back().change_percent, -20.0, 1e-9);
    EXPECT_EQ(diff.differences[1].before, "9.10.2.21 system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9");
    EXPECT_EQ(diff.differences[3].after, "fail CC507");
    EXPECT_EQ(diff_reports(before, after, 25.0).differences.size(), 4u)
        << "a wider threshold lets the -20% figure pass";
}

// A standard and a quick report differ in their level first; timings under a
// millisecond are noise, not a -90% regression.
TEST(Diff, names_the_level_and_ignores_sub_millisecond_timings) {
    const Report standard = example_report("h200/cudacheck.json");
    Report quick = standard;
    quick.level = "quick";
    const ReportDiff levels = diff_reports(standard, quick, 10.0);
    ASSERT_FALSE(levels.differences.empty());
    EXPECT_EQ(levels.differences.front().kind, "option");
    EXPECT_EQ(levels.differences.front().subject, "level");
    EXPECT_EQ(levels.differences.front().before, "standard");
    EXPECT_EQ(levels.differences.front().after, "quick");

    Report before = standard;
    Report after = standard;
    before.checks.front().metrics = {{"step_time", 0.05, "ms"}, {"load_time", 12.0, "ms"}, {"wait", 0.0004, "s"}};
    after.checks.front().metrics = {{"step_time", 0.5, "ms"}, {"load_time", 30.0, "ms"}, {"wait", 0.0009, "s"}};
    std::vector<std::string> subjects;
    for (const Difference& difference : diff_reports(before, after, 10.0).differences)
        subjects.push_back(difference.subject);
    EXPECT_EQ(subjects, (std::vector<std::string>{check_label(before.checks.front()) + " load_time"}))
        << "0.05 -> 0.5 ms and 0.4 -> 0.9 ms are below the floor; 12 -> 30 ms is not";
}

TEST(Diff, binary_exits_0_for_equal_reports_1_for_different_and_2_for_bad_input) {
    const std::string h200 = source_dir + "/docs/examples/h200/cudacheck.json";
    const std::string no_driver = source_dir + "/docs/examples/no-driver/cudacheck.json";
    const test::BinaryRun same = run_cudacheck({"diff", h200, h200});
    EXPECT_EQ(same.exit_status, 0) << same.output;
    EXPECT_TRUE(contains(same.output, "No differences.")) << same.output;
    const test::BinaryRun different = run_cudacheck({"diff", h200, no_driver, "--format", "json"});
    EXPECT_EQ(different.exit_status, 1) << different.output;
    const auto document = nlohmann::json::parse(different.output);
    EXPECT_EQ(document["diff_version"], std::string(diff_json_version));
    EXPECT_GT(document["count"].get<int>(), 5);
    EXPECT_EQ(document["differences"][0]["subject"], "driver");

    test::TempDir dir;
    const std::string wrong_major =
        dir.write("v2.json",
                  std::regex_replace(test::read_text(h200), std::regex("\"schema_version\": \"1\\.[0-9]+\\.[0-9]+\""),
                                     "\"schema_version\": \"2.0.0\"", std::regex_constants::format_first_only));
    const std::vector<std::pair<std::string, std::string>> bad_inputs{
        {dir.write("cut.json", test::read_text(h200).substr(0, 300)), "cut.json: not valid JSON: parse error at line"},
        {dir.write("other.json", R"({"name": "not a report"})"), "other.json: at /tool/name: not a cudacheck report"},
        {wrong_major, "v2.json: at /schema_version: schema 2.0.0 is incompatible"},
        {dir.path() + "/missing.json", "cannot read " + dir.path() + "/missing.json: No such file or directory"},
        {dir.path(), "cannot read " + dir.path() + ": a directory, not a regular file"}};
    for (const auto& [path, message] : bad_inputs) {
        const test::BinaryRun run = run_cudacheck({"diff", h200, path});
        EXPECT_EQ(run.exit_status, 2) << path;
        EXPECT_TRUE(contains(run.output, message)) << run.output;
        EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 1) << "one line: " << run.output;
    }
}

}  // namespace
}  // namespace cudacheck
