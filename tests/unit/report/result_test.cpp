// The result model (report/result.cpp): a result from its findings, the summary and the exit code.
#include "report/catalog.hpp"
#include "report/report.hpp"
#include "report/result_builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <vector>

namespace cudacheck {
namespace {

TEST(ResultBuilder, takes_status_and_headline_from_worst_finding) {
    ResultBuilder builder;
    builder.summary("ignored when findings exist");
    builder.add(Code::cuda_launch_blocking, "a warning");
    builder.add(Code::libcuda_not_found, "a failure", "do this");
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.code, "CC210");
    EXPECT_EQ(result.message, "a failure");
    EXPECT_EQ(result.remediation, "do this");
    ASSERT_EQ(result.findings.size(), 2u);
    EXPECT_EQ(result.findings[1].code, "CC115");
}

TEST(ResultBuilder, uses_catalog_remediation_when_check_gives_none) {
    ResultBuilder builder;
    builder.add(Code::cuda_launch_blocking, "blocking");
    const CheckResult result = std::move(builder).finish("x.y", std::nullopt);
    EXPECT_EQ(result.remediation, catalog_entry(Code::cuda_launch_blocking).remediation);
    EXPECT_EQ(result.status, Status::warn);
}

TEST(ResultBuilder, passes_with_summary_when_nothing_found) {
    ResultBuilder builder;
    builder.summary("all good");
    builder.evidence("k", "v");
    const CheckResult result = std::move(builder).finish("x.y", 3);
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_EQ(result.message, "all good");
    EXPECT_TRUE(result.code.empty());
    EXPECT_EQ(result.device, 3);
    EXPECT_EQ(result.evidence.size(), 1u);
}

// Evidence carries a number and unit only where the check gives them (schema 1.6.0): text that looks
// like a figure is still only text, since nothing reads figures back out of words.
TEST(ResultBuilder, evidence_carries_a_figure_only_where_the_check_gives_one) {
    ResultBuilder builder;
    builder.evidence("temperature", "61 C");
    builder.evidence("driver", "580.159.04");
    builder.evidence("gemm_bf16", "8192^3: 796.2 TFLOP/s (81% of 989)", 796.2, Unit::tflops);
    builder.evidence("rate", "not measured", std::nan(""), Unit::gb_per_s);
    builder.evidence("gpu0_temperature", "61 C", 61, Unit::celsius);
    builder.evidence("normal_mean", "0.5 (allowed 0.49 to 0.51)", 0.5);
    builder.evidence(Evidence{"relayed", "4 GiB", 4.0, "GiB"});
    builder.evidence(Evidence{"relayed_nan", "?", std::numeric_limits<double>::infinity(), "W"});
    const CheckResult result = std::move(builder).finish("x.y", 0);
    ASSERT_EQ(result.evidence.size(), 8u);
    EXPECT_EQ(result.evidence[0], (Evidence{"temperature", "61 C", std::nullopt, ""})) << "text alone is no figure";
    EXPECT_EQ(result.evidence[1], (Evidence{"driver", "580.159.04", std::nullopt, ""}));
    EXPECT_EQ(result.evidence[2], (Evidence{"gemm_bf16", "8192^3: 796.2 TFLOP/s (81% of 989)", 796.2, "TFLOP/s"}));
    EXPECT_EQ(result.evidence[3], (Evidence{"rate", "not measured", std::nullopt, ""})) << "NaN is no figure";
    EXPECT_EQ(result.evidence[4], (Evidence{"gpu0_temperature", "61 C", 61.0, "C"}));
    EXPECT_EQ(result.evidence[5], (Evidence{"normal_mean", "0.5 (allowed 0.49 to 0.51)", 0.5, ""}));
    EXPECT_EQ(result.evidence[6], (Evidence{"relayed", "4 GiB", 4.0, "GiB"}));
    EXPECT_EQ(result.evidence[7], (Evidence{"relayed_nan", "?", std::nullopt, ""})) << "infinity is no figure";
}

TEST(Summary, worst_status_wins_but_skip_does_not_hide_pass) {
    std::vector<CheckResult> results(3);
    results[0].status = Status::pass;
    results[1].status = Status::skip;
    results[2].status = Status::warn;
    Summary summary = summarize(results);
    EXPECT_EQ(summary.overall, Status::warn);
    EXPECT_EQ(summary.count(Status::skip), 1);
    results[2].status = Status::pass;
    EXPECT_EQ(summarize(results).overall, Status::pass);
    results[0].status = Status::error;
    EXPECT_EQ(summarize(results).overall, Status::error);
}

TEST(Summary, is_skip_when_nothing_ran) { EXPECT_EQ(summarize({}).overall, Status::skip); }

TEST(Summary, is_skip_only_when_everything_skipped) {
    std::vector<CheckResult> results(2);
    results[0].status = Status::skip;
    results[1].status = Status::skip;
    EXPECT_EQ(summarize(results).overall, Status::skip);
}

TEST(ExitCode, follows_overall_status_and_strict) {
    Summary summary;
    summary.overall = Status::pass;
    EXPECT_EQ(exit_code_for(summary, false), 0);
    summary.overall = Status::warn;
    EXPECT_EQ(exit_code_for(summary, false), 0);
    EXPECT_EQ(exit_code_for(summary, true), 1);
    summary.overall = Status::skip;
    EXPECT_EQ(exit_code_for(summary, false), 1) << "skip never counts as pass";
    for (Status status : {Status::fail, Status::error, Status::timeout}) {
        summary.overall = status;
        EXPECT_EQ(exit_code_for(summary, false), 1);
    }
}

}  // namespace
}  // namespace cudacheck
