// --redact (report/redact.cpp): on a recorded report in every format, and through the binary.
#include "report/redact.hpp"
#include "render/renderer.hpp"
#include "report/report_json.hpp"
#include "support/example_reports.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::example_report;
using test::find_result;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

// Whether `word` occurs as a whole word (redaction replaces whole words: "vm" stays in "nvml").
bool contains_word(const std::string& text, const std::string& word) {
    const auto continues = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    };
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        if ((at == 0 || !continues(text[at - 1])) && (end == text.size() || !continues(text[end]))) return true;
    }
    return false;
}

std::string render(const Report& report, Format format) {
    std::ostringstream out;
    make_renderer(format, RenderOptions{false, true})->render(report, out);
    return out.str();
}

RedactionTargets known_targets() {
    RedactionTargets targets;
    targets.hostname = "gpu-node-17.corp.example";
    targets.node_name = "k8s-worker-3";
    targets.user_names = {"alice"};
    targets.home_directories = {"/home/alice"};
    targets.secret_variables = {{"HF_TOKEN", "hf_S3cretValue42"}};
    targets.salt = {1, 2};
    return targets;
}

Report identifying_report() {
    Report report = example_report("h200/cudacheck.json");
    report.host.hostname = "gpu-node-17.corp.example";
    report.host.node_name = "k8s-worker-3";  // NODE_NAME in a pod (schema 1.9.0)
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
    // A virtual environment in the home directory, as frameworks.builds reports it.
    const std::string prefix = "/home/alice/venvs/train";
    report.frameworks = std::vector<PythonEnvironmentInfo>{
        {.prefix = prefix,
         .kind = "virtual environment",
         .interpreter = prefix + "/bin/python3",
         .found_by = {"--python " + prefix},
         .frameworks = {
             {.subject = prefix + ": PyTorch",
              .framework = "PyTorch",
              .libraries = {{"cuDNN", "libcudnn.so.9",
                             prefix + "/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "9.19.0.56",
                             "pip_wheel", "nvidia-cudnn-cu13", "DT_RPATH of libtorch_cuda.so (" + prefix + "/...)"}},
              .files = {prefix + "/lib/python3.12/site-packages/torch/version.py"}}}}};
    Finding about_torch{
        Status::warn,        "CC622", "PyTorch in " + prefix + " runs through PTX JIT", "Install a build with SASS.", 0,
        prefix + ": PyTorch"};
    libcuda.findings.push_back(about_torch);
    return report;
}

TEST(Redact, removes_every_identifying_string_from_every_format) {
    Report report = identifying_report();
    const std::string uuid = report.devices.front().uuid;
    redact(report, known_targets());
    for (Format format : {Format::table, Format::json, Format::markdown, Format::junit, Format::prometheus}) {
        const std::string text = render(report, format);
        for (const std::string& secret :
             {std::string("gpu-node-17"), std::string("alice"), std::string("hf_S3cretValue42"), uuid,
              std::string("GPU-aaaaaaaa"), std::string("MIG-11111111"), std::string("1652922001234"),
              std::string("k8s-worker-3")})
            EXPECT_FALSE(contains(text, secret)) << secret << " in format " << static_cast<int>(format);
    }
    const CheckResult& libcuda = *find_result(report, "driver.libcuda");
    EXPECT_EQ(libcuda.message,
              "loaded $HOME/.local/lib/libcuda.so.1 on [redacted-host] as [redacted-user] (token [redacted:HF_TOKEN])");
    EXPECT_EQ(libcuda.evidence.back().value, "kept: nvml on vm-less host") << "only whole words are replaced";
    ASSERT_TRUE(report.frameworks);
    EXPECT_EQ(report.frameworks->front().prefix, "$HOME/venvs/train");
    EXPECT_EQ(report.frameworks->front().frameworks.front().subject, "$HOME/venvs/train: PyTorch");
    EXPECT_EQ(libcuda.findings.back().subject, "$HOME/venvs/train: PyTorch")
        << "the finding still names the framework it concerns";
    ASSERT_TRUE(report.redaction);
    EXPECT_EQ(report.redaction->kinds,
              (std::vector<std::string>{"hostname", "user_name", "home_directory", "device_ids", "serial_numbers",
                                        "environment_values"}));
    EXPECT_EQ(report.redaction->environment_variables, std::vector<std::string>{"HF_TOKEN"});
}

TEST(Redact, keeps_devices_distinguishable_within_a_report_but_not_across) {
    Report report = identifying_report();
    const std::string first_uuid = report.devices[0].uuid;
    redact(report, known_targets());
    EXPECT_TRUE(std::regex_match(report.devices[0].uuid, std::regex("GPU-redacted-[0-9a-f]{12}")))
        << report.devices[0].uuid;
    EXPECT_NE(report.devices[0].uuid, report.devices[1].uuid);
    EXPECT_TRUE(contains(find_result(report, "driver.libcuda")
                             ->evidence[find_result(report, "driver.libcuda")->evidence.size() - 3]
                             .value,
                         report.devices[0].uuid))
        << "the same UUID gets the same replacement everywhere in one report";
    Report other = identifying_report();
    RedactionTargets targets = known_targets();
    targets.salt = {3, 4};
    redact(other, targets);
    EXPECT_NE(other.devices[0].uuid, report.devices[0].uuid) << "another salt, another name: reports cannot be linked";
    EXPECT_EQ(test::error_of(parse_report(render(report, Format::json), "redacted.json")), "");
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
    EXPECT_EQ(std::count(targets.home_directories.begin(), targets.home_directories.end(), "/"), 0)
        << "a home of / would swallow every path";
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
    const std::vector<std::pair<std::string, std::string>> environment{{"LD_LIBRARY_PATH", fake_driver_dir},
                                                                       {"FAKE_CUDA_DEVICE_COUNT", "2"},
                                                                       {"HOME", home},
                                                                       {"USER", "cc-user-q7x"},
                                                                       {"MY_API_TOKEN", secret},
                                                                       {"CUDA_HOME", home + "/cuda"},
                                                                       {"CUDA_INJECTION64_PATH",
                                                                        "/opt/" + secret + "/inject.so"}};
    const std::vector<std::string> selection{"--only", "host,env,driver.libcuda,cuda.devices"};
    auto arguments = selection;
    arguments.insert(arguments.end(), {"--format", "json"});
    const test::BinaryRun plain = run_cudacheck(arguments, environment);
    const auto document = nlohmann::json::parse(plain.output);
    ASSERT_EQ(document["devices"].size(), 2u) << plain.output;
    const std::string hostname = document["host"]["hostname"];
    std::vector<std::string> identifying{home, "cc-user-q7x", secret};
    for (const auto& device : document["devices"]) identifying.push_back(device["uuid"]);
    for (const std::string& text : identifying)
        ASSERT_TRUE(contains(plain.output, text))
            << text << " must be in the plain report for this test to mean anything";

    for (const char* format : {"table", "json", "markdown", "junit"}) {
        arguments = selection;
        arguments.insert(arguments.end(), {"--redact", "-v", "--format", format});
        const test::BinaryRun redacted = run_cudacheck(arguments, environment);
        EXPECT_EQ(redacted.exit_status, plain.exit_status) << redacted.output;
        for (const std::string& text : identifying)
            EXPECT_FALSE(contains(redacted.output, text)) << text << " in --format " << format;
        EXPECT_FALSE(contains_word(redacted.output, hostname)) << hostname << " in --format " << format;
        EXPECT_TRUE(contains(redacted.output, "[redacted:MY_API_TOKEN]")) << format;
    }
    arguments = selection;
    arguments.insert(arguments.end(), {"--redact", "--format", "json"});
    const auto redacted = nlohmann::json::parse(run_cudacheck(arguments, environment).output);
    EXPECT_NE(redacted["devices"][0]["uuid"], redacted["devices"][1]["uuid"]);
    EXPECT_EQ(redacted["redacted"]["environment_variables"], nlohmann::json::array({"MY_API_TOKEN"}));
    EXPECT_TRUE(std::find(redacted["redacted"]["kinds"].begin(), redacted["redacted"]["kinds"].end(), "device_ids") !=
                redacted["redacted"]["kinds"].end());
}

}  // namespace
}  // namespace cudacheck
