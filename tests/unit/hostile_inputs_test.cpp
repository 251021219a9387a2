// Hostile inputs to the readers of saved documents and to the scanners of long text:
// JSON objects of a million keys (nlohmann's ordered_json scanned every key on each insert: 100k
// keys took 21-36 s, 1M over 120 s) and `fleet` over 10,000 reports (45-60 s and 708 MiB, about
// n^1.8). Each
// bound below separates linear from quadratic work with room for a loaded 2-core machine; the
// figures measured on that machine are given beside each.
#include "support/expected_support.hpp"
#include "support/test_support.hpp"
#include "util/json_read.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::TempDir;

namespace fs = std::filesystem;

std::string example(const std::string& relative) {
    return test::read_text(CUDACHECK_SOURCE_DIR "/docs/examples/" + relative);
}

// The example report with `keys` more members at its top level ("x0000000": 0, ...): unknown to
// the reader, which must still get through them. 1,000,000 keys make 14 MB, under the 64 MiB cap.
std::string report_with_keys(std::size_t keys) {
    const std::string report = example("h200/cudacheck.json");
    std::string text;
    text.reserve(report.size() + keys * 14);
    const std::size_t brace = report.find('{');
    text.append(report, 0, brace + 1);
    for (std::size_t i = 0; i < keys; ++i) text += fmt::format("\"x{:07}\":0,", i);
    text.append(report, brace + 1);
    return text;
}

struct MeasuredRun {
    int exit_status = -1;  // the exit code, or 128 + the signal
    bool timed_out = false;
    double wall_s = 0.0;
    long peak_rss_kib = 0;  // wait4's ru_maxrss
    std::string output;
};

// Runs the built cudacheck with its output in a file, and its peak memory from wait4(2); killed
// after `limit_s`.
MeasuredRun run_measured(const std::vector<std::string>& arguments, double limit_s = 300.0) {
    TempDir scratch;
    const std::string output_path = scratch.path() + "/output";
    std::vector<std::string> argv{CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> pointers;
    for (std::string& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execv(pointers[0], pointers.data());
        ::_exit(127);
    }
    MeasuredRun run;
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s &&
            !run.timed_out) {
            run.timed_out = true;
            ::kill(pid, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.peak_rss_kib = usage.ru_maxrss;
    // All of it (fleet's JSON of 10,000 nodes is 50 MB; read_text stops at its cap).
    std::ifstream output(output_path, std::ios::binary);
    run.output.assign(std::istreambuf_iterator<char>(output), std::istreambuf_iterator<char>());
    return run;
}

// --- 1,000,000-key objects (nlohmann's ordered_map insert) -----------------------------------

// The reader itself: measured 0.9 s on the 2-core machine (over 120 s before).
TEST(HostileInputs, a_million_key_object_parses_in_linear_time) {
    const std::string text = report_with_keys(1'000'000);
    const auto start = std::chrono::steady_clock::now();
    const Expected<ordered_json> document = parse_json_text(text, "big.json");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(document.has_value()) << test::error_of(document);
    EXPECT_EQ(document->size(), 1'000'000u + 12u);
    EXPECT_EQ(document->begin().key(), "x0000000");  // order kept
    EXPECT_EQ((*document)["schema_version"], "1.3.0");
    EXPECT_LT(seconds, 10.0);
}

// A repeated key keeps what nlohmann's own parser does with it: the first key's place, the last
// value; in a large object (hash index) as in a small one (scan).
TEST(HostileInputs, a_repeated_key_keeps_nlohmanns_place_and_value) {
    for (const std::size_t filler : {0, 3, 100}) {
        std::string text = "{\"a\":1,";
        for (std::size_t i = 0; i < filler; ++i) text += fmt::format("\"k{}\":{},", i, i);
        text += "\"b\":{\"c\":[1,{\"d\":2,\"d\":3}]},\"a\":[4]}";
        const ordered_json expected = ordered_json::parse(text);
        const ordered_json ours = parse_ordered_json(text);
        EXPECT_EQ(ours, expected) << filler;
        EXPECT_EQ(ours.dump(), expected.dump()) << filler;  // same order too
        EXPECT_EQ(ours.begin().key(), "a");
        EXPECT_EQ(ours["a"], ordered_json::array({4}));
    }
}

// Errors read as nlohmann's, and nesting is still cut at max_json_depth.
TEST(HostileInputs, errors_and_depth_are_reported_as_before) {
    // error_of is "" for a document, so each expectation on the text also holds that it failed.
    std::string error = test::error_of(parse_json_text("{\"a\":1,}", "bad.json"));
    EXPECT_TRUE(contains(error, "bad.json: not valid JSON: parse error at line 1, column 8")) << error;
    error = test::error_of(parse_json_text("[1e999]", "big.json"));
    EXPECT_TRUE(contains(error, "number overflow")) << error;
    error = test::error_of(parse_json_text("{} x", "trail.json"));
    EXPECT_TRUE(contains(error, "trail.json: not valid JSON")) << error;
    const std::string deep = std::string(max_json_depth + 1, '[') + std::string(max_json_depth + 1, ']');
    EXPECT_EQ(test::error_of(parse_json_text(deep, "deep.json")),
              fmt::format("deep.json: nested deeper than {} levels (at byte {}): not a cudacheck document",
                          max_json_depth, max_json_depth));
    const std::string deepest_allowed = std::string(max_json_depth, '[') + std::string(max_json_depth, ']');
    EXPECT_EQ(test::error_of(parse_json_text(deepest_allowed, "ok.json")), "");
}

// Through the binary: render 1.1 s, diff 0.9 s, fleet 1.0 s measured (each over 120 s before;
// 100k keys took 21 s in render).
TEST(HostileInputs, render_diff_and_fleet_read_a_million_key_report_in_seconds) {
    TempDir dir;
    const std::string big = dir.write("big.json", report_with_keys(1'000'000));
    const std::string small = dir.write("small.json", example("h200/cudacheck.json"));

    const MeasuredRun render = run_measured({"render", big}, 120);
    EXPECT_EQ(render.exit_status, 0) << render.output.substr(0, 500);
    EXPECT_LT(render.wall_s, 10.0);
    EXPECT_TRUE(contains(render.output, "16 passed, 1 warned, 4 skipped")) << render.output.substr(0, 500);
    // --format json of a report of this schema is read, then written as it came (keys and all).
    const MeasuredRun render_json = run_measured({"render", big, "--format", "json"}, 120);
    EXPECT_EQ(render_json.exit_status, 0);
    EXPECT_LT(render_json.wall_s, 10.0);

    const MeasuredRun diff = run_measured({"diff", big, small}, 120);
    EXPECT_EQ(diff.exit_status, 0) << diff.output.substr(0, 500);  // the same report, with keys it does not know
    EXPECT_LT(diff.wall_s, 10.0);

    const MeasuredRun fleet = run_measured({"fleet", big, small}, 120);
    EXPECT_EQ(fleet.exit_status, 0) << fleet.output.substr(0, 500);
    EXPECT_LT(fleet.wall_s, 10.0);
    EXPECT_TRUE(contains(fleet.output, "2 node(s)"));
}

// --expect: a policy asking for 1,000,000 libraries (each looked up again by name before, and
// inserted with a scan): measured 4.7 s with the million CC707 findings it makes.
TEST(HostileInputs, a_policy_of_a_million_libraries_is_read_and_judged_in_seconds) {
    TempDir dir;
    std::string policy = R"({"schema_version":"1.0.0","libraries":{)";
    for (std::size_t i = 0; i < 1'000'000; ++i)
        policy += fmt::format("{}\"libx{:07}.so.1\":{{}}", i == 0 ? "" : ",", i);
    policy += "}}";
    const std::string policy_path = dir.write("policy.json", policy);
    const std::string report = dir.write("node.json", example("h200/cudacheck.json"));
    const MeasuredRun run = run_measured({"fleet", "--expect", policy_path, report}, 120);
    EXPECT_EQ(run.exit_status, 1) << run.output.substr(0, 500);
    EXPECT_TRUE(contains(run.output, "expect.libraries CC707")) << run.output.substr(0, 500);
    EXPECT_LT(run.wall_s, 30.0);
    // A wrong range deep in it is still named by its place.
    const std::string bad =
        dir.write("bad.json", R"({"schema_version":"1.0.0","libraries":{"a.so":{},"b/c.so":{"min":"x"}}})");
    const MeasuredRun rejected = run_measured({"fleet", "--expect", bad, report});
    EXPECT_EQ(rejected.exit_status, 2);
    EXPECT_TRUE(contains(rejected.output, "at /libraries/b~1c.so/min: 'x' is not a version")) << rejected.output;
}

// --- fleet over 10,000 reports --------------------------------------------------------------

// The 41 kB H200 example, the larger of the recorded reports. Measured on the 2-core machine:
// 3.3-3.7 s and 114 MiB (table), 3.7-4.4 s (json); before: 60 s and 708 MiB (a majority and a
// median recomputed for every node, every report kept whole), then 6-17 s (one thread parsing
// all of it; --format json built the whole document: 350 MB more).
TEST(HostileInputs, fleet_of_ten_thousand_reports_is_linear_in_time_and_memory) {
    TempDir dir;
    const std::string report = example("h200/cudacheck.json");
    const std::string nodes = dir.make_dir("nodes");
    for (int i = 0; i < 10'000; ++i) {
        std::ofstream file(fmt::format("{}/node{:05}.json", nodes, i));
        file << report;
    }
    // A node that stands out, so the outliers' table is used too.
    nlohmann::json other = nlohmann::json::parse(report);
    other["host"]["hostname"] = "odd-node";
    other["versions"]["runtime"] = "99.1";
    std::ofstream(nodes + "/node00007.json") << other.dump();

    const MeasuredRun run = run_measured({"fleet", nodes}, 300);
    ASSERT_FALSE(run.timed_out);
    EXPECT_EQ(run.exit_status, 1) << run.output.substr(0, 500);  // odd-node stands out
    EXPECT_TRUE(contains(run.output, "10000 node(s)"));
    EXPECT_TRUE(contains(run.output, "odd-node: runtime 99.1 differs from the fleet's 13.0 (9999 of 10000 nodes)"))
        << run.output.substr(run.output.size() - 2000);
    EXPECT_LT(run.wall_s, 20.0);               // the target is 5 s; a loaded 2-core machine gets room
    EXPECT_LT(run.peak_rss_kib, 400L * 1024);  // 114 MiB measured

    const MeasuredRun json_run = run_measured({"fleet", "--format", "json", nodes}, 300);
    ASSERT_FALSE(json_run.timed_out);
    EXPECT_EQ(json_run.exit_status, 1);
    EXPECT_LT(json_run.wall_s, 20.0);
    EXPECT_LT(json_run.peak_rss_kib, 400L * 1024);  // the document is written node by node
    const nlohmann::json fleet = nlohmann::json::parse(json_run.output);
    ASSERT_EQ(fleet["nodes"].size(), 10'000U);
    EXPECT_EQ(fleet["nodes"][7]["node"], "odd-node");
    EXPECT_EQ(fleet["nodes"][9'999]["figures"], fleet["nodes"][0]["figures"]);
    EXPECT_FALSE(fleet["nodes"][0]["figures"].empty());
}

// One node with 100,000 figures (metrics of one check): each was added to the fleet document with
// ordered_json's operator[], a scan of every key already there (31 s measured; 0.9 s now).
TEST(HostileInputs, fleet_json_of_a_node_with_a_hundred_thousand_figures_is_linear) {
    TempDir dir;
    nlohmann::ordered_json big = nlohmann::ordered_json::parse(example("h200/cudacheck.json"));
    for (auto& check : big["checks"]) {
        if (check["id"] != "cublas.gemm") continue;
        const nlohmann::ordered_json metric = check["metrics"][0];
        check["metrics"] = nlohmann::ordered_json::array();
        for (int i = 0; i < 100'000; ++i) {
            nlohmann::ordered_json copy = metric;
            copy["name"] = fmt::format("gemm_x_{:06}", i);
            check["metrics"].push_back(std::move(copy));
        }
    }
    const std::string path = dir.write("big.json", big.dump());
    const MeasuredRun run = run_measured({"fleet", "--format", "json", path}, 120);
    ASSERT_FALSE(run.timed_out);
    EXPECT_EQ(run.exit_status, 0) << run.output.substr(0, 500);
    EXPECT_LT(run.wall_s, 10.0);
    const nlohmann::json fleet = nlohmann::json::parse(run.output);
    EXPECT_TRUE(fleet["nodes"][0]["figures"].contains("cublas.gemm gemm_x_099999"));
}

// The std::regex cases (item 6b: 50 KB metric name, 35 KB CUBLAS_WORKSPACE_CONFIG, 1 MB
// version.txt and nvcc --version) and the long DT_RPATH (7b) are in hostile_text_and_rpath_test.cpp.

}  // namespace
}  // namespace cudacheck
