// The Prometheus renderer (render/prometheus_renderer.cpp): the golden report, the client's parser.
#include "render/renderer.hpp"
#include "support/golden_report.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::compare_with_golden;
using test::golden_report;
using test::render;

TEST(PrometheusRenderer, matches_golden_file) { compare_with_golden("report.prom", render(Format::prometheus)); }

void validate_prometheus(const std::string& prom_path, const std::string& json_path) {
    const sys::CommandResult result = sys::run_command(
        {CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/validate_prometheus.py", prom_path, json_path}, std::chrono::seconds(60));
    if (result.exit_status == 77) GTEST_SKIP() << result.output;
    EXPECT_EQ(result.exit_status, 0) << result.output << test::read_text(prom_path);
}

// The Prometheus client library's own parser reads what we write, label values with quotes,
// backslashes and newlines included, and finds every status and figure of the JSON.
TEST(PrometheusRenderer, is_read_by_the_prometheus_parser_whatever_the_labels) {
    Report report = golden_report();
    report.checks[3].code = "CC210";
    report.versions.nvcc = "quote \" back\\slash\nnewline";
    test::TempDir dir;
    std::ostringstream prom;
    std::ostringstream json_text;
    make_renderer(Format::prometheus, {})->render(report, prom);
    make_renderer(Format::json, {})->render(report, json_text);
    validate_prometheus(dir.write("report.prom", prom.str()), dir.write("report.json", json_text.str()));
}

TEST(PrometheusRenderer, binary_output_is_read_by_the_prometheus_parser) {
    test::TempDir dir;
    // One run writes both: two runs would differ in live figures (power, temperature) on a GPU.
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "-o", dir.path() + "/report.prom", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_prometheus(dir.path() + "/report.prom", dir.path() + "/report.json");
}

}  // namespace
}  // namespace cudacheck
