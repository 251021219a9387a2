// The table renderer (render/table_renderer.cpp): the golden report, remediations, colour.
#include "render/renderer.hpp"
#include "support/golden_report.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::compare_with_golden;
using test::contains;
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

// Without -v, three or more checks skipped for one reason share a row at the first one's
// place; with -v each has its own; two alike keep theirs.
TEST(TableRenderer, groups_checks_skipped_for_one_reason_unless_verbose) {
    Report report = golden_report();
    const auto skip = [](std::string id, std::string reason, std::optional<int> device = std::nullopt) {
        CheckResult result;
        result.check_id = std::move(id);
        result.device = device;
        result.status = Status::skip;
        result.skip_reason = reason;
        result.message = std::move(reason);
        return result;
    };
    const std::string needs = "needs driver.kernel_module, which ended with fail (CC201)";
    for (CheckResult result :
         {skip("driver.libcuda", needs), skip("cuda.kernel", needs, 0), skip("cuda.kernel", needs, 1),
          skip("cuda.p2p", needs), skip("gpu.stress", "runs at --level full and above"),
          skip("gpu.memtest", "runs at --level full and above")})
        report.checks.push_back(std::move(result));
    std::ostringstream brief;
    make_renderer(Format::table, RenderOptions{false, false})->render(report, brief);
    const std::string table = brief.str();
    EXPECT_TRUE(contains(table, "4 checks")) << table;
    EXPECT_TRUE(contains(table, needs + ": driver.libcuda, cuda.kernel[0], cuda.kernel[1], cuda.p2p\n")) << table;
    EXPECT_FALSE(contains(table, "SKIP    driver.libcuda")) << table;
    EXPECT_TRUE(contains(table, "gpu.stress")) << table;
    EXPECT_FALSE(contains(table, "2 checks")) << table;
    std::ostringstream verbose;
    make_renderer(Format::table, RenderOptions{false, true})->render(report, verbose);
    EXPECT_FALSE(contains(verbose.str(), "4 checks")) << verbose.str();
    EXPECT_TRUE(contains(verbose.str(), "cuda.kernel[1]")) << verbose.str();
}

}  // namespace
}  // namespace cudacheck
