// The HTML report (render/html_renderer.cpp, render/svg_chart.cpp): verdicts and fixes, evidence
// folded, escaping of hostile text, nothing fetched, the charts drawn from the report's numbers,
// its size for a 2-GPU full run, and a real browser (headless Chromium) loading it without a
// console error or a request (tests/support/check_html_in_browser.py).
#include "render/renderer.hpp"
#include "render/svg_chart.hpp"
#include "report/report_query.hpp"
#include "support/example_reports.hpp"
#include "support/golden_report.hpp"
#include "support/recorded_libraries.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::contains;

// The recorded `--level full` run on one H200 (bench/issue20_on_gpu.sh): every series a run writes.
const char* const recorded_full_run = "h200/issue20/full.json";

std::string html(const Report& report) {
    std::ostringstream out;
    make_renderer(Format::html, {})->render(report, out);
    return out.str();
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
    return count;
}

// The <svg> element whose <title> starts with `title`, or "" when there is none.
std::string chart(const std::string& page, const std::string& title) {
    const std::size_t at = page.find("<title>" + title);
    if (at == std::string::npos) return {};
    const std::size_t open = page.rfind("<svg", at);
    return page.substr(open, page.find("</svg>", at) + 6 - open);
}

// The recorded full run as if it had run on `gpus` GPUs: each per-device result and each device
// copied for the others (their figures the same, their UUIDs and bus ids not).
Report full_run_on(int gpus) {
    Report report = test::example_report(recorded_full_run);
    test::add_recorded_libraries_section(report);
    const std::vector<CheckResult> recorded = report.checks;
    const DeviceInfo first = report.devices.front();
    report.checks.clear();
    for (const CheckResult& result : recorded) {
        report.checks.push_back(result);
        if (!result.device) continue;
        for (int device = 1; device < gpus; ++device) {
            CheckResult copy = result;
            copy.device = device;
            report.checks.push_back(copy);
        }
    }
    for (int device = 1; device < gpus; ++device) {
        DeviceInfo copy = first;
        copy.ordinal = device;
        copy.uuid = fmt::format("GPU-00000000-0000-0000-0000-{:012}", device);
        copy.pci_bus_id = fmt::format("00000000:{:02X}:00.0", device);
        report.devices.push_back(copy);
    }
    return report;
}

TEST(HtmlRenderer, golden) { test::compare_with_golden("report.html", test::render(Format::html)); }

// What a person looks for first: every check with its verdict, every finding with its code and
// fix, the fix's `commands` as code (no backtick left in the page), the evidence folded.
TEST(HtmlRenderer, shows_every_verdict_finding_and_fix) {
    const Report report = test::golden_report();
    const std::string page = html(report);
    EXPECT_TRUE(page.starts_with("<!DOCTYPE html>"));
    EXPECT_TRUE(page.ends_with("</html>\n"));
    for (const CheckResult& result : report.checks) {
        EXPECT_TRUE(contains(page, "<code>" + check_label(result) + "</code>")) << result.check_id;
        for (const Finding& finding : result.findings)
            EXPECT_TRUE(contains(page, "<b>" + finding.code + "</b>")) << finding.code;
    }
    EXPECT_TRUE(contains(page, "Fix: <code>unset CUDA_LAUNCH_BLOCKING</code> outside debugging sessions.")) << page;
    EXPECT_TRUE(contains(page, "<code>unset CUDA_INJECTION64_PATH</code>"));
    EXPECT_EQ(page.find('`'), std::string::npos) << "a backtick left in the page";
    EXPECT_TRUE(
        contains(page,
                 "<details><summary>Evidence (1)</summary><dl><dt>os</dt><dd>Ubuntu 24.04.3 LTS</dd></dl></details>"));
    EXPECT_TRUE(contains(page, "<span class=\"badge fail\">FAIL</span>"));
    EXPECT_TRUE(contains(page, "exit code 1"));
    EXPECT_TRUE(contains(
        page, "<p class=\"note\">Redacted (--redact): hostname, device ids (3 replacements); values of HF_TOKEN.</p>"))
        << "the redaction note";
}

// Nothing to fetch: no script, no source, link or stylesheet import, only the namespace URI of
// SVG, and a Content-Security-Policy that forbids any fetch the page might still make.
TEST(HtmlRenderer, fetches_nothing) {
    const std::string page = html(full_run_on(2));
    for (const char* fetching : {"<script", "src=", "href=", "url(", "@import", "<link", "<img", "<iframe"})
        EXPECT_FALSE(contains(page, fetching)) << fetching;
    // An address in an attribute would be fetched or followed; in text (a fix naming a download
    // page) it is only read.
    const std::regex attribute_uri("=\"\\s*[a-z]+://[^\"]*\"");
    for (auto match = std::sregex_iterator(page.begin(), page.end(), attribute_uri); match != std::sregex_iterator();
         ++match)
        EXPECT_EQ(match->str(), "=\"http://www.w3.org/2000/svg\"");
    EXPECT_TRUE(contains(page, "content=\"default-src 'none'; style-src 'unsafe-inline'\""));
}

// Text from the machine (paths, loader messages, names) cannot make markup or break the page.
TEST(HtmlRenderer, escapes_hostile_text) {
    Report report = test::golden_report();
    report.host.hostname = "node\"><script>alert(1)</script>";
    report.checks[1].findings[0].message = "LD_PRELOAD=</td></tr></table><b>x</b> & \x01 \xff\xfe";
    report.checks[1].findings[0].remediation = "`rm '<dir>'` then `unset X` and a lone ` backtick";
    report.checks[0].evidence = {{"</dd><dt>", "<svg onload=alert(1)>"}};
    const std::string page = html(report);
    EXPECT_FALSE(contains(page, "<script")) << page;
    EXPECT_FALSE(contains(page, "<svg onload"));
    EXPECT_FALSE(contains(page, "<b>x</b>"));
    EXPECT_TRUE(contains(page, "node&quot;&gt;&lt;script&gt;"));
    EXPECT_TRUE(contains(
        page, "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;b&gt;x&lt;/b&gt; &amp; \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd"));
    EXPECT_TRUE(
        contains(page, "<code>rm &apos;&lt;dir&gt;&apos;</code> then <code>unset X</code> and a lone ` backtick"))
        << "unpaired stays";
    // As many opening table cells as closing ones: nothing from the report closed the markup early.
    EXPECT_EQ(occurrences(page, "<td>"), occurrences(page, "</td>"));
    EXPECT_EQ(occurrences(page, "<dd>"), occurrences(page, "</dd>"));
}

// The recorded full run's figures as charts: GEMM and bandwidth against their peaks, the stress
// rate, clock, temperature and power over time, memtest per pattern, and the library copies.
TEST(HtmlRenderer, draws_the_recorded_full_run) {
    Report report = test::example_report(recorded_full_run);
    test::add_recorded_libraries_section(report);  // recorded before the `libraries` section
    const std::string page = html(report);
    EXPECT_EQ(occurrences(page, "<svg class=\"chart\""), 8u);
    const std::string gemm = chart(page, "cublas.gemm rate against the datasheet peak");
    EXPECT_EQ(occurrences(gemm, "class=\"bar\""), 4u) << "FP32, TF32, FP16, BF16";
    EXPECT_EQ(occurrences(gemm, "class=\"reference\""), 4u) << "each against its peak";
    EXPECT_TRUE(contains(gemm, "% of 989")) << gemm;
    EXPECT_EQ(occurrences(chart(page, "cuda.memory bandwidth"), "class=\"bar\""), 3u);
    for (const char* title : {"gpu.stress rate", "SM clock", "Temperature", "Power"}) {
        const std::string line_chart = chart(page, title);
        EXPECT_EQ(occurrences(line_chart, "class=\"line\""), 1u) << title;
        // A point every second (the rate) or every NVML sample (500 ms): at least 20 for a 20 s run.
        const std::size_t at = line_chart.find(" d=\"");
        ASSERT_NE(at, std::string::npos) << title;
        EXPECT_GE(occurrences(line_chart.substr(at, line_chart.find('"', at + 4) - at), "L"), 19u) << title;
    }
    EXPECT_TRUE(contains(chart(page, "gpu.stress rate"), "BF16 datasheet peak 989"));
    const CheckResult* memtest = nullptr;
    for (const CheckResult& result : report.checks)
        if (result.check_id == "gpu.memtest") memtest = &result;
    ASSERT_NE(memtest, nullptr);
    ASSERT_FALSE(memtest->series.empty());
    EXPECT_EQ(occurrences(chart(page, "gpu.memtest GPU 0 per pattern"), "class=\"bar\""),
              memtest->series.front().rows());
    // Every copy libraries.resolution listed is a row; the loader, cudacheck and the frameworks mark them.
    const std::string copies = chart(page, "CUDA library copies");
    EXPECT_EQ(occurrences(copies, "<text x=\"16\""), library_copies(report).size());
    EXPECT_TRUE(contains(copies, ">PyTorch<") && contains(copies, ">JAX<") && contains(copies, ">CuPy<"));
    EXPECT_FALSE(contains(copies, ">torchvision<"))
        << "a framework that loads no CUDA library of its own has no column";
    EXPECT_TRUE(contains(copies, "libcudnn.so.9  (copies differ in version)")) << "system 9.14 and the wheels' 9.19";
    EXPECT_FALSE(contains(copies, "libcurand.so.10  (copies differ in version)"))
        << "a stub of unknown version is no second version";
    EXPECT_GE(occurrences(copies, "PyTorch loads"), 10u);
}

TEST(HtmlRenderer, a_pattern_with_mismatches_is_drawn_in_the_failure_colour) {
    Report report = test::example_report(recorded_full_run);
    for (CheckResult& result : report.checks)
        if (result.check_id == "gpu.memtest") result.series.front().columns[2].values[5] = 3.0;
    const std::string memtest = chart(html(report), "gpu.memtest GPU 0 per pattern");
    EXPECT_EQ(occurrences(memtest, "#C62828"), 1u) << memtest;
    EXPECT_TRUE(contains(memtest, "3 mismatched words"));
}

// A 2-GPU full run is one page of at most 200 KB, with a line per GPU in each stress chart; the
// recorded 2-GPU report (an older schema, without series) renders smaller still.
TEST(HtmlRenderer, a_two_gpu_full_run_stays_under_200_kb) {
    const std::string page = html(full_run_on(2));
    EXPECT_LE(page.size(), 200u * 1024) << page.size();
    for (const char* title : {"gpu.stress rate", "SM clock", "Temperature", "Power"})
        EXPECT_EQ(occurrences(chart(page, title), "class=\"line\""), 2u) << title;
    EXPECT_EQ(occurrences(page, "per pattern (GB/s)</title>"), 2u);
    const std::string recorded = html(test::example_report("h200x2/cudacheck.json"));
    EXPECT_LE(recorded.size(), 200u * 1024);
    EXPECT_EQ(occurrences(chart(recorded, "cublas.gemm rate"), "class=\"bar\""), 8u) << "4 precisions on each GPU";
}

test::BinaryRun check_in_browser(const std::string& path, const std::vector<std::string>& expectations) {
    std::vector<std::string> command{CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/check_html_in_browser.py",
                                     path};
    command.insert(command.end(), expectations.begin(), expectations.end());
    const sys::CommandResult result = sys::run_command(command, std::chrono::seconds(90));
    return {result.exit_status, false, result.output, 0.0};
}

// Headless Chromium (Debian's chromium-headless-shell, installed by tools/install-deps.sh) loads
// the 2-GPU page: no console error, no request, every chart drawn at a size. And the check can
// fail: the same page with an image from the network is caught twice (the request, and the
// Content-Security-Policy that blocks it).
TEST(HtmlRenderer, a_real_browser_renders_it_without_errors_or_requests) {
    test::TempDir dir;
    const std::string page = html(full_run_on(2));
    const std::string path = dir.write("report.html", page);
    const test::BinaryRun run = check_in_browser(path, {"--png",
                                                        dir.path() + "/report.png",
                                                        "--expect-chart",
                                                        "cublas.gemm rate",
                                                        "--expect-chart",
                                                        "cuda.memory bandwidth",
                                                        "--expect-chart",
                                                        "gpu.stress rate",
                                                        "--expect-chart",
                                                        "SM clock",
                                                        "--expect-chart",
                                                        "Temperature",
                                                        "--expect-chart",
                                                        "Power",
                                                        "--expect-chart",
                                                        "gpu.memtest GPU 0",
                                                        "--expect-chart",
                                                        "gpu.memtest GPU 1",
                                                        "--expect-chart",
                                                        "CUDA library copies",
                                                        "--expect-section",
                                                        "checks",
                                                        "--expect-section",
                                                        "stress",
                                                        "--expect-section",
                                                        "memtest",
                                                        "--expect-section",
                                                        "libraries"});
    if (run.exit_status == 77) GTEST_SKIP() << run.output;
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "\"problems\": []") && contains(run.output, "\"requests\": []")) << run.output;
    EXPECT_GT(test::read_text(dir.path() + "/report.png").size(), 10000u) << "a screenshot was taken";
    EXPECT_EQ(test::read_text(dir.path() + "/report.png").substr(1, 3), "PNG");

    std::string fetching = page;
    fetching.insert(fetching.find("</body>"), "<img src=\"http://192.0.2.1/pixel.png\">");
    const test::BinaryRun caught = check_in_browser(dir.write("fetching.html", fetching), {});
    EXPECT_EQ(caught.exit_status, 1) << caught.output;
    EXPECT_TRUE(contains(caught.output, "request: http://192.0.2.1/pixel.png")) << caught.output;
    EXPECT_TRUE(contains(caught.output, "Content Security Policy")) << caught.output;
}

// --- the charts' parts --------------------------------------------------------------------------

TEST(SvgChart, ticks_are_round_and_cover_the_range) {
    EXPECT_EQ(svg::ticks(0, 989), (std::vector<double>{0, 200, 400, 600, 800, 1000}));
    EXPECT_EQ(svg::ticks(1470, 1980), (std::vector<double>{1400, 1500, 1600, 1700, 1800, 1900, 2000}));
    EXPECT_EQ(svg::ticks(0, 0.35), (std::vector<double>{0, 0.1, 0.2, 0.3, 0.4}));
    EXPECT_EQ(svg::ticks(5, 5), (std::vector<double>{5}));
    EXPECT_EQ(svg::ticks(10, 0).front(), 0) << "a reversed range";
    EXPECT_EQ(svg::ticks(0, INFINITY), (std::vector<double>{0}));
    EXPECT_LE(svg::ticks(0, 1e300).size(), 50u);
    EXPECT_EQ(svg::tick_text(0), "0");
    EXPECT_EQ(svg::tick_text(0.1 + 0.2), "0.3");
    EXPECT_EQ(svg::tick_text(1200), "1200");
    EXPECT_EQ(svg::tick_text(1.5e6), "1.5e+06");
}

TEST(SvgChart, a_gap_in_a_line_lifts_the_pen_and_an_empty_chart_says_so) {
    svg::LineChart chart{"Power", "s", "W", {{"GPU 0", {0, 1, 2, 3}, {600.0, std::nullopt, 690.0, 695.0}}}, {}, {}};
    const std::string drawn = svg::render(chart);
    const std::size_t at = drawn.find(" d=\"");
    const std::string path = drawn.substr(at, drawn.find('"', at + 4) - at);
    EXPECT_EQ(occurrences(path, "M"), 2u) << path;
    EXPECT_EQ(occurrences(path, "L"), 1u) << path;
    const std::string empty =
        svg::render(svg::LineChart{"Power", "s", "W", {{"GPU 0", {0, 1}, {std::nullopt, std::nullopt}}}, {}, {}});
    EXPECT_TRUE(contains(empty, "not measured")) << empty;
    // Time ends at its last sample: 20.006 s is not stretched to a tick at 25.
    const std::string timed =
        svg::render(svg::LineChart{"Power", "s", "W", {{"GPU 0", {0, 10, 20.006}, {600.0, 690.0, 695.0}}}, {}, {}});
    EXPECT_TRUE(contains(timed, ">20</text>"));
    EXPECT_FALSE(contains(timed, ">25</text>")) << timed;
    const std::string nan_bar =
        svg::render(svg::BarChart{"Rate", "GB/s", {{"GPU 0", std::nullopt, 4814.0, false, ""}}, "peak"});
    EXPECT_TRUE(contains(nan_bar, "not measured"));
    EXPECT_FALSE(contains(nan_bar, "class=\"bar\""));
}

}  // namespace
}  // namespace cudacheck
