// Child processes and the pipes to them: one way to start a program (posix_spawn, no shell), for
// sys::run_command, the supervisor's worker (isolation/worker_process.hpp) and the tests.
#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace cudacheck::sys {

// An open file descriptor, closed when the object goes away.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd = -1) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        reset(std::exchange(other.fd_, -1));
        return *this;
    }
    ~FileDescriptor() { reset(); }
    void reset(int fd = -1);
    [[nodiscard]] int get() const { return fd_; }

private:
    int fd_;
};

// Both ends close on exec: a child gets an end only through a ChildFd.
struct Pipe {
    FileDescriptor read;
    FileDescriptor write;
    // Empty optional with errno set on failure.
    [[nodiscard]] static std::optional<Pipe> open();
};

// What one descriptor of the child becomes: a copy of one of ours, or a file opened for it.
struct ChildFd {
    int child = -1;
    int parent = -1;
    std::string path;
    int flags = 0;
    [[nodiscard]] static ChildFd copy(int parent, int child) { return ChildFd{child, parent, {}, 0}; }
    [[nodiscard]] static ChildFd open(std::string path, int flags, int child) {
        return ChildFd{child, -1, std::move(path), flags};
    }
};

struct SpawnRequest {
    std::vector<std::string> argv;  // argv[0] is the program's path (no PATH search)
    const std::vector<std::string>* environment = nullptr;  // "NAME=value" entries; nullptr: this process's
    std::vector<ChildFd> fds;
    bool own_process_group = false;  // the child leads a new process group (a signal to -pid reaches all it starts)
    // SIGINT, SIGTERM and SIGPIPE at their default action and no signal blocked in the child, whatever
    // this process does with them meanwhile (an ignored signal stays ignored across exec).
    bool default_signals = false;
};

// Starts the program; its pid, or the error (the system's message and errno). The child
// gets the descriptors `fds` names and no other one of this process (otherwise a compiler or an
// interpreter a check ran inherits the worker's event pipe and can forge results). Where the C
// library has posix_spawn_file_actions_addclosefrom_np (glibc 2.34, looked up at run time: the
// release binary runs on 2.28) the child closes them; otherwise every descriptor of this process
// from 3 up is marked close-on-exec first (close_range(2) with CLOSE_RANGE_CLOEXEC, or one by one
// from /proc/self/fd), which cudacheck's own descriptors are anyway.
[[nodiscard]] Expected<pid_t> spawn(const SpawnRequest& request);

// Waits for the child to end (through EINTR) and returns its wait status.
int wait_for(pid_t pid);

// Whether the child has ended, without reaping it (waitid WNOWAIT): a process group it leads stays
// a valid target for kill(-pid) until wait_for reaps it. A child that is no longer ours to wait for
// (reaped elsewhere, SIGCHLD ignored) counts as ended.
[[nodiscard]] bool has_ended(pid_t pid);
// A descriptor that becomes readable when the child ends (pidfd_open(2), Linux 5.3), to poll beside
// its pipes; -1 where the kernel has none: then poll no longer than `ended_poll_interval` at a time
// and ask has_ended.
[[nodiscard]] FileDescriptor open_end_descriptor(pid_t pid);
inline constexpr int ended_poll_interval_ms = 50;

// SIGKILL to every process group that spawn started as a group leader (own_process_group) and that
// is not reaped yet: the children cudacheck runs and what they started. Async-signal-safe, for a
// stop signal that ends the process at once, so that no child outlives cudacheck.
void kill_spawned_groups();

// The children of process `pid` (/proc/<pid>/task/*/children, Linux 3.5; else a scan of
// /proc/*/stat), e.g. what a worker still runs after it said it is done.
[[nodiscard]] std::vector<pid_t> children_of(pid_t pid);
// The processes whose /proc/<pid>/comm is `name` as the kernel keeps it, cut to 15 characters
// (TASK_COMM_LEN 16, proc(5)): "nvidia-persistenced" runs as "nvidia-persiste". Reads the pid
// entries of `proc` ("/proc", or a test's fixture), at most `limit` of them; nullopt when `proc`
// cannot be listed.
[[nodiscard]] std::optional<std::vector<pid_t>> processes_named(const std::string& proc, std::string_view name,
                                                                std::size_t limit);
// SIGKILL to `pid`, and to its process group when it leads one other than this process's.
void kill_with_group(pid_t pid);

// For a process that is a child subreaper (prctl PR_SET_CHILD_SUBREAPER: the supervisor): kills and
// reaps its children that spawn did not start, i.e. those that came to it when their parent died
// (a worker killed while a compiler ran, and what that compiler started), in rounds, since killing
// one hands its own children over. A child leading its own process group is killed with its group.
// Returns how many it killed.
std::size_t kill_adopted_children();

// Tasks (processes and their threads) whose real user is `uid`, as the kernel counts them against
// RLIMIT_NPROC (fork(2): "the number of extant process (more precisely on Linux, threads) for the
// real user ID"), from /proc/<pid>/status; none when /proc cannot be read. Only the processes this
// PID namespace shows.
[[nodiscard]] std::optional<std::uint64_t> user_task_count(unsigned uid);
// "the process limit (RLIMIT_NPROC, ulimit -u) is 5 and this user runs 7 processes and threads",
// for a fork, posix_spawn or thread creation that failed with EAGAIN.
[[nodiscard]] std::string process_limit_words();

namespace testing {
// Makes spawn take the path without posix_spawn_file_actions_addclosefrom_np, as on glibc < 2.34.
void spawn_without_closefrom(bool without);
}  // namespace testing

// Reads a non-blocking descriptor until it has nothing more for now, handing each chunk to `take`;
// true at end of file.
bool read_available(int fd, const std::function<void(std::string_view)>& take);
// Writes all of `bytes` (through EINTR); false when the reader is gone or the write failed.
bool write_all(int fd, std::string_view bytes);

// "SIGSEGV", "SIGINT", "signal 42".
[[nodiscard]] std::string signal_name(int signal);
// "killed by SIGSEGV (Segmentation fault)", "exited with status 3", from a waitpid status.
[[nodiscard]] std::string describe_wait_status(int status);

}  // namespace cudacheck::sys
