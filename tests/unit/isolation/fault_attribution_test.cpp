// The supervisor charges a death or a hang outside any check's own code to the step that caused it
// (util/actions.hpp), never to an unrelated check, and does not take that step again:
// through the binary, with the fake driver (tests/support/fake_libcuda.cpp) and a library whose
// initialiser kills its loader (tests/support/crashing_library.cpp). Also the process limits that
// used to look like crashes: `ulimit -n` and `ulimit -v`. And a crash in a library that a library
// loads on its own, charged to that damaged file, with this machine's cuDNN and cuBLAS.
#include "cuda/library_families.hpp"
#include "probes/library_locator.hpp"
#include "support/test_support.hpp"
#include "util/environment.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cuda_runtime_api.h>  // CUDART_VERSION: the sonames cudacheck opens
#include <filesystem>
#include <fstream>
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

Reported run_with(const std::vector<std::string>& arguments,
                  std::vector<std::pair<std::string, std::string>> environment,
                  test::Build build = test::Build::shipped) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    std::vector<std::string> all = arguments;
    all.insert(all.end(), {"-o", path, "-q"});
    Reported reported{run_cudacheck(all, environment, build), {}};
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
        const Reported reported =
            run_with({"--only", "host.os,env.variables,driver.libcuda,libraries.resolution,cublas.gemm"},
                     {{"LD_LIBRARY_PATH", fs::path(crashing_cublas).parent_path().string() + ":" + fake_driver_dir},
                      {"CRASHING_LIBRARY_SIGNAL", std::to_string(signal)}});
        ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
        for (const char* unaffected : {"host.os", "env.variables", "driver.libcuda"})
            EXPECT_EQ(status_of(reported.report, unaffected), "pass")
                << unaffected << ": " << text_of(reported.report, unaffected);
        const nlohmann::json* gemm = find_check(reported.report, "cublas.gemm");
        ASSERT_NE(gemm, nullptr);
        EXPECT_EQ((*gemm)["status"], "fail") << gemm->dump();
        EXPECT_EQ((*gemm)["code"], "CC605") << gemm->dump();
        const std::string message = (*gemm)["message"].get<std::string>();
        EXPECT_TRUE(contains(gemm->dump(), fs::canonical(crashing_cublas).string()))
            << "the evidence names the file: " << gemm->dump();
        EXPECT_TRUE(contains(message, "killed the check process (killed by " + sys::signal_name(signal))) << message;
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
        EXPECT_EQ(status_of(reported.report, unaffected), "pass")
            << unaffected << ": " << text_of(reported.report, unaffected);
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["status"], "timeout") << driver->dump();
    EXPECT_EQ((*driver)["code"], "CC905") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(), "cuInit did not finish within 2 s (--timeout)"))
        << driver->dump();
    for (const char* dependent : {"cuda.devices", "cuda.kernel"}) {
        const nlohmann::json* check = find_check(reported.report, dependent);
        ASSERT_NE(check, nullptr) << dependent;
        EXPECT_EQ((*check)["status"], "skip") << check->dump();
        EXPECT_FALSE(contains(check->dump(), "time limit")) << check->dump();
    }
    EXPECT_TRUE(
        contains(text_of(reported.report, "cuda.devices"), "needs driver.libcuda, which ended with timeout (CC905)"))
        << text_of(reported.report, "cuda.devices");
}

TEST(FaultAttribution, a_cuinit_that_crashes_is_charged_to_cuinit) {
    const Reported reported =
        run_with({"--only", "host.os,driver.libcuda,cuda.devices"},
                 {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_INIT_SIGNAL", std::to_string(SIGSEGV)}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    EXPECT_EQ(status_of(reported.report, "host.os"), "pass") << text_of(reported.report, "host.os");
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["code"], "CC904") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(), "cuInit killed the check process (killed by SIGSEGV"))
        << driver->dump();
    EXPECT_EQ(status_of(reported.report, "cuda.devices"), "skip");
    EXPECT_FALSE(contains(reported.report.dump(), "CC902"));
}

TEST(FaultAttribution, a_libcuda_that_kills_its_loader_is_charged_to_its_load) {
    const Reported reported =
        run_with({"--only", "host.os,env.variables,driver.libcuda,cuda.devices"},
                 {{"LD_LIBRARY_PATH", fake_driver_dir}, {"FAKE_CUDA_LOAD_SIGNAL", std::to_string(SIGBUS)}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    for (const char* unaffected : {"host.os", "env.variables"})
        EXPECT_EQ(status_of(reported.report, unaffected), "pass")
            << unaffected << ": " << text_of(reported.report, unaffected);
    const nlohmann::json* driver = find_check(reported.report, "driver.libcuda");
    ASSERT_NE(driver, nullptr);
    EXPECT_EQ((*driver)["code"], "CC904") << driver->dump();
    EXPECT_TRUE(contains((*driver)["message"].get<std::string>(),
                         "loading libcuda.so.1 killed the check process (killed by SIGBUS"))
        << driver->dump();
    EXPECT_FALSE(contains(reported.report.dump(), "CC902"));
}

TEST(FaultAttribution, too_few_file_descriptors_is_its_own_finding_not_a_crash) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const sys::CommandResult run =
        sys::run_command({"/bin/sh", "-c", "ulimit -n 8 && exec \"$0\" --only host.os,env.variables -q -o \"$1\"",
                          CUDACHECK_BINARY, path},
                         std::chrono::seconds(60));
    ASSERT_TRUE(run.started) << run.error;
    ASSERT_TRUE(fs::exists(path)) << run.output;
    const auto report = nlohmann::json::parse(test::read_text(path));
    for (const char* id : {"host.os", "env.variables"}) {
        const nlohmann::json* check = find_check(report, id);
        ASSERT_NE(check, nullptr) << id;
        EXPECT_EQ((*check)["code"], "CC906") << check->dump();
        EXPECT_TRUE(contains((*check)["message"].get<std::string>(), "the open-files limit is 8 (ulimit -n"))
            << check->dump();
    }
}

TEST(FaultAttribution, an_address_space_limit_is_named_as_the_cause_of_cuinits_out_of_memory) {
    // The fake cuInit answers CUDA_ERROR_OUT_OF_MEMORY (2) as the real one does under `ulimit -v`
    // 4000000 (docs/examples/h200/issue18/); the limit itself is real.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const sys::CommandResult run =
        sys::run_command({"/bin/sh", "-c",
                          "ulimit -v 4000000 && LD_LIBRARY_PATH=\"$2\" FAKE_CUDA_INIT_RESULT=2 exec \"$0\" --only "
                          "host.limits,driver.libcuda -q -o \"$1\"",
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
    EXPECT_TRUE(contains(nvml->dump(), stubs + "/libnvidia-ml.so.1"))
        << "the stub's path is evidence: " << nvml->dump();
    EXPECT_TRUE(contains(message, "NVML_ERROR_DRIVER_NOT_LOADED")) << message;
    EXPECT_FALSE(contains(message, "WARNING")) << "the banner is not the message: " << message;
    EXPECT_TRUE(contains(nvml->dump(), "stub library that is attached only for build purposes")) << "it is evidence";
    EXPECT_TRUE(contains((*nvml)["remediation"].get<std::string>(), stubs)) << nvml->dump();
}

// Libraries that a library loads itself. A copy of `from` holding only its first MiB, at
// `to`: the headers whole, the rest gone, as an upgrade that ran out of disk leaves a file. Loading
// it dies with SIGBUS when the loader touches a page past its end.
void write_truncated_copy(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    std::string head(1 << 20, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    std::ofstream(to, std::ios::binary) << head;
}

// This machine's own copy of a CUDA library, as a program here resolves it; "" when none.
std::string installed_copy(std::string_view soname) {
    DirectoryListings listings;
    return resolve(soname, loader_search(Environment::from_process()), listings).real_path;
}

// The finding of `check` with `code` whose message names `path`; nullptr when none.
const nlohmann::json* finding_naming(const nlohmann::json& report, std::string_view check, std::string_view code,
                                     const std::string& path) {
    const nlohmann::json* result = find_check(report, check);
    if (result == nullptr) return nullptr;
    for (const nlohmann::json& finding : (*result)["findings"])
        // The headline names the library; the file is the result's evidence.
        if (finding["code"] == code && contains(result->dump(), path)) return &finding;
    return nullptr;
}

// The real cuDNN 9 shim, whose cudnnGetVersion opens libcudnn_graph.so.9 (a call of the check's own,
// no step cudacheck announces), with a truncated copy of that sub-library first on LD_LIBRARY_PATH,
// under the fake driver. What only a GPU shows: the same for libcudnn_cnn.so.9, which cuDNN opens
// in the convolution's calls.
TEST(FaultAttribution, a_truncated_cudnn_sub_library_that_kills_cudnn_conv_is_reported_as_that_file) {
    const std::string shim = installed_copy("libcudnn.so.9");
    const std::string graph = installed_copy("libcudnn_graph.so.9");
    if (shim.empty() || graph.empty()) GTEST_SKIP() << "no cuDNN 9 on this machine's loader path";
    test::TempDir tree;
    const std::string truncated = fs::canonical(tree.path()).string() + "/libcudnn_graph.so.9";
    write_truncated_copy(graph, truncated);
    const Reported reported =
        run_with({"--only", "host.os,env.variables,driver.libcuda,libraries.resolution,cudnn.conv"},
                 {{"LD_LIBRARY_PATH", fs::path(truncated).parent_path().string() + ":" + fake_driver_dir}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    for (const char* unaffected : {"host.os", "env.variables", "driver.libcuda"})
        EXPECT_EQ(status_of(reported.report, unaffected), "pass")
            << unaffected << ": " << text_of(reported.report, unaffected);
    const nlohmann::json* conv = find_check(reported.report, "cudnn.conv");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ((*conv)["status"], "fail") << conv->dump();
    EXPECT_EQ((*conv)["code"], "CC605") << conv->dump();
    const std::string message = (*conv)["message"].get<std::string>();
    EXPECT_TRUE(contains(message, "cudnn.conv crashed its process: killed by SIGBUS")) << message;
    EXPECT_TRUE(contains(message, "libcudnn_graph.so.9 resolves to a damaged file")) << message;
    EXPECT_TRUE(
        contains(conv->dump(),
                 "libcudnn_graph.so.9, opened by libcudnn.so.9 itself (dlopen) when a call needs it, resolves to " +
                     truncated))
        << "the account is evidence: " << conv->dump();
    const std::string remediation = (*conv)["remediation"].get<std::string>();
    EXPECT_TRUE(contains(remediation, "remove " + truncated)) << remediation;
    EXPECT_FALSE(contains(remediation, "dmesg")) << "no GPU-fault advice: " << remediation;
    // libraries.resolution names the same file with the same fix.
    const nlohmann::json* resolution = finding_naming(reported.report, "libraries.resolution", "CC605", truncated);
    ASSERT_NE(resolution, nullptr) << text_of(reported.report, "libraries.resolution");
    EXPECT_EQ((*resolution)["remediation"], remediation);
    EXPECT_FALSE(contains(reported.report.dump(), "CC902")) << "no check is charged with a crash";

    // The same with the whole file: cudnnGetVersion loads it, and cudnn.conv goes on to its GPU work
    // (which the fake driver refuses): the crash above was the truncated file's.
    fs::copy_file(graph, truncated, fs::copy_options::overwrite_existing);
    const Reported whole =
        run_with({"--only", "cudnn.conv"},
                 {{"LD_LIBRARY_PATH", fs::path(truncated).parent_path().string() + ":" + fake_driver_dir}});
    ASSERT_FALSE(whole.report.is_null()) << whole.run.output;
    EXPECT_FALSE(contains(text_of(whole.report, "cudnn.conv"), "killed by")) << text_of(whole.report, "cudnn.conv");
    EXPECT_FALSE(contains(text_of(whole.report, "cudnn.conv"), "CC605")) << text_of(whole.report, "cudnn.conv");
}

// A crash that no damaged library explains stays a crash, even with a damaged library on the
// machine (libraries.resolution reports that one); a host check in no GPU call gets no GPU advice
// (it would send the reader looking for GPU faults).
TEST(FaultAttribution, a_crash_of_a_check_that_loads_no_damaged_library_stays_a_crash) {
    test::TempDir tree;
    const std::string truncated = fs::canonical(tree.path()).string() + "/libcudnn_graph.so.9";
    write_truncated_copy(fs::canonical(CUDACHECK_FAKE_DRIVER).string(), truncated);
    const Reported reported =
        run_with({"--level", "quick", "--only", "host.os,libraries.resolution,fault.segfault"},
                 {{"LD_LIBRARY_PATH", fs::path(truncated).parent_path().string()}}, test::Build::with_faults);
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    const nlohmann::json* segfault = find_check(reported.report, "fault.segfault");
    ASSERT_NE(segfault, nullptr);
    EXPECT_EQ((*segfault)["status"], "error") << segfault->dump();
    EXPECT_EQ((*segfault)["code"], "CC902") << segfault->dump();
    EXPECT_FALSE(contains((*segfault)["remediation"].get<std::string>(), "dmesg")) << segfault->dump();
    EXPECT_TRUE(contains((*segfault)["message"].get<std::string>(), "no GPU call was in flight")) << segfault->dump();
    EXPECT_NE(finding_naming(reported.report, "libraries.resolution", "CC605", truncated), nullptr)
        << text_of(reported.report, "libraries.resolution");
}

// A check that hangs while its library would load a damaged sub-library: charged to that file, and
// still a timeout (killed at its limit, its duration the limit's). The library is a stand-in with
// cuDNN 9's soname (tests/CMakeLists.txt); the check never opens it.
TEST(FaultAttribution, a_hang_of_a_check_whose_library_would_load_a_damaged_file_stays_a_timeout_naming_that_file) {
    test::TempDir tree;
    const std::string directory = fs::canonical(tree.path()).string();
    fs::copy_file(std::string(CUDACHECK_ELF_FIXTURES) + "/libcudnn_stand_in.so", directory + "/libcudnn.so.9");
    write_truncated_copy(fs::canonical(CUDACHECK_FAKE_DRIVER).string(), directory + "/libcudnn_graph.so.9");
    const Reported reported =
        run_with({"--level", "quick", "--only", "host.os,fault.hang_in_cudnn,fault.hang", "--timeout", "1"},
                 {{"LD_LIBRARY_PATH", directory}}, test::Build::with_faults);
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    EXPECT_EQ(status_of(reported.report, "host.os"), "pass") << text_of(reported.report, "host.os");
    const nlohmann::json* hang = find_check(reported.report, "fault.hang_in_cudnn");
    ASSERT_NE(hang, nullptr);
    EXPECT_EQ((*hang)["status"], "timeout") << hang->dump();
    EXPECT_EQ((*hang)["code"], "CC605") << hang->dump();
    EXPECT_GE((*hang)["duration_ms"].get<double>(), 1000.0);
    const std::string message = (*hang)["message"].get<std::string>();
    EXPECT_TRUE(contains(message, "fault.hang_in_cudnn did not finish within 1 s (--timeout); its process was killed"))
        << message;
    EXPECT_TRUE(contains(hang->dump(),
                         "fault.hang_in_cudnn did not finish within 1 s (--timeout); its process was killed. It uses "
                         "libcudnn.so.9; "
                         "libcudnn_graph.so.9, opened by libcudnn.so.9 itself"))
        << "the account is evidence: " << hang->dump();
    EXPECT_TRUE(contains((*hang)["remediation"].get<std::string>(), "remove " + directory + "/libcudnn_graph.so.9"))
        << hang->dump();
    // A check that declares no library hangs beside it and stays CC903.
    const nlohmann::json* plain = find_check(reported.report, "fault.hang");
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ((*plain)["code"], "CC903") << plain->dump();
}

// A damaged library that cuBLAS needs (DT_NEEDED) is found before cuBLAS is opened: no process dies,
// and the file named is cuBLASLt's, not cuBLAS's (which a crash in the announced load would name).
TEST(FaultAttribution, a_truncated_cublaslt_is_named_before_cublas_is_opened) {
    const std::string cublas = installed_copy(cuda_library::cublas.soname_for(CUDART_VERSION / 1000));
    const std::string lt = installed_copy(find_library_family("cuBLASLt")->soname_for(CUDART_VERSION / 1000));
    if (cublas.empty() || lt.empty()) GTEST_SKIP() << "no cuBLAS on this machine's loader path";
    test::TempDir tree;
    const std::string truncated = fs::canonical(tree.path()).string() + "/" +
                                  std::string(find_library_family("cuBLASLt")->soname_for(CUDART_VERSION / 1000));
    write_truncated_copy(lt, truncated);
    const Reported reported =
        run_with({"--only", "host.os,driver.libcuda,cublas.gemm"},
                 {{"LD_LIBRARY_PATH", fs::path(truncated).parent_path().string() + ":" + fake_driver_dir}});
    ASSERT_FALSE(reported.report.is_null()) << reported.run.output;
    const nlohmann::json* gemm = find_check(reported.report, "cublas.gemm");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ((*gemm)["code"], "CC605") << gemm->dump();
    const std::string message = (*gemm)["message"].get<std::string>();
    EXPECT_TRUE(contains(message, "needs libcublasLt.so.") && contains(message, "resolves to a damaged file"))
        << message;
    EXPECT_TRUE(contains(gemm->dump(), truncated)) << "the evidence names the file: " << gemm->dump();
    EXPECT_TRUE(contains(message, "so it was not opened")) << message;
    EXPECT_FALSE(contains(reported.report.dump(), "killed")) << "no process died";
}

}  // namespace
}  // namespace cudacheck
