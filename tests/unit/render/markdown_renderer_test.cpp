// The Markdown renderer (render/markdown_renderer.cpp): the golden report, folding and escaping.
#include "render/renderer.hpp"
#include "support/golden_report.hpp"

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
    EXPECT_NE(markdown.find("| PASS | `host.os` | a \\| b &lt;script&gt; \\`x\\` |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("<details><summary>Findings and fixes (4)</summary>"), std::string::npos);
    EXPECT_NE(markdown.find("````text\n"), std::string::npos) << "a fence longer than any backtick run in the evidence";
    EXPECT_EQ(markdown.find("<script>"), std::string::npos);
}

}  // namespace
}  // namespace cudacheck
