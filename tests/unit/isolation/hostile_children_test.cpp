// The programs a check runs (compilers, interpreters, tools) may be hostile. Through the built
// binary, with fixtures each test writes: a child that forges events on fd 3, on fd 251 and through
// /proc/<worker>/fd/3 changes no result; a child that kills the worker while something it started
// holds the worker's pipes is noticed at once and named; a compiler that closes its output and
// sleeps bounds `cudacheck env` and a run, and leaves no process behind; a check waiting for a hung
// program names it, not the GPU; `ulimit -s 32` runs `--level quick`; `ulimit -u 5` is the process
// limit's finding, not a crash; a `--python` path that is not UTF-8 is the path scanned. And the
// pieces: the activity board, the wording of CC902/CC903, the protocol's nonce and byte-exact paths.
#include "checks/checks.hpp"
#include "engine/check.hpp"
#include "isolation/crash_attribution.hpp"
#include "isolation/protocol.hpp"
#include "probes/process_limits.hpp"
#include "report/result_builder.hpp"
#include "support/check_judging.hpp"
#include "support/test_support.hpp"
#include "util/activity.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <grp.h>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using Clock = std::chrono::steady_clock;
using test::left_running;
using test::processes_with;
namespace fs = std::filesystem;

// A marker unique to this test process and fixture.
std::string marker(const std::string& what) { return fmt::format("cudacheck-hostile-{}-{}", what, ::getpid()); }

nlohmann::json parse_report(const std::string& output) {
    const std::size_t brace = output.find('{');
    return nlohmann::json::parse(brace == std::string::npos ? std::string("{}") : output.substr(brace), nullptr, false);
}

std::string text(const nlohmann::json& check, const char* key) {
    return check.contains(key) && check.at(key).is_string() ? check.at(key).get<std::string>() : std::string();
}

std::string path_first(const std::string& directory) {
    return directory + ":" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
}

// A forged result, spelt exactly as the worker spells one (without its nonce).
std::string forged_finished_line() {
    ResultBuilder builder;
    builder.summary("libcuda 999.99");
    CheckResult result = std::move(builder).finish("driver.libcuda", std::nullopt);
    return protocol::encode(protocol::Finished{result});
}

TEST(HostileChildren, a_child_forging_events_changes_no_result) {
    test::TempDir dir;
    const std::string forged = forged_finished_line();
    const std::string done = protocol::encode(protocol::Done{});
    // As `nvcc --version`, which toolkit.nvcc's probe runs in the worker (at --level standard: quick
    // starts no program): forges a pass for
    // driver.libcuda and a "done" on every way to the event pipe it can find, and notes which worked.
    const std::string notes = dir.path() + "/notes";
    (void)dir.write("bin/nvcc",
                    "#!/bin/bash\n"
                    "forged='" +
                        forged.substr(0, forged.size() - 1) +
                        "'\n"
                        "done_line='" +
                        done.substr(0, done.size() - 1) +
                        "'\n"
                        "for fd in 3 251; do\n"
                        "  if { printf '%s\\n%s\\n' \"$forged\" \"$done_line\" >&$fd; } 2>/dev/null; then echo \"wrote "
                        "fd $fd\" >> " +
                        notes +
                        "; fi\n"
                        "done\n"
                        "if { printf '%s\\n%s\\n' \"$forged\" \"$done_line\" > /proc/$PPID/fd/3; } 2>/dev/null; then "
                        "echo 'wrote /proc/ppid/fd/3' >> " +
                        notes +
                        "; fi\n"
                        "ls /proc/$$/fd > " +
                        notes +
                        ".fds\n"
                        "echo 'Cuda compilation tools, release 13.0, V13.0.88'\n",
                    0755);
    const test::BinaryRun clean =
        test::run_cudacheck({"--level", "standard", "--only", "driver.libcuda,toolkit.nvcc", "--format", "json"});
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "standard", "--only", "driver.libcuda,toolkit.nvcc", "--format", "json"},
                            {{"PATH", path_first(dir.path() + "/bin")}});
    ASSERT_TRUE(fs::exists(notes + ".fds")) << "the fixture ran as nvcc\n" << run.output;
    // bash keeps the script open on 255; nothing of the worker's is there.
    for (const std::string& fd : sys::split(test::read_text(notes + ".fds"), '\n'))
        EXPECT_TRUE(fd.empty() || fd == "0" || fd == "1" || fd == "2" || fd == "255")
            << "descriptor " << fd << " reached the child";
    const std::string wrote = test::read_text(notes);
    EXPECT_FALSE(contains(wrote, "wrote fd 3")) << wrote;
    EXPECT_FALSE(contains(wrote, "wrote fd 251")) << wrote;
    const nlohmann::json report = parse_report(run.output);
    const nlohmann::json expected = parse_report(clean.output);
    ASSERT_TRUE(report.contains("checks")) << run.output;
    const nlohmann::json* libcuda = test::find_check(report, "driver.libcuda");
    ASSERT_NE(libcuda, nullptr);
    EXPECT_EQ(libcuda->at("status"), test::find_check(expected, "driver.libcuda")->at("status")) << *libcuda;
    EXPECT_FALSE(contains(libcuda->dump(), "999.99")) << *libcuda;
    // The fixture's "done" did not end the run early: toolkit.nvcc has its own result.
    EXPECT_NE(test::find_check(report, "toolkit.nvcc")->at("status"), "skip") << report.dump(1);
    if (contains(wrote, "/proc/ppid/fd/3"))
        SUCCEED() << "the lines reached the pipe through /proc and were refused for their missing nonce";
}

// The case: a framework's own `__init__.py`, imported by frameworks.run's interpreter at
// --level full, forges a pass for driver.libcuda and a "done".
TEST(HostileChildren, a_torch_init_forging_events_at_level_full_changes_no_result) {
    test::TempDir dir;
    const std::string python = sys::find_in_path("python3", "/usr/bin:/usr/local/bin");
    if (python.empty()) GTEST_SKIP() << "no python3 in /usr/bin or /usr/local/bin";
    const sys::CommandResult asked =
        sys::run_command({python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"},
                         std::chrono::seconds(20));
    const std::string version(sys::trim(asked.output));
    const std::string major_minor = version.substr(0, version.rfind('.'));
    ASSERT_EQ(asked.exit_status, 0) << asked.output;
    const std::string site = dir.path() + "/venv/lib/python" + major_minor + "/site-packages/";
    fs::create_directories(site + "torch");
    fs::create_directories(dir.path() + "/venv/bin");
    fs::create_symlink(python, dir.path() + "/venv/bin/python3");
    std::ofstream(dir.path() + "/venv/pyvenv.cfg")
        << "home = " << fs::path(python).parent_path().string()
        << "\ninclude-system-site-packages = false\nversion = " << version << "\n";
    fs::copy(std::string(CUDACHECK_SOURCE_DIR) + "/tests/fixtures/frameworks/wheels/torch-2.7.1", site,
             fs::copy_options::recursive);
    fs::remove(site + "SOURCE");
    const std::string forged = forged_finished_line() + protocol::encode(protocol::Done{});
    const std::string notes = dir.path() + "/notes";
    std::ofstream(site + "torch/__init__.py")
        << "import os\n"
           "line = "
        << nlohmann::json(forged).dump()
        << "\n"
           "wrote = []\n"
           "for fd in (3, 251):\n"
           "    try:\n"
           "        os.write(fd, line.encode()); wrote.append('fd %d' % fd)\n"
           "    except OSError:\n"
           "        pass\n"
           "try:\n"
           "    with open('/proc/%d/fd/3' % os.getppid(), 'w') as pipe: pipe.write(line)\n"
           "    wrote.append('proc')\n"
           "except OSError:\n"
           "    pass\n"
           "open("
        << nlohmann::json(notes).dump()
        << ", 'w').write(' '.join(wrote) or 'nothing')\n"
           "raise ImportError('the forger')\n";
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "full", "--python", dir.path() + "/venv", "--only",
                             "driver.libcuda,frameworks.run", "--format", "json", "--timeout", "60"});
    const std::string wrote = test::read_text(notes);
    ASSERT_FALSE(wrote.empty()) << "torch/__init__.py ran\n" << run.output;
    EXPECT_FALSE(contains(wrote, "fd 3")) << wrote;
    EXPECT_FALSE(contains(wrote, "fd 251")) << wrote;
    const nlohmann::json report = parse_report(run.output);
    ASSERT_TRUE(report.contains("checks")) << run.output;
    const nlohmann::json* libcuda = test::find_check(report, "driver.libcuda");
    ASSERT_NE(libcuda, nullptr);
    EXPECT_FALSE(contains(libcuda->dump(), "999.99")) << *libcuda;
    const nlohmann::json* frameworks = test::find_check(report, "frameworks.run");
    ASSERT_NE(frameworks, nullptr);
    EXPECT_TRUE(contains(frameworks->dump(), "the forger")) << "its output is evidence: " << *frameworks;
}

TEST(HostileChildren, a_dead_worker_is_noticed_by_its_exit_while_a_child_holds_its_pipes) {
    test::TempDir dir;
    const std::string mark = marker("holder");
    // Starts a sleeper in a session of its own that holds the worker's event and output pipes, then
    // kills the worker: end of file never comes, only its exit says it is gone.
    (void)dir.write("bin/nvcc",
                    "#!/bin/bash\n"
                    "( exec -a " +
                        mark +
                        " sleep 300 3>/proc/$PPID/fd/3 1>/proc/$PPID/fd/1 2>&1 & ) </dev/null\n"
                        "setsid bash -c 'exec -a " +
                        mark +
                        " sleep 300' </dev/null >/proc/$PPID/fd/1 2>&1 3>/proc/$PPID/fd/3 &\n"
                        "kill -KILL $PPID\n"
                        "exec -a " +
                        mark + " sleep 300\n",
                    0755);
    const test::BinaryRun run = test::run_cudacheck({"--level", "standard", "--only", "host.os,toolkit.nvcc",
                                                     "--timeout", "60", "--format", "json"},
                                                    {{"PATH", path_first(dir.path() + "/bin")}});
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, 20000.0) << "the worker's death was seen at once, not at --timeout (60 s)\n" << run.output;
    const nlohmann::json report = parse_report(run.output);
    ASSERT_TRUE(report.contains("checks")) << run.output;
    const nlohmann::json* nvcc = test::find_check(report, "toolkit.nvcc");
    ASSERT_NE(nvcc, nullptr);
    EXPECT_EQ(nvcc->at("code"), "CC902") << *nvcc;
    EXPECT_TRUE(contains(text(*nvcc, "message"), "killed by SIGKILL")) << *nvcc;
    EXPECT_FALSE(contains(text(*nvcc, "remediation"), "GPU faults")) << *nvcc;
    EXPECT_EQ(test::find_check(report, "host.os")->at("status"), "pass") << report.dump(1);
    EXPECT_EQ(left_running(mark), 0u) << "what the dead worker's child started outlived the run";
}

TEST(HostileChildren, a_compiler_that_closes_its_output_and_sleeps_bounds_env_and_the_run) {
    test::TempDir dir;
    const std::string mark = marker("compiler");
    for (const char* name : {"gcc", "g++", "cc", "c++"})
        (void)dir.write(std::string("bin/") + name, "#!/bin/bash\nexec >&- 2>&-\nexec -a " + mark + " sleep 300\n",
                        0755);
    const std::vector<std::pair<std::string, std::string>> hostile = {{"PATH", path_first(dir.path() + "/bin")},
                                                                      {"CC", dir.path() + "/bin/gcc"},
                                                                      {"NVCC_CCBIN", dir.path() + "/bin/g++"}};

    // `env` used to wait in waitpid for ever; the compilers' questions have a 10 s limit.
    const test::BinaryRun env = test::run_cudacheck({"env"}, hostile);
    EXPECT_FALSE(env.timed_out) << env.output;
    EXPECT_EQ(env.exit_status, 0) << env.output;
    EXPECT_LT(env.wall_ms, 30000.0) << env.output;
    EXPECT_EQ(left_running(mark), 0u) << "a compiler `env` ran outlived it";

    const test::BinaryRun run =
        test::run_cudacheck({"--only", "toolkit.nvcc,toolkit.build", "--format", "json", "--timeout", "60"}, hostile);
    EXPECT_FALSE(run.timed_out) << run.output;
    EXPECT_LT(run.wall_ms, 30000.0) << "the 10 s limit of the compiler's questions holds, not --timeout\n"
                                    << run.output;
    const nlohmann::json report = parse_report(run.output);
    ASSERT_TRUE(report.contains("checks")) << run.output;
    for (const nlohmann::json& check : report.at("checks")) {
        EXPECT_NE(text(check, "code"), "CC903") << check;
        EXPECT_NE(text(check, "code"), "CC902") << check;
    }
    EXPECT_EQ(left_running(mark), 0u) << "a compiler the run started outlived it";
}

TEST(HostileChildren, a_check_waiting_for_a_hung_program_names_it_not_the_gpu) {
    test::TempDir dir;
    const std::string mark = marker("hung");
    (void)dir.write("bin/nvcc", "#!/bin/bash\nexec -a " + mark + " sleep 300\n", 0755);
    const test::BinaryRun run =
        test::run_cudacheck({"--level", "standard", "--only", "toolkit.nvcc", "--timeout", "3", "--format", "json"},
                            {{"PATH", path_first(dir.path() + "/bin")}});
    EXPECT_LT(run.wall_ms, 15000.0) << run.output;
    const nlohmann::json report = parse_report(run.output);
    ASSERT_TRUE(report.contains("checks")) << run.output;
    const nlohmann::json* nvcc = test::find_check(report, "toolkit.nvcc");
    ASSERT_NE(nvcc, nullptr);
    EXPECT_EQ(nvcc->at("code"), "CC903") << *nvcc;
    EXPECT_TRUE(contains(text(*nvcc, "message"), "waiting for `")) << *nvcc;
    EXPECT_TRUE(contains(nvcc->dump(), dir.path() + "/bin/nvcc")) << "the program is named: " << *nvcc;
    EXPECT_TRUE(contains(text(*nvcc, "remediation"), "by hand")) << *nvcc;
    EXPECT_FALSE(contains(text(*nvcc, "remediation"), "dmesg")) << *nvcc;
    EXPECT_EQ(left_running(mark), 0u) << "the hung program outlived the run";
}

// Forks, sets `resource` to `value` (soft and hard), optionally becomes `uid`, and runs the binary
// with `arguments`, its output into `output`. The exit status (-1: did not finish in `limit`) and the
// wall time.
struct LimitedRun {
    int exit_status = -1;
    double seconds = 0;
};
LimitedRun run_under_limit(int resource, rlim_t value, std::optional<uid_t> uid,
                           const std::vector<std::string>& arguments, const std::string& output,
                           const std::string& directory, std::chrono::seconds limit) {
    std::vector<std::string> argv{CUDACHECK_BINARY};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> pointers;
    for (std::string& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    const std::string home = "HOME=" + directory;
    const auto start = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0 || ::chdir(directory.c_str()) != 0) ::_exit(120);
        if (uid && (::setgroups(0, nullptr) != 0 || ::setgid(*uid) != 0 || ::setuid(*uid) != 0)) ::_exit(121);
        const rlimit bound{value, value};
        if (::setrlimit(resource, &bound) != 0) ::_exit(122);
        ::putenv(const_cast<char*>(home.c_str()));
        ::execv(pointers[0], pointers.data());
        ::_exit(123);
    }
    LimitedRun run;
    int status = 0;
    while (true) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (Clock::now() - start > limit) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
            return run;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

TEST(HostileChildren, a_32_kib_stack_runs_level_quick_and_host_limits_names_it) {
    test::TempDir dir;
    const std::string output = dir.path() + "/out.json";
    const LimitedRun run =
        run_under_limit(RLIMIT_STACK, 32 << 10, std::nullopt, {"--level", "quick", "--format", "json"}, output,
                        dir.path(), std::chrono::seconds(60));
    const std::string printed = test::read_text(output);
    ASSERT_EQ(run.exit_status, 1) << "a report with host.limits' failure, not a crash (139)\n" << printed;
    EXPECT_LT(run.seconds, 30.0);
    const nlohmann::json report = parse_report(printed);
    ASSERT_TRUE(report.contains("checks")) << printed;
    const nlohmann::json* limits = test::find_check(report, "host.limits");
    ASSERT_NE(limits, nullptr);
    EXPECT_EQ(limits->at("code"), "CC135") << *limits;
    EXPECT_EQ(limits->at("status"), "fail") << *limits;
    EXPECT_TRUE(contains(text(*limits, "message"), "ulimit -s")) << *limits;
    for (const nlohmann::json& check : report.at("checks")) EXPECT_NE(text(check, "code"), "CC902") << check;
    EXPECT_EQ(test::expect_codes_declared("host.limits", {"CC135"}), 1u);
}

TEST(HostileChildren, a_process_limit_of_five_is_the_limits_finding_not_a_crash) {
    test::TempDir dir;
    ::chmod(dir.path().c_str(), 0777);
    const std::string output = dir.path() + "/out.json";
    // Root is not held to RLIMIT_NPROC (fork(2)): as root the run goes to nobody.
    const std::optional<uid_t> uid = ::geteuid() == 0 ? std::optional<uid_t>(65534) : std::nullopt;
    if (uid) SKIP_UNLESS_BINARY_REACHABLE_BY(*uid);
    const LimitedRun run =
        run_under_limit(RLIMIT_NPROC, 5, uid, {"--format", "json"}, output, dir.path(), std::chrono::seconds(60));
    const std::string printed = test::read_text(output);
    ASSERT_NE(run.exit_status, -1) << "finished\n" << printed;
    ASSERT_LT(run.exit_status, 120) << "the fixture could not start it\n" << printed;
    EXPECT_EQ(run.exit_status, 1) << printed;
    EXPECT_LT(run.seconds, 30.0);
    const nlohmann::json report = parse_report(printed);
    ASSERT_TRUE(report.contains("checks")) << printed;
    std::size_t charged = 0;
    for (const nlohmann::json& check : report.at("checks")) {
        EXPECT_NE(text(check, "code"), "CC902") << check;
        EXPECT_NE(text(check, "code"), "CC901") << check;
        EXPECT_FALSE(contains(text(check, "remediation"), "GPU faults")) << check;
        if (text(check, "code") == "CC908") {
            ++charged;
            EXPECT_TRUE(contains(text(check, "message"), "ulimit -u")) << check;
            EXPECT_TRUE(contains(text(check, "remediation"), "ulimit -u")) << check;
        }
        // Where host.limits ran, it names the limit with its own code.
        if (text(check, "id") == "host.limits" && text(check, "code") != "CC908")
            EXPECT_EQ(text(check, "code"), "CC136") << check;
    }
    EXPECT_GT(charged, 0u) << printed;
}

TEST(HostileChildren, a_python_path_that_is_not_utf8_is_the_path_scanned) {
    test::TempDir dir;
    const std::string wheels = std::string(CUDACHECK_SOURCE_DIR) + "/tests/fixtures/frameworks/wheels/";
    // The environment given, named in Latin-1, holds torch 2.7.1; the path it used to become, with
    // U+FFFD for the byte, holds torch 2.0.1.
    const std::string given = dir.path() + "/venv-\xe9";
    const std::string replaced = dir.path() + "/venv-\xef\xbf\xbd";
    for (const auto& [root, wheel] :
         {std::pair{given, std::string("torch-2.7.1")}, std::pair{replaced, std::string("torch-2.0.1")}}) {
        const std::string site = root + "/lib/python3.11/site-packages/";
        fs::create_directories(site + "torch");
        fs::create_directories(root + "/bin");
        std::ofstream(root + "/pyvenv.cfg")
            << "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n";
        fs::copy(wheels + wheel, site, fs::copy_options::recursive | fs::copy_options::skip_existing);
        fs::remove(site + "SOURCE");
        std::ofstream(site + "torch/__init__.py") << "";
    }
    const test::BinaryRun run =
        test::run_cudacheck({"--python", given, "--only", "frameworks.builds", "--format", "json"});
    EXPECT_FALSE(run.timed_out);
    const nlohmann::json report = parse_report(run.output);
    ASSERT_TRUE(report.contains("frameworks")) << run.output;
    std::vector<std::string> versions;
    for (const nlohmann::json& environment : report.at("frameworks"))
        for (const nlohmann::json& framework : environment.at("frameworks"))
            if (framework.at("framework") == "PyTorch") versions.push_back(framework.at("version").get<std::string>());
    const auto found = [&versions](std::string_view release) {
        return std::any_of(versions.begin(), versions.end(),
                           [release](const std::string& version) { return version.starts_with(release); });
    };
    EXPECT_TRUE(found("2.7.1")) << report.at("frameworks").dump(1);  // "2.7.1+cu126"
    EXPECT_FALSE(found("2.0.1")) << "the U+FFFD twin was scanned";
}

// --- the pieces ---

TEST(HostileChildren, host_limits_judges_the_stack_and_the_process_limits) {
    const auto judged = [](const ProcessLimits& limits) {
        return test::judge("host.limits", [&](ResultBuilder& r) { judge_limits(limits, test::bare_host(), r); });
    };
    ProcessLimits limits;
    limits.stack.soft = limits.stack.hard = 32 << 10;
    CheckResult result = judged(limits);
    EXPECT_EQ(result.code, "CC135");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_TRUE(contains(result.message, "32 KiB")) << result.message;
    limits.stack.soft = 512 << 10;
    result = judged(limits);
    EXPECT_EQ(result.code, "CC135");
    EXPECT_EQ(result.status, Status::warn) << result.message;
    limits.stack.soft = std::uint64_t{8} << 20;
    EXPECT_EQ(judged(limits).status, Status::pass);

    limits.processes.soft = 300;
    limits.user_tasks = 290;
    result = judged(limits);
    EXPECT_EQ(result.code, "CC136");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_TRUE(contains(result.message, "the process limit (ulimit -u, 300) leaves room for 10 more"))
        << result.message;
    EXPECT_NE(std::find(result.evidence.begin(), result.evidence.end(), Evidence{"user_processes_and_threads", "290"}),
              result.evidence.end())
        << "how many this user runs is evidence";
    EXPECT_TRUE(contains(result.remediation, "ulimit -u")) << result.remediation;
    limits.exempt_from_process_limit = true;  // root: fork(2) does not hold it to the limit
    EXPECT_EQ(judged(limits).status, Status::pass);
    limits.exempt_from_process_limit = false;
    limits.user_tasks = 10;
    EXPECT_EQ(judged(limits).status, Status::pass) << "290 of room";

    // CAP_SYS_RESOURCE (24) and CAP_SYS_ADMIN (21) in CapEff exempt a process too.
    EXPECT_TRUE(parse_capability("Name:\tx\nCapEff:\t0000000001000000\n", 24));
    EXPECT_TRUE(parse_capability("CapEff:\t0000000000200000\n", 21));
    EXPECT_FALSE(parse_capability("CapEff:\t0000000000004000\n", 24));
}

TEST(HostileChildren, the_protocol_refuses_events_without_the_workers_nonce_and_keeps_path_bytes) {
    const std::string nonce = protocol::new_nonce();
    EXPECT_EQ(nonce.size(), 32u);
    EXPECT_NE(nonce, protocol::new_nonce());
    const std::string line = protocol::encode(protocol::Done{}, nonce);
    EXPECT_TRUE(protocol::decode_event(line.substr(0, line.size() - 1), nonce).has_value());
    const std::string bare = protocol::encode(protocol::Done{});
    EXPECT_FALSE(protocol::decode_event(bare.substr(0, bare.size() - 1), nonce).has_value()) << "no nonce";
    const std::string other = protocol::encode(protocol::Done{}, protocol::new_nonce());
    EXPECT_FALSE(protocol::decode_event(other.substr(0, other.size() - 1), nonce).has_value()) << "another worker's";

    protocol::Job job;
    job.parent_pid = 42;
    job.nonce = nonce;
    job.options.python = {"/tmp/venv-\xe9", "/tmp/plain", std::string("/tmp/\xff\x00z", 8)};
    job.failed_actions.push_back({actions::Action{actions::Kind::load, "/opt/lib\xe9/libcuda.so.1"}, "killed", false});
    const std::optional<protocol::Job> decoded = protocol::decode_job(protocol::encode(job), 42);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->nonce, nonce);
    EXPECT_EQ(decoded->options.python, job.options.python);
    ASSERT_EQ(decoded->failed_actions.size(), 1u);
    EXPECT_EQ(decoded->failed_actions[0].action.subject, "/opt/lib\xe9/libcuda.so.1");
    const protocol::Begun begun{7, actions::Action{actions::Kind::load, "/opt/lib\xe9/libcudnn.so.9"}};
    const std::string begun_line = protocol::encode(begun, nonce);
    const std::optional<protocol::Event> begun_back =
        protocol::decode_event(begun_line.substr(0, begun_line.size() - 1), nonce);
    ASSERT_TRUE(begun_back.has_value());
    EXPECT_EQ(std::get<protocol::Begun>(*begun_back).action.subject, begun.action.subject);
}

TEST(HostileChildren, the_activity_board_shows_what_each_thread_was_doing) {
    std::optional<activity::Board> board = activity::Board::create();
    ASSERT_TRUE(board.has_value());
    // This process becomes the worker: its threads note what they do from now on.
    ASSERT_TRUE(activity::attach(::dup(board->fd())));
    std::thread([] {
        activity::label_thread("toolkit.nvcc");
        activity::reading("/first/file");
        activity::reading("/second/file");
        activity::gpu_step("loading libcuda.so.1");
        activity::gpu_step_ended();
        activity::gpu_step("cuInit");
        const activity::Running running("/usr/bin/nvcc --version");
        // Read while the program "runs"; the thread's slot is cleared when it ends.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }).detach();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::vector<activity::ThreadActivity> threads = board->read();
    const auto nvcc =
        std::find_if(threads.begin(), threads.end(), [](const auto& thread) { return thread.check == "toolkit.nvcc"; });
    ASSERT_NE(nvcc, threads.end());
    EXPECT_EQ(nvcc->child, "/usr/bin/nvcc --version");
    EXPECT_EQ(nvcc->last_file, "/second/file");
    EXPECT_EQ(nvcc->last_gpu_step, "cuInit");
    EXPECT_TRUE(nvcc->gpu_step_in_flight);
    EXPECT_GT(nvcc->gpu_step_order, nvcc->file_order);
    EXPECT_FALSE(nvcc->torn);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::vector<activity::ThreadActivity> after = board->read();
    EXPECT_EQ(std::count_if(after.begin(), after.end(),
                            [](const auto& thread) { return thread.check == "toolkit.nvcc"; }),
              0)
        << "a thread that ended gives its slot back";
}

CheckInfo host_check(const std::string& id) { return CheckInfo{.id = id, .title = "t", .description = "d"}; }

TEST(HostileChildren, crash_and_hang_advice_names_the_gpu_only_when_a_gpu_call_may_have_been_in_flight) {
    activity::ThreadActivity reader;
    reader.check = "frameworks.builds";
    reader.last_file = "/venv/pyvenv.cfg";
    reader.file_order = 5;
    const CheckEnding crashed{"frameworks.builds crashed its process: killed by SIGSEGV (Segmentation fault)"};
    const Circumstances file = circumstances_of(host_check("frameworks.builds"), {reader}, true, {});
    EXPECT_FALSE(file.gpu);
    const Finding on_file = ending_finding(Code::check_crashed, crashed, file);
    EXPECT_TRUE(contains(on_file.message, "no GPU call was in flight")) << on_file.message;
    EXPECT_TRUE(contains(on_file.remediation, "/venv/pyvenv.cfg")) << on_file.remediation;
    EXPECT_FALSE(contains(on_file.remediation, "dmesg")) << on_file.remediation;

    activity::ThreadActivity runner;
    runner.check = "toolkit.compile";
    runner.child = "/usr/local/cuda/bin/nvcc -o x x.cu";
    const Finding on_child = ending_finding(Code::check_timed_out,
                                            CheckEnding{"toolkit.compile did not finish within 20 s (--timeout)", true},
                                            circumstances_of(host_check("toolkit.compile"), {runner}, false, {}));
    EXPECT_EQ(on_child.status, Status::timeout);
    EXPECT_TRUE(contains(on_child.message, "`/usr/local/cuda/bin/nvcc -o x x.cu`")) << on_child.message;
    EXPECT_TRUE(contains(on_child.remediation, "--timeout")) << on_child.remediation;

    // Another check's thread is not this one's, unless nothing else was in flight.
    EXPECT_TRUE(circumstances_of(host_check("host.os"), {runner}, false, {}).child.empty());

    // A GPU check, or a GPU step after the last file: the catalogue's advice.
    CheckInfo gpu_check = host_check("cublas.gemm");
    gpu_check.scope = Scope::device;
    EXPECT_TRUE(circumstances_of(gpu_check, {}, true, {}).gpu);
    EXPECT_TRUE(
        contains(ending_finding(Code::check_crashed, crashed, circumstances_of(gpu_check, {}, true, {})).remediation,
                 "dmesg"));
    // A thread of the check inside an announced GPU step (cuInit, a context, a handle, a load):
    // the catalogue's advice, naming the step; once the step ended, the file again.
    activity::ThreadActivity stepped = reader;
    stepped.last_gpu_step = "cuInit";
    stepped.gpu_step_order = 6;
    stepped.gpu_step_in_flight = true;
    const Circumstances in_step = circumstances_of(host_check("frameworks.builds"), {stepped}, true, {});
    EXPECT_TRUE(in_step.gpu);
    EXPECT_TRUE(contains(ending_finding(Code::check_crashed, crashed, in_step).message, "during a GPU step: cuInit"));
    stepped.gpu_step_in_flight = false;
    EXPECT_FALSE(circumstances_of(host_check("frameworks.builds"), {stepped}, true, {}).gpu);
    // A step in flight the supervisor saw announced counts too.
    EXPECT_TRUE(circumstances_of(host_check("frameworks.builds"), {reader}, true,
                                 {actions::Action{actions::Kind::driver_call, "cuInit"}})
                    .gpu);

    // Nothing known, on a host check: no GPU advice either.
    const Finding unknown =
        ending_finding(Code::check_crashed, crashed, circumstances_of(host_check("host.os"), {}, true, {}));
    EXPECT_FALSE(contains(unknown.remediation, "dmesg")) << unknown.remediation;
    EXPECT_TRUE(contains(unknown.message, "no GPU call was in flight")) << unknown.message;
}

}  // namespace
}  // namespace cudacheck
