// Renderers against golden files. A fixed report exercises every field; the rendered table and
// JSON must equal tests/golden/report.{txt,json}. The JSON's layout (its key paths and types) is
// pinned to json_schema_version in tests/golden/report.shape, so the layout cannot change
// without a version bump. Set CUDACHECK_UPDATE_GOLDEN=1 to rewrite the golden files after an
// intended change (the shape file is only rewritten when the version was bumped).
#include "render/renderer.hpp"
#include "report/report_json.hpp"
#include "util/system.hpp"
#include "support/test_support.hpp"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

namespace cudacheck {
namespace {

const std::string golden_dir = CUDACHECK_SOURCE_DIR "/tests/golden/";

Report golden_report() {
    Report report;
    report.tool_version = "0.1.0";
    report.timestamp_utc = "2026-11-30T01:40:00Z";
    report.argv = {"cudacheck", "--format", "json"};
    report.level = "standard";
    report.host = HostInfo{"node-7", "Ubuntu 24.04.3 LTS", "6.8.0-45-generic", "x86_64", "glibc 2.39", "AMD EPYC 9654 96-Core Processor", 16,
                           137438953472ULL, "docker", ""};
    report.versions = VersionInfo{"580.159.04", "13.0", "13.0", ""};
    DeviceInfo device;
    device.name = "NVIDIA H200";
    device.uuid = "GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa";
    device.pci_bus_id = "00000000:00:06.0";
    device.cc_major = 9;
    device.architecture = "Hopper";
    device.total_memory_bytes = 150109880320ULL;
    device.multiprocessors = 132;
    device.sm_clock_khz = 1980000;
    device.memory_clock_khz = 3201000;
    device.memory_bus_width_bits = 6144;
    device.l2_cache_bytes = 62914560;
    device.ecc_enabled = true;
    device.compute_mode = "default";
    device.theoretical_bandwidth_gbps = 4917.1;
    device.fp32_peak_tflops = 66.9;
    device.source = "driver_api";
    device.nvml_index = 0;
    device.framebuffer_bytes = 150754820096ULL;
    report.devices = {device};

    CheckResult host;
    host.check_id = "host.os";
    host.message = "Ubuntu 24.04.3 LTS, kernel 6.8.0-45-generic, glibc 2.39, x86_64";
    host.evidence = {{"os", "Ubuntu 24.04.3 LTS"}};
    host.duration_ms = 0.5;
    CheckResult env;
    env.check_id = "env.variables";
    env.status = Status::warn;
    env.code = "CC115";
    env.message = "CUDA_LAUNCH_BLOCKING=1: every kernel launch waits for completion";
    env.remediation = "`unset CUDA_LAUNCH_BLOCKING` outside debugging sessions.";
    env.findings = {{Status::warn, env.code, env.message, env.remediation},
                    {Status::warn, "CC117", "CUDA_INJECTION64_PATH=/opt/x.so is injected into every CUDA process", "`unset CUDA_INJECTION64_PATH`."}};
    env.duration_ms = 1.25;
    CheckResult devices;
    devices.check_id = "cuda.devices";
    devices.message = "1 x NVIDIA H200 (CC 9.0 Hopper, 132 SMs, 140.4 GiB)";
    devices.metrics = {{"device0.theoretical_memory_bandwidth", 4917.1, "GB/s"}};
    devices.duration_ms = 2.0;
    CheckResult kernel;
    kernel.check_id = "gpu.example";
    kernel.device = 0;
    kernel.status = Status::fail;
    kernel.code = "CC210";
    kernel.message = "libcuda.so.1 cannot be loaded";
    kernel.remediation = "Install the NVIDIA driver.";
    kernel.findings = {{Status::fail, kernel.code, kernel.message, kernel.remediation, 0}};
    CheckResult skipped;
    skipped.check_id = "cuda.pairing";
    skipped.status = Status::skip;
    skipped.message = skipped.skip_reason = "needs driver.libcuda, which ended with fail (CC210)";
    report.checks = {host, env, devices, kernel, skipped};
    report.summary = summarize(report.checks);
    report.exit_code = exit_code_for(report.summary, false);
    report.duration_ms = 42.0;
    report.redaction = Redaction{{"hostname", "device_ids"}, {"HF_TOKEN"}, 3};
    return report;
}

std::string render(Format format) {
    std::ostringstream out;
    make_renderer(format, RenderOptions{false, true})->render(golden_report(), out);
    return out.str();
}

bool updating() { return std::getenv("CUDACHECK_UPDATE_GOLDEN") != nullptr; }

void compare_with_golden(const std::string& name, const std::string& actual) {
    if (updating()) std::ofstream(golden_dir + name, std::ios::binary) << actual;
    EXPECT_EQ(test::read_text(golden_dir + name), actual) << "tests/golden/" << name << " differs (CUDACHECK_UPDATE_GOLDEN=1 rewrites it)";
}

// "checks[].findings[].code:string" style paths with value types, sorted.
void collect_shape(const nlohmann::json& value, const std::string& path, std::set<std::string>& shape) {
    if (value.is_object()) {
        shape.insert(path + ":object");
        for (const auto& [key, child] : value.items()) collect_shape(child, path + "." + key, shape);
    } else if (value.is_array()) {
        shape.insert(path + ":array");
        for (const auto& child : value) collect_shape(child, path + "[]", shape);
    } else {
        shape.insert(path + ":" + std::string(value.is_number() ? "number" : value.type_name()));
    }
}

TEST(TableRenderer, matches_golden_file) { compare_with_golden("report.txt", render(Format::table)); }

TEST(TableRenderer, shows_every_remediation_and_summary) {
    const std::string table = render(Format::table);
    EXPECT_NE(table.find("fix: `unset CUDA_LAUNCH_BLOCKING`"), std::string::npos);
    EXPECT_NE(table.find("fix: `unset CUDA_INJECTION64_PATH`"), std::string::npos);
    EXPECT_NE(table.find("gpu.example[0]"), std::string::npos);
    EXPECT_NE(table.find("[4917 GB/s]"), std::string::npos);
    EXPECT_NE(table.find("2 passed, 1 warned, 1 failed, 1 skipped"), std::string::npos);
    EXPECT_NE(table.find("FAIL (exit 1)"), std::string::npos);
    EXPECT_EQ(table.find('\033'), std::string::npos) << "no colour codes unless asked";
}

TEST(TableRenderer, colours_only_when_asked) {
    std::ostringstream out;
    make_renderer(Format::table, RenderOptions{true, false})->render(golden_report(), out);
    EXPECT_NE(out.str().find("\033[31mFAIL"), std::string::npos);
}

TEST(JsonRenderer, matches_golden_file) { compare_with_golden("report.json", render(Format::json)); }

TEST(MarkdownRenderer, matches_golden_file) { compare_with_golden("report.md", render(Format::markdown)); }

TEST(MarkdownRenderer, folds_details_and_escapes_system_text) {
    Report report = golden_report();
    report.checks[0].message = "a | b <script> `x`";
    report.checks[0].evidence = {{"path", "has ``` inside"}};
    std::ostringstream out;
    make_renderer(Format::markdown, {})->render(report, out);
    const std::string markdown = out.str();
    EXPECT_NE(markdown.find("| PASS | `host.os` | a \\| b &lt;script&gt; \\`x\\` |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("<details><summary>Findings and fixes (3)</summary>"), std::string::npos);
    EXPECT_NE(markdown.find("````text\n"), std::string::npos) << "a fence longer than any backtick run in the evidence";
    EXPECT_EQ(markdown.find("<script>"), std::string::npos);
}

TEST(JunitRenderer, matches_golden_file) { compare_with_golden("report.junit.xml", render(Format::junit)); }

void validate_junit(const std::string& xml_path, const std::string& json_path) {
    const sys::CommandResult result =
        sys::run_command({CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/validate_junit.py", xml_path, json_path}, std::chrono::seconds(60));
    if (result.exit_status == 77) GTEST_SKIP() << result.output;
    EXPECT_EQ(result.exit_status, 0) << result.output << test::read_text(xml_path);
}

// A real JUnit consumer (tests/support/validate_junit.py, junitparser) reads what we write, with
// text that XML cannot carry as is: markup characters, control characters and invalid UTF-8.
TEST(JunitRenderer, is_read_by_a_junit_parser_whatever_the_text) {
    Report report = golden_report();
    report.checks[3].message = "bad <tag> & \"quotes\" 'single' \x01\x1b[31m \xff\xfe ]]> end";
    report.checks[3].findings[0].remediation = "</failure><injected/>";
    report.checks[4].skip_reason = "skip <&>";
    test::TempDir dir;
    std::ostringstream xml;
    std::ostringstream json_text;
    make_renderer(Format::junit, {})->render(report, xml);
    make_renderer(Format::json, {})->render(report, json_text);
    validate_junit(dir.write("report.xml", xml.str()), dir.write("report.json", json_text.str()));
}

// The binary's own JUnit on this machine (no driver: failures, a warning and skips), against its JSON.
TEST(JunitRenderer, binary_output_is_read_by_a_junit_parser) {
    test::TempDir dir;
    // One run writes both, so that they describe the same checks (a GPU's temperature moves).
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "-o", dir.path() + "/report.xml", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_junit(dir.path() + "/report.xml", dir.path() + "/report.json");
}

TEST(PrometheusRenderer, matches_golden_file) { compare_with_golden("report.prom", render(Format::prometheus)); }

void validate_prometheus(const std::string& prom_path, const std::string& json_path) {
    const sys::CommandResult result = sys::run_command(
        {CUDACHECK_PYTHON, CUDACHECK_SOURCE_DIR "/tests/support/validate_prometheus.py", prom_path, json_path}, std::chrono::seconds(60));
    if (result.exit_status == 77) GTEST_SKIP() << result.output;
    EXPECT_EQ(result.exit_status, 0) << result.output << test::read_text(prom_path);
}

// The Prometheus client library's own parser reads what we write, label values with quotes,
// backslashes and newlines included, and finds every status and figure of the JSON.
TEST(PrometheusRenderer, is_read_by_the_prometheus_parser_whatever_the_labels) {
    Report report = golden_report();
    report.checks[3].code = "CC210";
    report.versions.nvcc = "quote \" back\\slash\nnewline";
    test::TempDir dir;
    std::ostringstream prom;
    std::ostringstream json_text;
    make_renderer(Format::prometheus, {})->render(report, prom);
    make_renderer(Format::json, {})->render(report, json_text);
    validate_prometheus(dir.write("report.prom", prom.str()), dir.write("report.json", json_text.str()));
}

TEST(PrometheusRenderer, binary_output_is_read_by_the_prometheus_parser) {
    test::TempDir dir;
    // One run writes both: two runs would differ in live figures (power, temperature) on a GPU.
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "-o", dir.path() + "/report.prom", "-o", dir.path() + "/report.json", "-q"});
    ASSERT_TRUE(run.exit_status == 0 || run.exit_status == 1) << run.output;
    validate_prometheus(dir.path() + "/report.prom", dir.path() + "/report.json");
}

TEST(JunitRenderer, fails_warnings_only_under_strict) {
    Report report = golden_report();
    std::ostringstream relaxed;
    make_renderer(Format::junit, {})->render(report, relaxed);
    EXPECT_NE(relaxed.str().find("failures=\"1\""), std::string::npos);
    report.strict = true;
    std::ostringstream strict;
    make_renderer(Format::junit, {})->render(report, strict);
    EXPECT_NE(strict.str().find("failures=\"2\""), std::string::npos);
}

TEST(JsonRenderer, uses_numbers_nulls_and_summary_from_report) {
    const auto document = nlohmann::json::parse(render(Format::json));
    EXPECT_EQ(document["schema_version"], std::string(json_schema_version));
    EXPECT_TRUE(document["devices"][0]["total_memory_bytes"].is_number_unsigned());
    EXPECT_TRUE(document["versions"]["nvcc"].is_null());
    EXPECT_TRUE(document["checks"][0]["code"].is_null());
    EXPECT_EQ(document["checks"][3]["device"], 0);
    EXPECT_EQ(document["checks"][3]["docs"], "docs/errors.md#cc210");
    EXPECT_EQ(document["summary"]["overall"], "fail");
    EXPECT_EQ(document["exit_code"], 1);
    EXPECT_EQ(document["summary"]["counts"]["skip"], 1);
}

TEST(JsonRenderer, layout_change_requires_schema_version_bump) {
    std::set<std::string> shape;
    collect_shape(nlohmann::json::parse(render(Format::json)), "", shape);
    std::string current = "schema_version " + std::string(json_schema_version) + "\n";
    for (const std::string& line : shape) current += line + "\n";
    const std::string recorded = test::read_text(golden_dir + "report.shape");
    const std::string recorded_version = recorded.substr(0, recorded.find('\n'));
    const std::string current_version = current.substr(0, current.find('\n'));
    if (recorded == current) return;
    if (recorded_version == current_version)
        FAIL() << "the JSON layout changed but json_schema_version is still " << json_schema_version
               << ": bump it (render/renderer.hpp), update docs/report.schema.json, then rerun with CUDACHECK_UPDATE_GOLDEN=1";
    if (updating()) std::ofstream(golden_dir + "report.shape", std::ios::binary) << current;
    else FAIL() << "json_schema_version changed: rerun with CUDACHECK_UPDATE_GOLDEN=1 to record the new layout";
}

// The supervisor rebuilds its worker's results and facts from this JSON: nothing may be lost.
TEST(ReportJson, reads_back_every_result_device_and_version_it_writes) {
    const Report report = golden_report();
    for (const CheckResult& result : report.checks) EXPECT_EQ(check_result_from_json(to_json(result)), result) << result.check_id;
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
    std::string error;
    EXPECT_FALSE(parse_report(R"({"a": 1})", "x.json", error));
    EXPECT_EQ(error, "x.json: at /tool/name: not a cudacheck report: no \"tool\": {\"name\": \"cudacheck\"}");
    ordered_json document = to_json(golden_report());
    document["schema_version"] = "2.0.0";
    EXPECT_FALSE(parse_report(document.dump(), "new.json", error));
    EXPECT_EQ(error, "new.json: at /schema_version: schema 2.0.0 is incompatible: this cudacheck reads reports of schema 1.x (it writes " +
                         std::string(json_schema_version) + ")");
    document["schema_version"] = "1.0.0";  // an older minor version: readable
    document.erase("redacted");
    EXPECT_TRUE(parse_report(document.dump(), "old.json", error)) << error;
    EXPECT_FALSE(parse_report("{\"tool\": ", "cut.json", error));
    EXPECT_EQ(error.rfind("cut.json: not valid JSON: parse error at line 1, column 10", 0), 0u) << error;
}

// The recorded reports of docs/examples (schema 1.0.0) still read.
TEST(ReportJson, reads_the_recorded_example_reports) {
    for (const char* path : {"/docs/examples/h200/cudacheck.json", "/docs/examples/no-driver/cudacheck.json"}) {
        std::string error;
        const auto report = read_report_file(CUDACHECK_SOURCE_DIR + std::string(path), error);
        ASSERT_TRUE(report) << error;
        EXPECT_FALSE(report->checks.empty());
    }
}

}  // namespace
}  // namespace cudacheck
