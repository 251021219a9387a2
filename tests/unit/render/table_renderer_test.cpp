// The table renderer (render/table_renderer.cpp): the golden report, remediations, colour.
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

TEST(TableRenderer, matches_golden_file) { compare_with_golden("report.txt", render(Format::table)); }

TEST(TableRenderer, shows_every_remediation_and_summary) {
    const std::string table = render(Format::table);
    EXPECT_NE(table.find("fix: `unset CUDA_LAUNCH_BLOCKING`"), std::string::npos);
    EXPECT_NE(table.find("fix: `unset CUDA_INJECTION64_PATH`"), std::string::npos);
    EXPECT_NE(table.find("gpu.example[0]"), std::string::npos);
    EXPECT_NE(table.find("[4917 GB/s]"), std::string::npos);
    EXPECT_NE(table.find("2 passed, 2 warned, 1 failed, 1 skipped"), std::string::npos);
    EXPECT_NE(table.find("FAIL (exit 1)"), std::string::npos);
    EXPECT_EQ(table.find('\033'), std::string::npos) << "no colour codes unless asked";
}

TEST(TableRenderer, colours_only_when_asked) {
    std::ostringstream out;
    make_renderer(Format::table, RenderOptions{true, false})->render(golden_report(), out);
    EXPECT_NE(out.str().find("\033[31mFAIL"), std::string::npos);
}

}  // namespace
}  // namespace cudacheck
