// The Markdown renderer (render/markdown_renderer.cpp): the golden report, folding and escaping.
#include "render/renderer.hpp"
#include "support/example_reports.hpp"
#include "support/golden_report.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::compare_with_golden;
using test::golden_report;
using test::render;

TEST(MarkdownRenderer, matches_golden_file) { compare_with_golden("report.md", render(Format::markdown)); }

TEST(MarkdownRenderer, folds_details_and_escapes_system_text) {
    Report report = golden_report();
    report.checks[0].message = "a | b <script> `x`";
    report.checks[0].evidence = {{"path", "has ``` inside"}};
    std::ostringstream out;
    make_renderer(Format::markdown, {})->render(report, out);
    const std::string markdown = out.str();
    EXPECT_NE(markdown.find("| PASS | `host.os` | a \\| b &lt;script&gt; `x` |"), std::string::npos)
        << "what is between backticks is code\n"
        << markdown;
    EXPECT_NE(markdown.find("<details><summary>Findings and fixes (4)</summary>"), std::string::npos);
    EXPECT_NE(markdown.find("````text\n"), std::string::npos) << "a fence longer than any backtick run in the evidence";
    EXPECT_EQ(markdown.find("<script>"), std::string::npos);
}

std::string markdown_of(const Report& report) {
    std::ostringstream out;
    make_renderer(Format::markdown, {})->render(report, out);
    return out.str();
}

// The fixes' commands are code, not escaped backticks; evidence folds per GPU.
TEST(MarkdownRenderer, fix_commands_are_code_and_evidence_folds_per_gpu) {
    const std::string no_driver = markdown_of(test::example_report("no-driver/cudacheck.json"));
    EXPECT_EQ(no_driver.find("\\`"), std::string::npos) << "no escaped backtick\n" << no_driver;
    EXPECT_TRUE(test::contains(no_driver, "`docker run --gpus all …`")) << no_driver;
    const std::string two = markdown_of(test::example_report("h200x2/cudacheck.json"));
    EXPECT_TRUE(test::contains(two, "<details><summary>Evidence: host checks</summary>")) << two;
    EXPECT_TRUE(test::contains(two, "<details><summary>Evidence: GPU 1 (NVIDIA H200)</summary>")) << two;
}

// An 8-GPU report, made from the recorded 2-GPU one, fits in a GitHub issue, and one far too large
// is cut, saying what it left out.
TEST(MarkdownRenderer, fits_in_a_github_issue) {
    const Report two = test::example_report("h200x2/cudacheck.json");
    const auto with_gpus = [&two](int count) {
        Report report = two;
        report.devices.clear();
        report.checks.clear();
        for (int gpu = 0; gpu < count; ++gpu) {
            DeviceInfo device = two.devices.at(gpu % 2);
            device.ordinal = gpu;
            report.devices.push_back(device);
        }
        for (const CheckResult& result : two.checks) {
            if (!result.device) {
                report.checks.push_back(result);
                continue;
            }
            if (*result.device != 0) continue;
            for (int gpu = 0; gpu < count; ++gpu) {
                CheckResult copy = result;
                copy.device = gpu;
                report.checks.push_back(copy);
            }
        }
        return report;
    };
    const std::string eight = markdown_of(with_gpus(8));
    EXPECT_LE(eight.size(), 65536u);
    EXPECT_TRUE(test::contains(eight, "Evidence: GPU 7") || test::contains(eight, "_Cut to fit GitHub's"))
        << "whole, or it says what it cut";
    EXPECT_TRUE(test::contains(eight, "| PASS | `cuda.kernel[7]` |")) << "every GPU's row";
    const std::string huge = markdown_of(with_gpus(64));
    EXPECT_LE(huge.size(), 65536u);
    EXPECT_TRUE(test::contains(huge, "_Cut to fit GitHub's 65536-character limit: left out evidence ("))
        << huge.substr(0, 3000);
    EXPECT_TRUE(test::contains(huge, "`cudacheck -o report.json`"));
    EXPECT_TRUE(test::contains(huge, "| status | check | result |")) << "the summary table stays";
    EXPECT_TRUE(test::contains(huge, "more | left out to fit |"))
        << "64 GPUs: only the rows that did not pass, and a count";
}

}  // namespace
}  // namespace cudacheck
