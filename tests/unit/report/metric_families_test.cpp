// Figures as data (result.hpp's MetricFamily): a figure's flat name is made from its family and
// labels, and is the name the checks always wrote (the one `--expect`, `diff` and `fleet` match);
// labels survive JSON; a report written before figures had families (schema 1.9.0 and older) reads
// with the families the checks now give, renders in every format, and recorded reports render the
// Prometheus text they rendered before; a family no renderer knows shows in JSON, Prometheus and
// HTML.
#include "checks/cublas_gemm.hpp"
#include "checks/cuda_memory.hpp"
#include "checks/cuda_p2p.hpp"
#include "checks/cufft_fft.hpp"
#include "checks/gpu_stress.hpp"
#include "render/renderer.hpp"
#include "report/legacy_metrics.hpp"
#include "report/report_json.hpp"
#include "support/check_judging.hpp"
#include "support/example_reports.hpp"
#include "support/expected_support.hpp"
#include "support/golden_report.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;

std::string rendered(const Report& report, Format format) {
    std::ostringstream out;
    make_renderer(format, {})->render(report, out);
    return out.str();
}

// tests/golden/metric-names.txt: (check, name, unit) of every figure the recorded reports hold.
std::set<std::tuple<std::string, std::string, std::string>> recorded_names() {
    std::set<std::tuple<std::string, std::string, std::string>> names;
    std::ifstream in(test::golden_dir + "metric-names.txt");
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string check, name, unit;
        fields >> check >> name >> unit;
        names.emplace(check, name, unit);
    }
    return names;
}

// Every recorded report under docs/examples (JSON documents with a schema_version and checks).
std::vector<std::pair<std::string, Report>> recorded_reports() {
    std::vector<std::pair<std::string, Report>> reports;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::source_dir + "/docs/examples")) {
        if (entry.path().extension() != ".json") continue;
        const std::string text = test::read_text(entry.path().string());
        if (text.find("\"schema_version\"") == std::string::npos || text.find("\"checks\"") == std::string::npos)
            continue;
        if (Expected<Report> report = parse_report(text, entry.path().string()))
            reports.emplace_back(entry.path().string(), *report);
    }
    return reports;
}

TEST(MetricFamilies, a_flat_name_is_the_family_s_pattern_with_each_label_s_value) {
    constexpr MetricFamily rate{"gemm", "gemm_{precision}_{size}", Unit::tflops, "cuBLAS GEMM throughput."};
    const Metric metric = make_metric(rate, 796.2, {{"precision", "bf16"}, {"size", "8192"}});
    EXPECT_EQ(metric.name, "gemm_bf16_8192");
    EXPECT_EQ(metric.unit, "TFLOP/s");
    EXPECT_EQ(metric.family, "gemm");
    EXPECT_EQ(metric.help, "cuBLAS GEMM throughput.");
    ASSERT_NE(metric.label("size"), nullptr);
    EXPECT_EQ(*metric.label("size"), "8192");
    EXPECT_EQ(metric.label("device"), nullptr);
    EXPECT_EQ(flat_metric_name("peer_bandwidth_{device}_to_{peer_device}", {{"device", "0"}, {"peer_device", "1"}}),
              "peer_bandwidth_0_to_1");
    EXPECT_EQ(flat_metric_name("min_peer_bandwidth", {}), "min_peer_bandwidth");
    // A pattern and labels that do not fit are the check's mistake, found by its first test.
    EXPECT_THROW((void)flat_metric_name("gemm_{precision}_{size}", {{"precision", "bf16"}}), std::logic_error);
    EXPECT_THROW((void)flat_metric_name("gemm_{precision}", {{"precision", "bf16"}, {"size", "8192"}}),
                 std::logic_error);
    EXPECT_THROW((void)flat_metric_name("gemm_{precision", {{"precision", "bf16"}}), std::logic_error);
    // Each unit is the text the JSON always held, and reads back.
    for (Unit unit :
         {Unit::tflops, Unit::gflops, Unit::gb_per_s, Unit::gsamples_per_s, Unit::ms, Unit::mhz, Unit::celsius,
          Unit::watts, Unit::percent, Unit::B, Unit::bytes, Unit::count, Unit::ratio, Unit::value})
        EXPECT_EQ(unit_from_string(to_string(unit)), unit) << to_string(unit);
    EXPECT_EQ(to_string(Unit::celsius), "C");
    EXPECT_FALSE(unit_from_string("furlongs"));
}

// The checks' judges on hand-built outcomes: every name they write is one the recorded reports
// hold (or a peak, new since 1.10.0), and a report of before 1.10.0 holding that name reads with
// the family, labels and help the check now writes.
TEST(MetricFamilies, the_checks_write_the_recorded_names_with_the_families_old_reports_read_with) {
    std::vector<CheckResult> results;
    GemmOutcome gemm;
    gemm.sgemm = gemm.dgemm = gpu::Accuracy{};
    gemm.device_name = "NVIDIA H200";
    gemm.phases = "handle 120 ms";
    for (std::size_t i = 0; i < gemm_precisions.size(); ++i)
        gemm.throughput.push_back({&gemm_precisions[i], gemm_precisions[i].size, 100.0, {}});
    results.push_back(test::judged("cublas.gemm", judge_gemm, gemm));

    MemoryOutcome memory;
    memory.host_bytes = 1 << 26;
    memory.free_bytes = memory.total_bytes = std::uint64_t{1} << 36;
    memory.host_to_device_ms = memory.device_to_host_ms = memory.device_to_device_ms = {1.0f};
    memory.round_trip_intact = true;
    memory.device_bytes = 1 << 30;
    memory.device_wrong_words = 0;
    memory.theoretical_bandwidth_gbps = 4800.0;
    results.push_back(test::judged("cuda.memory", judge_memory, memory));

    std::vector<PeerCopy> copies(2);
    copies[0].source = copies[1].destination = 0;
    copies[0].destination = copies[1].source = 1;
    for (PeerCopy& copy : copies) {
        copy.can_access = true;
        copy.bandwidth_gbps = 370.0;
        copy.words = 1 << 20;
        copy.wrong_words = 0;
    }
    results.push_back(test::judged("cuda.p2p", judge_p2p, copies));

    FftOutcome fft;
    fft.batch = 4;
    fft.complete = true;
    for (int n : {4096, 1000}) fft.lengths.push_back(FftLengthOutcome{.n = n, .forward_ms = 0.01, .verdicts = {}});
    results.push_back(test::judged("cufft.fft", judge_fft, fft));

    StressOutcome stress;
    stress.results = 100;
    stress.tflops_per_second = {790, 785, 780, 781};
    NvmlClockSample reading;
    reading.sm_clock_mhz = 1980;
    reading.temperature_c = 60;
    reading.power_mw = 650000;
    stress.samples = std::vector<NvmlClockSample>{reading};
    results.push_back(test::judged("gpu.stress", judge_stress, stress));

    const auto recorded = recorded_names();
    std::size_t compared = 0;
    for (const CheckResult& result : results) {
        ASSERT_FALSE(result.metrics.empty()) << result.check_id;
        for (const Metric& metric : result.metrics) {
            EXPECT_FALSE(metric.family.empty()) << metric.name;
            EXPECT_FALSE(metric.help.empty()) << metric.name;
            if (metric.family == "gemm_peak" || metric.family == "memory_bandwidth_theoretical")
                continue;  // new in 1.10.0
            EXPECT_TRUE(recorded.contains({result.check_id, metric.name, metric.unit}))
                << result.check_id << " " << metric.name << " " << metric.unit;
            Metric legacy{metric.name, metric.value, metric.unit};
            upgrade_legacy_metric(result.check_id, legacy);
            EXPECT_EQ(legacy, metric) << result.check_id << " " << metric.name;
            ++compared;
        }
    }
    EXPECT_GE(compared, 25u);
}

// Every figure of every recorded report reads with a family, and the recorded reports hold the
// names of tests/golden/metric-names.txt.
TEST(MetricFamilies, every_figure_of_every_recorded_report_reads_with_a_family) {
    const auto reports = recorded_reports();
    ASSERT_GE(reports.size(), 50u);
    std::set<std::tuple<std::string, std::string, std::string>> names;
    for (const auto& [path, report] : reports)
        for (const CheckResult& result : report.checks)
            for (const Metric& metric : result.metrics) {
                EXPECT_FALSE(metric.family.empty()) << path << ": " << result.check_id << " " << metric.name;
                if (metric.family != "gemm_peak" && metric.family != "memory_bandwidth_theoretical")
                    names.emplace(result.check_id, metric.name, metric.unit);
            }
    EXPECT_EQ(names, recorded_names());
}

// The peaks an older report gave only as shares, as figures of their own for the HTML charts
// (read back, the report keeps the figures it was written with).
TEST(MetricFamilies, an_older_report_s_shares_of_a_peak_give_the_peak) {
    Report report = test::example_report("h200/cudacheck.json");
    CheckResult* gemm = test::find_result(report, "cublas.gemm");
    CheckResult* memory = test::find_result(report, "cuda.memory");
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(memory, nullptr);
    const std::size_t written = gemm->metrics.size();
    add_legacy_peaks(*gemm);
    add_legacy_peaks(*memory);
    EXPECT_EQ(gemm->metrics.size(), written + 4) << "a peak for each of the four shares";
    const std::vector<Metric> once = gemm->metrics;
    add_legacy_peaks(*gemm);
    EXPECT_EQ(gemm->metrics, once) << "a result with its peaks stays as it is";
    const auto find = [](const CheckResult& result, std::string_view name) -> const Metric* {
        for (const Metric& metric : result.metrics)
            if (metric.name == name) return &metric;
        return nullptr;
    };
    const Metric* peak = find(*gemm, "gemm_bf16_peak");
    ASSERT_NE(peak, nullptr);
    EXPECT_DOUBLE_EQ(peak->value, 989.0);  // the H200's dense BF16 datasheet figure
    EXPECT_EQ(peak->family, "gemm_peak");
    EXPECT_EQ(peak->labels, (MetricLabels{{"precision", "bf16"}}));
    const Metric* theoretical = find(*memory, "device_to_device_theoretical_bandwidth");
    ASSERT_NE(theoretical, nullptr);
    EXPECT_NEAR(theoretical->value, 4800.0, 200.0);
}

// Captured from `cudacheck render --format prometheus` before figures had families: the same
// text, byte for byte.
TEST(MetricFamilies, recorded_reports_render_the_prometheus_text_they_rendered_before) {
    for (const auto& [recorded, golden] : {std::pair{"h200/cudacheck.json", "h200-cudacheck.prom"},
                                           {"h200x2/cudacheck.json", "h200x2-cudacheck.prom"},
                                           {"h200/issue20/full.json", "h200-issue20-full.prom"},
                                           {"h100/issue21/stress-shared.json", "h100-issue21-stress-shared.prom"}}) {
        EXPECT_EQ(rendered(test::example_report(recorded), Format::prometheus),
                  test::read_text(test::golden_dir + "prometheus/" + golden))
            << recorded;
    }
}

// A figure's family, labels (in their order, which is not alphabetical here) and help, through the
// JSON a report is written as and read back from.
TEST(MetricFamilies, labels_round_trip_through_json) {
    constexpr MetricFamily time{"cufft_forward", "{transform}_forward_time_n{n}", Unit::ms,
                                "cuFFT forward transform time."};
    ResultBuilder builder;
    builder.metric(time, 0.00755, {{"transform", "c2c"}, {"n", "4096"}});
    const CheckResult result = std::move(builder).finish("cufft.fft", 0);
    const ordered_json json = to_json(result);
    EXPECT_EQ(json["metrics"][0]["name"], "c2c_forward_time_n4096");
    EXPECT_EQ(json["metrics"][0]["family"], "cufft_forward");
    EXPECT_EQ(json["metrics"][0]["labels"].dump(), R"({"transform":"c2c","n":"4096"})");
    EXPECT_EQ(check_result_from_json(json).metrics, result.metrics);

    Report report = test::golden_report();
    report.checks.push_back(result);
    const Expected<Report> read = parse_report(rendered(report, Format::json), "report.json");
    ASSERT_TRUE(read) << test::error_of(read);
    EXPECT_EQ(read->checks.back().metrics, result.metrics);
    EXPECT_EQ(read->checks, report.checks);
}

// A report of the last schema before families (the recorded no-driver run, 1.9.0) and the recorded
// H200 run (1.3.0) render in every format; written again as JSON, their figures carry families.
TEST(MetricFamilies, a_report_from_before_families_renders_in_every_format) {
    for (const std::string& path : {test::source_dir + "/tests/golden/reports/1.9.0.json",
                                    test::source_dir + "/docs/examples/h200/cudacheck.json"}) {
        const Expected<Report> report = read_report_file(path);
        ASSERT_TRUE(report) << test::error_of(report);
        for (Format format :
             {Format::table, Format::json, Format::markdown, Format::junit, Format::prometheus, Format::html})
            EXPECT_FALSE(rendered(*report, format).empty()) << path;
        const Expected<Report> again = parse_report(rendered(*report, Format::json), path);
        ASSERT_TRUE(again) << test::error_of(again);
        EXPECT_EQ(again->checks, report->checks) << path;
    }
    const std::string html = rendered(test::example_report("h200/cudacheck.json"), Format::html);
    EXPECT_TRUE(contains(html, "% of 989")) << "the GEMM bars against their peak";
    EXPECT_TRUE(contains(html, "<dt>gemm_bf16_8192</dt><dd>"));
}

// A family no renderer names: its figure shows in JSON (with its family and labels), in Prometheus
// (its family, HELP and labels, on its GPU) and in HTML (among the check's figures).
TEST(MetricFamilies, a_new_family_shows_in_json_prometheus_and_html_with_no_renderer_knowing_it) {
    constexpr MetricFamily widget_rate{"widget_rate", "widget_{shape}_{size}", Unit::gb_per_s,
                                       "Widgets moved per second, by shape and size."};
    ResultBuilder builder;
    builder.metric(widget_rate, 12.5, {{"shape", "cube"}, {"size", "4"}});
    builder.summary("widgets move");
    Report report = test::golden_report();
    report.checks.push_back(std::move(builder).finish("test.widget", 0));

    const std::string json = rendered(report, Format::json);
    EXPECT_TRUE(contains(json, R"("name": "widget_cube_4")")) << json;
    EXPECT_TRUE(contains(json, R"("family": "widget_rate")"));
    EXPECT_TRUE(contains(json, R"("shape": "cube")"));

    const std::string prometheus = rendered(report, Format::prometheus);
    EXPECT_TRUE(contains(prometheus,
                         "# HELP cudacheck_widget_rate_bytes_per_second Widgets moved per second, by shape and size. "
                         "Unit: bytes_per_second.\n"))
        << prometheus;
    EXPECT_TRUE(contains(prometheus,
                         "cudacheck_widget_rate_bytes_per_second{check=\"test.widget\",gpu=\"0\",pci_bus_id=\"00000000:"
                         "00:06.0\",level=\"standard\","
                         "shape=\"cube\",size=\"4\"} 12500000000\n"))
        << prometheus;

    const std::string html = rendered(report, Format::html);
    EXPECT_TRUE(
        contains(html,
                 "<details><summary>Figures (1)</summary><dl><dt>widget_cube_4</dt><dd>12.5 GB/s</dd></dl></details>"))
        << html;
}

}  // namespace
}  // namespace cudacheck

namespace cudacheck {
namespace {

// The frozen table of old names (legacy_metrics.hpp) reads the figures of reports before schema
// 1.10.0 only: a later report's figure without a family keeps none, its name unread.
TEST(MetricFamilies, only_a_report_from_before_families_has_its_figure_names_read) {
    Report report = test::golden_report();
    CheckResult gemm;
    gemm.check_id = "cublas.gemm";
    gemm.status = Status::pass;
    gemm.metrics.push_back(Metric{"gemm_fp16_8192", 700.0, "TFLOP/s"});
    report.checks.push_back(gemm);
    ordered_json document = to_json(report);
    for (const char* key : {"family", "labels", "help", "measured"}) document["checks"].back()["metrics"][0].erase(key);
    const Metric current = report_from_json(document).checks.back().metrics.at(0);
    EXPECT_EQ(current.family, "") << "schema " << document["schema_version"];
    EXPECT_TRUE(current.labels.empty());
    document["schema_version"] = "1.9.0";
    const Metric old = report_from_json(document).checks.back().metrics.at(0);
    EXPECT_EQ(old.family, "gemm");
    EXPECT_EQ(old.labels, (MetricLabels{{"precision", "fp16"}, {"size", "8192"}}));
}

}  // namespace
}  // namespace cudacheck
