// `cudacheck render` (cli/render_command.cpp): a saved report in every format, as the run wrote it.
#include "support/test_support.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string golden = CUDACHECK_SOURCE_DIR "/tests/golden/";

// The golden report's JSON, rendered, is each golden rendering of the same report.
TEST(Render, the_golden_json_gives_every_golden_format) {
    for (const auto& [format, file] : std::vector<std::pair<std::string, std::string>>{{"markdown", "report.md"},
                                                                                       {"junit", "report.junit.xml"},
                                                                                       {"prometheus", "report.prom"},
                                                                                       {"table", "report.txt"},
                                                                                       {"html", "report.html"}}) {
        const test::BinaryRun run =
            run_cudacheck({"render", golden + "report.json", "--format", format, "-v", "--color", "never"});
        EXPECT_EQ(run.exit_status, 0) << format << ": " << run.output;
        EXPECT_EQ(run.output, test::read_text(golden + file)) << format;
    }
}

// Every recorded report, whatever 1.x schema it has, renders; JSON is the file itself.
TEST(Render, every_recorded_report_round_trips) {
    std::size_t reports = 0;
    for (const auto& entry : fs::recursive_directory_iterator(CUDACHECK_SOURCE_DIR "/docs/examples")) {
        if (entry.path().extension() != ".json") continue;
        const std::string text = test::read_text(entry.path().string());
        const nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
        if (!document.is_object() || !document.contains("tool") || document["tool"].value("name", "") != "cudacheck" ||
            !document.contains("checks"))
            continue;  // traces, inspect and fleet documents
        ++reports;
        SCOPED_TRACE(entry.path().string());
        const test::BinaryRun json = run_cudacheck({"render", entry.path().string(), "--format", "json"});
        EXPECT_EQ(json.exit_status, 0) << json.output.substr(0, 300);
        EXPECT_TRUE(json.output == text) << "JSON to JSON is identical";
        for (const char* format : {"table", "markdown", "junit", "prometheus", "html"})
            EXPECT_EQ(run_cudacheck({"render", entry.path().string(), "--format", format}).exit_status, 0) << format;
    }
    EXPECT_GE(reports, 10u) << "the recorded reports were found";
}

TEST(Render, bad_input_and_outputs) {
    test::TempDir dir;
    const std::string not_report = dir.write("x.json", "{\"tool\": {\"name\": \"other\"}}");
    const std::string report = golden + "report.json";
    for (const auto& [arguments, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"render", dir.path() + "/missing.json"}, "No such file or directory"},
             {{"render", not_report}, "not a cudacheck report"},
             {{"render", report, "-o", dir.path() + "/r.pdf"}, "the extension .pdf names no report format"},
             {{"render", report, "--format", "pdf"}, "pdf"},
             {{"render"}, "report is required"}}) {
        const test::BinaryRun run = run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << run.output;
        EXPECT_TRUE(contains(run.output, expected)) << run.output;
    }
    EXPECT_EQ(run_cudacheck({"render", report, "-o", dir.path() + "/r.md"}).exit_status, 0);
    EXPECT_EQ(test::read_text(dir.path() + "/r.md"), test::read_text(golden + "report.md"))
        << "the format from -o's extension";
    EXPECT_EQ(run_cudacheck({"render", report, "-o", dir.path() + "/r.html"}).exit_status, 0);
    EXPECT_EQ(test::read_text(dir.path() + "/r.html"), test::read_text(golden + "report.html"));
    const test::BinaryRun dash = run_cudacheck({"render", report, "-o", "-", "--format", "json"});
    EXPECT_EQ(dash.output, test::read_text(report));
    EXPECT_FALSE(fs::exists("-"));
}

}  // namespace
}  // namespace cudacheck
