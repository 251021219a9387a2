// Support tickets and CI gates: --redact, diff, --expect, on reports built here and on the
// recorded example reports, and end to end through the binary.
#include "report/policy.hpp"
#include "report/redact.hpp"
#include "report/report_diff.hpp"
#include "report/report_query.hpp"
#include "render/renderer.hpp"
#include "report/report_json.hpp"
#include "support/test_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

namespace cudacheck {
namespace {

using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string source_dir = CUDACHECK_SOURCE_DIR;
const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Whether `word` occurs as a whole word (redaction replaces whole words: "vm" stays in "nvml").
bool contains_word(const std::string& text, const std::string& word) {
    const auto continues = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; };
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        if ((at == 0 || !continues(text[at - 1])) && (end == text.size() || !continues(text[end]))) return true;
    }
    return false;
}

Report example_report(const std::string& relative) {
    std::string error;
    std::optional<Report> report = read_report_file(source_dir + "/docs/examples/" + relative, error);
    if (!report) throw std::runtime_error(error);
    return *report;
}

std::string render(const Report& report, Format format) {
    std::ostringstream out;
    make_renderer(format, RenderOptions{false, true})->render(report, out);
    return out.str();
}

CheckResult* find_result(Report& report, std::string_view id) {
    for (CheckResult& result : report.checks)
        if (result.check_id == id) return &result;
    return nullptr;
}

Metric* find_metric(Report& report, std::string_view id, std::string_view name) {
    CheckResult* result = find_result(report, id);
    if (result == nullptr) return nullptr;
    for (Metric& metric : result->metrics)
        if (metric.name == name) return &metric;
    return nullptr;
}

// A libraries.resolution result as the check writes it (see checks/libraries_resolution.cpp).
CheckResult resolution_result(const std::string& cudnn_version) {
    CheckResult result;
    result.check_id = "libraries.resolution";
    result.message = "every CUDA library resolves once";
    result.evidence = {{"libcublas.so.13", "13.0.2.14 toolkit /usr/local/cuda/lib64/libcublas.so.13 -> /usr/local/cuda/lib64/libcublas.so.13.0.2.14 (ld.so.cache)"},
                       {"libcudnn.so.9", cudnn_version + " system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (ld.so.cache)"},
                       {"libcudnn.so.9", "also 9.8.0.87 pip_wheel (nvidia-cudnn-cu12) /venv/lib/libcudnn.so.9"},
                       {"ld_so_cache", "read"}};
    return result;
}

// The recorded report with its libraries.resolution replaced by resolution_result(cudnn_version).
Report example_with_resolution(const std::string& relative, const std::string& cudnn_version) {
    Report report = example_report(relative);
    if (CheckResult* recorded = find_result(report, "libraries.resolution")) *recorded = resolution_result(cudnn_version);
    else report.checks.push_back(resolution_result(cudnn_version));
    return report;
}

// --- redaction -------------------------------------------------------------------------------

RedactionTargets known_targets() {
    RedactionTargets targets;
    targets.hostname = "gpu-node-17.corp.example";
    targets.user_names = {"alice"};
    targets.home_directories = {"/home/alice"};
    targets.secret_variables = {{"HF_TOKEN", "hf_S3cretValue42"}};
    targets.salt = {1, 2};
    return targets;
}

Report identifying_report() {
    Report report = example_report("h200/cudacheck.json");
    report.host.hostname = "gpu-node-17.corp.example";
    report.argv = {"/home/alice/bin/cudacheck", "--format", "json"};
    DeviceInfo second = report.devices.front();
    second.ordinal = 1;
    second.uuid = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    report.devices.push_back(second);
    CheckResult& libcuda = *find_result(report, "driver.libcuda");
    libcuda.message = "loaded /home/alice/.local/lib/libcuda.so.1 on gpu-node-17 as alice (token hf_S3cretValue42)";
    libcuda.evidence.push_back({"uuid", "MIG-11111111-2222-3333-4444-555555555555 of " + report.devices.front().uuid});
    libcuda.evidence.push_back({"gpu_serial", "1652922001234"});
    libcuda.evidence.push_back({"nvml_version", "kept: nvml on vm-less host"});
    return report;
}

TEST(Redact, removes_every_identifying_string_from_every_format) {
    Report report = identifying_report();
    const std::string uuid = report.devices.front().uuid;
    redact(report, known_targets());
    for (Format format : {Format::table, Format::json, Format::markdown, Format::junit}) {
        const std::string text = render(report, format);
        for (const std::string secret : {std::string("gpu-node-17"), std::string("alice"), std::string("hf_S3cretValue42"), uuid,
                                         std::string("GPU-aaaaaaaa"), std::string("MIG-11111111"), std::string("1652922001234")})
            EXPECT_FALSE(contains(text, secret)) << secret << " in format " << static_cast<int>(format);
    }
    const CheckResult& libcuda = *find_result(report, "driver.libcuda");
    EXPECT_EQ(libcuda.message, "loaded $HOME/.local/lib/libcuda.so.1 on [redacted-host] as [redacted-user] (token [redacted:HF_TOKEN])");
    EXPECT_EQ(libcuda.evidence.back().value, "kept: nvml on vm-less host") << "only whole words are replaced";
    ASSERT_TRUE(report.redaction);
    EXPECT_EQ(report.redaction->kinds,
              (std::vector<std::string>{"hostname", "user_name", "home_directory", "device_ids", "serial_numbers", "environment_values"}));
    EXPECT_EQ(report.redaction->environment_variables, std::vector<std::string>{"HF_TOKEN"});
}

TEST(Redact, keeps_devices_distinguishable_within_a_report_but_not_across) {
    Report report = identifying_report();
    const std::string first_uuid = report.devices[0].uuid;
    redact(report, known_targets());
    EXPECT_TRUE(std::regex_match(report.devices[0].uuid, std::regex("GPU-redacted-[0-9a-f]{12}"))) << report.devices[0].uuid;
    EXPECT_NE(report.devices[0].uuid, report.devices[1].uuid);
    EXPECT_TRUE(contains(find_result(report, "driver.libcuda")->evidence[find_result(report, "driver.libcuda")->evidence.size() - 3].value,
                         report.devices[0].uuid))
        << "the same UUID gets the same replacement everywhere in one report";
    Report other = identifying_report();
    RedactionTargets targets = known_targets();
    targets.salt = {3, 4};
    redact(other, targets);
    EXPECT_NE(other.devices[0].uuid, report.devices[0].uuid) << "another salt, another name: reports cannot be linked";
    std::string error;
    EXPECT_TRUE(parse_report(render(report, Format::json), "redacted.json", error)) << error;
}

TEST(Redact, takes_secrets_only_from_secret_looking_names) {
    EXPECT_TRUE(looks_secret("HF_TOKEN"));
    EXPECT_TRUE(looks_secret("aws_secret_access_key"));
    EXPECT_TRUE(looks_secret("DB_PASSWORD"));
    EXPECT_TRUE(looks_secret("GOOGLE_APPLICATION_CREDENTIALS"));
    EXPECT_FALSE(looks_secret("CUDA_HOME"));
    Environment environment({{"API_KEY", "k-123456"}, {"USE_KEY", "1"}, {"PATH", "/usr/bin"}, {"HOME", "/"}});
    const RedactionTargets targets = redaction_targets(Report{}, environment);
    ASSERT_EQ(targets.secret_variables.size(), 1u) << "flag values such as 1 are not secrets";
    EXPECT_EQ(targets.secret_variables.front().first, "API_KEY");
    EXPECT_EQ(std::count(targets.home_directories.begin(), targets.home_directories.end(), "/"), 0) << "a home of / would swallow every path";
}

TEST(Redact, siphash_matches_the_reference_vector) {
    // The reference implementation's test: key 00..0f, message 00..0e.
    std::string message;
    for (int i = 0; i < 15; ++i) message += static_cast<char>(i);
    EXPECT_EQ(siphash24(message, {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}), 0xa129ca6149be45e5ULL);
}

// The binary with the fake driver (two GPUs with UUIDs), a known home, user and secret.
TEST(Redact, binary_output_contains_no_identifying_string_in_any_format) {
    const std::string home = "/home/cc-user-q7x";
    const std::string secret = "tok-9f8e7d6c5b4a";
    const std::vector<std::pair<std::string, std::string>> environment{
        {"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_DEVICE_COUNT", "2"}, {"HOME", home}, {"USER", "cc-user-q7x"},
        {"MY_API_TOKEN", secret},             {"CUDA_HOME", home + "/cuda"},   {"CUDA_INJECTION64_PATH", "/opt/" + secret + "/inject.so"}};
    const std::vector<std::string> selection{"--only", "host,env,driver.libcuda,cuda.devices"};
    auto arguments = selection;
    arguments.insert(arguments.end(), {"--format", "json"});
    const test::BinaryRun plain = run_cudacheck(arguments, environment);
    const auto document = nlohmann::json::parse(plain.output);
    ASSERT_EQ(document["devices"].size(), 2u) << plain.output;
    const std::string hostname = document["host"]["hostname"];
    std::vector<std::string> identifying{home, "cc-user-q7x", secret};
    for (const auto& device : document["devices"]) identifying.push_back(device["uuid"]);
    for (const std::string& text : identifying) ASSERT_TRUE(contains(plain.output, text)) << text << " must be in the plain report for this test to mean anything";

    for (const char* format : {"table", "json", "markdown", "junit"}) {
        arguments = selection;
        arguments.insert(arguments.end(), {"--redact", "-v", "--format", format});
        const test::BinaryRun redacted = run_cudacheck(arguments, environment);
        EXPECT_EQ(redacted.exit_status, plain.exit_status) << redacted.output;
        for (const std::string& text : identifying) EXPECT_FALSE(contains(redacted.output, text)) << text << " in --format " << format;
        EXPECT_FALSE(contains_word(redacted.output, hostname)) << hostname << " in --format " << format;
        EXPECT_TRUE(contains(redacted.output, "[redacted:MY_API_TOKEN]")) << format;
    }
    arguments = selection;
    arguments.insert(arguments.end(), {"--redact", "--format", "json"});
    const auto redacted = nlohmann::json::parse(run_cudacheck(arguments, environment).output);
    EXPECT_NE(redacted["devices"][0]["uuid"], redacted["devices"][1]["uuid"]);
    EXPECT_EQ(redacted["redacted"]["environment_variables"], nlohmann::json::array({"MY_API_TOKEN"}));
    EXPECT_TRUE(std::find(redacted["redacted"]["kinds"].begin(), redacted["redacted"]["kinds"].end(), "device_ids") != redacted["redacted"]["kinds"].end());
}

// --- diff --------------------------------------------------------------------------------------

TEST(Diff, finds_nothing_between_a_report_and_itself) {
    const Report report = example_report("h200/cudacheck.json");
    EXPECT_TRUE(diff_reports(report, report, 10.0).differences.empty());
}

TEST(Diff, names_versions_devices_statuses_libraries_and_moved_figures) {
    Report before = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    Report after = before;
    after.versions.driver = "590.44.01";
    after.devices.front().ecc_enabled = false;
    find_result(after, "cufft.fft")->status = Status::fail;
    find_result(after, "cufft.fft")->code = "CC507";
    find_metric(after, "cublas.gemm", "gemm_bf16_8192")->value *= 0.8;     // -20%: beyond 10%
    find_metric(after, "cublas.gemm", "gemm_fp16_8192")->value *= 0.95;    // -5%: within
    find_metric(after, "cublas.gemm", "sgemm_relative_error")->value *= 3;  // an error ratio, not a figure
    *find_result(after, "libraries.resolution") = resolution_result("9.12.0.46");
    const ReportDiff diff = diff_reports(before, after, 10.0);
    std::vector<std::string> subjects;
    for (const Difference& difference : diff.differences) subjects.push_back(difference.kind + " " + difference.subject);
    EXPECT_EQ(subjects, (std::vector<std::string>{"version driver", "library libcudnn.so.9", "device device 0 ECC", "status cufft.fft[0]",
                                                  "metric cublas.gemm[0] gemm_bf16_8192"}));
    EXPECT_NEAR(*diff.differences.back().change_percent, -20.0, 1e-9);
    EXPECT_EQ(diff.differences[1].before, "9.10.2.21 system_package /usr/lib/x86_64-linux-gnu/libcudnn.so.9");
    EXPECT_EQ(diff.differences[3].after, "fail CC507");
    EXPECT_EQ(diff_reports(before, after, 25.0).differences.size(), 4u) << "a wider threshold lets the -20% figure pass";
}

TEST(Diff, binary_exits_0_for_equal_reports_1_for_different_and_2_for_bad_input) {
    const std::string h200 = source_dir + "/docs/examples/h200/cudacheck.json";
    const std::string no_driver = source_dir + "/docs/examples/no-driver/cudacheck.json";
    const test::BinaryRun same = run_cudacheck({"diff", h200, h200});
    EXPECT_EQ(same.exit_status, 0) << same.output;
    EXPECT_TRUE(contains(same.output, "No differences.")) << same.output;
    const test::BinaryRun different = run_cudacheck({"diff", h200, no_driver, "--format", "json"});
    EXPECT_EQ(different.exit_status, 1) << different.output;
    const auto document = nlohmann::json::parse(different.output);
    EXPECT_EQ(document["diff_version"], std::string(diff_json_version));
    EXPECT_GT(document["count"].get<int>(), 5);
    EXPECT_EQ(document["differences"][0]["subject"], "driver");

    test::TempDir dir;
    const std::string wrong_major = dir.write("v2.json", std::regex_replace(test::read_text(h200), std::regex("\"schema_version\": \"1\\.[0-9]+\\.[0-9]+\""), "\"schema_version\": \"2.0.0\"", std::regex_constants::format_first_only));
    const std::vector<std::pair<std::string, std::string>> bad_inputs{
        {dir.write("cut.json", test::read_text(h200).substr(0, 300)), "cut.json: not valid JSON: parse error at line"},
        {dir.write("other.json", R"({"name": "not a report"})"), "other.json: at /tool/name: not a cudacheck report"},
        {wrong_major, "v2.json: at /schema_version: schema 2.0.0 is incompatible"},
        {dir.path() + "/missing.json", "cannot read " + dir.path() + "/missing.json: No such file or directory"},
        {dir.path(), "cannot read " + dir.path() + ": Is a directory"}};
    for (const auto& [path, message] : bad_inputs) {
        const test::BinaryRun run = run_cudacheck({"diff", h200, path});
        EXPECT_EQ(run.exit_status, 2) << path;
        EXPECT_TRUE(contains(run.output, message)) << run.output;
        EXPECT_EQ(std::count(run.output.begin(), run.output.end(), '\n'), 1) << "one line: " << run.output;
    }
}

// --- policies ------------------------------------------------------------------------------

Policy policy_from(const std::string& text) {
    std::string error;
    std::optional<Policy> policy = parse_policy(text, "policy.json", error);
    if (!policy) throw std::runtime_error(error);
    return *policy;
}

std::string policy_error(const std::string& text) {
    std::string error;
    EXPECT_FALSE(parse_policy(text, "policy.json", error)) << text;
    return error;
}

TEST(Policy, refuses_bad_policies_naming_the_place) {
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "drivr": {"min": "550"}})"),
              "policy.json: at /drivr: unknown key; expected one of schema_version, description, driver, driver_cuda, runtime, toolkit, "
              "device_count, compute_capability, libraries, performance, allowed_warnings");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "device_count": {"min": "8"}})"),
              "policy.json: at /device_count/min: expected an integer, found \"8\"");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "runtime": {"min": "13.0", "max": "12.4"}})"),
              "policy.json: at /runtime: impossible range: min 13.0 is above max 12.4");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "device_count": {"min": 9, "max": 8}})"),
              "policy.json: at /device_count: impossible range: min 9 is above max 8");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "driver": {"min": "latest"}})"),
              "policy.json: at /driver/min: 'latest' is not a version such as 12.4 or 550.54.15");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "allowed_warnings": ["CC115", "CC999"]})"),
              "policy.json: at /allowed_warnings/1: 'CC999' is not a cudacheck code (`cudacheck explain --markdown` lists them)");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "performance": [{"check": "cublas.gemm", "metric": "x", "min": -1}]})"),
              "policy.json: at /performance/0/min: -1 is not a non-negative figure");
    EXPECT_EQ(policy_error(R"({"schema_version": "1.0.0", "libraries": {"libcudnn.so.9": {"minimum": "9"}}})"),
              "policy.json: at /libraries/libcudnn.so.9/minimum: unknown key; expected one of min, max");
    EXPECT_EQ(policy_error(R"({"schema_version": "2.1.0"})"),
              "policy.json: at /schema_version: policy schema 2.1.0 is incompatible: this cudacheck reads policies of schema 1.x");
    EXPECT_EQ(policy_error(R"({"driver": {}})"), "policy.json: at /schema_version: missing");
    EXPECT_EQ(policy_error("[1, 2]"), "policy.json: expected an object, found [1,2]");
}

TEST(Policy, example_policies_in_docs_are_valid) {
    for (const char* name : {"ci-job.json", "cluster-node.json"}) {
        std::string error;
        EXPECT_TRUE(read_policy_file(source_dir + "/docs/policies/" + name, error)) << error;
    }
}

TEST(Policy, passes_a_machine_that_meets_it) {
    Report report = example_with_resolution("h200/cudacheck.json", "9.10.2.21");
    std::string error;
    const auto policy = read_policy_file(source_dir + "/docs/policies/ci-job.json", error);
    ASSERT_TRUE(policy) << error;
    apply_policy(*policy, report);
    for (const CheckResult& result : report.checks)
        if (result.check_id.starts_with("expect.")) EXPECT_EQ(result.status, Status::pass) << result.check_id << ": " << result.message;
    EXPECT_EQ(report.exit_code, 0);
}

TEST(Policy, fails_each_unmet_expectation_with_expected_and_found) {
    Report report = example_with_resolution("h200/cudacheck.json", "9.0.0.312");
    find_result(report, "driver.nvml")->findings.push_back({Status::warn, "CC220", "no NVML", "install it"});
    const Policy policy = policy_from(R"({"schema_version": "1.0.0",
        "driver": {"min": "590"}, "toolkit": {"max": "13.0"}, "device_count": {"min": 8, "max": 8}, "compute_capability": {"min": "10.0"},
        "libraries": {"libcudnn.so.9": {"min": "9.1"}, "libnccl.so.2": {}},
        "performance": [{"check": "cublas.gemm", "metric": "gemm_bf16_8192", "min": 900, "unit": "TFLOP/s"},
                        {"check": "cudnn.conv", "metric": "absent_metric", "min": 1}],
        "allowed_warnings": ["CC115"]})");
    const std::vector<CheckResult> results = evaluate_policy(policy, report);
    std::vector<std::string> verdicts;
    for (const CheckResult& result : results) {
        std::string codes;
        for (const Finding& finding : result.findings) codes += " " + finding.code;
        verdicts.push_back(result.check_id + " " + std::string(to_string(result.status)) + codes);
    }
    EXPECT_EQ(verdicts, (std::vector<std::string>{"expect.driver_version fail CC701", "expect.toolkit_version pass", "expect.device_count fail CC705",
                                                   "expect.compute_capability fail CC706", "expect.libraries fail CC708 CC707",
                                                   "expect.performance fail CC709 CC710", "expect.warnings fail CC711"}));
    EXPECT_EQ(results[0].message, "driver 580.159.04 is outside the policy's range: expected >= 590, found 580.159.04");
    EXPECT_EQ(results[0].evidence, (std::vector<Evidence>{{"expected", ">= 590"}, {"found", "580.159.04"}}));
    EXPECT_EQ(results[5].findings[0].message, fmt::format("cublas.gemm[0] gemm_bf16_8192 is {:.1f} TFLOP/s, below the policy's minimum 900",
                                                          find_metric(report, "cublas.gemm", "gemm_bf16_8192")->value));
    apply_policy(policy, report);
    EXPECT_EQ(report.summary.overall, Status::fail);
    EXPECT_EQ(report.exit_code, 1);
}

TEST(Policy, version_bounds_match_every_version_they_prefix) {
    const Policy policy = policy_from(R"({"schema_version": "1.0.0", "toolkit": {"min": "12.4", "max": "12.9"}})");
    for (const auto& [nvcc, inside] : std::vector<std::pair<std::string, bool>>{{"12.9.86", true}, {"12.4", true}, {"12.3.107", false}, {"13.0.88", false}, {"", false}}) {
        Report report;
        report.versions.nvcc = nvcc;
        EXPECT_EQ(evaluate_policy(policy, report).front().status == Status::pass, inside) << nvcc;
    }
}

TEST(Policy, binary_appends_expect_results_and_refuses_a_bad_policy_before_running) {
    test::TempDir dir;
    const std::string policy = dir.write("policy.json", R"({"schema_version": "1.0.0", "driver": {"min": "550"}, "device_count": {"min": 0}})");
    const std::string report_path = dir.path() + "/report.json";
    const test::BinaryRun run =
        run_cudacheck({"--only", "host.os", "--expect", policy, "-o", report_path, "-q"}, {{"LD_LIBRARY_PATH", test::unset_marker}});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const auto document = nlohmann::json::parse(test::read_text(report_path));
    const auto* driver = test::find_check(document, "expect.driver_version");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["status"], "fail");
    EXPECT_EQ((*driver)["code"], "CC701");
    EXPECT_EQ((*test::find_check(document, "expect.device_count"))["status"], "pass");
    EXPECT_EQ(document["exit_code"], 1);
    EXPECT_EQ(document["summary"]["counts"]["fail"], 1);

    const std::string bad = dir.write("bad.json", R"({"schema_version": "1.0.0", "device_count": {"min": true}})");
    const test::BinaryRun refused = run_cudacheck({"--expect", bad, "-o", dir.path() + "/never.json"});
    EXPECT_EQ(refused.exit_status, 2);
    EXPECT_EQ(refused.output, "cudacheck: " + bad + ": at /device_count/min: expected an integer, found true\n");
    EXPECT_FALSE(fs::exists(dir.path() + "/never.json"));
}

}  // namespace
}  // namespace cudacheck
