// Child processes and the pipes to them: one way to start a program (posix_spawn, no shell), for
// sys::run_command, the supervisor's worker (isolation/worker_process.hpp) and the tests.
#pragma once

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
    [[nodiscard]] static ChildFd open(std::string path, int flags, int child) { return ChildFd{child, -1, std::move(path), flags}; }
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

// Starts the program; its pid, or an empty optional and `error` (the system's message).
[[nodiscard]] std::optional<pid_t> spawn(const SpawnRequest& request, std::string& error);

// Waits for the child to end (through EINTR) and returns its wait status.
int wait_for(pid_t pid);

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
