// The supervisor charges a death or a hang outside any check's own code to the step that caused it
// (util/actions.hpp), never to an unrelated check, and does not take that step again (issue 18):
// through the binary, with the fake driver (tests/support/fake_libcuda.cpp) and a library whose
// initialiser kills its loader (tests/support/crashing_library.cpp). Also the process limits that
// used to look like crashes: `ulimit -n` and `ulimit -v`.
#include "support/test_support.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <string>

namespace cudacheck {
namespace {

using test::contains;
using test::find_check;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();
const std::string crashing_cublas = CUDACHECK_CRASHING_CUBLAS;

struct Reported {
    test::BinaryRun run;
    nlohmann::json report;
};

Reported run_with(const std::vector<std::string>& arguments, std::vector<std::pair<std::string, std::string>> environment) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    std::vector<std::string> all = arguments;
    all.insert(all.end(), {"-o", path, "-q"});
    Reported reported{run_cudacheck(all, environment), {}};
    if (fs::exists(path)) reported.report = nlohmann::json::parse(test::read_text(path));
    return reported;
}

std::string status_of(const nlohmann::json& report, std::string_view id) {
    const nlohmann::json* check = find_check(report, id);
    return check == nullptr ? "absent" : (*check)["status"].get<std::string>();
}

std::string text_of(const nlohmann::json& report, std::string_view id) {
    const nlohmann::json* check = find_check(report, id);
    return check == nullptr ? "" : check->dump();
}

TEST(FaultAttribution, a_library_that_kills_its_loader_fails_only_the_checks_that_use_it) {
    for (int signal : {SIGSEGV, SIGBUS, SIGABRT}) {
        SCOPED_TRACE(signal);
        const Reported reported = run_with({"--only", "host.os,env.variables,driver.libcuda,libraries.resolution,cublas.gemm"},
                                           {{"LD_LIBRARY_PATH", fs::path(crashing_cublas).parent_path().string() + ":" + fake_driver_dir},
                                            {"CRASHING_LIBRARY_SIGNAL", std::to_string(signal)}});
        ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
        for (const char* unaffected : {"host.os", "env.variables", "driver.libcuda"})
            EXPECT_EQ(status_of(reported.report, unaffected), "pass") << unaffected << ": " << text_of(reported.report, unaffected);
        const nlohmann::json* gemm = find_check(reported.report, "cublas.gemm");
        ASSERT_NE(gemm, nullptr);
        EXPECT_EQ((*gemm)["status"], "fail") << gemm->dump();
        EXPECT_EQ((*gemm)["code"], "CC605") << gemm->dump();
        const std::string message = (*gemm)["message"].get<std::string>();
        EXPECT_TRUE(contains(message, fs::canonical(crashing_cublas).string())) << "names the file: " << message;
        EXPECT_TRUE(contains(message, "killed the check process (killed by " + sys::signal_name(signal)))
            << message;
        EXPECT_TRUE(contains(message, "not loaded again")) << message;
        EXPECT_FALSE(contains(reported.report.dump(), "CC902")) << "no check is charged with the crash";
    }
}

TEST(FaultAttribution, a_hung_cuinit_costs_one_timeout_and_its_dependents_say_why) {
    const Reported reported =
        run_with({"--only", "host.os,env.variables,driver.libcuda,cuda.devices,cuda.kernel", "--timeout", "2"},
                 {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_INIT_HANG", "1"}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    // One per-check limit and the start of a second worker, not the run's limit (600 s).
    EXPECT_LT(reported.run.wall_ms, 15000.0);
    for (const char* unaffected : {"host.os", "env.variables"})
        EXPECT_EQ(status_of(reported.report, unaffected), "pass") << unaffected << ": " << text_of(reported.report, unaffected);
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["status"], "timeout") << driver->dump();
    EXPECT_EQ((*driver)["code"], "CC905") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(), "cuInit did not finish within 2 s (--timeout)")) << driver->dump();
    for (const char* dependent : {"cuda.devices", "cuda.kernel"}) {
        const nlohmann::json* check = find_check(reported.report, dependent);
        ASSERT_NE(check, nullptr) << dependent;
        EXPECT_EQ((*check)["status"], "skip") << check->dump();
        EXPECT_FALSE(contains(check->dump(), "time limit")) << check->dump();
    }
    EXPECT_TRUE(contains(text_of(reported.report, "cuda.devices"), "needs driver.libcuda, which ended with timeout (CC905)"))
        << text_of(reported.report, "cuda.devices");
}

TEST(FaultAttribution, a_cuinit_that_crashes_is_charged_to_cuinit) {
    const Reported reported = run_with({"--only", "host.os,driver.libcuda,cuda.devices"},
                                       {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_INIT_SIGNAL", std::to_string(SIGSEGV)}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    EXPECT_EQ(status_of(reported.report, "host.os"), "pass") << text_of(reported.report, "host.os");
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["code"], "CC904") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(), "cuInit killed the check process (killed by SIGSEGV")) << driver->dump();
    EXPECT_EQ(status_of(reported.report, "cuda.devices"), "skip");
    EXPECT_FALSE(contains(reported.report.dump(), "CC902"));
}

TEST(FaultAttribution, a_libcuda_that_kills_its_loader_is_charged_to_its_load) {
    const Reported reported = run_with({"--only", "host.os,env.variables,driver.libcuda,cuda.devices"},
                                       {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_LOAD_SIGNAL", std::to_string(SIGBUS)}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    for (const char* unaffected : {"host.os", "env.variables"})
        EXPECT_EQ(status_of(reported.report, unaffected), "pass") << unaffected << ": " << text_of(reported.report, unaffected);
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["code"], "CC904") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(), "loading libcuda.so.1 killed the check process (killed by SIGBUS"))
        << driver->dump();
    EXPECT_FALSE(contains(reported.report.dump(), "CC902"));
}

TEST(FaultAttribution, too_few_file_descriptors_is_its_own_finding_not_a_crash) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const sys::CommandResult run = sys::run_command(
        {"/bin/sh", "-c", "ulimit -n 8 && exec \"$0\" --only host.os,env.variables -q -o \"$1\"", CUDACHECK_BINARY, path},
        std::chrono::seconds(60));
    ASSERT_TRUE(run.started) << run.error;
    ASSERT_TRUE(fs::exists(path)) << run.output;
    const auto report = nlohmann::json::parse(test::read_text(path));
    for (const char* id : {"host.os", "env.variables"}) {
        const nlohmann::json* check = find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["code"], "CC906") << check->dump();
        EXPECT_TRUE(contains((*check)["message"].get<std::string>(), "the open-files limit is 8 (ulimit -n")) << check->dump();
    }
}

TEST(FaultAttribution, an_address_space_limit_is_named_as_the_cause_of_cuinits_out_of_memory) {
    // The fake cuInit answers CUDA_ERROR_OUT_OF_MEMORY (2) as the real one does under `ulimit -v`
    // 4000000 (docs/examples/h200/issue18/); the limit itself is real.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const sys::CommandResult run = sys::run_command(
        {"/bin/sh", "-c",
         "ulimit -v 4000000 && LD_LIBRARY_PATH=\"$2\" FAKE_CUDA_INIT_RESULT=2 exec \"$0\" --only host.limits,driver.libcuda -q -o \"$1\"",
         CUDACHECK_BINARY, path, fake_driver_dir},
        std::chrono::seconds(60));
    ASSERT_TRUE(run.started) << run.error;
    ASSERT_TRUE(fs::exists(path)) << run.output;
    const auto report = nlohmann::json::parse(test::read_text(path));
    for (const char* id : {"host.limits", "driver.libcuda"}) {
        const nlohmann::json* check = find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["status"], "fail") << check->dump();
        EXPECT_EQ((*check)["code"], "CC130") << check->dump();
        EXPECT_TRUE(contains(check->dump(), "ulimit -v")) << check->dump();
    }
    EXPECT_TRUE(contains(find_check(report, "driver.libcuda")->dump(), "4000000 KiB")) << "the limit's value is named";
}

TEST(FaultAttribution, the_toolkits_stub_nvml_is_recognised_and_its_banner_is_evidence) {
    test::TempDir dir;
    const std::string stubs = dir.path() + "/cuda/lib64/stubs";
    fs::create_directories(stubs);
    fs::copy_file(fake_driver_dir + "/libnvidia-ml.so.1", stubs + "/libnvidia-ml.so.1");
    const Reported reported = run_with({"--only", "driver.nvml"}, {{"LD_LIBRARY_PATH", stubs + ":" + fake_driver_dir},
                                                                    {"FAKE_NVML_INIT_RESULT", "9"},
                                                                    {"FAKE_NVML_STUB", "1"}});
    const nlohmann::json* nvml = find_check(reported.report, "driver.nvml");
    ASSERT_NE(nvml, nullptr) << reported.run.output;
    EXPECT_EQ((*nvml)["code"], "CC223") << nvml->dump();
    const std::string message = (*nvml)["message"].get<std::string>();
    EXPECT_TRUE(contains(message, stubs + "/libnvidia-ml.so.1")) << message;
    EXPECT_TRUE(contains(message, "NVML_ERROR_DRIVER_NOT_LOADED")) << message;
    EXPECT_FALSE(contains(message, "WARNING")) << "the banner is not the message: " << message;
    EXPECT_TRUE(contains(nvml->dump(), "stub library that is attached only for build purposes")) << "it is evidence";
    EXPECT_TRUE(contains((*nvml)["remediation"].get<std::string>(), stubs)) << nvml->dump();
}

}  // namespace
}  // namespace cudacheck
