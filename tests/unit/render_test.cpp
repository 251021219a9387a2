// Renderers against golden files. A fixed report exercises every field; the rendered table and
// JSON must equal tests/golden/report.{txt,json}. The JSON's layout (its key paths and types) is
// pinned to json_schema_version in tests/golden/report.shape, so the layout cannot change
// without a version bump. Set CUDACHECK_UPDATE_GOLDEN=1 to rewrite the golden files after an
// intended change (the shape file is only rewritten when the version was bumped).
#include "render/renderer.hpp"
#include "render/report_json.hpp"
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

}  // namespace
}  // namespace cudacheck
