// The supervisor (isolation/supervisor.cpp) end to end: a faulty check costs only itself; signals.
#include "support/fixtures.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

// The build with the fault checks, for every test here.
test::BinaryRun run_cudacheck(const std::vector<std::string>& arguments) {
    return test::run_cudacheck(arguments, {}, test::Build::with_faults);
}
using Clock = std::chrono::steady_clock;
using test::contains;

std::string text_of(const nlohmann::json& check, const char* key) {
    return check.at(key).is_null() ? "" : check.at(key).get<std::string>();
}

TEST(Supervisor, pins_each_fault_on_its_own_check_and_runs_every_other_check) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const auto start = Clock::now();
    // All of them start together (host checks run concurrently): the supervisor must find which
    // one crashed by rerunning the survivors one at a time.
    const test::BinaryRun run =
        run_cudacheck({"--level", "quick", "--only",
                       "host.os,fault.segfault,fault.abort,fault.hang,fault.memory,fault.garbage,toolkit.nvcc",
                       "--timeout", "2", "--memory-limit", "256", "-o", path, "-q"});
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_EQ(run.output, "") << "nothing the checks print reaches the terminal";
    EXPECT_LT(seconds, 15.0) << "one 2 s timeout, a few restarts";
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    ASSERT_EQ(report.at("checks").size(), 7u);

    const auto* segfault = test::find_check(report, "fault.segfault");
    EXPECT_EQ(segfault->at("status"), "error");
    EXPECT_EQ(segfault->at("code"), "CC902");
    EXPECT_TRUE(contains(text_of(*segfault, "message"), "SIGSEGV")) << *segfault;
    const auto* abort = test::find_check(report, "fault.abort");
    EXPECT_EQ(abort->at("status"), "error");
    EXPECT_TRUE(contains(text_of(*abort, "message"), "SIGABRT")) << *abort;
    const auto* hang = test::find_check(report, "fault.hang");
    EXPECT_EQ(hang->at("status"), "timeout");
    EXPECT_EQ(hang->at("code"), "CC903");
    EXPECT_TRUE(contains(text_of(*hang, "message"), "within 2 s (--timeout)")) << *hang;
    EXPECT_GE(hang->at("duration_ms").get<double>(), 2000.0);
    const auto* memory = test::find_check(report, "fault.memory");
    EXPECT_EQ(memory->at("status"), "error");
    EXPECT_TRUE(contains(text_of(*memory, "message"), "over the --memory-limit of 256.0 MiB")) << *memory;
    EXPECT_TRUE(contains(text_of(*memory, "remediation"), "--memory-limit")) << *memory;
    EXPECT_EQ(test::find_check(report, "fault.garbage")->at("status"), "pass");
    for (const char* healthy : {"host.os", "toolkit.nvcc"}) {
        const std::string status = test::find_check(report, healthy)->at("status");
        EXPECT_TRUE(status == "pass" || status == "warn" || status == "fail")
            << healthy << " ran normally, not " << status;
    }
    EXPECT_EQ(report.at("summary").at("counts").at("error"), 3);
    EXPECT_EQ(report.at("summary").at("counts").at("timeout"), 1);
}

TEST(Supervisor, keeps_the_facts_a_worker_learnt_before_a_later_check_crashed_it) {
    // A toolkit of its own, whose version --level quick reads from version.json: the machine's own
    // toolkit may tell none (CI's has no version.json, and its PATH finds a wrapper first).
    test::ScratchTree tree;
    const std::string root = tree.path() + "/cuda-13.0";
    tree.write("cuda-13.0/bin/nvcc", "#!/bin/sh\nexec /bin/cat '" + test::fixture_path("nvcc/nvcc-13.0.txt") + "'\n",
               0755);
    tree.write("cuda-13.0/bin/nvcc.profile", "TOP = $(_HERE_)/..\n");
    tree.write("cuda-13.0/version.json", R"({"cuda":{"version":"13.0.2"},"cuda_nvcc":{"version":"13.0.88"}})");
    const std::string path = tree.path() + "/report.json";
    // toolkit.nvcc finishes in a worker that fault.segfault then kills; the last worker runs
    // neither, yet the report keeps the nvcc version the first one found.
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "quick", "--only", "toolkit.nvcc,fault.segfault", "-o", path, "-q"},
                            {{"PATH", root + "/bin:/usr/bin:/bin"}, {"CUDA_HOME", root}}, test::Build::with_faults);
    EXPECT_EQ(run.exit_status, 1) << run.output;
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    const auto* nvcc = test::find_check(report, "toolkit.nvcc");
    ASSERT_NE(nvcc, nullptr) << report.dump(1);
    EXPECT_NE(nvcc->at("status"), "error") << *nvcc;
    EXPECT_EQ(report.at("versions").at("nvcc"), "13.0.88") << *nvcc << "\n" << run.output;
}

TEST(Supervisor, keeps_stdout_a_valid_document_when_a_check_prints_garbage) {
    const test::BinaryRun run =
        run_cudacheck({"--level", "quick", "--only", "host.os,fault.garbage", "--format", "json"});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    const nlohmann::json report = nlohmann::json::parse(run.output);  // stdout and stderr together: only the report
    EXPECT_EQ(report.at("checks").size(), 2u);
    EXPECT_EQ(test::find_check(report, "fault.garbage")->at("status"), "pass");
}

TEST(Supervisor, bounds_the_whole_run_and_skips_what_it_did_not_reach) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run = run_cudacheck({"--level", "quick", "--only", "host.os,fault.hang", "--timeout", "60",
                                               "--run-timeout", "1", "-o", path, "-q"});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_LT(run.wall_ms, 10000.0);
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    const auto* hang = test::find_check(report, "fault.hang");
    EXPECT_EQ(hang->at("status"), "timeout");
    EXPECT_TRUE(contains(text_of(*hang, "message"), "--run-timeout")) << *hang;
    EXPECT_EQ(test::find_check(report, "host.os")->at("status"), "pass");
}

// A check queued behind a hung one (waiting for the lock it holds, as checks wait for a GPU) is not
// the one that times out: waiting does not count towards its limit, and it passes in the next worker.
TEST(Supervisor, blames_the_hung_check_not_the_one_waiting_for_it) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run = run_cudacheck(
        {"--level", "quick", "--only", "fault.lock_wait,fault.lock_hold", "--timeout", "1", "-o", path, "-q"});
    EXPECT_EQ(run.exit_status, 1) << run.output;
    EXPECT_LT(run.wall_ms, 10000.0);
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));
    const auto* hold = test::find_check(report, "fault.lock_hold");
    EXPECT_EQ(hold->at("status"), "timeout") << *hold;
    EXPECT_EQ(hold->at("code"), "CC903");
    EXPECT_EQ(test::find_check(report, "fault.lock_wait")->at("status"), "pass") << report.dump(1);
}

TEST(Supervisor, runs_in_process_when_isolation_is_off) {
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const test::BinaryRun run =
        run_cudacheck({"--level", "quick", "--only", "host.os,fault.garbage", "--no-isolation", "-o", path, "-q"});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "printed") || contains(run.output, "event"))
        << "the check prints straight to this process's output";
    EXPECT_EQ(nlohmann::json::parse(test::read_text(path)).at("checks").size(), 2u);
}

// Starts cudacheck with the fault checks on, and its output discarded; returns its pid.
pid_t start_cudacheck(const std::vector<std::string>& arguments) {
    return test::start_cudacheck(arguments, {}, test::Build::with_faults);
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, writes_the_partial_report_and_exits_128_plus_the_signal) {
    const int signal = GetParam();
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const pid_t pid = start_cudacheck({"--level", "quick", "--only", "host.os,fault.hang", "-o", path, "-q"});
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // host.os done, fault.hang hanging
    const auto sent = Clock::now();
    ASSERT_EQ(::kill(pid, signal), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 3.0) << "exits promptly";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    const nlohmann::json report = nlohmann::json::parse(test::read_text(path));  // complete JSON, never truncated
    EXPECT_EQ(report.at("exit_code"), 128 + signal);
    // host.os finishes within milliseconds; on a very loaded machine it may still have been running.
    const auto* host = test::find_check(report, "host.os");
    EXPECT_TRUE(host->at("status") == "pass" || contains(text_of(*host, "skip_reason"), "interrupted")) << *host;
    const auto* hang = test::find_check(report, "fault.hang");
    EXPECT_EQ(hang->at("status"), "skip");
    EXPECT_TRUE(
        contains(text_of(*hang, "skip_reason"), signal == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)"))
        << *hang;
}

INSTANTIATE_TEST_SUITE_P(SigintAndSigterm, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& param) {
                             return param.param == SIGINT ? std::string("sigint") : std::string("sigterm");
                         });

}  // namespace
}  // namespace cudacheck
