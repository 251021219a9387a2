// Cross-cutting, so at the top level: the files a user hands cudacheck, and the ones it writes, when
// they are not what they seem, and the limits and signals it writes them under. Through
// the binary: a FIFO as an input never hangs, input nested a million levels deep is one error, `-o`
// replaces only regular files (and writes through a symlink to one), a name at the filesystem's
// limit works, a full stdout is an error, and a threshold of nan is refused; a damaged CUDA library
// fails only the checks that use it; a SIGINT, SIGTERM or SIGHUP at any early moment never leaves a
// temporary file and ends with the documented exit code, with --no-isolation too, and an ignored
// SIGHUP (nohup) stays ignored; a write past `ulimit -f` or onto a full filesystem is exit 2 with
// the reason, the old report kept and no temporary file left; fleet names dangling and looping
// links as unreadable nodes; a file name with control characters stays one harmless line.
#include "cuda/library_families.hpp"
#include "support/expected_support.hpp"
#include "support/test_support.hpp"
#include "util/elf_dynamic.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the cuBLAS soname cudacheck opens
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using test::contains;
using test::run_cudacheck;
namespace fs = std::filesystem;

const std::string report = std::string(CUDACHECK_SOURCE_DIR) + "/docs/examples/h200/cudacheck.json";
const std::string fake_driver_dir = fs::path(CUDACHECK_FAKE_DRIVER).parent_path().string();

TEST(HostileFiles, a_fifo_as_any_input_is_refused_at_once) {
    test::TempDir dir;
    const std::string fifo = dir.path() + "/report.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
             {"diff", fifo, report}, {"fleet", fifo}, {"--only", "host.os", "--expect", fifo}, {"inspect", fifo}}) {
        const test::BinaryRun run = run_cudacheck(arguments);
        EXPECT_FALSE(run.timed_out) << arguments.front();
        EXPECT_LT(run.wall_ms, 10000.0) << arguments.front();
        EXPECT_NE(run.exit_status, 0) << arguments.front() << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "a FIFO, not a regular file")) << arguments.front() << "\n" << run.output;
    }
}

TEST(HostileFiles, a_fifo_inside_a_python_environment_given_with_python_never_hangs) {
    // --python names an environment root whose pyvenv.cfg is a FIFO: the probes read it without
    // blocking, as a file they cannot read.
    test::TempDir dir;
    const std::string root = dir.make_dir("venv");
    (void)dir.make_dir("venv/bin");
    ASSERT_EQ(::mkfifo((root + "/pyvenv.cfg").c_str(), 0600), 0);
    const test::BinaryRun run =
        run_cudacheck({"--python", root, "--only", "frameworks.builds", "-q", "--timeout", "30"});
    EXPECT_FALSE(run.timed_out);
    EXPECT_LT(run.wall_ms, 20000.0) << run.output;
    EXPECT_FALSE(contains(run.output, "CC903")) << run.output;
}

TEST(HostileFiles, json_nested_a_million_levels_deep_is_one_clear_error) {
    test::TempDir dir;
    const std::string deep = dir.write("deep.json", std::string(1000000, '[') + std::string(1000000, ']'));
    const test::BinaryRun diff = run_cudacheck({"diff", deep, report});
    EXPECT_EQ(diff.exit_status, 2) << diff.output;
    EXPECT_TRUE(contains(diff.output, "nested deeper than 1000 levels")) << diff.output;
    const test::BinaryRun expect = run_cudacheck({"--only", "host.os", "--expect", deep});
    EXPECT_EQ(expect.exit_status, 2) << expect.output;
    EXPECT_TRUE(contains(expect.output, "nested deeper than 1000 levels")) << expect.output;
    // In a fleet, that node is unreadable and the others are still summarised.
    fs::copy_file(report, dir.path() + "/good.json");
    const test::BinaryRun fleet = run_cudacheck({"fleet", dir.path()});
    EXPECT_EQ(fleet.exit_status, 1) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "UNREADABLE")) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "nested deeper than 1000 levels")) << fleet.output;
    EXPECT_TRUE(contains(fleet.output, "1 x NVIDIA H200")) << "the readable node is still summarised\n" << fleet.output;
}

TEST(HostileFiles, a_report_larger_than_the_limit_says_so) {
    test::TempDir dir;
    const std::string huge = dir.path() + "/huge.json";
    std::ofstream(huge).close();
    fs::resize_file(huge, std::uintmax_t{65} << 20);  // sparse: no disk used
    const test::BinaryRun run = run_cudacheck({"diff", huge, report});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "more than the 64 MiB this reads")) << run.output;
}

TEST(HostileFiles, output_replaces_only_regular_files_and_writes_through_a_symlink) {
    test::TempDir dir;
    const test::BinaryRun device = run_cudacheck({"--only", "host.os", "-q", "-o", "/dev/null"});
    EXPECT_EQ(device.exit_status, 2) << device.output;
    EXPECT_TRUE(contains(device.output, "/dev/null is a character device: -o writes only regular files"))
        << device.output;
    struct stat status{};
    ASSERT_EQ(::stat("/dev/null", &status), 0);
    EXPECT_TRUE(S_ISCHR(status.st_mode));

    const std::string target = dir.write("reports/real.json", "old");
    const std::string link = dir.symlink(target, "latest.json");
    const test::BinaryRun through = run_cudacheck({"--only", "host.os", "-q", "-o", link});
    EXPECT_EQ(through.exit_status, 0) << through.output;
    EXPECT_TRUE(fs::is_symlink(link)) << "the link stays";
    EXPECT_TRUE(contains(test::read_text(target), "\"schema_version\"")) << "the file it names is replaced";

    const std::string dangling = dir.symlink(dir.path() + "/missing/x.json", "dangling.json");
    const test::BinaryRun nowhere = run_cudacheck({"--only", "host.os", "-q", "-o", dangling});
    EXPECT_EQ(nowhere.exit_status, 2) << nowhere.output;
    EXPECT_TRUE(contains(nowhere.output, "is a symbolic link to nothing")) << nowhere.output;
    for (const auto& entry : fs::directory_iterator(dir.path()))
        EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp."))
            << "a temporary file was left: " << entry.path();
}

TEST(HostileFiles, an_output_name_at_the_filesystems_limit_works) {
    test::TempDir dir;
    const std::string name = std::string(250, 'r') + ".json";  // 255 bytes
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", dir.path() + "/" + name});
    EXPECT_EQ(run.exit_status, 0) << run.output;
    EXPECT_TRUE(fs::exists(dir.path() + "/" + name));
}

TEST(HostileFiles, a_full_stdout_is_an_error_with_a_message) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
    const sys::CommandResult run =
        sys::run_command({"/bin/sh", "-c", std::string("exec '") + CUDACHECK_BINARY + "' list > /dev/full"},
                         std::chrono::seconds(30));
    ASSERT_TRUE(run.started) << run.error;
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "cannot write to standard output: No space left on device")) << run.output;
}

TEST(HostileFiles, a_damaged_cuda_library_first_on_ld_library_path_fails_only_the_checks_that_use_it) {
    // As a full disk, a partial download or a wrong copy leaves it, named as cuBLAS: the first half of
    // a real shared library, an empty file, a library of another architecture, and text.
    const std::string whole = test::read_text(std::string(CUDACHECK_ELF_FIXTURES) + "/librpath_shape.so");
    std::string other_machine = whole;
    const std::uint16_t machine = native_elf_machine() == 62 ? 183 : 62;  // AArch64 on x86-64, and back
    other_machine[0x12] = static_cast<char>(machine & 0xff), other_machine[0x13] = static_cast<char>(machine >> 8);
    const std::vector<std::pair<std::string, std::string>> copies = {{"truncated: its headers describe",
                                                                      whole.substr(0, whole.size() / 2)},
                                                                     {"empty", ""},
                                                                     {"built for", other_machine},
                                                                     {"not an ELF file", "INPUT(-lcublas_real)\n"}};
    for (const auto& [why, bytes] : copies) {
        SCOPED_TRACE(why);
        test::TempDir dir;
        const std::string soname(cuda_library::cublas.soname_for(CUDART_VERSION / 1000));
        const std::string damaged = dir.write("lib/" + soname, bytes);
        const std::string report_path = dir.path() + "/report.json";
        const test::BinaryRun run =
            run_cudacheck({"--only", "host.os,env.variables,driver.libcuda,libraries.resolution,cublas.gemm", "-o",
                           report_path, "-q"},
                          {{"LD_LIBRARY_PATH", dir.path() + "/lib:" + fake_driver_dir}});
        EXPECT_EQ(run.exit_status, 1) << run.output;
        const auto report = nlohmann::json::parse(test::read_text(report_path));
        for (const char* unaffected : {"host.os", "env.variables", "driver.libcuda"}) {
            const auto* check = test::find_check(report, unaffected);
            ASSERT_NE(check, nullptr) << unaffected;
            EXPECT_EQ((*check)["status"], "pass") << unaffected << ": " << (*check)["message"];
        }
        for (const char* affected : {"libraries.resolution", "cublas.gemm"}) {
            const auto* check = test::find_check(report, affected);
            ASSERT_NE(check, nullptr) << affected;
            EXPECT_EQ((*check)["status"], "fail") << affected;
            EXPECT_EQ((*check)["code"], "CC605") << affected << ": " << (*check)["message"];
            // The headline names the library; the file and its damage are in the check's account (evidence).
            const std::string message = check->dump();
            EXPECT_TRUE(contains(message, damaged) && contains(message, why)) << affected << ": " << message;
        }
        EXPECT_FALSE(contains(report.dump(), "CC902")) << "nothing crashed";
    }
}

TEST(HostileFiles, a_file_name_with_a_newline_and_an_escape_sequence_stays_one_harmless_line) {
    test::TempDir dir;
    const std::string name = dir.path() + "/evil\n\x1b[2Jname.json";
    const test::BinaryRun run = run_cudacheck({"diff", name, report});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_EQ(test::line_count(run.output), 1u) << run.output;
    EXPECT_TRUE(contains(run.output, "evil\\n\\x1b[2Jname.json")) << run.output;
    EXPECT_FALSE(contains(run.output, "\x1b")) << "no raw escape reaches the terminal";
}

TEST(HostileFiles, a_threshold_that_is_not_a_finite_number_is_refused) {
    for (const char* command : {"diff", "fleet"}) {
        const std::vector<std::string> arguments =
            std::string(command) == "diff" ? std::vector<std::string>{"diff", report, report, "--threshold", "nan"}
                                           : std::vector<std::string>{"fleet", report, "--threshold", "nan"};
        const test::BinaryRun run = run_cudacheck(arguments);
        EXPECT_EQ(run.exit_status, 2) << command << "\n" << run.output;
        EXPECT_TRUE(contains(run.output, "'nan' is not a finite number")) << command << "\n" << run.output;
    }
}

// The temporary files (".NAME.tmp.XXXXXX", ".cudacheck.tmp.XXXXXX") in a directory.
std::vector<std::string> temporary_files(const std::string& directory) {
    std::vector<std::string> found;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(directory, ignored))
        if (contains(entry.path().filename().string(), ".tmp.")) found.push_back(entry.path().filename().string());
    return found;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// Runs a shell line (for `ulimit`, `trap` and redirections), stdout and stderr captured together.
sys::CommandResult run_shell(const std::string& line) {
    return sys::run_command({"/bin/sh", "-c", line}, std::chrono::seconds(60));
}

TEST(HostileFiles, a_signal_at_any_early_moment_leaves_no_temporary_file_and_the_documented_exit_code) {
    // 300 runs of `-o report.json`, each sent SIGINT, SIGTERM or SIGHUP at a random moment in its
    // first 30 ms (before the handlers exist, while the temporary file is new, during the checks,
    // after them), four at a time. Before the handlers were installed first, 14 of 300 left
    // `.report.json.tmp.XXXXXX` behind.
    using Clock = std::chrono::steady_clock;
    constexpr int trials = 300;
    constexpr int at_once = 4;
    constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP};
    std::mt19937 random(18);  // reproducible moments
    std::uniform_int_distribution<int> moment_us(0, 30000);
    test::TempDir dir;
    std::map<std::string, int> outcomes;  // what happened, how often
    for (int first = 0; first < trials; first += at_once) {
        struct Trial {
            int number;
            int signal;
            std::string directory;
            pid_t pid = -1;
            Clock::time_point send_at;
        };
        std::vector<Trial> batch;
        for (int number = first; number < std::min(trials, first + at_once); ++number) {
            Trial trial{number, signals[number % 3], dir.make_dir("trial-" + std::to_string(number))};
            trial.pid = test::start_cudacheck({"--only", "host.os", "-q", "-o", trial.directory + "/report.json"});
            ASSERT_GT(trial.pid, 0);
            trial.send_at = Clock::now() + std::chrono::microseconds(moment_us(random));
            batch.push_back(std::move(trial));
        }
        std::vector<Trial*> by_moment;
        for (Trial& trial : batch) by_moment.push_back(&trial);
        std::sort(by_moment.begin(), by_moment.end(),
                  [](const Trial* a, const Trial* b) { return a->send_at < b->send_at; });
        for (Trial* trial : by_moment) {
            std::this_thread::sleep_until(trial->send_at);
            ::kill(trial->pid, trial->signal);  // may find it already gone (ESRCH is fine: it finished)
        }
        for (Trial& trial : batch) {
            int status = 0;
            ASSERT_EQ(::waitpid(trial.pid, &status, 0), trial.pid);
            const std::string name =
                "trial " + std::to_string(trial.number) + " (" + sys::signal_name(trial.signal) + ")";
            EXPECT_EQ(temporary_files(trial.directory), std::vector<std::string>{}) << name << " left a temporary file";
            const std::string report_path = trial.directory + "/report.json";
            if (WIFSIGNALED(status)) {
                // The default action: before cudacheck had set anything up (nothing was created), or
                // as it exited, with everything written and the handlers gone (a complete report).
                EXPECT_EQ(WTERMSIG(status), trial.signal) << name;
                if (!fs::exists(report_path)) {
                    ++outcomes["killed before set-up"];
                    continue;
                }
                const auto written = nlohmann::json::parse(test::read_text(report_path), nullptr, false);
                EXPECT_FALSE(written.is_discarded()) << name << " was killed with a report that is not complete JSON";
                EXPECT_EQ(written.value("exit_code", -1), 0) << name << " was killed after an interrupted report";
                ++outcomes["killed as it exited, the report complete"];
                continue;
            }
            ASSERT_TRUE(WIFEXITED(status)) << name;
            const int code = WEXITSTATUS(status);
            EXPECT_TRUE(code == 0 || code == 128 + trial.signal) << name << " exited " << code;
            ASSERT_TRUE(fs::exists(report_path)) << name << " exited " << code << " without its report";
            const auto written = nlohmann::json::parse(test::read_text(report_path), nullptr, false);
            ASSERT_FALSE(written.is_discarded()) << name << ": the report is not complete JSON";
            EXPECT_EQ(written.value("exit_code", -1), code) << name << ": the report's exit_code is not the process's";
            ++outcomes[code == 0 ? "finished before the signal" : "interrupted, exit 128 + signal"];
        }
    }
    std::string summary;
    for (const auto& [outcome, count] : outcomes) summary += fmt::format("{}: {}; ", outcome, count);
    std::cout << "[          ] " << summary << '\n';
    EXPECT_GT(outcomes["interrupted, exit 128 + signal"], 0)
        << "no trial was interrupted mid-run, so the handlers went untested: " << summary;
}

TEST(HostileFiles, a_signal_with_no_isolation_removes_the_temporary_file_and_exits_128_plus_the_signal) {
    // Nothing polls for the signal when the checks run in cudacheck's own process: it ends at once.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    const pid_t pid = test::start_cudacheck({"--no-isolation", "--only", "host.os,fault.hang", "-q", "-o", path}, {},
                                            test::Build::with_faults);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // fault.hang hanging, the temporary file there
    ASSERT_EQ(temporary_files(dir.path()).size(), 1u) << "the temporary file exists while the checks run";
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
    EXPECT_EQ(temporary_files(dir.path()), std::vector<std::string>{});
    EXPECT_FALSE(fs::exists(path));
}

TEST(HostileFiles, an_ignored_sighup_stays_ignored) {
    // `nohup cudacheck ...`: a hangup must not stop the run.
    test::TempDir dir;
    const std::string path = dir.path() + "/report.json";
    sys::SpawnRequest request;
    request.argv = {"/bin/sh", "-c",
                    "trap '' HUP; exec " + quoted(CUDACHECK_WITH_FAULTS_BINARY) +
                        " --only host.os,fault.hang --timeout 1 -q -o " + quoted(path)};
    request.fds = {sys::ChildFd::open("/dev/null", O_WRONLY, 1), sys::ChildFd::open("/dev/null", O_WRONLY, 2)};
    request.own_process_group = true;
    const Expected<pid_t> pid = sys::spawn(request);
    ASSERT_TRUE(pid) << test::error_of(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ASSERT_EQ(::kill(*pid, SIGHUP), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(*pid, &status, 0), *pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1) << "fault.hang timed out, the run was not interrupted";
    const nlohmann::json written = nlohmann::json::parse(test::read_text(path));
    EXPECT_EQ(test::find_check(written, "fault.hang")->at("status"), "timeout");
}

TEST(HostileFiles, a_write_past_the_file_size_limit_is_exit_2_naming_the_limit) {
    // `ulimit -f` used to kill the run with SIGXFSZ and leave half a temporary file.
    test::TempDir dir;
    const std::string target = dir.write("report.json", "the old report");
    const sys::CommandResult file =
        run_shell("ulimit -f 1 && exec " + quoted(CUDACHECK_BINARY) + " --only host.os -q -o " + quoted(target));
    ASSERT_TRUE(file.started) << file.error;
    EXPECT_EQ(file.exit_status, 2) << file.output;
    // /bin/sh counts 512-byte blocks (dash) or 1024-byte ones (bash).
    EXPECT_TRUE(
        contains(file.output, "cannot write " + target + ": File too large (the file-size limit, ulimit -f, is "))
        << file.output;
    EXPECT_TRUE(contains(file.output, "512 bytes)") || contains(file.output, "1 KiB)")) << file.output;
    EXPECT_EQ(test::read_text(target), "the old report");
    EXPECT_EQ(temporary_files(dir.path()), std::vector<std::string>{});

    const std::string printed = dir.path() + "/printed.json";
    const sys::CommandResult stdout_run = run_shell("ulimit -f 1 && exec " + quoted(CUDACHECK_BINARY) +
                                                    " --only host.os --format json > " + quoted(printed));
    ASSERT_TRUE(stdout_run.started) << stdout_run.error;
    EXPECT_EQ(stdout_run.exit_status, 2) << stdout_run.output;
    EXPECT_TRUE(contains(stdout_run.output,
                         "cannot write to standard output: File too large (the file-size limit, ulimit -f, is "))
        << stdout_run.output;

    // The other subcommands too: `list` printing past the limit.
    const sys::CommandResult listing =
        run_shell("ulimit -f 1 && exec " + quoted(CUDACHECK_BINARY) + " list > " + quoted(dir.path() + "/list.txt"));
    ASSERT_TRUE(listing.started) << listing.error;
    EXPECT_EQ(listing.exit_status, 2) << listing.output;
    EXPECT_TRUE(contains(listing.output,
                         "cannot write to standard output: File too large (the file-size limit, ulimit -f, is "))
        << listing.output;
}

TEST(HostileFiles, output_onto_a_full_filesystem_is_exit_2_and_keeps_the_old_report) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
    test::TempDir dir;
    const std::string full = dir.make_dir("full");
    if (::mount("tmpfs", full.c_str(), "tmpfs", 0, "size=64k") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    struct Unmount {
        std::string path;
        ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
    } unmount{full};
    const std::string target = full + "/report.json";
    std::ofstream(target) << "the old report";
    {
        // Fill what is left, page by page, until the filesystem says no.
        const int filler = ::open((full + "/filler").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        ASSERT_GE(filler, 0);
        const std::string page(4096, 'x');
        while (::write(filler, page.data(), page.size()) > 0) {}
        EXPECT_EQ(errno, ENOSPC);
        ::close(filler);
    }
    const test::BinaryRun run = run_cudacheck({"--only", "host.os", "-q", "-o", target});
    EXPECT_EQ(run.exit_status, 2) << run.output;
    EXPECT_TRUE(contains(run.output, "cannot write " + target + ": No space left on device")) << run.output;
    EXPECT_EQ(test::read_text(target), "the old report");
    EXPECT_EQ(temporary_files(full), std::vector<std::string>{});

    const sys::CommandResult printed = run_shell("exec " + quoted(CUDACHECK_BINARY) +
                                                 " --only host.os --format json > " + quoted(full + "/printed.json"));
    ASSERT_TRUE(printed.started) << printed.error;
    EXPECT_EQ(printed.exit_status, 2) << printed.output;
    EXPECT_TRUE(contains(printed.output, "cannot write to standard output: No space left on device")) << printed.output;
}

TEST(HostileFiles, fleet_names_dangling_and_looping_links_as_unreadable_nodes) {
    test::TempDir dir;
    fs::copy_file(report, dir.path() + "/good.json");
    dir.symlink(dir.path() + "/gone.json", "dangling.json");
    dir.symlink(dir.path() + "/loop-b.json", "loop-a.json");
    dir.symlink(dir.path() + "/loop-a.json", "loop-b.json");
    const test::BinaryRun table = run_cudacheck({"fleet", dir.path()});
    EXPECT_EQ(table.exit_status, 1) << table.output;
    EXPECT_TRUE(contains(table.output, "1 x NVIDIA H200")) << "the readable node is still summarised\n" << table.output;
    EXPECT_TRUE(contains(table.output, "4 node(s): 1 without failures, 3 failed or unreadable")) << table.output;

    const test::BinaryRun json = run_cudacheck({"fleet", dir.path(), "--format", "json"});
    const auto document = nlohmann::json::parse(json.output);
    std::map<std::string, std::string> errors;
    for (const auto& node : document.at("nodes"))
        if (!node.at("error").is_null())
            errors[node.at("node").get<std::string>()] = node.at("error").get<std::string>();
    ASSERT_EQ(errors.size(), 3u) << json.output;
    EXPECT_TRUE(contains(errors["dangling"], "a symbolic link to nothing (it points to " + dir.path() + "/gone.json)"))
        << errors["dangling"];
    for (const char* loop : {"loop-a", "loop-b"})
        EXPECT_TRUE(contains(errors[loop], "too many levels of symbolic links")) << errors[loop];

    // Named on the command line, a dangling link is an unreadable node too, not "no such file".
    const test::BinaryRun named = run_cudacheck({"fleet", report, dir.path() + "/dangling.json"});
    EXPECT_EQ(named.exit_status, 1) << named.output;
    EXPECT_TRUE(contains(named.output, "UNREADABLE") && contains(named.output, "a symbolic link to nothing"))
        << named.output;
}

}  // namespace
}  // namespace cudacheck
