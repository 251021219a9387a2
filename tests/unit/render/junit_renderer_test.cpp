// The JUnit renderer (render/junit_renderer.cpp): the golden report, a real JUnit reader, --strict.
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

TEST(JunitRenderer, matches_golden_file) { compare_with_golden("report.junit.xml", render(Format::junit)); }

void validate_junit(const std::string& xml_path, const std::string& json_path) {
    const sys::CommandResult result =
        sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/validate_junit.py", xml_path,
                          json_path},
                         std::chrono::seconds(60));
    if (result.exit_status == 77) GTEST_SKIP() << result.output;
    EXPECT_EQ(result.exit_status, 0) << result.output << test::read_text(xml_path);
}

// A real JUnit consumer (tests/support/validate_junit.py, junitparser) reads what we write, with
// text that XML cannot carry as is: markup characters, control characters and invalid UTF-8.
TEST(JunitRenderer, is_read_by_a_junit_parser_whatever_the_text) {
    Report report = golden_report();
    report.checks[3].message = "bad <tag> & \"quotes\" 'single' \x01\x1b[31m \xff\xfe ]]> end";
    report.checks[3].findings[0].remediation = "</failure><injected/>";
    report.checks[4].skip_reason = "skip <&>";
    test::TempDir dir;
    std::ostringstream xml;
    std::ostringstream json_text;
    make_renderer(Format::junit, {})->render(report, xml);
    make_renderer(Format::json, {})->render(report, json_text);
    validate_junit(dir.write("report.xml", xml.str()), dir.write("report.json", json_text.str()));
}

// The binary's own JUnit on this machine (no driver: failures, a warning and skips), against its JSON.
TEST(JunitRenderer, binary_output_is_read_by_a_junit_parser) {
    test::TempDir dir;
    // One run writes both, so that they describe the same checks (a GPU's temperature moves).
    const test::BinaryRun run = test::run_cudacheck(
        {"--level", "quick", "-o", dir.path() + "/report.xml", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_junit(dir.path() + "/report.xml", dir.path() + "/report.json");
}

TEST(JunitRenderer, fails_warnings_only_under_strict) {
    Report report = golden_report();
    std::ostringstream relaxed;
    make_renderer(Format::junit, {})->render(report, relaxed);
    EXPECT_NE(relaxed.str().find("failures=\"1\""), std::string::npos);
    report.strict = true;
    std::ostringstream strict;
    make_renderer(Format::junit, {})->render(report, strict);
    EXPECT_NE(strict.str().find("failures=\"3\""), std::string::npos);  // the two warnings and the failure
}

}  // namespace
}  // namespace cudacheck
