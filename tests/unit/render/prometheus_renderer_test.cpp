// The Prometheus renderer (render/prometheus_renderer.cpp): the golden report, families named by
// quantity and unit with converted values, dcgm-exporter's GPU labels, redaction, and the client's
// parser and promtool reading it back (tests/support/validate_prometheus.py).
#include "render/renderer.hpp"
#include "report/legacy_metrics.hpp"
#include "support/golden_report.hpp"
#include "support/test_support.hpp"
#include "util/system.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace cudacheck {
namespace {

using test::compare_with_golden;
using test::contains;
using test::golden_report;
using test::render;

constexpr const char* uuid0 = "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa";
constexpr const char* uuid1 = "GPU-7c0e1d2a-0b1c-4d5e-8f90-a1b2c3d4e5f6";

std::string prometheus(const Report& report) {
    std::ostringstream out;
    make_renderer(Format::prometheus, {})->render(report, out);
    return out.str();
}

// The value of the sample `series` ("name{labels}"), when the text has it.
std::optional<double> sample(const std::string& text, const std::string& series) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
    return std::nullopt;
}

// The golden report, not redacted, on two GPUs (CUDA ordinal 1 is NVML's GPU 2), with every
// figure the checks produce and a figure no table knows.
Report figures_report() {
    Report report = golden_report();
    report.redaction.reset();
    DeviceInfo second = report.devices.front();
    second.ordinal = 1;
    second.uuid = uuid1;
    second.pci_bus_id = "00000000:00:07.0";
    second.nvml_index = 2;
    report.devices.push_back(second);
    const auto per_device = [](std::string check, int device, std::vector<Metric> metrics) {
        CheckResult result;
        result.check_id = std::move(check);
        result.device = device;
        result.metrics = std::move(metrics);
        return result;
    };
    const auto host = [](std::string check, std::vector<Metric> metrics) {
        CheckResult result;
        result.check_id = std::move(check);
        result.metrics = std::move(metrics);
        return result;
    };
    report.checks.push_back(per_device("cuda.memory", 0,
                                       {{"device_to_device_bandwidth", 4256.0, "GB/s"},
                                        {"device_to_device_fraction_of_theoretical", 88.0, "%"},
                                        {"host_to_device_bandwidth", 55.2, "GB/s"},
                                        {"device_to_host_bandwidth", 55.4, "GB/s"}}));
    report.checks.push_back(per_device("cublas.gemm", 1,
                                       {{"gemm_bf16_8192", 798.0, "TFLOP/s"},
                                        {"gemm_bf16_fraction_of_peak", 80.5, "%"},
                                        {"gemm_fp32_8192", 51.2, "TFLOP/s"},
                                        {"sgemm_relative_error", 1.5e-7, "ratio"}}));
    report.checks.push_back(
        per_device("cufft.fft", 0,
                   {{"c2c_forward_gflops_n4096", 2083.0, "GFLOP/s"}, {"c2c_forward_time_n4096", 0.00755, "ms"}}));
    report.checks.push_back(
        per_device("cudnn.conv", 0, {{"convolution_throughput", 38.5, "GFLOP/s"}, {"convolution_time", 0.0566, "ms"}}));
    report.checks.push_back(
        per_device("curand.generate", 0, {{"uniform_rate", 285.6, "Gsamples/s"}, {"uniform_mean", 0.5, "value"}}));
    report.checks.push_back(per_device(
        "nvrtc.compile", 0,
        {{"compile_time", 119.0, "ms"}, {"module_load_time", 1.5, "ms"}, {"elements_checked", 1e6, "count"}}));
    report.checks.push_back(per_device("gpu.stress", 0,
                                       {{"stress_tflops_median", 700.0, "TFLOP/s"},
                                        {"stress_sm_clock_min", 1755.0, "MHz"},
                                        {"stress_power_max", 690.5, "W"},
                                        {"stress_temperature_max", 71.0, "C"},
                                        {"stress_rate_drop", 3.5, "%"}}));
    report.checks.push_back(
        per_device("gpu.memtest", 0, {{"memtest_bandwidth", 3900.0, "GB/s"}, {"memtest_bytes", 7.0e10, "bytes"}}));
    report.checks.push_back(host("device.health", {{"gpu2.temperature", 42.0, "C"}, {"gpu2.power", 120.5, "W"}}));
    report.checks.push_back(
        host("cuda.p2p", {{"peer_bandwidth_0_to_1", 380.0, "GB/s"}, {"min_peer_bandwidth", 380.0, "GB/s"}}));
    report.checks.push_back(host("nccl.allreduce", {{"bus_bandwidth", 350.0, "GB/s"},
                                                    {"algorithm_bandwidth", 350.0, "GB/s"},
                                                    {"comm_init_time", 250.0, "ms"}}));
    report.checks.push_back(host("toolkit.compile", {{"compile_time", 900.0, "ms"}, {"cubin_bytes", 4096.0, "B"}}));
    report.checks.push_back(host("toolkit.build", {{"gather_time", 12.0, "ms"}}));
    for (CheckResult& result : report.checks)
        if (result.check_id == "cuda.devices") result.metrics.push_back({"device1.fp32_peak", 66.9, "TFLOP/s"});
    // Each figure with the family, labels and help its check gives it (the names above are those
    // the checks write; upgrade_legacy_metric knows each one's family).
    for (CheckResult& result : report.checks)
        for (Metric& metric : result.metrics)
            if (metric.family.empty()) upgrade_legacy_metric(result.check_id, metric);
    // A figure without a family, and one of an odd family naming CUDA device 1.
    report.checks.push_back(host(
        "new.check",
        {{"warmup_time", 5.0, "ms"},
         {"device1.Odd Figure!", 3.0, "widgets/s", "new_check Odd Figure!", {{"device", "1"}}, "An odd figure."}}));
    report.summary = summarize(report.checks);
    report.exit_code = exit_code_for(report.summary, false);
    return report;
}

const std::string gpu0 = fmt::format("gpu=\"0\",UUID=\"{}\",pci_bus_id=\"00000000:00:06.0\"", uuid0);
const std::string gpu2 = fmt::format("gpu=\"2\",UUID=\"{}\",pci_bus_id=\"00000000:00:07.0\"", uuid1);
// The labels every series of figures_report() carries: the host under both of
// dcgm-exporter's names (its NODE_NAME when set and the report was made here; "node-7" is not
// this machine) and the run's level.
const std::string run_labels = "hostname=\"node-7\",Hostname=\"node-7\",level=\"standard\"";

TEST(PrometheusRenderer, matches_golden_file) { compare_with_golden("report.prom", render(Format::prometheus)); }

TEST(PrometheusRenderer, each_figure_is_a_family_named_by_its_quantity_and_base_unit) {
    const std::string text = prometheus(figures_report());
    const auto expect = [&](const std::string& series, double value) {
        const std::optional<double> found = sample(text, series);
        ASSERT_TRUE(found) << series << " missing from\n" << text;
        EXPECT_DOUBLE_EQ(*found, value) << series;
    };
    // GB/s to bytes per second; % to a 0-1 ratio.
    expect("cudacheck_memory_bandwidth_bytes_per_second{check=\"cuda.memory\"," + gpu0 + "," + run_labels +
               ",direction=\"device_to_device\"}",
           4256e9);
    expect("cudacheck_memory_bandwidth_bytes_per_second{check=\"cuda.memory\"," + gpu0 + "," + run_labels +
               ",direction=\"host_to_device\"}",
           55.2e9);
    expect("cudacheck_memory_bandwidth_of_theoretical_ratio{check=\"cuda.memory\"," + gpu0 + "," + run_labels +
               ",direction=\"device_to_device\"}",
           0.88);
    // TFLOP/s stays TFLOP/s (the cudacheck_gemm_tflops); GFLOP/s becomes TFLOP/s.
    expect("cudacheck_gemm_tflops{check=\"cublas.gemm\"," + gpu2 + "," + run_labels +
               ",precision=\"bf16\",size=\"8192\"}",
           798.0);
    expect("cudacheck_gemm_of_peak_ratio{check=\"cublas.gemm\"," + gpu2 + "," + run_labels + ",precision=\"bf16\"}",
           0.805);
    expect("cudacheck_cufft_forward_tflops{check=\"cufft.fft\"," + gpu0 + "," + run_labels +
               ",transform=\"c2c\",n=\"4096\"}",
           2.083);
    // ms to seconds, MHz to hertz, Gsamples/s to samples per second.
    expect("cudacheck_cufft_forward_seconds{check=\"cufft.fft\"," + gpu0 + "," + run_labels +
               ",transform=\"c2c\",n=\"4096\"}",
           0.00755e-3);
    expect("cudacheck_nvrtc_compile_seconds{check=\"nvrtc.compile\"," + gpu0 + "," + run_labels + "}", 0.119);
    expect("cudacheck_stress_sm_clock_hertz{check=\"gpu.stress\"," + gpu0 + "," + run_labels + ",stat=\"min\"}",
           1755e6);
    expect("cudacheck_stress_temperature_celsius{check=\"gpu.stress\"," + gpu0 + "," + run_labels + ",stat=\"max\"}",
           71.0);
    expect("cudacheck_stress_power_watts{check=\"gpu.stress\"," + gpu0 + "," + run_labels + ",stat=\"max\"}", 690.5);
    expect("cudacheck_curand_samples_per_second{check=\"curand.generate\"," + gpu0 + "," + run_labels +
               ",distribution=\"uniform\"}",
           285.6e9);
    expect("cudacheck_memtest_tested_bytes{check=\"gpu.memtest\"," + gpu0 + "," + run_labels + "}", 7.0e10);
    // A host check's figure about one GPU carries that GPU's labels, not a device in a name label.
    expect("cudacheck_gpu_temperature_celsius{check=\"device.health\"," + gpu2 + "," + run_labels + "}", 42.0);
    expect("cudacheck_gpu_fp32_peak_tflops{check=\"cuda.devices\"," + gpu2 + "," + run_labels + "}", 66.9);
    expect("cudacheck_p2p_bandwidth_bytes_per_second{check=\"cuda.p2p\"," + gpu0 +
               fmt::format(",peer_gpu=\"2\",peer_UUID=\"{}\",peer_pci_bus_id=\"00000000:00:07.0\",{}}}", uuid1,
                           run_labels),
           380e9);
    expect("cudacheck_p2p_min_bandwidth_bytes_per_second{check=\"cuda.p2p\"," + run_labels + "}", 380e9);
    expect("cudacheck_nccl_comm_init_seconds{check=\"nccl.allreduce\"," + run_labels + "}", 0.25);
    expect("cudacheck_toolkit_compile_output_bytes{check=\"toolkit.compile\"," + run_labels + ",artifact=\"cubin\"}",
           4096.0);
    // One HELP and TYPE per family, the unit never a label; counts, error ratios and moments stay out.
    for (const char* absent : {"cudacheck_figure", "{unit=", ",unit=", "{name=", ",name=", "{device=", ",device=",
                               "sgemm_relative_error", "elements_checked", "uniform_mean"})
        EXPECT_FALSE(contains(text, absent)) << absent;
    EXPECT_TRUE(contains(text, "# HELP cudacheck_memory_bandwidth_bytes_per_second "));
    EXPECT_EQ(text.find("# TYPE cudacheck_memory_bandwidth_bytes_per_second gauge"),
              text.rfind("# TYPE cudacheck_memory_bandwidth_bytes_per_second gauge"));
}

TEST(PrometheusRenderer, a_figure_no_table_knows_gets_a_well_formed_family_of_its_own) {
    const std::string text = prometheus(figures_report());
    EXPECT_TRUE(sample(text, "cudacheck_new_check_warmup_seconds{check=\"new.check\"," + run_labels + "}")) << text;
    // A "device" label names the CUDA device: its labels; the family and the unit, sanitised.
    const std::optional<double> odd =
        sample(text, "cudacheck_new_check_odd_figure_widgets_per_second{check=\"new.check\"," + gpu2 + "," +
                         run_labels + "}");
    ASSERT_TRUE(odd) << text;
    EXPECT_EQ(*odd, 3.0);
    const std::regex metric_name("[a-zA-Z_:][a-zA-Z0-9_:]*");
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line[0] != '#') {
            EXPECT_TRUE(std::regex_match(line.substr(0, line.find_first_of("{ ")), metric_name)) << line;
        }
    }
}

// The golden report's findings are built by hand, without the catalogue: remedy none.
TEST(PrometheusRenderer, per_gpu_status_and_findings_carry_dcgm_exporter_labels_host_checks_none) {
    const std::string text = prometheus(figures_report());
    EXPECT_EQ(sample(text,
                     "cudacheck_check_status{check=\"gpu.example\"," + gpu0 + "," + run_labels + ",status=\"fail\"}"),
              1.0)
        << text;
    EXPECT_EQ(sample(text, "cudacheck_finding{check=\"gpu.example\"," + gpu0 + "," + run_labels +
                               ",code=\"CC210\",status=\"fail\",remedy=\"none\",action_class=\"none\"}"),
              1.0);
    EXPECT_EQ(sample(text, "cudacheck_check_status{check=\"host.os\"," + run_labels + ",status=\"pass\"}"), 1.0)
        << "a host check: no gpu labels";
    EXPECT_EQ(sample(text, "cudacheck_finding{check=\"env.variables\"," + run_labels +
                               ",code=\"CC117\",status=\"warn\",remedy=\"none\","
                               "action_class=\"none\"}"),
              1.0);
    // A host check's finding about one GPU (frameworks.builds, device 0) names that GPU.
    EXPECT_EQ(sample(text, "cudacheck_finding{check=\"frameworks.builds\"," + gpu0 + "," + run_labels +
                               ",code=\"CC622\",status=\"warn\",remedy=\"none\","
                               "action_class=\"none\"}"),
              1.0);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("cudacheck_check_status{check=\"host.os\"", 0) == 0 ||
            line.rfind("cudacheck_exit_code", 0) == 0) {
            EXPECT_FALSE(contains(line, "gpu=")) << line;
        }
    }
    // gpu is NVML's index, as dcgm-exporter numbers GPUs; cudacheck_gpu_info maps it to the CUDA ordinal.
    EXPECT_EQ(sample(text,
                     "cudacheck_gpu_info{" + gpu2 + "," + run_labels + ",cuda_device=\"1\",model=\"NVIDIA H200\"}"),
              1.0)
        << text;
}

TEST(PrometheusRenderer, a_redacted_report_has_no_uuid_or_hostname_label) {
    Report report = figures_report();
    report.redaction = Redaction{{"hostname", "device_ids"}, {}, 4};
    report.host.hostname = "[redacted-host]";
    report.devices[0].uuid = "GPU-redacted-0123456789ab";
    report.devices[1].uuid = "GPU-redacted-ba9876543210";
    const std::string text = prometheus(report);
    for (const char* absent : {"UUID=", "hostname=", "Hostname=", "redacted"})
        EXPECT_FALSE(contains(text, absent)) << absent << " in\n" << text;
    EXPECT_EQ(sample(text,
                     "cudacheck_gemm_tflops{check=\"cublas.gemm\",gpu=\"2\",pci_bus_id=\"00000000:00:07.0\",level="
                     "\"standard\",precision=\"bf16\",size=\"8192\"}"),
              798.0)
        << text;
}

// dcgm-exporter's host label is NODE_NAME when set, else the host's name
// (internal/pkg/hostname/hostname.go); cudacheck's `Hostname` and `hostname` are the node the report
// recorded (host.node_name, NODE_NAME where it ran), else its host name: whoever renders it.
TEST(PrometheusRenderer, hostname_is_the_recorded_node_name_else_the_reports_host) {
    Report report = figures_report();
    report.host.node_name = "gpu-node-17";
    const std::string text = prometheus(report);
    EXPECT_EQ(sample(text, "cudacheck_gemm_tflops{check=\"cublas.gemm\"," + gpu2 +
                               ",hostname=\"gpu-node-17\",Hostname=\"gpu-node-17\",level=\"standard\",precision="
                               "\"bf16\",size=\"8192\"}"),
              798.0)
        << text;
    EXPECT_FALSE(contains(text, "hostname=\"" + report.host.hostname + "\"")) << text;
    // No node recorded (outside Kubernetes, or a report older than 1.9.0): the report's host name.
    const std::string plain = prometheus(figures_report());
    EXPECT_TRUE(sample(plain, "cudacheck_exit_code{" + run_labels + "}")) << plain;
    EXPECT_FALSE(contains(plain, "gpu-node-17")) << plain;
    // Redacted: no host label at all (the node names the host too).
    Report redacted = report;
    redacted.redaction = Redaction{{"hostname"}, {}, 1};
    const std::string hidden = prometheus(redacted);
    for (const char* absent : {"hostname=", "Hostname=", "gpu-node-17"})
        EXPECT_FALSE(contains(hidden, absent)) << absent << " in\n" << hidden;
}

// Every series names the run's level, so a standard and a full run (cuFFT 2.02 vs 13.6
// TFLOP/s) are two series, and their files can share node_exporter's textfile directory.
TEST(PrometheusRenderer, every_series_carries_the_level_so_levels_are_distinct_series) {
    Report standard = figures_report();
    Report full = figures_report();
    full.level = "full";
    const std::string standard_text = prometheus(standard);
    const std::string full_text = prometheus(full);
    EXPECT_EQ(sample(full_text,
                     "cudacheck_cufft_forward_tflops{check=\"cufft.fft\"," + gpu0 +
                         ",hostname=\"node-7\",Hostname=\"node-7\",level=\"full\",transform=\"c2c\",n=\"4096\"}"),
              2.083)
        << full_text;
    std::set<std::string> standard_series;
    std::istringstream standard_lines(standard_text);
    for (std::string line; std::getline(standard_lines, line);)
        if (!line.empty() && line[0] != '#') standard_series.insert(line.substr(0, line.rfind(' ')));
    std::istringstream full_lines(full_text);
    int samples = 0;
    for (std::string line; std::getline(full_lines, line);) {
        if (line.empty() || line[0] == '#') continue;
        ++samples;
        EXPECT_TRUE(contains(line, "level=\"full\"")) << line;
        EXPECT_EQ(standard_series.count(line.substr(0, line.rfind(' '))), 0U)
            << "the same series at two levels: " << line;
    }
    EXPECT_GT(samples, 100);
    // cudacheck_info names the level once, with the rest of the run's labels.
    EXPECT_EQ(sample(full_text,
                     "cudacheck_info{hostname=\"node-7\",Hostname=\"node-7\",level=\"full\",version=\"0.1.0\",driver="
                     "\"580.159.04\","
                     "driver_cuda=\"13.0\",runtime=\"13.0\",nvcc=\"\"}"),
              1.0)
        << full_text;
}

// When the run finished (timestamp_utc plus the duration), as Unix seconds.
TEST(PrometheusRenderer, last_run_timestamp_is_the_finish_time_in_unix_seconds) {
    Report report = figures_report();
    report.timestamp_utc = "2026-11-30T01:40:00Z";  // date -u -d 2026-11-30T01:40:00Z +%s: 1796002800
    report.duration_ms = 1500.0;
    EXPECT_EQ(sample(prometheus(report), "cudacheck_last_run_timestamp_seconds{" + run_labels + "}"), 1796002801.5);
    report.timestamp_utc = "1970-01-01T00:00:00Z";
    report.duration_ms = 0.0;
    EXPECT_EQ(sample(prometheus(report), "cudacheck_last_run_timestamp_seconds{" + run_labels + "}"), 0.0);
    // A leap day and the end of a year.
    report.timestamp_utc = "2028-02-29T23:59:59Z";  // date -u -d 2028-02-29T23:59:59Z +%s: 1835481599
    EXPECT_EQ(sample(prometheus(report), "cudacheck_last_run_timestamp_seconds{" + run_labels + "}"), 1835481599.0);
    // Not the schema's shape: no series rather than a wrong time.
    for (const char* malformed :
         {"", "2026-11-30 01:40:00", "2026-13-30T01:40:00Z", "2026-11-30T01:40:00+01:00", "2026-11-3xT01:40:00Z"}) {
        report.timestamp_utc = malformed;
        EXPECT_FALSE(contains(prometheus(report), "cudacheck_last_run_timestamp_seconds{")) << malformed;
    }
}

void validate_prometheus(const std::string& prom_path, const std::string& json_path) {
    const sys::CommandResult result =
        sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/validate_prometheus.py", prom_path,
                          json_path},
                         std::chrono::seconds(60));
    if (result.exit_status == 77) GTEST_SKIP() << result.output;
    EXPECT_EQ(result.exit_status, 0) << result.output << test::read_text(prom_path);
}

void validate_rendering(const Report& report) {
    test::TempDir dir;
    std::ostringstream json_text;
    make_renderer(Format::json, {})->render(report, json_text);
    validate_prometheus(dir.write("report.prom", prometheus(report)), dir.write("report.json", json_text.str()));
}

// The Prometheus client library's own parser reads what we write, label values with quotes,
// backslashes and newlines included, and finds every status and figure of the JSON; promtool's
// lint finds nothing. The golden report is a redacted one.
TEST(PrometheusRenderer, is_read_by_the_prometheus_parser_whatever_the_labels) {
    Report report = golden_report();
    report.checks[3].code = "CC210";
    report.versions.nvcc = "quote \" back\\slash\nnewline";
    validate_rendering(report);
}

TEST(PrometheusRenderer, every_figure_is_where_the_validator_expects_it) {
    Report report = figures_report();
    report.host.hostname = "node \"7\"\\";
    validate_rendering(report);
}

TEST(PrometheusRenderer, a_redacted_report_is_read_by_the_validator) {
    Report report = figures_report();
    report.redaction = Redaction{{"hostname", "device_ids"}, {}, 4};
    report.host.hostname = "[redacted-host]";
    report.devices[0].uuid = "GPU-redacted-0123456789ab";
    validate_rendering(report);
}

TEST(PrometheusRenderer, binary_output_is_read_by_the_prometheus_parser) {
    test::TempDir dir;
    // One run writes both: two runs would differ in live figures (power, temperature) on a GPU.
    const test::BinaryRun run = test::run_cudacheck(
        {"--level", "quick", "-o", dir.path() + "/report.prom", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_prometheus(dir.path() + "/report.prom", dir.path() + "/report.json");
}

TEST(PrometheusRenderer, redacted_binary_output_is_read_by_the_prometheus_parser) {
    test::TempDir dir;
    const test::BinaryRun run = test::run_cudacheck(
        {"--level", "quick", "--redact", "-o", dir.path() + "/report.prom", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_prometheus(dir.path() + "/report.prom", dir.path() + "/report.json");
}

}  // namespace
}  // namespace cudacheck
