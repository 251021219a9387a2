// The report's JSON (report/report_json.cpp) read back: every field, a wrong one, other documents.
#include "report/report_json.hpp"
#include "support/expected_support.hpp"
#include "support/golden_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace cudacheck {
namespace {

using test::golden_report;

// The supervisor rebuilds its worker's results and facts from this JSON: nothing may be lost.
TEST(ReportJson, reads_back_every_result_device_and_version_it_writes) {
    const Report report = golden_report();
    for (const CheckResult& result : report.checks)
        EXPECT_EQ(check_result_from_json(to_json(result)), result) << result.check_id;
    EXPECT_EQ(device_from_json(to_json(report.devices.front())), report.devices.front());
    DeviceInfo sparse;  // optional fields unknown
    sparse.name = "x";
    EXPECT_EQ(device_from_json(to_json(sparse)), sparse);
    const VersionInfo versions = versions_from_json(to_json(report.versions));
    EXPECT_EQ(versions.driver, "580.159.04");
    EXPECT_EQ(versions.nvcc, "") << "null reads back as unknown";
    EXPECT_THROW((void)check_result_from_json(ordered_json{{"id", "x"}}), nlohmann::json::exception);
}

TEST(ReportJson, reads_back_a_whole_report) {
    const Report report = golden_report();
    const Report read = report_from_json(to_json(report));
    EXPECT_EQ(read.tool_version, report.tool_version);
    EXPECT_EQ(read.argv, report.argv);
    EXPECT_EQ(read.host.hostname, "node-7");
    EXPECT_EQ(read.host.wsl, "");
    EXPECT_EQ(read.devices, report.devices);
    EXPECT_EQ(read.checks, report.checks);
    EXPECT_EQ(read.summary.overall, Status::fail);
    EXPECT_EQ(read.exit_code, 1);
    EXPECT_EQ(read.redaction, report.redaction);
}

// Series (schema 1.6.0) read back as written, a gap (null) included; a column of another length
// than the rows, or a value that is no number, is refused with its place.
TEST(ReportJson, reads_back_series_and_refuses_ragged_ones) {
    CheckResult result = golden_report().checks.front();
    result.evidence.push_back({"temperature", "61 C", 61.0, "C"});
    result.series.push_back(
        Series{"per_pattern",
               {"address", "random"},
               {{"bandwidth", "GB/s", {2734.2, std::nullopt}}, {"mismatched_words", "count", {0.0, 3.0}}}});
    result.series.push_back(
        Series{"per_second", {}, {{"second", "s", {0.0, 1.0, 2.0}}, {"tflops", "TFLOP/s", {660.5, 671.0, 669.9}}}});
    result.shared_gpu.push_back(
        GpuSharing{0,
                   "per-process utilization",
                   {{477, "python3", 99.0, 1184890880ull}, {91300, "", std::nullopt, std::nullopt}}});
    const ordered_json written = to_json(result);
    EXPECT_EQ(written["shared_gpu"][0]["processes"][1].dump(),
              R"({"pid":91300,"name":null,"sm_percent":null,"memory_bytes":null})");
    EXPECT_EQ(written["series"][0]["columns"][0]["values"].dump(), "[2734.2,null]");
    EXPECT_EQ(written["evidence"].back().dump(), R"({"key":"temperature","value":"61 C","number":61.0,"unit":"C"})");
    EXPECT_EQ(check_result_from_json(written), result);

    ordered_json ragged = written;
    ragged["series"][1]["columns"][1]["values"].push_back(1.0);
    EXPECT_THROW((void)check_result_from_json(ragged), JsonShapeError);
    ordered_json unlabelled = written;
    unlabelled["series"][0]["labels"].push_back("walking ones 0");
    EXPECT_THROW((void)check_result_from_json(unlabelled), JsonShapeError);
    ordered_json text = written;
    text["series"][1]["columns"][0]["values"][0] = "0";
    EXPECT_THROW((void)check_result_from_json(text), JsonShapeError);
    // A 1.5.0 result has neither: it reads with no series and evidence without numbers.
    ordered_json old = written;
    old.erase("series");
    old.erase("shared_gpu");
    for (auto& evidence : old["evidence"]) evidence.erase("number"), evidence.erase("unit");
    const CheckResult read = check_result_from_json(old);
    EXPECT_TRUE(read.series.empty());
    EXPECT_TRUE(read.shared_gpu.empty());
    EXPECT_FALSE(read.evidence.back().number);
}

TEST(ReportJson, names_the_place_of_a_wrong_field) {
    ordered_json document = to_json(golden_report());
    document["checks"][3]["status"] = "broken";
    try {
        (void)report_from_json(document);
        FAIL() << "accepted an unknown status";
    } catch (const JsonShapeError& error) {
        EXPECT_EQ(error.pointer(), "/checks/3/status");
        EXPECT_EQ(error.problem(), "unknown status 'broken'");
    }
    document = to_json(golden_report());
    document["devices"][0]["total_memory_bytes"] = -1;
    EXPECT_THROW((void)report_from_json(document), JsonShapeError);
}

TEST(ReportJson, refuses_other_documents_and_schema_majors) {
    EXPECT_EQ(test::error_of(parse_report(R"({"a": 1})", "x.json")),
              "x.json: at /tool/name: not a cudacheck report: no \"tool\": {\"name\": \"cudacheck\"}");
    ordered_json document = to_json(golden_report());
    document["schema_version"] = "2.0.0";
    EXPECT_EQ(test::error_of(parse_report(document.dump(), "new.json")),
              "new.json: at /schema_version: schema 2.0.0 is incompatible: this cudacheck reads reports of schema 1.x "
              "(it writes " +
                  std::string(json_schema_version) + ")");
    document["schema_version"] = "1.0.0";  // an older minor version: readable
    document.erase("redacted");
    EXPECT_EQ(test::error_of(parse_report(document.dump(), "old.json")), "");
    const std::string error = test::error_of(parse_report("{\"tool\": ", "cut.json"));
    EXPECT_EQ(error.rfind("cut.json: not valid JSON: parse error at line 1, column 10", 0), 0u) << error;
}

// The recorded reports of docs/examples (schema 1.0.0) still read.
TEST(ReportJson, reads_the_recorded_example_reports) {
    for (const char* path : {"/docs/examples/h200/cudacheck.json", "/docs/examples/no-driver/cudacheck.json"}) {
        const auto report = read_report_file(CUDACHECK_SOURCE_DIR + std::string(path));
        ASSERT_TRUE(report) << test::error_of(report);
        EXPECT_FALSE(report->checks.empty());
    }
}

}  // namespace
}  // namespace cudacheck
