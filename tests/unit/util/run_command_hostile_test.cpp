// sys::run_command and sys::spawn against children that misbehave. The limit covers the
// whole life of the child (a program that closes its output and goes on is stopped at its limit);
// a child that exits while something it started holds the pipe is finished, with its own status;
// nothing it started outlives it; it inherits no descriptor but stdin, stdout and stderr, with
// posix_spawn_file_actions_addclosefrom_np and without (glibc before 2.34).
#include "support/expected_support.hpp"
#include "support/test_support.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudacheck {
namespace {

using Clock = std::chrono::steady_clock;
using test::left_running;
using test::processes_with;

std::string marker(const char* what) { return fmt::format("cudacheck-run-command-{}-{}", what, ::getpid()); }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

TEST(RunCommandHostile, a_child_that_closes_its_output_and_sleeps_is_stopped_at_its_limit) {
    const std::string mark = marker("closed");
    const auto start = Clock::now();
    const sys::CommandResult result =
        sys::run_command({"/bin/bash", "-c", "echo before; exec >&- 2>&-; exec -a " + mark + " sleep 300"},
                         std::chrono::milliseconds(800));
    EXPECT_LT(seconds_since(start), 5.0) << "it used to wait in waitpid with no limit";
    EXPECT_TRUE(result.started);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_status, 128 + SIGKILL);
    EXPECT_EQ(result.output, "before\n");
    EXPECT_EQ(left_running(mark), 0u);
}

TEST(RunCommandHostile, a_child_that_exits_while_its_own_child_holds_the_pipe_is_finished_with_its_status) {
    const std::string mark = marker("holder");
    const auto start = Clock::now();
    const sys::CommandResult result =
        sys::run_command({"/bin/bash", "-c", "(exec -a " + mark + " sleep 300) & echo started; exit 3"},
                         std::chrono::seconds(20));
    EXPECT_LT(seconds_since(start), 5.0) << "not \"did not finish in 20 s\"";
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_status, 3);
    EXPECT_EQ(result.output, "started\n");
    EXPECT_EQ(left_running(mark), 0u) << "the sleeper outlived its parent's run";
}

TEST(RunCommandHostile, what_a_child_started_is_killed_with_it_at_its_limit) {
    const std::string mark = marker("group");
    const sys::CommandResult result =
        sys::run_command({"/bin/bash", "-c",
                          "(exec -a " + mark + " sleep 300) & (exec -a " + mark + " sleep 301) & wait"},
                         std::chrono::milliseconds(500));
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(left_running(mark), 0u);
}

TEST(RunCommandHostile, a_writer_that_never_pauses_cannot_hold_it_past_its_limit) {
    const auto start = Clock::now();
    const sys::CommandResult result = sys::run_command({"/usr/bin/yes"}, std::chrono::milliseconds(500));
    EXPECT_LT(seconds_since(start), 5.0);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.output.size(), std::size_t{1} << 20) << "the first MiB is kept";
}

// The descriptors /bin/ls sees in itself, less the one it reads the directory with.
std::vector<int> descriptors_of_a_child() {
    const sys::CommandResult result = sys::run_command({"/bin/ls", "/proc/self/fd"}, std::chrono::seconds(10));
    EXPECT_EQ(result.exit_status, 0) << result.output;
    std::vector<int> fds;
    for (const std::string& line : sys::split(result.output, '\n'))
        if (!line.empty()) fds.push_back(std::atoi(line.c_str()));
    return fds;
}

TEST(RunCommandHostile, a_child_inherits_no_descriptor_of_this_process) {
    // Descriptors without close-on-exec, as a library might leave them: 251 and the lowest free.
    const int low = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(low, 3);
    ASSERT_EQ(::dup2(low, 251), 251);
    for (const bool without_closefrom : {false, true}) {
        SCOPED_TRACE(without_closefrom ? "marked close-on-exec (glibc < 2.34)" : "closefrom when glibc has it");
        sys::testing::spawn_without_closefrom(without_closefrom);
        const std::vector<int> fds = descriptors_of_a_child();
        // 0, 1, 2, and the directory ls reads (3).
        EXPECT_LE(fds.size(), 4u);
        for (const int fd : fds) EXPECT_TRUE(fd <= 3) << "descriptor " << fd << " reached the child";
        // What spawn is asked for still arrives: a descriptor onto its own number, and one above.
        sys::SpawnRequest request;
        request.argv = {"/bin/sh", "-c", "[ -e /proc/self/fd/251 ] && [ -e /proc/self/fd/7 ] && exit 0; exit 9"};
        request.fds = {sys::ChildFd::copy(251, 251), sys::ChildFd::copy(low, 7)};
        const Expected<pid_t> pid = sys::spawn(request);
        ASSERT_TRUE(pid.has_value()) << test::error_of(pid);
        const int status = sys::wait_for(*pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << sys::describe_wait_status(status);
    }
    sys::testing::spawn_without_closefrom(false);
    ::close(251);
    ::close(low);
}

TEST(RunCommandHostile, the_users_task_count_is_read_from_proc) {
    const std::optional<std::uint64_t> tasks = sys::user_task_count(::getuid());
    ASSERT_TRUE(tasks.has_value());
    EXPECT_GE(*tasks, 1u) << "this process at least";
    EXPECT_FALSE(sys::process_limit_words().empty());
}

}  // namespace
}  // namespace cudacheck
